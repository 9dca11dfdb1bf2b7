// The address at the other end of a request's connection. Bun.serve knows it
// (server.requestIP) but Elysia's context does not: Herald calls app.handle
// from its own Bun.serve, so Elysia's `server` is null and every client
// looked alike to the per-client throttles, one counter for everyone. The
// server's fetch records each request's peer here, before routing.
//
// A request handled in-process (app.handle without a socket: the tests, the
// docs page asking for /openapi.json) has no peer unless its caller names one
// with `withPeer`; routes that count per client refuse it rather than count it
// with every other (src/accounts/session.ts clientAddress).
const peers = new WeakMap<Request, string>()

/** Records who sent `request`, and returns it. */
export function withPeer(request: Request, address: string): Request {
  peers.set(request, address)
  return request
}

/** The address of the connection that sent `request`, if anyone said. */
export const peerOf = (request: Request): string | undefined => peers.get(request)
