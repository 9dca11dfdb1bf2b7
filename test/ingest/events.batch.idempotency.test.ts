// POST /events's idempotencyKey, one per event (docs/events.md): a repeat
// within 24 h returns the event's original result and stores nothing, the
// same key with another event is a 422 result, and a key used twice in one
// batch is a replay of its first use (or a 422 when the events differ).
import { describe, expect, test } from 'bun:test'
import { backends, useTestHerald, type TestHerald } from '../harness'
import { accepted, countEvents, postBatch, vias, type Via } from '../support'

type Result = Record<string, any>

async function results(h: TestHerald, via: Via, apiKey: string, events: unknown[]): Promise<Result[]> {
  const res = await postBatch(h, via, apiKey, events)
  const text = await res.text()
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text}`)
  return JSON.parse(text).results
}

const key = () => `idem-${crypto.randomUUID()}`

describe.each(backends)('POST /events idempotencyKey on %s', (backend) => {
  const h = useTestHerald(backend)

  describe.each(vias)('via %s', (via) => {
    test('a repeated batch returns the same results and stores nothing', async () => {
      const ws = await h.workspace({ monthlyQuota: 10 })
      const events = [{ message: 'a', idempotencyKey: key() }, { message: 'b', title: 't'.repeat(130), idempotencyKey: key() }, { message: 'no key' }]
      const first = await results(h, via, ws.apiKey, events)
      expect(first.map((r) => r.remainingQuota)).toEqual([9, 8, 7])
      expect(first[1]!.errors).toEqual(['title was truncated to 128 characters']) // idempotencyKey is no unknown property
      const again = await results(h, via, ws.apiKey, events)
      expect(again.slice(0, 2)).toEqual(first.slice(0, 2))
      expect(again[2]!.eventId).not.toBe(first[2]!.eventId)
      expect(again[2]!.remainingQuota).toBe(6)
      expect(await countEvents(h, ws.name)).toBe(4)
    })

    test('the key may stand anywhere in the event: the same event is a replay', async () => {
      const ws = await h.workspace()
      const k = key()
      const [first] = await results(h, via, ws.apiKey, [{ idempotencyKey: k, message: 'x', tags: ['a'] }])
      const res = await postBatch(h, via, ws.apiKey, `{"events":[{"message":"x","tags":["a"],"idempotencyKey":${JSON.stringify(k)}}]}`)
      expect((await res.json()).results[0]).toEqual(first)
      expect(await countEvents(h, ws.name)).toBe(1)
    })

    test('the same key with another event is a 422 result; the others are stored', async () => {
      const ws = await h.workspace({ monthlyQuota: 10 })
      const k = key()
      const [original] = await results(h, via, ws.apiKey, [{ message: 'first', idempotencyKey: k }])
      const rs = await results(h, via, ws.apiKey, [{ message: 'second', idempotencyKey: k }, { message: 'other' }])
      expect(rs[0]).toMatchObject({ status: 422, type: 'https://herald.dev/problems/idempotency-key-reused', title: 'Idempotency Key Reused' })
      expect(rs[1]!.remainingQuota).toBe(8)
      expect((await results(h, via, ws.apiKey, [{ message: 'first', idempotencyKey: k }]))[0]).toEqual(original)
      expect(await countEvents(h, ws.name)).toBe(2)
    })

    test('a key twice in one batch: the same event is a replay of the first, another event is 422', async () => {
      const ws = await h.workspace({ monthlyQuota: 10 })
      const k = key()
      const other = key()
      const rs = await results(h, via, ws.apiKey, [
        { message: 'same', idempotencyKey: k },
        { message: 'same', idempotencyKey: k },
        { message: 'one', idempotencyKey: other },
        { message: 'two', idempotencyKey: other },
      ])
      expect(rs[1]).toEqual(rs[0])
      expect(rs[2]!.eventId).toBeString()
      expect(rs[3]).toMatchObject({ status: 422, type: 'https://herald.dev/problems/idempotency-key-reused' })
      expect(await countEvents(h, ws.name)).toBe(2)
      expect((await accepted(h, via, ws.apiKey, { message: 'next' })).remainingQuota).toBe(7)
    })

    test.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['a number', 42],
      ['an object', { k: 1 }],
      ['U+0000', 'a\u0000b'],
      ['an unpaired surrogate', 'a\ud800'],
    ])('an idempotencyKey that is %s is a 400 result naming it', async (_, value) => {
      const ws = await h.workspace({ monthlyQuota: 3 })
      const rs = await results(h, via, ws.apiKey, [{ message: 'hi', idempotencyKey: value }, { message: 'fine' }])
      expect(rs[0]).toMatchObject({ status: 400, errors: [{ pointer: '/events/0/idempotencyKey', detail: expect.stringContaining('idempotencyKey') }] })
      expect(rs[1]!.remainingQuota).toBe(2)
    })

    test('a bad key and a bad field are reported together', async () => {
      const ws = await h.workspace()
      const [r] = await results(h, via, ws.apiKey, [{ message: '', idempotencyKey: '' }])
      expect(r!.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/events/0/idempotencyKey', '/events/0/message'])
    })

    test('idempotencyKey null means no key; a 255-character key is taken', async () => {
      const ws = await h.workspace()
      const k = 'k'.repeat(255)
      const rs = await results(h, via, ws.apiKey, [{ message: 'null key', idempotencyKey: null }, { message: 'long key', idempotencyKey: k }])
      expect(rs[0]).not.toHaveProperty('errors')
      const again = await results(h, via, ws.apiKey, [{ message: 'long key', idempotencyKey: k }])
      expect(again[0]).toEqual(rs[1])
    })

    test('a key refused by the quota is not remembered', async () => {
      const ws = await h.workspace({ monthlyQuota: 1 })
      const k = key()
      const rs = await results(h, via, ws.apiKey, [{ message: 'takes the quota' }, { message: 'retry me', idempotencyKey: k }])
      expect(rs[1]).toMatchObject({ status: 429, type: 'https://herald.dev/problems/quota-exceeded' })
      expect((await h.admin('PATCH', `/admin/workspaces/${ws.name}`, { monthlyQuota: 2 })).status).toBe(200)
      const [ok] = await results(h, via, ws.apiKey, [{ message: 'retry me', idempotencyKey: k }])
      expect(ok!.remainingQuota).toBe(0)
    })
  })

  test('concurrent batches with one key store one event and all get its result', async () => {
    const ws = await h.workspace({ monthlyQuota: 10 })
    const k = key()
    const all = await Promise.all(Array.from({ length: 6 }, (_, i) => results(h, i % 2 ? 'socket' : 'handle', ws.apiKey, [{ message: 'race', idempotencyKey: k }])))
    expect(new Set(all.map((rs) => rs[0]!.eventId)).size).toBe(1)
    expect(await countEvents(h, ws.name)).toBe(1)
  })
})
