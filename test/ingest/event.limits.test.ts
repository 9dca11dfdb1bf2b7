// The monthly quota and the per-workspace token bucket (SPEC 7 and 8: 429):
// remainingQuota counts down, every 429 says which limit was hit and carries
// Retry-After, every 200 and 429 carries RateLimit-*, and a request that fails
// validation costs nothing.
import { describe, expect, test } from 'bun:test'
import { backends, startTestHerald, useTestHerald } from '../harness'
import { accepted, bodyOfSize, expectProblem, MAX_BODY, postEvent, secondsToNextMonthUtc, eventVias } from '../support'

const rateHeaders = (res: Response) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: res.headers.get('ratelimit-reset'),
})

function expectRateHeaders(res: Response, limit: number, remaining?: number) {
  const r = rateHeaders(res)
  expect(r.limit).toBe(String(limit))
  expect(r.remaining).toMatch(/^\d+$/)
  expect(r.reset).toMatch(/^\d+$/)
  if (remaining !== undefined) expect(Number(r.remaining)).toBe(remaining)
}

const retryAfter = (res: Response) => {
  const v = res.headers.get('retry-after')
  expect(v).toMatch(/^\d+$/)
  return Number(v)
}

describe.each(backends)('POST /event quota and rate limit on %s', (backend) => {
  const h = useTestHerald(backend)

  describe.each(eventVias)('via %s', (via) => {
    test('a quota of 3 answers remainingQuota 2, 1, 0, then 429 quota-exceeded', async () => {
      const { apiKey } = await h.workspace({ monthlyQuota: 3 })
      for (const left of [2, 1, 0]) expect((await accepted(h, via, apiKey, { message: `n${left}` })).remainingQuota).toBe(left)
      const res = await postEvent(h, via, apiKey, { message: 'one too many' })
      const p = await expectProblem(res, 429, 'quota-exceeded')
      expect(p.type).toBe('https://herald.dev/problems/quota-exceeded')
      // Still refused on the next try: no event is accepted past the quota.
      await expectProblem(await postEvent(h, via, apiKey, { message: 'again' }), 429, 'quota-exceeded')
    })

    test('a quota 429 sets Retry-After to the seconds until 00:00 UTC on the 1st of next month', async () => {
      const { apiKey } = await h.workspace({ monthlyQuota: 0 })
      const res = await postEvent(h, via, apiKey, { message: 'hi' })
      await expectProblem(res, 429, 'quota-exceeded')
      expect(Math.abs(retryAfter(res) - secondsToNextMonthUtc())).toBeLessThanOrEqual(10)
    })

    test('a quota 429 carries RateLimit-Limit, -Remaining and -Reset', async () => {
      const { apiKey } = await h.workspace({ monthlyQuota: 0, rateLimit: { perSecond: 5, burst: 7 } })
      const res = await postEvent(h, via, apiKey, { message: 'hi' })
      expect(res.status).toBe(429)
      expectRateHeaders(res, 7)
    })

    test('the rate limit gives 429 rate-limited once the burst is spent', async () => {
      const { apiKey } = await h.workspace({ rateLimit: { perSecond: 0.01, burst: 2 } })
      expect((await postEvent(h, via, apiKey, { message: '1' })).status).toBe(200)
      expect((await postEvent(h, via, apiKey, { message: '2' })).status).toBe(200)
      const res = await postEvent(h, via, apiKey, { message: '3' })
      const p = await expectProblem(res, 429, 'rate-limited')
      expect(p.type).toBe('https://herald.dev/problems/rate-limited')
      // One token comes back after 1 / 0.01 = 100 s.
      const wait = retryAfter(res)
      expect(wait).toBeGreaterThanOrEqual(1)
      expect(wait).toBeLessThanOrEqual(101)
      expectRateHeaders(res, 2, 0)
    })

    test('every 200 carries RateLimit headers that count down from the burst', async () => {
      const { apiKey } = await h.workspace({ rateLimit: { perSecond: 0.01, burst: 3 } })
      for (const left of [2, 1, 0]) {
        const res = await postEvent(h, via, apiKey, { message: 'hi' })
        expect(res.status).toBe(200)
        expectRateHeaders(res, 3, left)
        if (left === 0) expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0)
      }
    })

    test('a new workspace has the default rate limit: burst 200', async () => {
      const { apiKey } = await h.workspace()
      const res = await postEvent(h, via, apiKey, { message: 'hi' })
      expect(res.status).toBe(200)
      expectRateHeaders(res, 200, 199)
    })

    test('requests that fail validation consume neither quota nor rate budget', async () => {
      const { apiKey } = await h.workspace({ monthlyQuota: 2, rateLimit: { perSecond: 0.01, burst: 2 } })
      const invalid: [unknown, Record<string, string>?][] = [
        [{ title: 'no message' }],
        [{ message: '   ' }],
        [{ message: 'hi', link: 'javascript:alert(1)' }],
        [{ message: 'hi', channel: 'not a slug' }],
        [{ message: 'hi', tags: 'x' }],
        [{ message: 'hi', data: [] }],
        ['{broken'],
        ['[]'],
        ['{"message":"hi"}', { 'content-type': 'text/plain' }],
        [bodyOfSize(MAX_BODY + 1)],
      ]
      for (const [body, headers] of invalid) {
        const res = await postEvent(h, via, apiKey, body, headers)
        expect([400, 413]).toContain(res.status)
      }
      const first = await postEvent(h, via, apiKey, { message: 'first valid' })
      expect(first.status).toBe(200)
      expect((await first.json()).remainingQuota).toBe(1)
      expectRateHeaders(first, 2, 1)
      const second = await postEvent(h, via, apiKey, { message: 'second valid' })
      expect((await second.json()).remainingQuota).toBe(0)
      expectRateHeaders(second, 2, 0)
    })

    test('requests with a bad key consume nothing of any workspace', async () => {
      const { apiKey } = await h.workspace({ monthlyQuota: 1, rateLimit: { perSecond: 0.01, burst: 1 } })
      const spoiled = apiKey.slice(0, -1) + (apiKey.endsWith('a') ? 'b' : 'a')
      for (let i = 0; i < 3; i++) expect((await postEvent(h, via, spoiled, { message: 'hi' })).status).toBe(401)
      expect((await accepted(h, via, apiKey, { message: 'hi' })).remainingQuota).toBe(0)
    })

    test('a rate-limited 429 consumes no quota', async () => {
      const ws = await h.workspace({ monthlyQuota: 5, rateLimit: { perSecond: 0.01, burst: 1 } })
      expect((await accepted(h, via, ws.apiKey, { message: 'a' })).remainingQuota).toBe(4)
      for (let i = 0; i < 3; i++) await expectProblem(await postEvent(h, via, ws.apiKey, { message: 'b' }), 429, 'rate-limited')
      const patch = await h.admin('PATCH', `/admin/workspaces/${ws.name}`, { rateLimit: { perSecond: 1000, burst: 10 } })
      expect(patch.status).toBe(200)
      await Bun.sleep(50)
      expect((await accepted(h, via, ws.apiKey, { message: 'c' })).remainingQuota).toBe(3)
    })

    test('limits are per workspace: one exhausted workspace does not affect another', async () => {
      const a = await h.workspace({ monthlyQuota: 0, rateLimit: { perSecond: 0.01, burst: 1 } })
      const b = await h.workspace({ monthlyQuota: 1, rateLimit: { perSecond: 0.01, burst: 1 } })
      expect((await postEvent(h, via, a.apiKey, { message: 'hi' })).status).toBe(429)
      expect((await accepted(h, via, b.apiKey, { message: 'hi' })).remainingQuota).toBe(0)
    })
  })

  // The month boundary cannot be waited for; these move the workspace's
  // counter into last month, as the clock would.
  test('the quota resets at the start of a UTC calendar month', async () => {
    const ws = await h.workspace({ monthlyQuota: 2 })
    for (let i = 0; i < 2; i++) await accepted(h, 'socket', ws.apiKey, { message: `${i}` })
    await expectProblem(await h.post(ws.apiKey, { message: 'full' }), 429, 'quota-exceeded')
    await h.db.sql`UPDATE workspaces SET quota_period = (date_trunc('month', now() AT TIME ZONE 'UTC') - interval '1 month')::date WHERE name = ${ws.name}`
    expect((await accepted(h, 'socket', ws.apiKey, { message: 'new month' })).remainingQuota).toBe(1)
    expect((await accepted(h, 'handle', ws.apiKey, { message: 'new month 2' })).remainingQuota).toBe(0)
    await expectProblem(await h.post(ws.apiKey, { message: 'full again' }), 429, 'quota-exceeded')
  })

  test('concurrent requests never exceed the quota', async () => {
    const { apiKey } = await h.workspace({ monthlyQuota: 5 })
    const all = await Promise.all(Array.from({ length: 25 }, (_, i) => postEvent(h, i % 2 ? 'socket' : 'handle', apiKey, { message: `c${i}` })))
    const ok = all.filter((r) => r.status === 200)
    expect(ok).toHaveLength(5)
    expect(all.filter((r) => r.status === 429)).toHaveLength(20)
    const left = await Promise.all(ok.map(async (r) => (await r.json()).remainingQuota))
    expect(left.sort()).toEqual([0, 1, 2, 3, 4])
  })

  test('concurrent requests never exceed the burst', async () => {
    const { apiKey } = await h.workspace({ rateLimit: { perSecond: 0.01, burst: 4 } })
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => postEvent(h, i % 2 ? 'socket' : 'handle', apiKey, { message: `r${i}` })))
    expect(all.filter((r) => r.status === 200)).toHaveLength(4)
    for (const r of all.filter((r) => r.status === 429)) {
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/)
      expect((await r.json()).type).toEndWith('/rate-limited')
    }
  })

  // Two instances can share PostgreSQL only; an embedded PGlite belongs to one process.
  if (backend === 'postgres') test('quota and rate limit hold across two API instances sharing the database', async () => {
    const other = await startTestHerald('postgres', { DATABASE_URL: h.databaseUrl! })
    try {
      const q = await h.workspace({ monthlyQuota: 6 })
      const r = await h.workspace({ rateLimit: { perSecond: 0.01, burst: 6 } })
      for (const ws of [q, r]) {
        const all = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : h).post(ws.apiKey, { message: `x${i}` })))
        expect(all.filter((x) => x.status === 200)).toHaveLength(6)
        expect(all.filter((x) => x.status === 429)).toHaveLength(14)
      }
    } finally {
      await other.close()
    }
  }, 30_000)
})
