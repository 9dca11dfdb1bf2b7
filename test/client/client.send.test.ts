// The client's `send` (POST /event) against a real Herald on every backend:
// the typed answer, HeraldError's fields, what is never retried; then through
// a stand-in that answers 429, 503 or nothing first: the waits it honours, and
// the one Idempotency-Key every try carries.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Herald, HeraldError, type HeraldOptions } from '../../clients/typescript/src/index'
import { backends, useTestHerald } from '../harness'
import { countEvents, UUIDV7 } from '../support'
import { standIn, type StandIn } from './proxy'

const UUIDV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const problem = (status: number, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/problem+json', ...headers },
  body: JSON.stringify({ type: 'https://herald.dev/problems/rate-limited', title: 'Too Many Requests', status, detail: 'slow down' }),
})

for (const backend of backends) {
  describe(`send (${backend})`, () => {
    const h = useTestHerald(backend)
    let ws: { name: string; apiKey: string }
    const client = (opts: Partial<HeraldOptions> = {}) => new Herald({ apiKey: ws.apiKey, url: h.url, ...opts })
    beforeAll(async () => {
      ws = await h.workspace({ monthlyQuota: 1000 })
    }, 30_000)

    test('happy: the 200 body, typed; the event is stored', async () => {
      const herald = client()
      const a = await herald.send({ message: 'Jane signed up', event: 'user.signup', channel: 'signups', tags: ['web'], data: { plan: 'pro' } })
      expect(a).toEqual({ workspace: ws.name, channel: 'signups', eventId: expect.stringMatching(UUIDV7), remainingQuota: expect.any(Number) })
      const stored = await (await fetch(`${h.url}/events/${a.eventId}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json()
      expect(stored).toMatchObject({ message: 'Jane signed up', event: 'user.signup', channel: 'signups', tags: ['web'], data: { plan: 'pro' } })
      expect(herald.stats).toEqual({ sent: 1, failed: 0, retried: 0, dropped: 0, rateLimited: 0 })
    })

    test('what Herald changed is in errors', async () => {
      const a = await client().send({ message: 'x', title: 't'.repeat(200) })
      expect(a.errors).toContain('title was truncated to 128 characters')
    })

    test('400: a HeraldError with the type, title, detail and field pointers; not retried', async () => {
      const retries: number[] = []
      const herald = client({ onRetry: (_, r) => retries.push(r.attempt) })
      const err = (await herald.send({ message: '', link: 'javascript:alert(1)' }).catch((e) => e)) as HeraldError
      expect(err).toBeInstanceOf(HeraldError)
      expect(err.status).toBe(400)
      expect(err.type).toBe('https://herald.dev/problems/validation-failed')
      expect(err.kind).toBe('validation-failed')
      expect(err.title).toBe('Validation Failed')
      expect(err.detail).toBe(err.message)
      expect(err.errors.map((e) => e.pointer).sort()).toEqual(['/link', '/message'])
      expect(retries).toEqual([])
      expect(herald.stats).toEqual({ sent: 0, failed: 1, retried: 0, dropped: 0, rateLimited: 0 })
    })

    test('401: a wrong key is a HeraldError 401, not retried', async () => {
      const herald = new Herald({ apiKey: 'hrld_wrongwrongwrongwrongwrongwrongwrong', url: h.url })
      const err = (await herald.send({ message: 'x' }).catch((e) => e)) as HeraldError
      expect(err).toBeInstanceOf(HeraldError)
      expect(err.status).toBe(401)
      expect(err.detail).toBe('A valid API key is required: send "Authorization: Bearer <API key>".')
      expect(herald.stats.retried).toBe(0)
    })

    test('the monthly quota used up is final (its Retry-After is next month)', async () => {
      const small = await h.workspace({ monthlyQuota: 1 })
      const herald = new Herald({ apiKey: small.apiKey, url: h.url })
      await herald.send({ message: 'one' })
      const started = Date.now()
      const err = (await herald.send({ message: 'two' }).catch((e) => e)) as HeraldError
      expect([err.status, err.kind]).toEqual([429, 'quota-exceeded'])
      expect(Date.now() - started).toBeLessThan(2000)
      expect(await countEvents(h, small.name)).toBe(1)
    })
  })
}

describe('send: retries, through a stand-in', () => {
  let ws: { name: string; apiKey: string }
  let proxy: StandIn
  const client = (opts: Partial<HeraldOptions> = {}) => new Herald({ apiKey: ws.apiKey, url: proxy.url, retry: { baseDelayMs: 50 }, ...opts })
  afterAll(() => proxy?.stop()) // before the Herald's own afterAll: the stand-in goes first
  const h = useTestHerald('embedded')
  beforeAll(async () => {
    ws = await h.workspace({ monthlyQuota: 1000 })
    proxy = standIn(h.url)
  }, 30_000)

  test('429 with Retry-After: 1 is waited for, then sent with the same Idempotency-Key; stored once', async () => {
    proxy.reset()
    proxy.script.push(problem(429, { 'retry-after': '1' }))
    const before = await countEvents(h, ws.name)
    const told: [number, string, number][] = []
    const warnings: string[] = []
    const warn = console.warn
    console.warn = (m: string) => void warnings.push(m)
    const herald = client({ onRetry: (err, r) => told.push([err.status, err.kind, r.events]) })
    const started = Date.now()
    try {
      await herald.send({ message: 'after a pause' })
    } finally {
      console.warn = warn
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    expect(proxy.seen).toHaveLength(2)
    expect(proxy.seen[0]!.idempotencyKey).toMatch(UUIDV4)
    expect(proxy.seen[1]!.idempotencyKey).toBe(proxy.seen[0]!.idempotencyKey)
    // The rate limit is said, as for batches: to onRetry, in stats, and once as a warning naming the setting.
    expect(told).toEqual([[429, 'rate-limited', 1]])
    expect(herald.stats).toEqual({ sent: 1, failed: 0, retried: 1, dropped: 0, rateLimited: 1 })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('herald workspace set <workspace> --rate')
    expect(await countEvents(h, ws.name)).toBe(before + 1)
  })

  test('an answer lost after Herald stored the event: the retry is answered from the first time', async () => {
    proxy.reset()
    proxy.script.push('forward-then-502')
    const before = await countEvents(h, ws.name)
    const a = await client().send({ message: 'lost answer' })
    expect(a.eventId).toMatch(UUIDV7)
    expect(proxy.seen).toHaveLength(2)
    expect(await countEvents(h, ws.name)).toBe(before + 1)
  })

  test('a timeout is retried like a lost connection; status 0 when every try timed out', async () => {
    proxy.reset()
    proxy.hold()
    const herald = client({ timeoutMs: 200, retry: { maxAttempts: 2, baseDelayMs: 10 } })
    const err = (await herald.send({ message: 'slow' }).catch((e) => e)) as HeraldError
    proxy.release()
    expect([err.status, err.title]).toEqual([0, 'Timeout'])
    expect(err.detail).toBe(`Herald at ${proxy.url} did not answer within 0.2 s`)
    expect(proxy.seen).toHaveLength(2)
    expect(herald.stats).toEqual({ sent: 0, failed: 1, retried: 1, dropped: 0, rateLimited: 0 })
  })

  test('unreachable: a HeraldError of status 0 after maxAttempts, with the cause', async () => {
    const herald = new Herald({ apiKey: ws.apiKey, url: 'http://127.0.0.1:1', retry: { maxAttempts: 3, baseDelayMs: 10 } })
    const err = (await herald.send({ message: 'nobody' }).catch((e) => e)) as HeraldError
    expect([err.status, err.title, err.kind]).toEqual([0, 'Connection Refused', 'connection-refused'])
    expect(err.cause).toBeDefined()
    expect(herald.stats.retried).toBe(2)
  })

  test('a Retry-After over maxRetryAfterMs is final', async () => {
    proxy.reset()
    proxy.script.push(problem(503, { 'retry-after': '120' }))
    const err = (await client().send({ message: 'later' }).catch((e) => e)) as HeraldError
    expect([err.status, err.retryAfterMs]).toEqual([503, 120_000])
    expect(proxy.seen).toHaveLength(1)
  })
})
