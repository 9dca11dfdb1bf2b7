// The account page's routes on every backend: a person lists their live
// sessions (paged, this one marked, never a secret) and ends one; changes
// their password (the current one checked and counted like a sign-in; every
// other session ends, this one stays); and an owner renames a workspace
// (members, keys and events stay; the old name is free; an API key's answers
// name the new one at once). What an attacker or a careless user tries: another
// person's session, a wrong current password ten times, a member renaming,
// a taken name, two changes at once.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { bearerCall, PASSWORD, signUp, type Person } from '../users'
import { expectFieldError, expectProblem } from '../support'

type Sessions = { sessions: { id: number; kind: 'web' | 'app'; userAgent: string | null; createdAt: string; lastUsedAt: string | null; expiresAt: string | null; current: boolean }[]; nextCursor: string | null }

for (const backend of backends) {
  describe(`the account (${backend})`, () => {
    const h = useTestHerald(backend)
    const signIn = async (email: string, password: string, userAgent = 'account-test', client: 'app' | 'web' = 'app') =>
      fetch(`${h.url}/v1/auth/signin`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': userAgent }, body: JSON.stringify({ email, password, client }) })
    const tokenOf = async (email: string, password = PASSWORD, userAgent?: string) => {
      const res = await signIn(email, password, userAgent)
      expect(res.status).toBe(200)
      return ((await res.json()) as { token: string }).token
    }
    const live = async (token: string) => (await bearerCall(h, token)('GET', '/v1/me')).status

    describe('sessions', () => {
      let me: Person
      let phone = ''
      let laptop = ''
      beforeAll(async () => {
        me = await signUp(h)
        phone = await tokenOf(me.email, PASSWORD, 'HeraldApp/1.0 (iPhone)')
        laptop = await tokenOf(me.email, PASSWORD, 'Mozilla/5.0 (X11; Linux) Chrome/131')
      })

      test('listed newest first, this one marked, with what opened each, never a secret; paged with a cursor', async () => {
        const res = await bearerCall(h, laptop)('GET', '/v1/me/sessions')
        expect(res.status).toBe(200)
        const page = (await res.json()) as Sessions
        expect(page.sessions.length).toBe(3)
        // The third is the sign-up's, by Bun's fetch.
        expect(page.sessions.map((s) => s.userAgent)).toEqual(['Mozilla/5.0 (X11; Linux) Chrome/131', 'HeraldApp/1.0 (iPhone)', expect.stringMatching(/^Bun\//)])
        expect(page.sessions.map((s) => s.current)).toEqual([true, false, false])
        expect(page.sessions.every((s) => s.kind === 'app' && !Number.isNaN(Date.parse(s.createdAt)))).toBe(true)
        expect(JSON.stringify(page)).not.toContain('hrlu_')
        // One at a time: each once, in the same order.
        const seen: number[] = []
        let cursor: string | null = ''
        while (cursor !== null) {
          const p = (await (await bearerCall(h, laptop)('GET', `/v1/me/sessions?limit=1${cursor ? `&cursor=${cursor}` : ''}`)).json()) as Sessions
          expect(p.sessions.length).toBe(1)
          seen.push(p.sessions[0]!.id)
          cursor = p.nextCursor
        }
        expect(seen).toEqual(page.sessions.map((s) => s.id))
        await expectProblem(await bearerCall(h, laptop)('GET', '/v1/me/sessions?limit=0'), 400)
        await expectProblem(await bearerCall(h, laptop)('GET', '/v1/me/sessions?cursor=abc'), 400)
        await expectProblem(await fetch(`${h.url}/v1/me/sessions`), 401)
      })

      test("ending one signs that app out at once; another person's session, an ended one and a bad id are refused", async () => {
        const list = (await (await bearerCall(h, laptop)('GET', '/v1/me/sessions')).json()) as Sessions
        const phoneId = list.sessions.find((s) => s.userAgent?.includes('iPhone'))!.id
        const stranger = await signUp(h)
        // Another person cannot end mine (404, as for an id that does not exist).
        await expectProblem(await stranger.call('DELETE', `/v1/me/sessions/${phoneId}`), 404)
        expect(await live(phone)).toBe(200)
        expect((await bearerCall(h, laptop)('DELETE', `/v1/me/sessions/${phoneId}`)).status).toBe(204)
        expect(await live(phone)).toBe(401)
        await expectProblem(await bearerCall(h, laptop)('DELETE', `/v1/me/sessions/${phoneId}`), 404)
        await expectProblem(await bearerCall(h, laptop)('DELETE', '/v1/me/sessions/x'), 400)
        expect(await live(laptop)).toBe(200)
        // A web session needs the CSRF token for this change, like any other.
        const web = await signIn(me.email, PASSWORD, 'browser', 'web')
        const cookie = web.headers.get('set-cookie')!.split(';')[0]!
        const noCsrf = await fetch(`${h.url}/v1/me/sessions/${list.sessions[0]!.id}`, { method: 'DELETE', headers: { cookie } })
        expect(noCsrf.status).toBe(403)
        expect(await live(laptop)).toBe(200)
      })
    })

    describe('password', () => {
      test('a wrong current password and a short new one are 400s at their fields; nothing changes', async () => {
        const me = await signUp(h)
        await expectFieldError(await me.call('POST', '/v1/me/password', { currentPassword: 'not it at all', newPassword: 'a brand new password' }), '/currentPassword')
        await expectFieldError(await me.call('POST', '/v1/me/password', { currentPassword: PASSWORD, newPassword: 'short' }), '/newPassword')
        await expectProblem(await me.call('POST', '/v1/me/password', { newPassword: 'a brand new password' }), 400)
        expect((await signIn(me.email, PASSWORD)).status).toBe(200)
      })

      test('changed: every other session ends, this one stays; the new password signs in, the old one does not', async () => {
        const me = await signUp(h)
        const other = await tokenOf(me.email)
        const res = await me.call('POST', '/v1/me/password', { currentPassword: PASSWORD, newPassword: 'a brand new password' })
        expect(res.status).toBe(204)
        expect(await live(me.token)).toBe(200)
        expect(await live(other)).toBe(401)
        expect((await signIn(me.email, PASSWORD)).status).toBe(401)
        expect((await signIn(me.email, 'a brand new password')).status).toBe(200)
        const sessions = (await (await me.call('GET', '/v1/me/sessions')).json()) as Sessions
        expect(sessions.sessions.filter((s) => s.current).length).toBe(1)
      })

      test('a stolen session cannot guess the password: wrong current passwords are throttled like sign-ins', async () => {
        const me = await signUp(h)
        const statuses: number[] = []
        for (let i = 0; i < 12; i++) statuses.push((await me.call('POST', '/v1/me/password', { currentPassword: `guess number ${i}`, newPassword: 'a brand new password' })).status)
        expect(statuses.slice(0, 5).every((s) => s === 400)).toBe(true)
        expect(statuses.at(-1)).toBe(429)
        const last = await me.call('POST', '/v1/me/password', { currentPassword: PASSWORD, newPassword: 'a brand new password' })
        expect(last.status).toBe(429)
        expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0)
      })

      test('two changes at once: exactly one of the new passwords works afterwards', async () => {
        const me = await signUp(h)
        const [a, b] = await Promise.all(['first new password', 'second new password'].map((newPassword) => me.call('POST', '/v1/me/password', { currentPassword: PASSWORD, newPassword })))
        expect([a!.status, b!.status].every((s) => s === 204 || s === 400)).toBe(true)
        const works = await Promise.all(['first new password', 'second new password', PASSWORD].map(async (p) => (await signIn(me.email, p)).status === 200))
        expect(works.filter(Boolean).length).toBe(1)
        expect(works[2]).toBe(false)
      })
    })

    describe('renaming a workspace', () => {
      test("an owner renames it: its key, its events and its members stay; the old name is free; the key's answers name the new one", async () => {
        const owner = await signUp(h)
        const old = owner.workspace
        const key = ((await (await owner.call('POST', `/v1/workspaces/${old}/keys`, { name: 'ci' })).json()) as { apiKey: string }).apiKey
        const post = async () => (await (await fetch(`${h.url}/event`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'm' }) })).json()) as { workspace: string; eventId: string }
        expect((await post()).workspace).toBe(old)
        const renamed = `${old}-renamed`
        const res = await owner.call('PATCH', `/v1/workspaces/${old}`, { name: renamed })
        expect(res.status).toBe(200)
        expect(await res.json()).toEqual({ workspace: renamed, role: 'owner', defaultChannel: 'general' })
        await expectProblem(await owner.call('GET', `/v1/workspaces/${old}`), 404)
        expect((await owner.call('GET', `/v1/workspaces/${renamed}`)).status).toBe(200)
        const after = await post()
        expect(after.workspace).toBe(renamed)
        const feed = (await (await owner.call('GET', `/v1/feed?workspace=${renamed}`)).json()) as { events: { eventId?: string; id?: string }[] }
        expect(feed.events.length).toBe(2)
        // The old name is free: a new workspace may take it.
        expect((await owner.call('POST', '/v1/workspaces', { name: old })).status).toBe(201)
      })

      test('a member or an admin may not; a taken or invalid name is refused; two renames to one name: one wins', async () => {
        const owner = await signUp(h)
        const ws = owner.workspace
        const added = (await (await h.admin('POST', `/admin/workspaces/${ws}/members`, { email: `m-${Date.now()}@example.com`, role: 'admin' })).json()) as { userToken: string }
        await expectProblem(await bearerCall(h, added.userToken)('PATCH', `/v1/workspaces/${ws}`, { name: `${ws}-x` }), 403)
        const other = await signUp(h)
        await expectProblem(await owner.call('PATCH', `/v1/workspaces/${ws}`, { name: other.workspace }), 409)
        await expectFieldError(await owner.call('PATCH', `/v1/workspaces/${ws}`, { name: 'Not A Slug' }), '/name')
        await expectProblem(await owner.call('PATCH', `/v1/workspaces/${ws}`, { name: 'x', monthlyQuota: 5 }), 400)
        const target = `${ws}-race`
        const [a, b] = await Promise.all([owner.call('PATCH', `/v1/workspaces/${ws}`, { name: target }), other.call('PATCH', `/v1/workspaces/${other.workspace}`, { name: target })])
        expect([a.status, b.status].toSorted()).toEqual([200, 409])
      })
    })
  })
}
