// Sessions are bounded, on every backend. An account keeps at most
// HERALD_MAX_SESSIONS_PER_USER live sessions (web sessions and app tokens
// together): signing in once more revokes the least recently used, at once.
// An app token unused for HERALD_APP_TOKEN_IDLE_DAYS stops working with a 401
// that says so; using it starts the count again, recorded at most once a
// minute rather than on every request. Before, every sign-in added a session
// that lived until signed out, and an app token never expired.
import { describe, expect, test } from 'bun:test'
import { hashSecret } from '../../src/core/keys'
import { createSession } from '../../src/accounts/users'
import { backends, useTestHerald, type TestHerald } from '../harness'
import { bearerCall, PASSWORD, signUp, type Person } from '../users'

const SESSIONS = 3
const IDLE_DAYS = 2

const signIn = async (h: TestHerald, email: string, client: 'app' | 'web' = 'app') => {
  const res = await fetch(h.url + '/v1/auth/signin', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD, client }) })
  expect(res.status).toBe(200)
  return { body: (await res.json()) as { token?: string }, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? '' }
}
const me = (h: TestHerald, token: string) => bearerCall(h, token)('GET', '/v1/me')

for (const backend of backends) {
  describe(`sessions per account and idle app tokens (${backend})`, () => {
    const h = useTestHerald(backend, { HERALD_MAX_SESSIONS_PER_USER: String(SESSIONS), HERALD_APP_TOKEN_IDLE_DAYS: String(IDLE_DAYS) })
    const live = async (p: Person) =>
      (await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM user_tokens WHERE user_id = ${p.userId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`)[0]!.n
    /** Makes a token look unused since `ms` ago. */
    const lastUsed = (token: string, ms: number) => h.db.sql`
      UPDATE user_tokens SET last_used_at = now() - ${ms} * interval '1 ms', created_at = now() - ${ms} * interval '1 ms' WHERE hash = ${hashSecret(token)}`
    const lastUseOf = async (token: string) => (await h.db.sql<{ at: Date | null }[]>`SELECT last_used_at AS at FROM user_tokens WHERE hash = ${hashSecret(token)}`)[0]!.at

    test(`an account keeps ${SESSIONS} live sessions: one more sign-in ends the least recently used, at once`, async () => {
      const person = await signUp(h) // its first session
      const second = (await signIn(h, person.email)).body.token!
      const third = (await signIn(h, person.email)).body.token!
      expect(await live(person)).toBe(SESSIONS)
      // The second is the least recently used, though not the oldest.
      await lastUsed(second, 3_600_000)
      const fourth = (await signIn(h, person.email)).body.token!
      expect(await live(person)).toBe(SESSIONS)
      expect((await me(h, second)).status).toBe(401)
      for (const token of [person.token, third, fourth]) expect((await me(h, token)).status).toBe(200)
      // A web session counts too, and pushes out the least recently used app token.
      await lastUsed(person.token, 3_600_000)
      const web = await signIn(h, person.email, 'web')
      expect((await fetch(h.url + '/v1/me', { headers: { cookie: web.cookie } })).status).toBe(200)
      expect((await me(h, person.token)).status).toBe(401)
      expect(await live(person)).toBe(SESSIONS)
      // Sign-ins at once cannot leave one too many. Over HTTP they queue for
      // their password hashes, so sessions are also opened directly, 30 at
      // once, each on a connection of its own where there are several.
      await Promise.all(Array.from({ length: 6 }, () => signIn(h, person.email)))
      expect(await live(person)).toBe(SESSIONS)
      await Promise.all(Array.from({ length: 30 }, () => createSession(h.db.sql, person.userId, 'app', SESSIONS)))
      expect(await live(person)).toBe(SESSIONS)
    }, 60_000)

    test(`an app token unused for ${IDLE_DAYS} days is a 401 that says why; use keeps it alive, written at most once a minute`, async () => {
      const person = await signUp(h)
      const day = 24 * 3_600_000
      // Unused for just under the idle time: it works, and the use is recorded.
      await lastUsed(person.token, IDLE_DAYS * day - 3_600_000)
      expect((await me(h, person.token)).status).toBe(200)
      let refreshed: Date | null = null
      for (let i = 0; i < 100 && !(refreshed && Date.now() - refreshed.getTime() < 60_000); i++) {
        refreshed = await lastUseOf(person.token)
        await Bun.sleep(20)
      }
      expect(Date.now() - refreshed!.getTime()).toBeLessThan(60_000)
      // More uses within the minute write nothing.
      for (let i = 0; i < 5; i++) expect((await me(h, person.token)).status).toBe(200)
      await Bun.sleep(100)
      expect((await lastUseOf(person.token))!.getTime()).toBe(refreshed!.getTime())
      // Unused for longer: a 401 naming the setting, and it stays so.
      await lastUsed(person.token, IDLE_DAYS * day + 60_000)
      const refused = await me(h, person.token)
      expect(refused.status).toBe(401)
      const problem = (await refused.json()) as { type: string; detail: string }
      expect(problem.type).toBe('https://herald.dev/problems/unauthorized')
      expect(problem.detail).toContain(`not used for ${IDLE_DAYS} days (HERALD_APP_TOKEN_IDLE_DAYS)`)
      expect((await me(h, person.token)).status).toBe(401)
      // Signing in again gives a working token.
      expect((await me(h, (await signIn(h, person.email)).body.token!)).status).toBe(200)
    }, 60_000)

    test('a token the operator issued and nobody used expires from when it was made; a web session is not an app token', async () => {
      const ws = await h.workspace()
      const added = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: `member-${Date.now()}@example.com` })
      expect(added.status).toBe(201)
      const { userToken } = (await added.json()) as { userToken: string }
      await h.db.sql`UPDATE user_tokens SET created_at = now() - ${IDLE_DAYS + 1} * interval '1 day' WHERE hash = ${hashSecret(userToken)} AND last_used_at IS NULL`
      expect((await me(h, userToken)).status).toBe(401)
      // A web session unused for as long still works: it lasts 30 days from its last use.
      const person = await signUp(h)
      const web = await signIn(h, person.email, 'web')
      await h.db.sql`UPDATE user_tokens SET last_used_at = now() - ${IDLE_DAYS + 1} * interval '1 day' WHERE user_id = ${person.userId} AND kind = 'web'`
      expect((await fetch(h.url + '/v1/me', { headers: { cookie: web.cookie } })).status).toBe(200)
    }, 60_000)
  })
}
