// Who a request is, as a person: `Authorization: Bearer <token>` (the app's
// hrlu_… token) or the dashboard's session cookie (hrls_…). A cookie alone
// never authorises a change: unsafe methods must also send the session's CSRF
// token in `X-CSRF-Token`, which another site cannot read or set. Verified
// sessions are trusted for a couple of seconds; a sign-out forgets its own
// at once, and every instance within that time.
import type { Sql } from './db'
import { bearer } from './auth'
import { isWellFormedSecret } from './keys'
import { USER_TOKEN_PREFIX } from './members'
import { HeraldError } from './problems'
import { SESSION_PREFIX, WEB_SESSION_MS, csrfMatches, findSession, touchSession, type Session } from './accounts'

export const SESSION_COOKIE = 'herald_session'
/** OpenAPI security of the routes a signed-in person calls: a bearer token or the session cookie. */
export const userSecurity: Record<string, string[]>[] = [{ userToken: [] }, { session: [] }]
const TTL_MS = 2000
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

export const unauthorizedUser = () =>
  new HeraldError('unauthorized', 'Sign in first: send "Authorization: Bearer <user token>", or the session cookie of the dashboard.', undefined, { 'www-authenticate': 'Bearer' })

export function createUserAuth(sql: Sql) {
  const cache = new Map<string, { session: Session | null; expires: number }>()

  async function lookup(token: string): Promise<Session | null> {
    const hit = cache.get(token)
    if (hit && hit.expires > Date.now()) return hit.session
    const session = await findSession(sql, token)
    if (cache.size > 10_000) cache.clear()
    cache.set(token, { session, expires: Date.now() + TTL_MS })
    if (session) void touchSession(sql, session.tokenId).catch(() => {})
    return session
  }

  return {
    /** The session of this request, or 401; 403 for a cookie-authenticated change without the CSRF token. */
    async authenticate(request: Request): Promise<Session> {
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
        throw new HeraldError('csrf-failed', 'This change needs the X-CSRF-Token header of your session (GET /v1/me gives it).')
      }
      return session
    },
    /** The token of the request, to revoke it (sign-out). */
    tokenOf(request: Request): string | null {
      return bearer(request.headers.get('authorization')) ?? cookieValue(request, SESSION_COOKIE)
    },
    forget(token: string) {
      cache.delete(token)
    },
  }
}
export type UserAuth = ReturnType<typeof createUserAuth>

/** The client's address, for sign-in throttling: the socket's, or the first X-Forwarded-For hop behind a trusted proxy. */
export function clientAddress(request: Request, server: { requestIP(r: Request): { address: string } | null } | null | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim()
    if (forwarded) return forwarded
  }
  return server?.requestIP(request)?.address ?? 'unknown'
}

/** Whether the dashboard is reached over https (then its cookie is Secure). */
export function isHttps(request: Request, trustProxy: boolean): boolean {
  if (trustProxy && request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https') return true
  return request.url.startsWith('https:')
}
