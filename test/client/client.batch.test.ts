// The client's background batches (enqueue → POST /events) against a real
// Herald, with a stand-in in front that counts the requests: when a batch
// goes (size, time), the order of results, refused events through onError,
// the rate limit's 429s held back and sent again, and the bounded queue.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Herald, HeraldClosedError, HeraldError, HeraldQueueFullError, type HeraldEvent, type HeraldOptions, type Outcome } from '../../clients/typescript/src/index'
import { backends, useTestHerald } from '../harness'
import { countEvents } from '../support'
import { standIn, type StandIn } from './proxy'

const settled = <T>(p: Promise<T>) => Promise.race([p.then(() => true), Bun.sleep(0).then(() => false)])
const events = (n: number, prefix: string): HeraldEvent[] => Array.from({ length: n }, (_, i) => ({ message: `${prefix} ${i}` }))

for (const backend of backends) {
  describe(`enqueue (${backend})`, () => {
    let ws: { name: string; apiKey: string }
    let proxy: StandIn
    const client = (opts: Partial<HeraldOptions> = {}, apiKey = ws.apiKey) => new Herald({ apiKey, url: proxy.url, ...opts })
    afterAll(() => proxy?.stop()) // before the Herald's own afterAll: the stand-in goes first
    const h = useTestHerald(backend)
    beforeAll(async () => {
      ws = await h.workspace({ monthlyQuota: 100_000, rateLimit: { perSecond: 100_000, burst: 100_000 } })
      proxy = standIn(h.url)
    }, 30_000)

    test('by size: maxBatch 50 and 120 events are 3 requests of 50, 50 and 20', async () => {
      proxy.reset()
      const herald = client({ maxBatch: 50, flushIntervalMs: 60_000 })
      const queued = await Promise.all(events(120, 'size').map((e) => herald.enqueue(e)))
      await herald.close()
      expect(proxy.batches().map((b) => b.events.length)).toEqual([50, 50, 20])
      const outcomes = await Promise.all(queued.map((q) => q.result))
      expect(outcomes.every((o) => o.ok)).toBe(true)
      expect(herald.stats).toEqual({ sent: 120, failed: 0, retried: 0, dropped: 0, rateLimited: 0 })
    })

    test('by time: 3 events and flushIntervalMs 100 are one request, about 100 ms after the first', async () => {
      proxy.reset()
      const herald = client({ flushIntervalMs: 100 })
      const started = Date.now()
      const queued = await Promise.all(events(3, 'time').map((e) => herald.enqueue(e)))
      await Bun.sleep(60)
      expect(proxy.seen).toHaveLength(0)
      await Promise.all(queued.map((q) => q.result))
      expect(proxy.batches().map((b) => b.events.length)).toEqual([3])
      const after = proxy.seen[0]!.at - started
      expect(after).toBeGreaterThanOrEqual(95)
      expect(after).toBeLessThan(1000)
    })

    test('results come in request order; a refused event goes to onError, the others are stored', async () => {
      proxy.reset()
      const given: [HeraldError, HeraldEvent | undefined][] = []
      const herald = client({ onError: (err, event) => given.push([err, event]) })
      const batch: HeraldEvent[] = [{ message: 'first' }, { message: '' }, { message: 'third', channel: 'Bad Channel!' }, { message: 'fourth', title: 't'.repeat(200) }]
      const queued = await Promise.all(batch.map((e) => herald.enqueue(e)))
      await herald.flush()
      const outcomes = await Promise.all(queued.map((q) => q.result))
      expect(outcomes.map((o) => o.ok)).toEqual([true, false, false, true])
      const [first, empty, channel, fourth] = outcomes as [Outcome, Outcome, Outcome, Outcome]
      if (!first.ok || empty.ok || channel.ok || !fourth.ok) throw new Error('unreachable')
      expect(fourth.value.errors).toContain('title was truncated to 128 characters')
      expect([empty.error.status, empty.error.kind]).toEqual([400, 'validation-failed'])
      expect(empty.error.errors.map((e) => e.pointer)).toEqual(['/events/1/message'])
      expect(channel.error.errors.map((e) => e.pointer)).toEqual(['/events/2/channel'])
      expect(given.map(([err, event]) => [err, event])).toEqual([[empty.error, batch[1]], [channel.error, batch[2]]])
      expect(herald.stats).toEqual({ sent: 2, failed: 2, retried: 0, dropped: 0, rateLimited: 0 })
      // Each event carries its own key: sent again, the stored ones are answered from the first time.
      expect(new Set(proxy.batches()[0]!.events.map((e) => e.idempotencyKey)).size).toBe(4)
      expect(queued.map((q) => q.idempotencyKey)).toEqual(proxy.batches()[0]!.events.map((e) => e.idempotencyKey!))
    })

    test('the rate limit: events it held back are sent again with their keys once the bucket refills', async () => {
      proxy.reset()
      const slow = await h.workspace({ monthlyQuota: 1000, rateLimit: { perSecond: 10, burst: 5 } })
      const herald = client({ maxBatch: 20, flushIntervalMs: 10 }, slow.apiKey)
      const started = Date.now()
      const queued = await Promise.all(events(20, 'limited').map((e) => herald.enqueue(e)))
      await herald.close()
      const outcomes = await Promise.all(queued.map((q) => q.result))
      expect(outcomes.every((o) => o.ok)).toBe(true)
      // 5 at once, then 15 more at 10 a second.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
      expect(herald.stats.sent).toBe(20)
      expect(herald.stats.retried).toBeGreaterThanOrEqual(15)
      const keys = queued.map((q) => q.idempotencyKey)
      for (const b of proxy.batches()) for (const e of b.events) expect(keys).toContain(e.idempotencyKey!)
      expect(await countEvents(h, slow.name)).toBe(20)
    }, 20_000)

    test('the monthly quota: the events past it are given up, not retried', async () => {
      proxy.reset()
      const small = await h.workspace({ monthlyQuota: 3 })
      const herald = client({}, small.apiKey)
      const queued = await Promise.all(events(5, 'quota').map((e) => herald.enqueue(e)))
      await herald.flush()
      const outcomes = await Promise.all(queued.map((q) => q.result))
      expect(outcomes.map((o) => (o.ok ? o.value.remainingQuota : o.error.kind))).toEqual([2, 1, 0, 'quota-exceeded', 'quota-exceeded'])
      expect(proxy.batches()).toHaveLength(1)
      expect(herald.stats).toEqual({ sent: 3, failed: 2, retried: 0, dropped: 0, rateLimited: 0 })
    })
  })
}

describe('enqueue: failures and the bounded queue, through a stand-in', () => {
  let ws: { name: string; apiKey: string }
  let proxy: StandIn
  const client = (opts: Partial<HeraldOptions> = {}) => new Herald({ apiKey: ws.apiKey, url: proxy.url, retry: { baseDelayMs: 20 }, ...opts })
  // Before the Herald's own afterAll: the stand-in goes first.
  afterAll(() => {
    proxy.release()
    proxy?.stop()
  })
  const h = useTestHerald('embedded')
  beforeAll(async () => {
    ws = await h.workspace({ monthlyQuota: 100_000, rateLimit: { perSecond: 100_000, burst: 100_000 } })
    proxy = standIn(h.url)
  }, 30_000)

  test('a whole-batch 429 waits its Retry-After, then goes again', async () => {
    proxy.reset()
    proxy.script.push({ status: 429, headers: { 'content-type': 'application/problem+json', 'retry-after': '1', 'ratelimit-limit': '200' }, body: JSON.stringify({ type: 'https://herald.dev/problems/rate-limited', title: 'Too Many Requests', status: 429, detail: 'wait' }) })
    const told: [number, string, number, number][] = []
    const warnings: string[] = []
    const warn = console.warn
    console.warn = (m: string) => void warnings.push(m)
    const herald = client({ flushIntervalMs: 0, onRetry: (err, r) => told.push([err.status, err.kind, r.attempt, r.events]) })
    try {
      await Promise.all(events(3, 'whole 429').map((e) => herald.enqueue(e)))
      await herald.close()
    } finally {
      console.warn = warn
    }
    const [first, second] = proxy.batches()
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000)
    expect(second!.events).toEqual(first!.events)
    // The rate limit is said: to onRetry (attempt 0: no try used), in stats, and once as a warning.
    expect(told).toEqual([[429, 'rate-limited', 0, 3]])
    expect(herald.stats).toEqual({ sent: 3, failed: 0, retried: 3, dropped: 0, rateLimited: 3 })
    expect(warnings.length).toBe(1)
    expect(warnings[0]).toContain("the workspace's rate limit")
    // RateLimit-Limit is the burst, and is named so, not as a rate.
    expect(warnings[0]).toContain('(bursts of up to 200 events, then its rate per second)')
  })

  test('an answer lost after Herald stored the batch: sent again with the same keys, stored once', async () => {
    proxy.reset()
    proxy.script.push('forward-then-502')
    const before = await countEvents(h, ws.name)
    const retried: number[] = []
    const herald = client({ onRetry: (err, r) => retried.push(err.status, r.events) })
    await Promise.all(events(10, 'lost').map((e) => herald.enqueue(e)))
    await herald.close()
    expect(retried).toEqual([502, 10])
    expect(proxy.batches()[1]!.events).toEqual(proxy.batches()[0]!.events)
    expect(await countEvents(h, ws.name)).toBe(before + 10)
    expect(herald.stats).toEqual({ sent: 10, failed: 0, retried: 10, dropped: 0, rateLimited: 0 })
  })

  test('a 401 gives up every event of the batch', async () => {
    const given: HeraldError[] = []
    const herald = new Herald({ apiKey: 'hrld_wrongwrongwrongwrongwrongwrongwrong', url: proxy.url, onError: (err) => given.push(err) })
    await Promise.all(events(4, 'no key').map((e) => herald.enqueue(e)))
    await herald.close()
    expect(given.map((e) => e.status)).toEqual([401, 401, 401, 401])
    expect(herald.stats).toEqual({ sent: 0, failed: 4, retried: 0, dropped: 0, rateLimited: 0 })
  })

  test("whenFull 'reject': a full queue rejects with HeraldQueueFullError, counted as dropped", async () => {
    proxy.reset()
    proxy.hold()
    const herald = client({ maxQueue: 5, maxBatch: 5, whenFull: 'reject' })
    const queued = await Promise.all(events(5, 'reject').map((e) => herald.enqueue(e)))
    const err = await herald.enqueue({ message: 'one too many' }).catch((e) => e)
    expect(err).toBeInstanceOf(HeraldQueueFullError)
    expect(err.maxQueue).toBe(5)
    proxy.release()
    await Promise.all(queued.map((q) => q.result))
    // Room again once the batch is answered.
    await (await herald.enqueue({ message: 'room again' })).result
    await herald.close()
    expect(herald.stats).toEqual({ sent: 6, failed: 0, retried: 0, dropped: 1, rateLimited: 0 })
  })

  test("whenFull 'wait': enqueue waits for room, in order, and nothing is lost", async () => {
    proxy.reset()
    proxy.hold()
    const before = await countEvents(h, ws.name)
    const herald = client({ maxQueue: 5, maxBatch: 5 })
    await Promise.all(events(5, 'wait').map((e) => herald.enqueue(e)))
    const waiting = events(7, 'waited').map((e) => herald.enqueue(e))
    await Bun.sleep(100)
    expect(await settled(waiting[0]!)).toBe(false)
    proxy.release()
    await Promise.all(waiting)
    await herald.close()
    expect(herald.stats).toEqual({ sent: 12, failed: 0, retried: 0, dropped: 0, rateLimited: 0 })
    expect(proxy.batches().flatMap((b) => b.events.map((e) => e.message))).toEqual([...events(5, 'wait'), ...events(7, 'waited')].map((e) => e.message))
    expect(await countEvents(h, ws.name)).toBe(before + 12)
  })

  test('after close(), enqueue and send reject with HeraldClosedError', async () => {
    const herald = client()
    await herald.close()
    expect(await herald.enqueue({ message: 'late' }).catch((e) => e)).toBeInstanceOf(HeraldClosedError)
    expect(await herald.send({ message: 'late' }).catch((e) => e)).toBeInstanceOf(HeraldClosedError)
    expect(herald.stats.dropped).toBe(2)
  })
})
