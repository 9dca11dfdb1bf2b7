// The delivery backlog and the destinations' circuits in /metrics: the gauges
// read from PostgreSQL at every scrape (pending deliveries, the oldest one's
// age, those overdue, those failed for good in the last hour), with a plan
// that reads indexes only, on an empty and on a full table; and, against a
// real receiver that is down, the pending deliveries, their age and the open
// circuit of its host, which closes once the receiver is back.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { createTestDatabase, describePg, pipelines, usePipelineHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { parseExposition, sample, scrapeMetrics } from '../exposition'
import type { Sql } from '../../src/core/db'
import { migrate } from '../../src/core/migrate'
import { ensurePartitions } from '../../src/core/partitions'
import { createWorkspaceRow } from '../../src/accounts/workspaces'
import { countDeliveryBacklog, deliveryBacklogQuery } from '../../src/delivery/status'
import { CIRCUIT_OTHER_HOSTS, DELIVERY_COUNT_CAP, watchMetrics } from '../../src/delivery/metrics_scrape'
import { circuitBoard } from '../../src/delivery/circuit'
import { registry } from '../../src/core/metrics'

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Actual Rows': number
  'Actual Loops': number
  'Rows Removed by Filter'?: number
  Plans?: PlanNode[]
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)]

/** Every scan of the backlog query's plan, run (EXPLAIN ANALYZE) with `cap`. */
async function scans(sql: Sql, cap: number) {
  const [row] = await sql<{ 'QUERY PLAN': { Plan: PlanNode; 'Execution Time': number }[] }[]>`EXPLAIN (ANALYZE, FORMAT JSON) ${deliveryBacklogQuery(sql, cap)}`
  const plan = row!['QUERY PLAN'][0]!
  const all = nodes(plan.Plan).filter((n) => n['Relation Name']?.startsWith('deliveries'))
  return {
    ms: plan['Execution Time'],
    index: all.filter((n) => /^Index (Only )?Scan$/.test(n['Node Type'])),
    // A scan that is not an index range: it must find nothing to read.
    other: all.filter((n) => !/^Index (Only )?Scan$/.test(n['Node Type'])),
    read: (n: PlanNode) => (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0)) * n['Actual Loops'],
  }
}

describePg('the delivery backlog query', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let sql: Sql
  beforeAll(async () => {
    db = await createTestDatabase()
    sql = postgres(db.url, { max: 2, onnotice: () => {} }) as unknown as Sql
    await migrate(sql)
    await ensurePartitions(sql, new Date(Date.now() - 62 * 86_400_000)) // three months of partitions, and the months ahead
    await ensurePartitions(sql)
  })
  afterAll(async () => {
    await sql?.end()
    await db?.drop()
  })

  test('reads indexes only, on an empty table and on a full one, and its counts stop at the cap', async () => {
    const empty = await scans(sql, DELIVERY_COUNT_CAP)
    expect(empty.index.length).toBeGreaterThan(0)
    expect(empty.other.filter((n) => empty.read(n) > 0)).toEqual([])
    expect(await countDeliveryBacklog(sql, DELIVERY_COUNT_CAP)).toEqual({ pending: 0, oldestPendingAgeSeconds: 0, overdueSeconds: 0, failedLastHour: 0 })

    // 60 days of deliveries, the newest 2 hours old: 80% succeeded, 10%
    // pending (due over the next 10 hours, but 2,000 due an hour ago) and 10%
    // failed (2,000 of them 10 minutes ago, the rest with their event).
    const ws = await createWorkspaceRow(sql, 'backlog', { monthlyQuota: 1000, rateLimit: { perSecond: 10, burst: 10 } })
    await sql.unsafe(`
      INSERT INTO deliveries (id, event_id, event_at, workspace_id, target, status, next_attempt_at, updated_at)
      SELECT gen_random_uuid(), gen_random_uuid(), t, ${ws!.id}, 'x', s,
        CASE WHEN s <> 'pending' THEN t WHEN i % 100 = 5 THEN now() - interval '1 hour' ELSE now() + random() * interval '10 hours' END,
        CASE WHEN s = 'failed' AND i % 100 = 0 THEN now() - interval '10 minutes' ELSE t END
      FROM (SELECT i, now() - interval '2 hours' - i * interval '25.92 s' AS t,
        CASE i % 10 WHEN 5 THEN 'pending' WHEN 0 THEN 'failed' ELSE 'succeeded' END AS s
        FROM generate_series(1, 200000) i) g`)
    await sql.unsafe('VACUUM ANALYZE deliveries')
    const [truth] = await sql<{ pending: number; failed: number; oldest: number }[]>`
      SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
        count(*) FILTER (WHERE status = 'failed' AND updated_at > now() - interval '1 hour')::int AS failed,
        extract(epoch FROM now() - min(event_at) FILTER (WHERE status = 'pending'))::float8 AS oldest
      FROM deliveries`
    expect(truth!).toMatchObject({ pending: 20_000, failed: 2_000 })

    const full = await scans(sql, DELIVERY_COUNT_CAP)
    expect(full.other.filter((n) => full.read(n) > 0).map((n) => `${n['Node Type']} on ${n['Relation Name']}`)).toEqual([])
    // The indexes of sql/0012 and sql/0014, and nothing else.
    const used = new Set(full.index.map((n) => n['Index Name']!.replace(/^deliveries_(y\d{4}m\d{2}|default)_/, '')))
    expect([...used].sort()).toEqual(['event_at_idx', 'next_attempt_at_idx', 'updated_at_idx'])
    // No more rows read than the counts need: the pending ones, the recent failures, and one row for each minimum.
    const read = full.index.reduce((n, s) => n + full.read(s), 0)
    expect(read).toBeLessThan(truth!.pending + truth!.failed + 100)

    const backlog = await countDeliveryBacklog(sql, DELIVERY_COUNT_CAP)
    expect(backlog.pending).toBe(truth!.pending)
    expect(backlog.failedLastHour).toBe(truth!.failed)
    expect(Math.abs(backlog.oldestPendingAgeSeconds - truth!.oldest)).toBeLessThan(5)
    expect(backlog.overdueSeconds).toBeGreaterThan(3590)
    expect(backlog.overdueSeconds).toBeLessThan(3700)

    // A cap of 1,000: the counts stop there, and so do the rows read.
    const capped = await scans(sql, 1000)
    expect(capped.index.reduce((n, s) => n + capped.read(s), 0)).toBeLessThan(2 * 1000 + 100)
    expect(await countDeliveryBacklog(sql, 1000)).toMatchObject({ pending: 1000, failedLastHour: 1000 })
    console.log(`the backlog query: ${empty.ms.toFixed(2)} ms on an empty table, ${full.ms.toFixed(2)} ms with ${truth!.pending} pending of 200,000 deliveries, ${capped.ms.toFixed(2)} ms capped at 1,000`)
  }, 60_000)
})

/** One sample of a scrape, by name and labels. */
const at = (m: Map<string, number>, name: string, labels: Record<string, string> = {}) => m.get(sample(name, labels))
const scrape = scrapeMetrics

describe.each(pipelines)('a destination that is down, on the %s pipeline', (pipeline) => {
  // A failed attempt is retried an hour later; 2 failures open a circuit for 0.5 s (then 1 s).
  const h = usePipelineHerald(pipeline, {
    HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,1h', WORKER_THREADS: '1',
    CIRCUIT_FAILURES: '2', CIRCUIT_COOLDOWN_MS: '500', CIRCUIT_COOLDOWN_MAX_MS: '1000',
  })
  let down: Receiver
  let refusing: Receiver
  beforeAll(() => {
    down = startReceiver()
    down.fallback = { status: 503 }
    refusing = startReceiver()
    refusing.fallback = { status: 400 }
  })
  afterAll(() => {
    down?.stop()
    refusing?.stop()
  })

  test('its deliveries pending with their age, the refused ones failed, and the circuit of its host open until it is back', async () => {
    const downHost = new URL(down.url).host
    const refusingHost = new URL(refusing.url).host
    const ws = await h.workspace()
    for (const [name, rx] of [['down', down], ['refusing', refusing]] as const) {
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name, pattern: '*', destination: { type: 'webhook', url: `${rx.url}/hook` } })).status).toBe(201)
    }
    const idle = await scrape(h.url)
    expect(at(idle, 'herald_deliveries_pending')).toBe(0)
    expect(at(idle, 'herald_deliveries_pending_oldest_age_seconds')).toBe(0)
    expect(at(idle, 'herald_deliveries_failed_last_hour')).toBe(0)
    expect(at(idle, 'herald_destination_circuits', { state: 'open' })).toBe(0)

    for (let i = 0; i < 4; i++) expect((await h.post(ws.apiKey, { message: `down ${i}` })).status).toBe(200)
    // Two attempts fail and open the circuit; the other deliveries are held, then tried once (a trial) and fail too.
    const m = await eventually(async () => {
      const s = await scrape(h.url)
      return at(s, 'herald_deliveries_pending') === 4 && at(s, 'herald_deliveries_failed_last_hour') === 4 && (at(s, 'herald_destination_circuit_state', { host: downHost }) ?? 0) >= 1 && s
    }, 15_000, '4 deliveries pending, 4 failed and the circuit of the receiver that is down open')
    expect(at(m, 'herald_destination_circuit_state', { host: refusingHost })).toBeUndefined() // a 4xx is no reason to stop sending
    expect(at(m, 'herald_destination_circuits', { state: 'open' })! + at(m, 'herald_destination_circuits', { state: 'half_open' })!).toBe(1)
    expect(at(m, 'herald_deliveries_overdue_seconds')).toBeLessThan(5) // the worker takes what is due
    // The oldest pending delivery ages with its event.
    const first = at(m, 'herald_deliveries_pending_oldest_age_seconds')!
    expect(first).toBeGreaterThan(0)
    await Bun.sleep(1_100)
    expect(at(await scrape(h.url), 'herald_deliveries_pending_oldest_age_seconds')).toBeGreaterThanOrEqual(first + 1)

    // Back: the next send is the circuit's trial, which closes it.
    down.fallback = { status: 200 }
    const before = down.received.length
    expect((await h.post(ws.apiKey, { message: 'back' })).status).toBe(200)
    await down.waitFor(before + 1)
    const closed = await eventually(async () => {
      const s = await scrape(h.url)
      return at(s, 'herald_destination_circuit_state', { host: downHost }) === 0 && at(s, 'herald_deliveries_failed_last_hour') === 5 && s
    }, 15_000, 'the circuit to close')
    expect(at(closed, 'herald_destination_circuits', { state: 'open' })).toBe(0)
    expect(at(closed, 'herald_destination_circuits', { state: 'half_open' })).toBe(0)
    // The held ones follow; those that failed wait for their retry, an hour later.
    expect(at(await eventually(() => scrape(h.url).then((s) => at(s, 'herald_deliveries_pending')! <= 4 && s), 10_000, 'the new delivery to be made'), 'herald_deliveries_pending')).toBeGreaterThanOrEqual(2)
  }, 45_000)
})

describe('the circuits in /metrics: few series, the latest report', () => {
  test('at most 20 hosts, those opened first, then host="_other"; a late report of an older state changes nothing; a closed circuit shows 0, then goes', async () => {
    const board = circuitBoard()
    const unwatch = watchMetrics({ sql: undefined as never, bus: { state: async () => null }, fanout: { inFlight: () => 0, circuits: (now) => board.summary(now) } })
    try {
      const t0 = Date.now()
      // 25 hosts, a router each, opened one a millisecond after the other, in two threads.
      for (let i = 0; i < 25; i++) board.report(`r${i}`, { thread: 1 + (i % 2), seq: i + 1, host: `h${i}.example`, openUntil: t0 + 60_000 }, t0 - 100 + i)
      const m = parseExposition(await registry.metrics())
      const hosts = [...m.keys()].filter((k) => k.startsWith('herald_destination_circuit_state{'))
      expect(hosts.length).toBe(21)
      for (let i = 0; i < 20; i++) expect(m.get(sample('herald_destination_circuit_state', { host: `h${i}.example` }))).toBe(1)
      expect(m.get(sample('herald_destination_circuit_state', { host: CIRCUIT_OTHER_HOSTS }))).toBe(1)
      expect(m.get(sample('herald_destination_circuits', { state: 'open' }))).toBe(25)

      // Router r0 closes (thread 1, report 100); a report made before it (99) comes back later, from a slower task.
      board.report('r0', { thread: 1, seq: 100, host: 'h0.example', openUntil: 0 }, t0)
      board.report('r0', { thread: 1, seq: 99, host: 'h0.example', openUntil: t0 + 60_000 }, t0)
      expect(board.summary(t0).hosts.get('h0.example')?.value).toBe(0)
      // r1's open time is over: half-open (2), its next send a trial.
      expect(board.summary(t0 + 61_000).hosts.get('h1.example')?.value).toBe(2)
      // Two minutes after the last word of a circuit no longer open, it goes.
      const later = board.summary(t0 + 60_000 + 2 * 60_000 + 1)
      expect(later.hosts.size).toBe(0)
      expect(later.open + later.halfOpen).toBe(0)
    } finally {
      unwatch()
    }
  })
})
