// The client address behind a trusted proxy (HERALD_TRUST_PROXY=true). A
// proxy appends the address it saw to whatever X-Forwarded-For the client
// sent, so only the rightmost hop is the proxy's. Herald used to take the
// first one, which the client writes itself: a new made-up first hop per
// request, and the per-address throttles (sign-in failures, e-mails) never
// added up. Now the rightmost hop is the client's address, and a header that
// holds no address (empty, too long, garbage) is never a 500. The scheme
// (X-Forwarded-Proto, which decides whether the cookie is Secure) is read
// from the hop the proxy added too, not from the first one.
import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { MAIL_LIMITS, SIGNIN_LIMITS, signinCounters } from '../../src/accounts/throttle'
import { backends, useTestHerald } from '../harness'
import { expectProblem } from '../support'
import { newEmail, PASSWORD, signUp } from '../users'

for (const backend of backends) {
  describe(`X-Forwarded-For behind a trusted proxy (${backend})`, () => {
    const h = useTestHerald(backend, { HERALD_TRUST_PROXY: 'true' })

    const post = (path: string, body: unknown, forwardedFor: string) =>
      fetch(h.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor }, body: JSON.stringify(body) })
    const reset = (forwardedFor: string) => post('/v1/auth/password-reset', { email: newEmail('nobody') }, forwardedFor)
    const signin = (forwardedFor: string) => post('/v1/auth/signin', { email: newEmail('nobody'), password: PASSWORD }, forwardedFor)

    test(`e-mails: ${MAIL_LIMITS.ip} per client address, whatever hops the client writes before the proxy's`, async () => {
      const real = '203.0.113.7'
      // Each request a new made-up first hop (and a new recipient), as the
      // proxy appends the one address it saw.
      const statuses: number[] = []
      for (let i = 0; i < MAIL_LIMITS.ip; i++) statuses.push((await reset(`198.51.100.${i}, ${real}`)).status)
      expect(statuses).toEqual(Array(MAIL_LIMITS.ip).fill(202))
      await expectProblem(await reset(`198.51.100.250, ${real}`), 429, 'mail-throttled')
      await expectProblem(await reset(`10.0.0.1, 10.0.0.2, unknown, ${real}`), 429, 'mail-throttled')
      await expectProblem(await reset(real), 429, 'mail-throttled')
      // Another client behind the same proxy is not throttled with it.
      expect((await reset(`198.51.100.250, 203.0.113.8`)).status).toBe(202)
    })

    test(`sign-in: the failures of a client address count however its first hops change`, async () => {
      const real = '203.0.113.9'
      // The address has failed its SIGNIN_LIMITS.ip times already: written as
      // the throttle counts them, since 100 real failures are 100 argon2
      // hashes (10 s).
      const { key } = signinCounters('anyone@example.com', real)[1]!
      await h.db.sql`INSERT INTO signin_failures (key, failures, window_start) VALUES (${key}, ${SIGNIN_LIMITS.ip}, now())`
      for (const spoofed of ['192.0.2.1', '192.0.2.2', '2001:db8::1', 'x']) {
        await expectProblem(await signin(`${spoofed}, ${real}`), 429, 'signin-throttled')
      }
      // Another client behind the same proxy signs in as usual (a wrong password: 401).
      await expectProblem(await signin(`${real}, 203.0.113.10`), 401, 'invalid-credentials')
    })

    test('X-Forwarded-Proto: the hop the proxy added decides whether the session cookie is Secure', async () => {
      const person = await signUp(h)
      const cookieWith = async (proto: string) => {
        const res = await fetch(h.url + '/v1/auth/signin', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-proto': proto }, body: JSON.stringify({ email: person.email, password: PASSWORD, client: 'web' }) })
        expect(res.status).toBe(200)
        return res.headers.get('set-cookie') ?? ''
      }
      // The proxy appends the scheme it saw to what the client wrote: the last hop is its own.
      expect(await cookieWith('https')).toContain('; Secure')
      expect(await cookieWith('http, https')).toContain('; Secure')
      expect(await cookieWith('https, http')).not.toContain('Secure')
      expect(await cookieWith('https,https, http')).not.toContain('Secure')
      expect(await cookieWith('http')).not.toContain('Secure')
    })

    test('an empty, malformed or oversized X-Forwarded-For is never a 500', async () => {
      const values = [
        '',
        ' ',
        ',',
        ', ,',
        '203.0.113.20,',
        '203.0.113.20, ',
        'unknown',
        '"203.0.113.20"',
        '203.0.113.20 203.0.113.21',
        '2001:db8::20',
        '[2001:db8::20]:4711',
        '203.0.113.20:4711',
        '\t203.0.113.20\t',
        'ÿþ\u00a0',
        'a, '.repeat(2000) + '203.0.113.20',
        'x'.repeat(7000),
        randomBytes(4500).toString('base64'), // 6,000 characters no index entry can hold
        `203.0.113.20, ${randomBytes(4500).toString('base64')}`,
      ]
      const answers: { value: string; route: string; status: number }[] = []
      for (const value of values) {
        for (const [route, send] of [['reset', reset], ['signin', signin]] as const) {
          answers.push({ value: value.slice(0, 40), route, status: (await send(value)).status })
        }
      }
      // 202 or 401, or 429 once the malformed ones (counted as the proxy's address) add up.
      expect(answers.filter((a) => ![202, 401, 429].includes(a.status))).toEqual([])
      expect((await fetch(`${h.url}/healthz`)).status).toBe(200)
    }, 30_000)
  })
}
