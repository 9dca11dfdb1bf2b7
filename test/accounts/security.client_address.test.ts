// The per-client throttles count each client address apart, over real
// sockets from real source addresses (the client binds 127.0.0.x). They used
// to share one counter, `…:ip:unknown`: Herald's Bun.serve called app.handle
// without the server, so no route saw a peer address, and after 100 failed
// sign-ins from anywhere nobody could sign in, nor ask for an e-mail after
// 20. Now every request carries its peer (src/http/peer.ts), and one whose
// address cannot be known is refused and logged at error, never counted with
// everyone's.
import { beforeAll, describe, expect, test } from 'bun:test'
import { request } from 'node:http'
import { MAIL_LIMITS, SIGNIN_LIMITS, signinCounters } from '../../src/accounts/throttle'
import { withPeer } from '../../src/core/peer'
import { backends, startTestHerald, useTestHerald } from '../harness'
import { newEmail, PASSWORD, signUp, type Person } from '../users'

type Answer = { status: number; type?: string; retryAfter: string | undefined }

/** POSTs JSON to Herald from the source address `from`, over a socket of its own. */
function postFrom(url: string, from: string, path: string, body: unknown): Promise<Answer> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'POST', localAddress: from, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => {
        let type: string | undefined
        try {
          type = (JSON.parse(text) as { type?: string }).type?.replace('https://herald.dev/problems/', '')
        } catch {}
        resolve({ status: res.statusCode!, type, retryAfter: res.headers['retry-after'] as string | undefined })
      })
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

for (const backend of backends) {
  describe(`per-client throttles over real sockets (${backend})`, () => {
    const h = useTestHerald(backend)
    let person: Person
    beforeAll(async () => {
      person = await signUp(h) // the first account: made at once, no e-mail
    }, 30_000)
    const from = (address: string) => (path: string, body: unknown) => postFrom(h.url, address, path, body)
    const reset = (post: ReturnType<typeof from>) => post('/v1/auth/password-reset', { email: newEmail('nobody') })
    const signup = (post: ReturnType<typeof from>) => post('/v1/auth/signup', { email: newEmail('new'), password: PASSWORD })

    test('sign-in failures: one address past its limit is throttled, and another signs in', async () => {
      const [a, b] = [from('127.0.0.2'), from('127.0.0.3')]
      // 127.0.0.2 has failed all but one of its SIGNIN_LIMITS.ip attempts:
      // written as the throttle counts them (100 real failures are 100
      // argon2 hashes), under the key of the address its socket has.
      const { key } = signinCounters('anyone@example.com', '127.0.0.2')[1]!
      await h.db.sql`INSERT INTO signin_failures (key, failures, window_start) VALUES (${key}, ${SIGNIN_LIMITS.ip - 1}, now())`
      expect(await a('/v1/auth/signin', { email: newEmail('nobody'), password: PASSWORD })).toMatchObject({ status: 401, type: 'invalid-credentials' })
      const throttled = await a('/v1/auth/signin', { email: newEmail('nobody'), password: PASSWORD })
      expect(throttled).toMatchObject({ status: 429, type: 'signin-throttled' })
      expect(Number(throttled.retryAfter)).toBeGreaterThan(0)
      // Even the right password waits, from that address.
      expect((await a('/v1/auth/signin', { email: person.email, password: PASSWORD })).status).toBe(429)
      // Another address is not locked out: it signs in, and its failures are its own.
      expect((await b('/v1/auth/signin', { email: person.email, password: PASSWORD })).status).toBe(200)
      expect(await b('/v1/auth/signin', { email: newEmail('nobody'), password: PASSWORD })).toMatchObject({ status: 401, type: 'invalid-credentials' })
    }, 30_000)

    test(`password resets: ${MAIL_LIMITS.ip} e-mails per client address, and another address still gets its own`, async () => {
      const [a, b] = [from('127.0.0.4'), from('127.0.0.5')]
      const statuses: number[] = []
      for (let i = 0; i < MAIL_LIMITS.ip; i++) statuses.push((await reset(a)).status)
      expect(statuses).toEqual(Array(MAIL_LIMITS.ip).fill(202))
      expect(await reset(a)).toMatchObject({ status: 429, type: 'mail-throttled' })
      expect((await reset(b)).status).toBe(202)
      // The same e-mail budget: the address that spent it cannot sign up either; the other can.
      expect(await signup(a)).toMatchObject({ status: 429, type: 'mail-throttled' })
      expect((await signup(b)).status).toBe(202)
    }, 30_000)

    test(`sign-ups: ${MAIL_LIMITS.ip} e-mailed links per client address, and another address still gets its own`, async () => {
      const [a, b] = [from('127.0.0.6'), from('127.0.0.7')]
      const statuses: number[] = []
      for (let i = 0; i < MAIL_LIMITS.ip; i++) statuses.push((await signup(a)).status)
      expect(statuses).toEqual(Array(MAIL_LIMITS.ip).fill(202))
      expect(await signup(a)).toMatchObject({ status: 429, type: 'mail-throttled' })
      expect(await reset(a)).toMatchObject({ status: 429, type: 'mail-throttled' })
      expect((await signup(b)).status).toBe(202)
      expect((await reset(b)).status).toBe(202)
    }, 60_000)
  })
}

describe('a request whose client address cannot be known', () => {
  test('is refused with a 500 and logged at error, never counted with the others; in-process callers name their peer', async () => {
    const lines: Record<string, unknown>[] = []
    const h = await startTestHerald('embedded', { LOG_LEVEL: 'error' }, { logs: { write: (line: string) => void lines.push(JSON.parse(line)) } })
    try {
      const ask = () => new Request('http://localhost/v1/auth/password-reset', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: newEmail('nobody') }) })
      // app.handle without a socket: no peer.
      const refused = await h.app.handle(ask())
      expect(refused.status).toBe(500)
      expect(((await refused.json()) as { detail: string }).detail).toContain('could not tell which address')
      const logged = lines.find((l) => l.level === 50 && JSON.stringify(l.err ?? '').includes('could not tell which address'))
      expect(logged?.requestId).toBe(refused.headers.get('x-request-id'))
      // Nothing was counted under a shared key.
      expect((await h.db.sql`SELECT key FROM signin_failures WHERE key LIKE 'mail:ip:%'`).length).toBe(0)
      // An in-process caller that names its peer is counted as that address.
      expect((await h.app.handle(withPeer(ask(), '192.0.2.1'))).status).toBe(202)
      expect((await h.db.sql`SELECT key FROM signin_failures WHERE key LIKE 'mail:ip:%'`).map((r) => r.key)).toEqual(['mail:ip:192.0.2.1'])
    } finally {
      await h.close()
    }
  }, 30_000)
})
