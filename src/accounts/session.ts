// Who a request is, as a person: `Authorization: Bearer <token>` (the app's
// hrlu_… token) or the dashboard's session cookie (hrls_…). A cookie alone
// never authorises a change: unsafe methods must also send the session's CSRF
// token in `X-CSRF-Token`, which another site cannot read or set.
import type { Sql } from '../core/db'
import { bearer } from '../core/keys'
import { isWellFormedSecret } from '../core/keys'
import { USER_TOKEN_PREFIX } from './members'
import { clientUnknown, csrfFailed, idleToken, unauthorizedUser } from '../core/errors'
import { peerOf } from '../core/peer'
import { DAY_MS, SESSION_PREFIX, WEB_SESSION_MS, csrfMatches, findSession, lookupSession, touchSession, type Session } from './users'

export const SESSION_COOKIE = 'herald_session'
/** OpenAPI security of the routes a signed-in person calls: a bearer token or the session cookie. */
export const userSecurity: Record<string, string[]>[] = [{ userToken: [] }, { session: [] }]
const TOUCH_MS = 60_000
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS'])

export function cookieValue(request: Request, name: string): string | null {
  const header = request.headers.get('cookie')
  if (!header) return null
  for (const part of header.split(';')) {
    const i = part.indexOf('=')
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim() || null
  }
  return null
}

/** The Set-Cookie of a new web session; Secure when the dashboard is served over https. */
export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${WEB_SESSION_MS / 1000}${secure ? '; Secure' : ''}`
}
export const clearedSessionCookie = (secure: boolean) => `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`

/** `appTokenIdleDays`: HERALD_APP_TOKEN_IDLE_DAYS, after which an unused app token stops working. */
export function createUserAuth(sql: Sql, appTokenIdleDays: number) {
  const idleMs = appTokenIdleDays * DAY_MS
  // Each request is authenticated once, however many hooks and handlers ask.
  const byRequest = new WeakMap<Request, Promise<Session>>()
  // Sessions are looked up in PostgreSQL on every request, never cached: a
  // sign-out or a password reset ends them at once on every instance. Only
  // the record of use is spared: once a minute per session is enough.
  const touched = new Map<number, number>()

  async function lookup(token: string): Promise<Session | null> {
    const session = await lookupSession(sql, token, idleMs)
    if (session === 'idle') throw idleToken(appTokenIdleDays)
    if (session && !((touched.get(session.tokenId) ?? 0) > Date.now() - TOUCH_MS)) {
      if (touched.size > 10_000) touched.clear()
      touched.set(session.tokenId, Date.now())
      void touchSession(sql, session.tokenId).catch(() => {})
    }
    return session
  }

  async function verify(request: Request): Promise<Session> {
    const token = bearer(request.headers.get('authorization'))
    if (token) {
      const session = isWellFormedSecret(token, USER_TOKEN_PREFIX) || isWellFormedSecret(token, SESSION_PREFIX) ? await lookup(token) : null
      if (!session) throw unauthorizedUser()
      return session
    }
    const cookie = cookieValue(request, SESSION_COOKIE)
    const session = cookie && isWellFormedSecret(cookie, SESSION_PREFIX) ? await lookup(cookie) : null
    if (!session) throw unauthorizedUser()
    if (!SAFE.has(request.method) && !csrfMatches(session, request.headers.get('x-csrf-token'))) {
      throw csrfFailed()
    }
    return session
  }

  return {
    /** The session of this request, or 401; 403 for a cookie-authenticated change without the CSRF token. */
    authenticate(request: Request): Promise<Session> {
      let session = byRequest.get(request)
      if (!session) byRequest.set(request, (session = verify(request)))
      return session
    },
    /** Whether a session is still live (a long-lived stream re-checks its own). */
    async stillValid(token: string): Promise<boolean> {
      return (await findSession(sql, token, idleMs)) !== null
    },
    /** Whether a session cookie's value would sign its request in, as `authenticate` reads it. */
    async liveCookie(cookie: string): Promise<boolean> {
      return isWellFormedSecret(cookie, SESSION_PREFIX) && (await findSession(sql, cookie, idleMs)) !== null
    },
    /** The token of the request, to revoke it (sign-out). */
    tokenOf(request: Request): string | null {
      return bearer(request.headers.get('authorization')) ?? cookieValue(request, SESSION_COOKIE)
    },
  }
}
export type UserAuth = ReturnType<typeof createUserAuth>

// A proxy appends the address it saw to whatever X-Forwarded-For the client
// sent (nginx's $proxy_add_x_forwarded_for, most load balancers), so only
// the rightmost hop is the trusted proxy's: the ones before it are the
// client's to choose, and would let it pick its own throttle counters. An
// address is at most 45 characters (IPv6 with an IPv4 tail), with perhaps a
// port or zone; a hop that is not one is no proxy's, and the socket's
// address stands in.
const FORWARDED_ADDRESS = /^[0-9A-Za-z.:[\]%_-]{1,64}$/

/**
 * The client's address, for sign-in and e-mail throttling: the rightmost
 * X-Forwarded-For hop behind a trusted proxy, else the socket's peer
 * (src/http/peer.ts). With neither, a 500 (logged at error): a request
 * counted under a shared "unknown" would let one client lock everyone out,
 * and one counted under a key of its own would never be throttled.
 */
export function clientAddress(request: Request, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')
    const hop = forwarded?.slice(forwarded.lastIndexOf(',') + 1).trim()
    if (hop && FORWARDED_ADDRESS.test(hop)) return hop
  }
  const peer = peerOf(request)
  if (!peer) throw clientUnknown()
  return peer
}

/**
 * Whether the dashboard is reached over https (then its cookie is Secure).
 * Behind a trusted proxy, the rightmost X-Forwarded-Proto hop says: as with
 * X-Forwarded-For, a proxy that appends keeps what the client wrote before
 * its own, so only the last one is the proxy's.
 */
export function isHttps(request: Request, trustProxy: boolean): boolean {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-proto')
    if (forwarded?.slice(forwarded.lastIndexOf(',') + 1).trim().toLowerCase() === 'https') return true
  }
  return request.url.startsWith('https:')
}
