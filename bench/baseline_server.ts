// The ceiling Herald is measured against: a bare Bun.serve that parses the
// same JSON body as POST /event and answers 200 with a small JSON body, with no
// framework, no auth and no database. Started by ingest.ts as its own process
// so that it competes for the CPU exactly as Herald does.
//
//   PORT=0 bun bench/baseline_server.ts   → prints {"port":<n>} once listening
const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  development: false,
  async fetch(req) {
    if (req.method !== 'POST') return new Response('not found', { status: 404 })
    const body = (await req.json()) as { message?: unknown }
    return Response.json({ ok: typeof body.message === 'string' })
  },
})
console.log(JSON.stringify({ port: server.port }))
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => (server.stop(true), process.exit(0)))
