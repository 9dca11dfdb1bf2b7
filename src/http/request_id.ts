// Every request's id, so that its log lines can be found together: the caller's
// X-Request-Id when it is one a log can carry safely (1 to 128 characters of
// letters, digits and `._:-+=/@`), so that a proxy's or a client's id follows
// the request into Herald's logs; otherwise a new UUIDv7. It is echoed in the
// response's X-Request-Id, and every log line about the request carries it
// (requestLog).
import type { Logger } from '../core/log'

export const REQUEST_ID_HEADER = 'x-request-id'
const ACCEPTED = /^[A-Za-z0-9._:+=/@-]{1,128}$/

const ids = new WeakMap<Request, string>()

/** The request's id, decided on first use and then fixed. */
export function requestIdOf(request: Request): string {
  let id = ids.get(request)
  if (id === undefined) {
    const given = request.headers.get(REQUEST_ID_HEADER)
    id = given !== null && ACCEPTED.test(given) ? given : Bun.randomUUIDv7()
    ids.set(request, id)
  }
  return id
}

/** A logger whose every line names the request: `{requestId}`. */
export const requestLog = (log: Logger, request: Request): Logger => log.child({ requestId: requestIdOf(request) })
