// Retention covers what grows with every event, on every backend. With
// HERALD_RETENTION_MONTHS=2 (this month and the one before), maintain()
// drops an older month whole: its events, their deliveries and the
// deliveries' attempts, each a partition of that month (sql/0012), and the
// rows of older months that fell into the default partitions. The month
// before keeps all of them: its deliveries live in that month's partitions,
// are listed, read with their attempts, replayed under their id to a real
// receiver, and made once however often their event is fanned out.
// usage_daily keeps at least 13 months.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { ensurePartitions } from '../../src/core/partitions'
import { insertDeliveries, type FirstAttempt } from '../../src/delivery/deliveries'
import { maintain } from '../../src/server'
import { deliveryId } from '../../workers/send'

setDefaultTimeout(30_000)

const RETENTION_MONTHS = 2
const now = new Date()
/** Noon on the 10th, `k` months before this one (UTC). */
const monthsAgo = (k: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - k, 10, 12))
/** The suffix of a month's partitions, as src/core/partitions.ts names them. */
const suffix = (d: Date) => `_y${d.getUTCFullYear()}m${String(d.getUTCMonth() + 1).padStart(2, '0')}`
/** A UUIDv7 of the instant `at`, as Herald issues event ids. */
function eventIdAt(at: Date): string {
  const hex = at.getTime().toString(16).padStart(12, '0')
  const r = crypto.randomUUID().replace(/-/g, '')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${r.slice(0, 3)}-8${r.slice(3, 6)}-${r.slice(6, 18)}`
}

for (const backend of backends) {
  describe(`retention of events, deliveries and usage (${backend})`, () => {
    // One attempt per delivery, so that a replay is one request.
    const h = useTestHerald(backend, { HERALD_RETENTION_MONTHS: String(RETENTION_MONTHS), HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s' })
    let receiver: Receiver
    let ws = ''
    let wsId = 0
    let apiKey = ''
    let routerId = ''
    // Kept: the month before this one. Expired: three months ago (it has its
    // partitions) and six months ago (it has none: its rows fall into the
    // default partitions).
    const kept = { at: monthsAgo(1), event: '', delivery: '' }
    const expired = { at: monthsAgo(3), event: '', delivery: '' }
    const stray = { at: monthsAgo(6), event: '', delivery: '' }

    const count = async (table: string, column: string, id: string) =>
      (await h.db.sql.unsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [id]))[0]!.n
    const partitionOf = async (table: string, column: string, id: string) =>
      (await h.db.sql.unsafe<{ p: string }[]>(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE ${column} = $1`, [id])).map((r) => r.p)
    const exists = async (name: string) => (await h.db.sql<{ e: boolean }[]>`SELECT to_regclass(${name}) IS NOT NULL AS e`)[0]!.e
    const firstAttempt = (eventId: string): FirstAttempt => ({
      deliveryId: deliveryId(eventId, 'router', routerId), eventId, workspaceId: wsId, kind: 'router', target: routerId,
      attempt: 1, startedAt: new Date(), durationMs: 12, ok: false, status: 500, error: 'HTTP 500', next: 'failed', delayMs: 0,
    })
    /** An event stored at its time, with the delivery of its first (failed) attempt, written as the worker writes it. */
    async function eventWithDelivery(m: { at: Date; event: string; delivery: string }) {
      m.event = eventIdAt(m.at)
      await h.db.sql`INSERT INTO events (id, workspace_id, channel, created_at, event, message)
        VALUES (${m.event}, ${wsId}, 'general', ${m.at}, 'old.thing', 'from a past month')`
      const row = firstAttempt(m.event)
      await insertDeliveries(h.db.sql, [row])
      m.delivery = row.deliveryId
    }
    const runMaintenance = () =>
      maintain(h.db, loadConfig({ HERALD_RETENTION_MONTHS: String(RETENTION_MONTHS), LOG_LEVEL: 'silent' }), createLogger('silent'))

    beforeAll(async () => {
      receiver = startReceiver()
      ;({ name: ws, apiKey } = await h.workspace())
      wsId = (await h.db.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${ws}`)[0]!.id
      const res = await h.admin('POST', `/admin/workspaces/${ws}/routers`, { name: 'old', pattern: 'old.*', destination: { type: 'webhook', url: `${receiver.url}/old` } })
      expect(res.status).toBe(201)
      routerId = ((await res.json()) as { id: string }).id
      // The partitions of three months ago and the two after it, as the
      // maintenance of that month would have made them.
      await ensurePartitions(h.db.sql, expired.at)
      for (const m of [kept, expired, stray]) await eventWithDelivery(m)
    })
    afterAll(() => receiver?.stop())

    test("a delivery and its attempts live in the partitions of their event's month; a month without them uses the default ones", async () => {
      expect(await partitionOf('deliveries', 'id', kept.delivery)).toEqual([`deliveries${suffix(kept.at)}`])
      expect(await partitionOf('delivery_attempts', 'delivery_id', kept.delivery)).toEqual([`delivery_attempts${suffix(kept.at)}`])
      expect(await partitionOf('deliveries', 'id', expired.delivery)).toEqual([`deliveries${suffix(expired.at)}`])
      expect(await partitionOf('deliveries', 'id', stray.delivery)).toEqual(['deliveries_default'])
      expect(await partitionOf('delivery_attempts', 'delivery_id', stray.delivery)).toEqual(['delivery_attempts_default'])
    })

    test('the same event and target twice make one delivery and one attempt; another id for them is refused by the database', async () => {
      await insertDeliveries(h.db.sql, [firstAttempt(kept.event)]) // a redelivered event, fanned out again
      expect(await count('deliveries', 'event_id', kept.event)).toBe(1)
      expect(await count('delivery_attempts', 'delivery_id', kept.delivery)).toBe(1)
      // UNIQUE (event_id, kind, target) still holds on the partitioned table, whatever the id.
      const again = h.db.sql`INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target)
        VALUES (${crypto.randomUUID()}, ${kept.event}, ${kept.at}, ${wsId}, 'router', ${routerId}, ${routerId})`
      await expect(again).rejects.toMatchObject({ code: '23505' })
    })

    test("a past month's delivery is listed, read with its attempts, and replayed under its id into that month's partitions", async () => {
      const listed = (await (await h.admin('GET', `/admin/workspaces/${ws}/deliveries?state=all`)).json()) as { id: string }[]
      expect(listed.map((d) => d.id)).toContain(kept.delivery)
      const read = async () => {
        const res = await fetch(`${h.url}/events/${kept.event}`, { headers: { authorization: `Bearer ${apiKey}` } })
        expect(res.status).toBe(200)
        return ((await res.json()) as { deliveries: { id: string; status: string; attempts: { attempt: number; ok: boolean }[] }[] }).deliveries
      }
      expect(await read()).toMatchObject([{ id: kept.delivery, status: 'failed', attempts: [{ attempt: 1, ok: false }] }])

      const replay = await h.admin('POST', `/admin/workspaces/${ws}/deliveries/${kept.delivery}/replay`)
      expect(replay.status).toBe(202)
      const [sent] = await receiver.waitFor(1)
      expect(sent!.headers['webhook-id']).toBe(kept.delivery)
      const after = await eventually(async () => {
        const d = await read()
        return d[0]?.status === 'succeeded' ? d : null
      }, 15_000, 'the replayed delivery to succeed')
      expect(after).toMatchObject([{ id: kept.delivery, attempts: [{ attempt: 1, ok: false }, { attempt: 2, ok: true }] }]) // numbered on across the replay
      expect(await partitionOf('delivery_attempts', 'delivery_id', kept.delivery)).toEqual([`delivery_attempts${suffix(kept.at)}`, `delivery_attempts${suffix(kept.at)}`])
    })

    test('maintain() drops the months past retention whole, events, deliveries and attempts together, and keeps the later ones', async () => {
      const keptAttempts = await count('delivery_attempts', 'delivery_id', kept.delivery)
      expect(keptAttempts).toBeGreaterThanOrEqual(1)
      await runMaintenance()
      for (const table of ['events', 'deliveries', 'delivery_attempts']) {
        expect(await exists(`${table}${suffix(expired.at)}`)).toBe(false)
        expect(await exists(`${table}${suffix(monthsAgo(2))}`)).toBe(false)
        expect(await exists(`${table}${suffix(kept.at)}`)).toBe(true)
        expect(await exists(`${table}${suffix(now)}`)).toBe(true)
      }
      for (const m of [expired, stray]) {
        expect(await count('events', 'id', m.event)).toBe(0)
        expect(await count('deliveries', 'id', m.delivery)).toBe(0)
        expect(await count('delivery_attempts', 'delivery_id', m.delivery)).toBe(0)
      }
      expect(await count('events', 'id', kept.event)).toBe(1)
      expect(await count('deliveries', 'id', kept.delivery)).toBe(1)
      expect(await count('delivery_attempts', 'delivery_id', kept.delivery)).toBe(keptAttempts)
      // Kept deliveries are still deduplicated after the maintenance.
      await insertDeliveries(h.db.sql, [firstAttempt(kept.event)])
      expect(await count('deliveries', 'event_id', kept.event)).toBe(1)
    })

    test('usage_daily keeps 13 months when the retention is shorter', async () => {
      const day = (d: Date) => d.toISOString().slice(0, 10)
      const days = { old: day(monthsAgo(14)), year: day(monthsAgo(12)), recent: day(monthsAgo(0)) }
      for (const d of Object.values(days)) {
        await h.db.sql`INSERT INTO usage_daily (workspace_id, day, events) VALUES (${wsId}, ${d}::date, 7) ON CONFLICT DO NOTHING`
      }
      await runMaintenance()
      const left = (await h.db.sql<{ day: string }[]>`SELECT to_char(day, 'YYYY-MM-DD') AS day FROM usage_daily WHERE workspace_id = ${wsId} ORDER BY day`).map((r) => r.day)
      expect(left).toEqual([days.year, days.recent])
    })
  })
}
