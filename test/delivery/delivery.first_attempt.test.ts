// A delivery whose first attempt succeeds is one row: the attempt is kept in
// the delivery's row, and its log shows it as before, with its start,
// duration, status and response. A first attempt that fails keeps its
// attempt row, and so does every later attempt; a replay of a delivery that
// succeeded at once numbers its attempts on from the kept one, which keeps
// its status. A first attempt made by the scheduler (a delivery held back
// before it was sent) is kept likewise, and moves with its row out of the
// default partition when its month's is made. On the embedded database and on
// PostgreSQL with JetStream, against a real receiver.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { pipelines, usePipelineHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { ensurePartitions } from '../../src/core/partitions'
import { recordAttempts } from '../../src/delivery/attempts'
import { insertDeliveries } from '../../src/delivery/deliveries'
import { deliveryId } from '../../workers/send'

setDefaultTimeout(30_000)

interface Attempt { attempt: number; at: string; durationMs: number; ok: boolean; status: number | null; error: string | null; response: string | null }
interface Delivery { id: string; status: string; attempts: Attempt[] }

for (const pipeline of pipelines) {
  describe(`a delivery's first attempt (${pipeline})`, () => {
    let rx: Receiver
    beforeAll(() => void (rx = startReceiver()))
    afterAll(() => rx?.stop())
    // Two attempts per schedule, the retry 300 ms after the first.
    const h = usePipelineHerald(pipeline, () => ({ HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,300ms', CIRCUIT_FAILURES: '1000' }))
    let ws: { name: string; apiKey: string }
    beforeAll(async () => {
      ws = await h.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
    })

    const router = async (name: string, pattern = `${name}.*`) => {
      const res = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name, pattern, destination: { type: 'webhook', url: `${rx.url}/${name}` } })
      expect(res.status).toBe(201)
      return ((await res.json()) as { id: string }).id
    }
    const post = async (event: string) => {
      const res = await h.post(ws.apiKey, { event, message: 'hello' })
      expect(res.status).toBe(200)
      return ((await res.json()) as { eventId: string }).eventId
    }
    const read = async (eventId: string) => {
      const res = await fetch(`${h.url}/events/${eventId}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })
      expect(res.status).toBe(200)
      return ((await res.json()) as { deliveries: Delivery[] }).deliveries
    }
    const settled = (eventId: string, status: string) =>
      eventually(async () => {
        const d = await read(eventId)
        return d.length === 1 && d[0]!.status === status && d[0]!
      }, 15_000, `the delivery of ${eventId} to be ${status}`)
    const attemptRows = async (id: string) => (await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM delivery_attempts WHERE delivery_id = ${id}`)[0]!.n
    const kept = async (id: string) =>
      (await h.db.sql<{ at: Date | null; status: number | null }[]>`SELECT first_started_at AS at, first_status AS status FROM deliveries WHERE id = ${id}`)[0]!

    test('a first attempt that succeeds writes the delivery row only, and the log shows it with its start, duration, status and response', async () => {
      await router('paid')
      rx.script.push({ status: 201, body: 'accepted: 1', delayMs: 60 })
      const before = Date.now()
      const eventId = await post('paid.one')
      const d = await settled(eventId, 'succeeded')
      const [sent] = rx.received.filter((r) => r.path === '/paid')
      expect(d.attempts).toEqual([{ attempt: 1, at: expect.any(String), durationMs: expect.any(Number), ok: true, status: 201, error: null, response: 'accepted: 1' }])
      const [a] = d.attempts
      const at = Date.parse(a!.at)
      expect(at).toBeGreaterThanOrEqual(before - 5)
      expect(at).toBeLessThanOrEqual(sent!.at + 5) // it started before the receiver saw it
      expect(a!.durationMs).toBeGreaterThanOrEqual(55)
      expect(a!.durationMs).toBeLessThan(10_000)
      expect(await attemptRows(d.id)).toBe(0)
      expect((await kept(d.id)).at?.getTime()).toBe(at)
    })

    test('a first attempt that fails, then a retry that succeeds: both in the log, each an attempt row', async () => {
      await router('flaky')
      rx.script.push({ status: 503, body: 'busy' }, { status: 200, body: 'fine' })
      const eventId = await post('flaky.one')
      const d = await settled(eventId, 'succeeded')
      expect(d.attempts.map((a) => [a.attempt, a.ok, a.status, a.error, a.response])).toEqual([
        [1, false, 503, 'receiver answered HTTP 503', 'busy'],
        [2, true, 200, null, 'fine'],
      ])
      expect(Date.parse(d.attempts[1]!.at)).toBeGreaterThan(Date.parse(d.attempts[0]!.at))
      expect(await attemptRows(d.id)).toBe(2)
      expect((await kept(d.id)).at).toBeNull()
    })

    test('a replay after a first success: attempt 1 from the row, then 2 and 3 numbered on, attempt 1 keeping its status', async () => {
      await router('again')
      rx.script.push({ status: 200, body: 'first' })
      const eventId = await post('again.one')
      const first = await settled(eventId, 'succeeded')
      // The replay fails twice (its whole schedule), and is replayed again.
      rx.script.push({ status: 500, body: 'no' }, { status: 500, body: 'no' })
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/deliveries/${first.id}/replay`)).status).toBe(202)
      const failed = await settled(eventId, 'failed')
      expect(failed.attempts.map((a) => [a.attempt, a.ok, a.status, a.response])).toEqual([[1, true, 200, 'first'], [2, false, 500, 'no'], [3, false, 500, 'no']])
      expect(failed.attempts[0]).toEqual(first.attempts[0]!)
      rx.script.push({ status: 202, body: 'third time' })
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/deliveries/${first.id}/replay`)).status).toBe(202)
      const done = await settled(eventId, 'succeeded')
      expect(done.attempts.map((a) => [a.attempt, a.ok, a.status, a.response])).toEqual([[1, true, 200, 'first'], [2, false, 500, 'no'], [3, false, 500, 'no'], [4, true, 202, 'third time']])
      expect(done.attempts[0]).toEqual(first.attempts[0]!)
      expect(await attemptRows(first.id)).toBe(3)
      expect(await kept(first.id)).toEqual({ at: new Date(first.attempts[0]!.at), status: 200 })
      const list = (await (await h.admin('GET', `/admin/workspaces/${ws.name}/deliveries?state=all`)).json()) as { id: string; attemptCount: number; lastStatus: number }[]
      expect(list.find((x) => x.id === first.id)).toMatchObject({ attemptCount: 4, lastStatus: 202 })
    })

    test('a first attempt made by the scheduler (held back at the fan-out) that succeeds is kept in the row too', async () => {
      const routerId = await router('held', 'held.never') // no event matches it: the test writes its delivery
      const eventId = await post('held.one')
      const wsId = (await h.db.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${ws.name}`)[0]!.id
      const id = deliveryId(eventId, 'router', routerId)
      const startedAt = new Date(Date.now() - 1000)
      // Held by the circuit at the fan-out: pending, no attempt made.
      await insertDeliveries(h.db.sql, [{ deliveryId: id, eventId, workspaceId: wsId, kind: 'router', target: routerId, attempt: 1, startedAt, durationMs: 0, ok: false, next: 'pending', delayMs: 60_000, held: true }])
      expect((await read(eventId))[0]).toMatchObject({ id, status: 'pending', attempts: [] })
      // Its first attempt, as the scheduler records it.
      await recordAttempts(h.db.sql, [{ deliveryId: id, attempt: 1, startedAt, durationMs: 42.4, ok: true, status: 204, response: '', next: 'succeeded', delayMs: 0 }])
      const [d] = await read(eventId)
      expect(d).toMatchObject({ id, status: 'succeeded', attempts: [{ attempt: 1, at: startedAt.toISOString(), durationMs: 42, ok: true, status: 204, error: null, response: '' }] })
      expect(await attemptRows(id)).toBe(0)
      // The same attempt recorded again (a lease ran out and another worker sent it too) is a row, as a duplicate always was.
      await recordAttempts(h.db.sql, [{ deliveryId: id, attempt: 1, startedAt: new Date(), durationMs: 5, ok: true, status: 200, next: 'succeeded', delayMs: 0 }])
      expect(await attemptRows(id)).toBe(1)
      expect((await read(eventId))[0]!.attempts.map((a) => [a.attempt, a.status])).toEqual([[1, 204], [1, 200]])
    })

    test("a kept first attempt in the default partition moves with its delivery when its month's partition is made", async () => {
      const routerId = await router('later', 'later.never')
      const wsId = (await h.db.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${ws.name}`)[0]!.id
      // An event of six months ago: no partition holds its month.
      const now = new Date()
      const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 6, 10, 12))
      const hex = at.getTime().toString(16).padStart(12, '0')
      const r = crypto.randomUUID().replace(/-/g, '')
      const eventId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${r.slice(0, 3)}-8${r.slice(3, 6)}-${r.slice(6, 18)}`
      await h.db.sql`INSERT INTO events (id, workspace_id, channel, created_at, event, message) VALUES (${eventId}, ${wsId}, 'general', ${at}, 'later.one', 'from the past')`
      const id = deliveryId(eventId, 'router', routerId)
      const startedAt = new Date()
      await insertDeliveries(h.db.sql, [{ deliveryId: id, eventId, workspaceId: wsId, kind: 'router', target: routerId, attempt: 1, startedAt, durationMs: 17, ok: true, status: 200, response: 'moved', next: 'succeeded', delayMs: 0 }])
      const where = async () => (await h.db.sql<{ p: string }[]>`SELECT tableoid::regclass::text AS p FROM deliveries WHERE id = ${id}`)[0]!.p
      expect(await where()).toBe('deliveries_default')
      await ensurePartitions(h.db.sql, at)
      expect(await where()).not.toBe('deliveries_default')
      expect((await read(eventId))[0]).toMatchObject({ id, status: 'succeeded', attempts: [{ attempt: 1, at: startedAt.toISOString(), durationMs: 17, ok: true, status: 200, error: null, response: 'moved' }] })
      expect(await attemptRows(id)).toBe(0)
    })
  })
}
