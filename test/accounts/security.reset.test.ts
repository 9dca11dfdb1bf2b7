// Password resets as an attacker uses them, on every backend: a flood of
// reset requests sends a few e-mails, not one each; only the newest link
// works, and using one voids the rest; and a reset ends every session at
// once, on every instance (two API instances on one PostgreSQL). A sign-up
// with an address that has an account tells nothing: test/accounts/accounts.test.ts.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { PASSWORD, bearerCall, signUp, type Person } from '../users'
import { expectProblem } from '../support'
import { MAIL_LIMITS } from '../../src/accounts/throttle'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { startHerald, type Herald } from '../../src/server'

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const RESET_LINK = /\/reset\/([A-Za-z0-9_-]+)/

for (const backend of backends) {
  describe(`password reset (${backend})`, () => {
    const h = useTestHerald(backend, { HERALD_TRUST_PROXY: 'true' })
    let people: Person[]
    beforeAll(async () => {
      // Made before any test asks for resets: sign-ups e-mail links too, and
      // share the per-client budget of e-mails with resets.
      people = [await signUp(h), await signUp(h), await signUp(h), await signUp(h)]
    }, 30_000)

    // Each test is a client of its own (behind a trusted proxy), so that the
    // per-client e-mail budget one test spends leaves the next one alone.
    let client = 0
    const from = () => {
      const address = `198.51.100.${++client}`
      return (path: string, body: unknown) => fetch(h.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address }, body: JSON.stringify(body) })
    }
    const resetLinks = (email: string) => h.mails!.filter((m) => m.to.includes(email) && RESET_LINK.test(m.body)).map((m) => RESET_LINK.exec(m.body)![1]!)
    const settle = () => Bun.sleep(300) // e-mails are sent after the answer

    test(`25 reset requests for one address at once send ${MAIL_LIMITS.recipient} e-mails; the rest are 429 with Retry-After`, async () => {
      const post = from()
      const p = people[0]!
      const answers = await Promise.all(Array.from({ length: 25 }, () => post('/v1/auth/password-reset', { email: p.email })))
      const accepted = answers.filter((r) => r.status === 202)
      const refused = answers.filter((r) => r.status === 429)
      expect(accepted).toHaveLength(MAIL_LIMITS.recipient)
      expect(refused).toHaveLength(25 - MAIL_LIMITS.recipient)
      await expectProblem(refused[0]!, 429, 'mail-throttled')
      expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0)
      await settle()
      expect(resetLinks(p.email)).toHaveLength(MAIL_LIMITS.recipient)
      // An unknown address is counted the same way, so 429 tells nothing either
      // (asked from another client: this one has spent its own budget).
      const other = from()
      const nobody = `nobody-${Date.now()}@example.com`
      const unknown = await Promise.all(Array.from({ length: MAIL_LIMITS.recipient + 1 }, () => other('/v1/auth/password-reset', { email: nobody })))
      expect(unknown.map((r) => r.status).sort()).toEqual([...Array(MAIL_LIMITS.recipient).fill(202), 429])
    })

    test(`one client asking for resets of many addresses gets ${MAIL_LIMITS.ip} e-mails sent, then 429`, async () => {
      const post = from()
      const before = h.mails!.length
      const answers = []
      for (let i = 0; i < MAIL_LIMITS.ip + 5; i++) answers.push((await post('/v1/auth/password-reset', { email: i % 2 ? people[0]!.email.replace('@', `+${i}@`) : `someone-${i}-${Date.now()}@example.com` })).status)
      expect(answers.filter((s) => s === 202)).toHaveLength(MAIL_LIMITS.ip)
      expect(answers.slice(MAIL_LIMITS.ip)).toEqual(Array(5).fill(429))
      await settle()
      expect(h.mails!.length - before).toBeLessThanOrEqual(MAIL_LIMITS.ip)
    })

    test('issuing a link voids the older ones; using one voids the rest', async () => {
      const post = from()
      const p = people[1]!
      for (let i = 0; i < 2; i++) expect((await post('/v1/auth/password-reset', { email: p.email })).status).toBe(202)
      await settle()
      const [older, newer] = resetLinks(p.email)
      expect(newer).toBeDefined()
      await expectProblem(await post('/v1/auth/password-reset/confirm', { token: older, password: 'the older link passphrase' }), 400, 'validation-failed')
      expect((await post('/v1/auth/password-reset/confirm', { token: newer, password: 'the newer link passphrase' })).status).toBe(204)
      expect((await post('/v1/auth/signin', { email: p.email, password: 'the newer link passphrase' })).status).toBe(200)
      expect((await post('/v1/auth/signin', { email: p.email, password: 'the older link passphrase' })).status).toBe(401)
    })

    test('a link issued before another was used no longer works', async () => {
      const post = from()
      const p = people[2]!
      expect((await post('/v1/auth/password-reset', { email: p.email })).status).toBe(202)
      await settle()
      const [first] = resetLinks(p.email)
      // A second link, used at once: the first is void even though it was never used.
      expect((await post('/v1/auth/password-reset', { email: p.email })).status).toBe(202)
      await settle()
      const second = resetLinks(p.email)[1]!
      expect((await post('/v1/auth/password-reset/confirm', { token: second, password: 'the second passphrase' })).status).toBe(204)
      await expectProblem(await post('/v1/auth/password-reset/confirm', { token: first, password: 'the first passphrase' }), 400)
    })

    test('a reset ends every session at once, on this instance and on another one on the same database', async () => {
      const post = from()
      const p = people[3]!
      const second: Herald | null = backend === 'postgres'
        ? await startHerald(loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: h.databaseUrl!, HERALD_DATA_DIR: 'memory://', HERALD_DEMO_WORKSPACE: 'false', LOG_LEVEL: 'silent' }), createLogger('silent'))
        : null
      try {
        // Sessions from before the reset: the sign-up's token, and a second sign-in.
        const signin = (await (await post('/v1/auth/signin', { email: p.email, password: PASSWORD })).json()) as { token: string }
        const callers = [p.call, bearerCall(h, signin.token)]
        if (second) callers.push(bearerCall({ ...h, url: second.url }, p.token), bearerCall({ ...h, url: second.url }, signin.token))
        for (const call of callers) expect((await call('GET', '/v1/me')).status).toBe(200)

        expect((await post('/v1/auth/password-reset', { email: p.email })).status).toBe(202)
        await settle()
        const token = resetLinks(p.email).at(-1)!
        expect((await post('/v1/auth/password-reset/confirm', { token, password: 'a passphrase after the reset' })).status).toBe(204)
        // At once: no cache anywhere answers for a session the reset ended.
        for (const call of callers) await expectProblem(await call('GET', '/v1/me'), 401, 'unauthorized')
      } finally {
        await second?.stop()
      }
    })
  })
}
