// Authentication of people on the device API: `Authorization: Bearer hrlu_…`,
// a user token from POST /admin/workspaces/{ws}/members (sign-in comes with
// the accounts issue). Verified tokens are trusted for a few seconds.
import type { Sql } from './db'
import { bearer } from './auth'
import { isWellFormedSecret } from './keys'
import { USER_TOKEN_PREFIX, findUserByToken } from './members'
import { HeraldError } from './problems'

export interface User {
  userId: string
  email: string
}

const TTL_MS = 2000

export function createUserAuth(sql: Sql) {
  const cache = new Map<string, { user: User | null; expires: number }>()
  return async function authenticate(header: string | null): Promise<User> {
    const token = bearer(header)
    if (!token || !isWellFormedSecret(token, USER_TOKEN_PREFIX)) throw unauthorizedUser()
    const hit = cache.get(token)
    if (hit && hit.expires > Date.now()) {
      if (hit.user) return hit.user
      throw unauthorizedUser()
    }
    const user = await findUserByToken(sql, token)
    if (cache.size > 10_000) cache.clear()
    cache.set(token, { user, expires: Date.now() + TTL_MS })
    if (!user) throw unauthorizedUser()
    return user
  }
}
export type UserAuth = ReturnType<typeof createUserAuth>

export const unauthorizedUser = () =>
  new HeraldError('unauthorized', 'A valid user token is required: send "Authorization: Bearer <user token>".', undefined, { 'www-authenticate': 'Bearer' })
