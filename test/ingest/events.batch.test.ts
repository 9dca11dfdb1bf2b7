// POST /events (docs/events.md#batches-post-events): one result per event in
// request order, each event judged on its own; quota and tokens go to the
// earliest events that fit; a whole 429 only when nothing fits; per-event
// idempotency keys; a 200 means every accepted event is committed. POST
// /event's own rules, one event at a time, run through the batch as via
// 'batch' in the event.*.test.ts suites.
import { describe, expect, test } from 'bun:test'
import { backends, useTestHerald, type TestHerald } from '../harness'
import { bodyOfSize, countEvents, expectProblem, MAX_BODY, postBatch, readEvent, UUIDV7, vias, type Via } from '../support'

type Result = Record<string, any>

/** Posts a batch that must be answered 200 and returns its results. */
async function results(h: TestHerald, via: Via, apiKey: string, events: unknown[]): Promise<Result[]> {
  const res = await postBatch(h, via, apiKey, events)
  const text = await res.text()
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text}`)
  expect(res.headers.get('content-type')).toStartWith('application/json')
  const body = JSON.parse(text) as { results: Result[] }
  expect(body.results).toHaveLength(events.length)
  return body.results
}

const isProblem = (r: Result, status: number, type: string) => {
  expect(r).toMatchObject({ status, type: `https://herald.dev/problems/${type}` })
  expect(r.title).toBeString()
  expect(r.detail).toBeString()
}

const messages = (n: number, prefix = 'm') => Array.from({ length: n }, (_, i) => ({ message: `${prefix}${i}` }))

describe.each(backends)('POST /events on %s', (backend) => {
  const h = useTestHerald(backend)

  describe.each(vias)('via %s', (via) => {
    test('answers one result per event, in request order, each committed and readable', async () => {
      const ws = await h.workspace({ monthlyQuota: 100 })
      const events = messages(10).map((e, i) => ({ ...e, channel: `ch${i % 3}` }))
      const rs = await results(h, via, ws.apiKey, events)
      rs.forEach((r, i) => {
        expect(r).toEqual({ workspace: ws.name, channel: `ch${i % 3}`, eventId: expect.stringMatching(UUIDV7), remainingQuota: 99 - i })
      })
      expect([...rs.map((r) => r.eventId)].sort()).toEqual(rs.map((r) => r.eventId))
      // A 200 means committed: every event reads back at once.
      for (const [i, r] of rs.entries()) {
        const got = await readEvent(h, via, ws.apiKey, r.eventId)
        expect(got.status).toBe(200)
        expect((await got.json()).message).toBe(`m${i}`)
      }
    })

    test('one bad event does not sink the others; pointers name the event', async () => {
      const ws = await h.workspace({ monthlyQuota: 100 })
      const rs = await results(h, via, ws.apiKey, [{ message: 'ok 1' }, { message: 'hi', channel: 'not a slug' }, 'a string', [{ message: 'x' }], null, { message: 'ok 2', title: 't'.repeat(130) }])
      expect(rs[0]!.remainingQuota).toBe(99)
      isProblem(rs[1]!, 400, 'validation-failed')
      expect(rs[1]!.errors).toEqual([{ pointer: '/events/1/channel', detail: expect.stringContaining('slug') }])
      for (const i of [2, 3, 4]) {
        isProblem(rs[i]!, 400, 'validation-failed')
        expect(rs[i]!.errors).toEqual([{ pointer: `/events/${i}`, detail: 'the body must be a JSON object' }])
      }
      expect(rs[5]).toMatchObject({ remainingQuota: 98, errors: ['title was truncated to 128 characters'] })
      expect(await countEvents(h, ws.name)).toBe(2)
    })

    test('an event over 256 KiB gets a 413 result; one of exactly 256 KiB is accepted', async () => {
      const ws = await h.workspace()
      const rs = await results(h, via, ws.apiKey, [JSON.parse(bodyOfSize(MAX_BODY)), JSON.parse(bodyOfSize(MAX_BODY + 1)), { message: 'small' }])
      expect(rs[0]!.eventId).toMatch(UUIDV7)
      isProblem(rs[1]!, 413, 'payload-too-large')
      expect(rs[2]!.eventId).toMatch(UUIDV7)
      expect(await countEvents(h, ws.name)).toBe(2)
    })

    test('a quota of 3 and 5 events: remainingQuota 2, 1, 0, then two quota-exceeded results', async () => {
      const ws = await h.workspace({ monthlyQuota: 3 })
      const rs = await results(h, via, ws.apiKey, messages(5))
      expect(rs.slice(0, 3).map((r) => r.remainingQuota)).toEqual([2, 1, 0])
      for (const r of rs.slice(3)) isProblem(r, 429, 'quota-exceeded')
      expect(await countEvents(h, ws.name)).toBe(3)
    })

    test('quota goes to the earliest valid events; invalid ones cost nothing', async () => {
      const ws = await h.workspace({ monthlyQuota: 2 })
      const rs = await results(h, via, ws.apiKey, [{ message: 'a' }, { message: '' }, { message: 'b' }, { message: 'c' }])
      expect(rs[0]!.remainingQuota).toBe(1)
      isProblem(rs[1]!, 400, 'validation-failed')
      expect(rs[2]!.remainingQuota).toBe(0)
      isProblem(rs[3]!, 429, 'quota-exceeded')
    })

    test('when nothing fits the quota, the whole answer is a 429 with Retry-After', async () => {
      const ws = await h.workspace({ monthlyQuota: 0, rateLimit: { perSecond: 5, burst: 7 } })
      const res = await postBatch(h, via, ws.apiKey, [{ message: 'a' }, { message: '' }, { message: 'b' }])
      const p = await expectProblem(res, 429, 'quota-exceeded')
      expect(p).not.toHaveProperty('results')
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(res.headers.get('ratelimit-limit')).toBe('7')
    })

    test('when nothing fits the rate limit, the whole answer is a 429 rate-limited', async () => {
      const ws = await h.workspace({ rateLimit: { perSecond: 0.01, burst: 2 } })
      expect((await results(h, via, ws.apiKey, messages(2))).map((r) => r.remainingQuota)).toBeArrayOfSize(2)
      const res = await postBatch(h, via, ws.apiKey, messages(3))
      await expectProblem(res, 429, 'rate-limited')
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(res.headers.get('ratelimit-remaining')).toBe('0')
    })

    test('a batch of invalid events only is a 200 of 400 results, not a 429', async () => {
      const ws = await h.workspace({ monthlyQuota: 0 })
      const rs = await results(h, via, ws.apiKey, [{ message: '' }, { title: 'no message' }])
      for (const r of rs) isProblem(r, 400, 'validation-failed')
    })

    test('RateLimit headers show the bucket after the whole batch', async () => {
      const ws = await h.workspace({ rateLimit: { perSecond: 0.01, burst: 10 } })
      const first = await postBatch(h, via, ws.apiKey, messages(4))
      expect(first.status).toBe(200)
      expect(first.headers.get('ratelimit-limit')).toBe('10')
      expect(first.headers.get('ratelimit-remaining')).toBe('6')
      const second = await postBatch(h, via, ws.apiKey, messages(8))
      expect(second.status).toBe(200)
      expect(second.headers.get('ratelimit-remaining')).toBe('0')
      expect(Number(second.headers.get('ratelimit-reset'))).toBeGreaterThan(0)
      const rs = (await second.json()).results as Result[]
      expect(rs.filter((r) => r.eventId)).toHaveLength(6)
      for (const r of rs.slice(6)) isProblem(r, 429, 'rate-limited')
    })

    test('1,000 events in one batch are accepted in order', async () => {
      const ws = await h.workspace({ monthlyQuota: 1000, rateLimit: { perSecond: 1000, burst: 1000 } })
      const rs = await results(h, via, ws.apiKey, messages(1000))
      expect(rs.map((r) => r.remainingQuota)).toEqual(Array.from({ length: 1000 }, (_, i) => 999 - i))
      expect(await countEvents(h, ws.name)).toBe(1000)
    })
  })

  describe('racing', () => {
    test('two batches at once racing for the last quota units: exactly the quota is accepted, earliest first', async () => {
      const ws = await h.workspace({ monthlyQuota: 10 })
      const answers = await Promise.all([
        results(h, 'handle', ws.apiKey, messages(8, 'a')),
        results(h, 'socket', ws.apiKey, messages(8, 'b')),
      ])
      const all = answers.flat()
      expect(all.filter((r) => r.eventId)).toHaveLength(10)
      expect(all.filter((r) => r.eventId).map((r) => r.remainingQuota).sort((x, y) => x - y)).toEqual([...Array(10).keys()])
      for (const rs of answers) {
        // Within a batch, the accepted events come first, counting down.
        const accepted = rs.findIndex((r) => !r.eventId)
        const prefix = accepted < 0 ? rs : rs.slice(0, accepted)
        for (const r of rs.slice(prefix.length)) isProblem(r, 429, 'quota-exceeded')
        prefix.forEach((r, i) => i && expect(r.remainingQuota).toBeLessThan(prefix[i - 1]!.remainingQuota))
      }
      expect(await countEvents(h, ws.name)).toBe(10)
    })

    test('two batches of 600 split across statements still take the quota in order', async () => {
      const ws = await h.workspace({ monthlyQuota: 1000, rateLimit: { perSecond: 1000, burst: 1000 } })
      const answers = await Promise.all([results(h, 'handle', ws.apiKey, messages(600, 'a')), results(h, 'handle', ws.apiKey, messages(600, 'b'))])
      for (const rs of answers) {
        const n = rs.filter((r) => r.eventId).length
        expect(rs.slice(0, n).every((r) => r.eventId)).toBe(true)
        for (let i = 1; i < n; i++) expect(rs[i]!.remainingQuota).toBe(rs[i - 1]!.remainingQuota - 1)
      }
      expect(answers.flat().filter((r) => r.eventId)).toHaveLength(1000)
      expect(await countEvents(h, ws.name)).toBe(1000)
    })
  })
})
