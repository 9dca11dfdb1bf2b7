// Idempotency-Key (docs/events.md): a repeat of the same key in the same
// workspace within 24 h returns the original 200 body, creates no event and
// consumes no quota; the same key with another body is 422; a key longer than
// 255 characters is 400.
import { describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { accepted, countEvents, expectProblem, postEvent, eventVias } from '../support'

describe.each(backends)('POST /event Idempotency-Key on %s', (backend) => {
  const h = useTestHerald(backend)

  const key = () => `idem-${crypto.randomUUID()}`

  describe.each(eventVias)('via %s', (via) => {
    test('a repeat returns the original 200 body, with no new event and no quota used', async () => {
      const ws = await h.workspace({ monthlyQuota: 10 })
      const k = key()
      const body = { message: 'charge', title: 't'.repeat(130), extra: 1 }
      const first = await postEvent(h, via, ws.apiKey, body, { 'idempotency-key': k })
      expect(first.status).toBe(200)
      const original = await first.json()
      expect(original.remainingQuota).toBe(9)
      expect(original.errors).toHaveLength(2)

      for (let i = 0; i < 3; i++) {
        const again = await postEvent(h, via, ws.apiKey, body, { 'idempotency-key': k })
        expect(again.status).toBe(200)
        expect(await again.json()).toEqual(original)
        // Every 200 carries the RateLimit headers, a replay included.
        expect(again.headers.get('ratelimit-limit')).toMatch(/^\d+$/)
        expect(again.headers.get('ratelimit-remaining')).toMatch(/^\d+$/)
        expect(again.headers.get('ratelimit-reset')).toMatch(/^\d+$/)
      }
      expect(await countEvents(h, ws.name)).toBe(1)
      // The next new event sees only one event counted against the quota.
      expect((await accepted(h, via, ws.apiKey, { message: 'next' })).remainingQuota).toBe(8)
    })

    test('a repeat is answered even when the quota is used up', async () => {
      const ws = await h.workspace({ monthlyQuota: 1 })
      const k = key()
      const original = await accepted(h, via, ws.apiKey, { message: 'only one' }, { 'idempotency-key': k })
      expect(original.remainingQuota).toBe(0)
      const again = await postEvent(h, via, ws.apiKey, { message: 'only one' }, { 'idempotency-key': k })
      expect(again.status).toBe(200)
      expect(await again.json()).toEqual(original)
      await expectProblem(await postEvent(h, via, ws.apiKey, { message: 'only one' }), 429, 'quota-exceeded')
    })

    test('the same key with a different body is 422 and creates nothing', async () => {
      const ws = await h.workspace({ monthlyQuota: 10 })
      const k = key()
      const original = await accepted(h, via, ws.apiKey, { message: 'first' }, { 'idempotency-key': k })
      const res = await postEvent(h, via, ws.apiKey, { message: 'second' }, { 'idempotency-key': k })
      await expectProblem(res, 422)
      expect(await countEvents(h, ws.name)).toBe(1)
      // The key still answers its original body.
      const again = await postEvent(h, via, ws.apiKey, { message: 'first' }, { 'idempotency-key': k })
      expect(await again.json()).toEqual(original)
      expect((await accepted(h, via, ws.apiKey, { message: 'later' })).remainingQuota).toBe(8)
    })

    test('different keys make different events', async () => {
      const ws = await h.workspace()
      const a = await accepted(h, via, ws.apiKey, { message: 'same' }, { 'idempotency-key': key() })
      const b = await accepted(h, via, ws.apiKey, { message: 'same' }, { 'idempotency-key': key() })
      expect(a.eventId).not.toBe(b.eventId)
      expect(await countEvents(h, ws.name)).toBe(2)
    })

    test('without a key, repeats make new events', async () => {
      const ws = await h.workspace()
      const a = await accepted(h, via, ws.apiKey, { message: 'same' })
      const b = await accepted(h, via, ws.apiKey, { message: 'same' })
      expect(a.eventId).not.toBe(b.eventId)
      expect(b.remainingQuota).toBe(a.remainingQuota - 1)
    })

    test('keys are scoped to a workspace', async () => {
      const one = await h.workspace()
      const two = await h.workspace()
      const k = key()
      const a = await accepted(h, via, one.apiKey, { message: 'same' }, { 'idempotency-key': k })
      const b = await accepted(h, via, two.apiKey, { message: 'same' }, { 'idempotency-key': k })
      expect(b.eventId).not.toBe(a.eventId)
      expect(b.workspace).toBe(two.name)
      expect(await countEvents(h, two.name)).toBe(1)
    })

    test('a key of 255 characters is accepted', async () => {
      const ws = await h.workspace()
      const k = 'k'.repeat(255)
      const a = await accepted(h, via, ws.apiKey, { message: 'long key' }, { 'idempotency-key': k })
      const res = await postEvent(h, via, ws.apiKey, { message: 'long key' }, { 'idempotency-key': k })
      expect((await res.json()).eventId).toBe(a.eventId)
    })

    test('a key of 256 characters is 400 and consumes nothing', async () => {
      const ws = await h.workspace({ monthlyQuota: 3 })
      await expectProblem(await postEvent(h, via, ws.apiKey, { message: 'hi' }, { 'idempotency-key': 'k'.repeat(256) }), 400)
      expect(await countEvents(h, ws.name)).toBe(0)
      expect((await accepted(h, via, ws.apiKey, { message: 'hi' })).remainingQuota).toBe(2)
    })

    test('a request with a key that fails validation is 400 and does not claim the key', async () => {
      const ws = await h.workspace()
      const k = key()
      await expectProblem(await postEvent(h, via, ws.apiKey, { title: 'no message' }, { 'idempotency-key': k }), 400)
      const ok = await accepted(h, via, ws.apiKey, { message: 'now valid' }, { 'idempotency-key': k })
      expect(ok.eventId).toBeString()
    })
  })

  test('a key refused with 429 is not remembered: the retry succeeds once there is quota', async () => {
    const ws = await h.workspace({ monthlyQuota: 0 })
    const k = key()
    await expectProblem(await h.post(ws.apiKey, { message: 'retry me' }, { 'idempotency-key': k }), 429, 'quota-exceeded')
    expect((await h.admin('PATCH', `/admin/workspaces/${ws.name}`, { monthlyQuota: 1 })).status).toBe(200)
    const ok = await h.post(ws.apiKey, { message: 'retry me' }, { 'idempotency-key': k })
    expect(ok.status).toBe(200)
    expect((await ok.json()).remainingQuota).toBe(0)
  })

  // 24 hours cannot be waited for; this ages the stored key as the clock would.
  test('a key older than 24 h no longer deduplicates', async () => {
    const ws = await h.workspace()
    const k = key()
    const first = await accepted(h, 'socket', ws.apiKey, { message: 'old' }, { 'idempotency-key': k })
    await h.db.sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours'
      WHERE key = ${k} AND workspace_id = (SELECT id FROM workspaces WHERE name = ${ws.name})`
    const later = await accepted(h, 'socket', ws.apiKey, { message: 'old' }, { 'idempotency-key': k })
    expect(later.eventId).not.toBe(first.eventId)
    expect(await countEvents(h, ws.name)).toBe(2)
  })

  test('a key 23 h old still deduplicates', async () => {
    const ws = await h.workspace()
    const k = key()
    const first = await accepted(h, 'socket', ws.apiKey, { message: 'recent' }, { 'idempotency-key': k })
    await h.db.sql`UPDATE idempotency_keys SET created_at = now() - interval '23 hours'
      WHERE key = ${k} AND workspace_id = (SELECT id FROM workspaces WHERE name = ${ws.name})`
    const again = await accepted(h, 'socket', ws.apiKey, { message: 'recent' }, { 'idempotency-key': k })
    expect(again).toEqual(first)
    expect(await countEvents(h, ws.name)).toBe(1)
  })

  test('concurrent requests with one key create one event and all get its body', async () => {
    const ws = await h.workspace({ monthlyQuota: 10 })
    const k = key()
    const all = await Promise.all(
      Array.from({ length: 8 }, (_, i) => postEvent(h, i % 2 ? 'socket' : 'handle', ws.apiKey, { message: 'race' }, { 'idempotency-key': k })),
    )
    expect(all.map((r) => r.status)).toEqual(Array(8).fill(200))
    const bodies = await Promise.all(all.map((r) => r.json()))
    expect(new Set(bodies.map((b) => b.eventId)).size).toBe(1)
    expect(await countEvents(h, ws.name)).toBe(1)
    expect((await accepted(h, 'socket', ws.apiKey, { message: 'after' })).remainingQuota).toBe(8)
  })

  test('a replay over the socket equals the original sent through app.handle', async () => {
    const ws = await h.workspace()
    const k = key()
    const original = await accepted(h, 'handle', ws.apiKey, { message: 'cross' }, { 'idempotency-key': k })
    const replay = await h.post(ws.apiKey, { message: 'cross' }, { 'idempotency-key': k })
    expect(await replay.json()).toEqual(original)
  })
})
