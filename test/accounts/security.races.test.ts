// Two requests at once against every invariant a person's requests can
// break, on every backend: a workspace keeps an owner, the sign-in limit
// holds however many attempts arrive together, a link (reset, sign-up,
// invitation) works once, a name is taken once, and the default channel is
// always a channel that exists. Each race is run many times: a check made
// before an await and a change made after it lose some of them.
import { describe, expect, test } from 'bun:test'
import { backends, useTestHerald, type TestHerald } from '../harness'
import { PASSWORD, bearerCall, newEmail, signUp, signUpLink, type Person } from '../users'
import { SIGNIN_LIMITS } from '../../src/accounts/throttle'

const ROUNDS = 15
const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const statuses = async (responses: Promise<Response>[]) => (await Promise.all(responses)).map((r) => r.status).sort()

for (const backend of backends) {
  describe(`races (${backend})`, () => {
    const h = useTestHerald(backend)

    const post = (path: string, body: unknown) => fetch(h.url + path, json(body))

    // People are made through the operator API: sign-ups e-mail a link, and
    // the e-mails one client address may cause are throttled.
    /** A member of `workspace` with `role`, and their bearer token. */
    async function person(workspace: string, role: 'owner' | 'admin' | 'member', email = newEmail(role)): Promise<Person> {
      const res = await h.admin('POST', `/admin/workspaces/${workspace}/members`, { email, role })
      expect(res.status).toBe(201)
      const { userId, userToken } = (await res.json()) as { userId: string; userToken: string }
      return { email, userId, token: userToken, workspace, call: bearerCall(h, userToken) }
    }
    /** A new workspace with two owners. */
    async function twoOwners(): Promise<[Person, Person]> {
      const { name } = await h.workspace()
      return [await person(name, 'owner'), await person(name, 'owner')]
    }

    const roles = async (workspace: string) =>
      (await h.db.sql<{ role: string }[]>`SELECT m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE w.name = ${workspace}`).map((r) => r.role)

    test(`two owners demoting each other at once: one wins, the workspace keeps an owner (${ROUNDS} rounds)`, async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const [a, b] = await twoOwners()
        const got = await statuses([
          a.call('PATCH', `/v1/workspaces/${a.workspace}/members/${b.userId}`, { role: 'member' }),
          b.call('PATCH', `/v1/workspaces/${a.workspace}/members/${a.userId}`, { role: 'member' }),
        ])
        expect(got.filter((s) => s === 200)).toHaveLength(1)
        expect(got.filter((s) => s !== 200).every((s) => s === 403 || s === 409)).toBe(true)
        expect((await roles(a.workspace)).filter((r) => r === 'owner')).toHaveLength(1)
      }
    }, 120_000)

    test(`the two owners of a workspace leaving at once: one leaves, the other stays its owner (${ROUNDS} rounds)`, async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const [a, b] = await twoOwners()
        const got = await statuses([
          a.call('DELETE', `/v1/workspaces/${a.workspace}/members/${a.userId}`),
          b.call('DELETE', `/v1/workspaces/${a.workspace}/members/${b.userId}`),
        ])
        expect(got).toEqual([204, 409])
        expect(await roles(a.workspace)).toEqual(['owner'])
      }
    }, 120_000)

    test('an owner demoting the other owner while that one leaves: an owner remains', async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const [a, b] = await twoOwners()
        await Promise.all([
          a.call('PATCH', `/v1/workspaces/${a.workspace}/members/${b.userId}`, { role: 'member' }),
          a.call('DELETE', `/v1/workspaces/${a.workspace}/members/${a.userId}`),
        ])
        expect((await roles(a.workspace)).filter((r) => r === 'owner').length).toBeGreaterThanOrEqual(1)
      }
    }, 120_000)

    test(`40 wrong passwords for one account at once: ${SIGNIN_LIMITS.email} are judged, the rest are 429 with Retry-After`, async () => {
      const p = await signUp(h)
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => post('/v1/auth/signin', { email: p.email, password: `wrong password ${i}` })))
      const got = answers.map((r) => r.status)
      expect(got.filter((s) => s === 401)).toHaveLength(SIGNIN_LIMITS.email)
      expect(got.filter((s) => s === 429)).toHaveLength(40 - SIGNIN_LIMITS.email)
      for (const r of answers.filter((r) => r.status === 429)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
      // The right password is refused too until the window ends.
      expect((await post('/v1/auth/signin', { email: p.email, password: PASSWORD })).status).toBe(429)
    }, 60_000)

    test('30 sign-ins at once are hashed one at a time: memory stays flat, /healthz answers meanwhile', async () => {
      const p = await signUp(h)
      let slowest = 0
      let running = true
      const rss0 = process.memoryUsage().rss / 2 ** 20
      let rssPeak = rss0
      const probe = (async () => {
        while (running) {
          rssPeak = Math.max(rssPeak, process.memoryUsage().rss / 2 ** 20)
          const t0 = performance.now()
          await (await fetch(`${h.url}/healthz`)).arrayBuffer()
          slowest = Math.max(slowest, performance.now() - t0)
          await Bun.sleep(10)
        }
      })()
      // 30 addresses, so no account's throttle applies: each is a real argon2 check.
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => post('/v1/auth/signin', { email: i ? newEmail('flood') : p.email, password: i ? PASSWORD : 'wrong password' })))
      running = false
      await probe
      expect(answers.map((r) => r.status)).toEqual(Array(30).fill(401))
      // Hashed on the event loop, 30 hashes would hold /healthz for 3 s; a
      // busy CI machine adds tens of milliseconds of its own.
      expect(slowest).toBeLessThan(500)
      // argon2id takes 64 MiB per hash in flight: one at a time, that is all.
      expect(rssPeak - rss0).toBeLessThan(24)
    }, 60_000)

    test('a reset link used twice at once sets one password', async () => {
      const p = await signUp(h)
      expect((await post('/v1/auth/password-reset', { email: p.email })).status).toBe(202)
      const token = await mailedToken(h, p.email, /\/reset\/([A-Za-z0-9_-]+)/)
      const got = await statuses([
        post('/v1/auth/password-reset/confirm', { token, password: 'first new passphrase' }),
        post('/v1/auth/password-reset/confirm', { token, password: 'second new passphrase' }),
      ])
      expect(got).toEqual([204, 400])
      const worked = await statuses([
        post('/v1/auth/signin', { email: p.email, password: 'first new passphrase' }),
        post('/v1/auth/signin', { email: p.email, password: 'second new passphrase' }),
      ])
      expect(worked).toEqual([200, 401])
    }, 30_000)

    test('a sign-up link used twice at once creates one account', async () => {
      // The first account of a fresh install is made at once; every later one by link.
      await signUp(h)
      const email = newEmail('twice')
      expect((await post('/v1/auth/signup', { email, password: PASSWORD })).status).toBe(202)
      const token = await signUpLink(h, email)
      const got = await statuses([post('/v1/auth/signup/confirm', { token }), post('/v1/auth/signup/confirm', { token })])
      expect(got).toEqual([201, 400])
      const [n] = await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM users WHERE lower(email) = lower(${email})`
      expect(n!.n).toBe(1)
    }, 30_000)

    test('an invitation accepted twice at once makes one membership, and is used once', async () => {
      const { name } = await h.workspace()
      const owner = await person(name, 'owner')
      const invitee = await person((await h.workspace()).name, 'member')
      const res = await owner.call('POST', `/v1/workspaces/${owner.workspace}/invitations`, { email: invitee.email, role: 'admin' })
      const token = ((await res.json()) as { link: string }).link.split('/invite/')[1]!
      const got = await statuses([invitee.call('POST', `/v1/invitations/${token}/accept`), invitee.call('POST', `/v1/invitations/${token}/accept`)])
      expect(got).toEqual([200, 404])
      expect((await roles(owner.workspace)).sort()).toEqual(['admin', 'owner'])
    }, 30_000)

    test('two workspaces created with one name at once: one 201, one 409', async () => {
      const p = await person((await h.workspace()).name, 'member')
      for (let i = 0; i < 5; i++) {
        const name = `race-${process.pid}-${Date.now().toString(36)}-${i}`
        const got = await statuses([
          p.call('POST', '/v1/workspaces', { name }),
          h.admin('POST', '/admin/workspaces', { name }),
        ])
        expect(got).toEqual([201, 409])
      }
    }, 30_000)

    test('deleting a channel while it is made the default: the default is always a channel that exists', async () => {
      const p = await person((await h.workspace()).name, 'owner')
      const ws = p.workspace
      for (let i = 0; i < ROUNDS; i++) {
        const slug = `side-${i}`
        expect((await p.call('POST', `/v1/workspaces/${ws}/channels`, { slug })).status).toBe(201)
        const got = await statuses([
          p.call('PATCH', `/v1/workspaces/${ws}/channels/${slug}`, { default: true }),
          p.call('DELETE', `/v1/workspaces/${ws}/channels/${slug}`),
        ])
        // Either order is fine: made default then not deletable (200, 409), or deleted then not found (204, 404).
        expect([[200, 409], [204, 404]]).toContainEqual(got)
        await expectDefaultExists(ws)
        // Put "general" back as the default for the next round.
        expect((await p.call('PATCH', `/v1/workspaces/${ws}/channels/general`, { default: true })).status).toBe(200)
      }
    }, 120_000)

    test('renaming a channel while it is made the default: the default follows it, and exists', async () => {
      const p = await person((await h.workspace()).name, 'owner')
      const ws = p.workspace
      for (let i = 0; i < ROUNDS; i++) {
        const slug = `old-${i}`
        expect((await p.call('POST', `/v1/workspaces/${ws}/channels`, { slug })).status).toBe(201)
        await Promise.all([
          p.call('PATCH', `/v1/workspaces/${ws}/channels/${slug}`, { default: true }),
          p.call('PATCH', `/v1/workspaces/${ws}/channels/${slug}`, { slug: `new-${i}` }),
        ])
        await expectDefaultExists(ws)
        expect((await p.call('PATCH', `/v1/workspaces/${ws}/channels/general`, { default: true })).status).toBe(200)
      }
    }, 120_000)

    async function expectDefaultExists(workspace: string) {
      const [row] = await h.db.sql<{ defaultChannel: string; exists: boolean }[]>`
        SELECT w.default_channel AS "defaultChannel", EXISTS (SELECT 1 FROM channels c WHERE c.workspace_id = w.id AND c.slug = w.default_channel) AS exists
        FROM workspaces w WHERE w.name = ${workspace}`
      expect(row).toMatchObject({ exists: true })
    }

    test('muting a channel while leaving the workspace: 204 or 404, never a 500, and no mute outlives the membership', async () => {
      const { name } = await h.workspace()
      for (let i = 0; i < ROUNDS * 2; i++) {
        const p = await person(name, 'member')
        const got = await statuses([
          p.call('PUT', `/v1/workspaces/${name}/channels/general/mute`),
          p.call('DELETE', `/v1/workspaces/${name}/members/${p.userId}`),
        ])
        expect(got.every((s) => s === 204 || s === 404)).toBe(true)
        const [n] = await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM channel_mutes WHERE user_id = ${p.userId}`
        expect(n!.n).toBe(0)
      }
    }, 120_000)

    test('an API key revoked twice at once: one 204, one 404, and the key stops working', async () => {
      const p = await person((await h.workspace()).name, 'owner')
      const made = await p.call('POST', `/v1/workspaces/${p.workspace}/keys`, { name: 'twice' })
      const key = (await made.json()) as { id: number; key: string }
      const got = await statuses([p.call('DELETE', `/v1/workspaces/${p.workspace}/keys/${key.id}`), p.call('DELETE', `/v1/workspaces/${p.workspace}/keys/${key.id}`)])
      expect(got).toEqual([204, 404])
      expect((await h.post(key.key, { message: 'after revoking' })).status).toBe(401)
    }, 30_000)

    test('a member signing out twice at once: both end the session, nothing fails', async () => {
      const p = await signUp(h)
      const signin = (await (await post('/v1/auth/signin', { email: p.email, password: PASSWORD })).json()) as { token: string }
      const call = bearerCall(h, signin.token)
      const got = await statuses([call('POST', '/v1/auth/signout'), call('POST', '/v1/auth/signout')])
      expect(got.every((s) => s === 204 || s === 401)).toBe(true)
      expect((await call('GET', '/v1/me')).status).toBe(401)
    }, 30_000)
  })
}

/** The token of the newest link matching `re` that was e-mailed to `email`. */
async function mailedToken(h: TestHerald, email: string, re: RegExp): Promise<string> {
  for (let i = 0; i < 500; i++) {
    const mail = h.mails!.findLast((m) => m.to.includes(email) && re.test(m.body))
    if (mail) return re.exec(mail.body)![1]!
    await Bun.sleep(10)
  }
  throw new Error(`no link was e-mailed to ${email}`)
}
