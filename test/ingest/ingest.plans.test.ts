// The plans of the ingest statement (src/ingest/batcher.ts writeEventBatch) on real
// PostgreSQL, as a long-running server keeps them: postgres.js prepares each
// statement, and after five executions PostgreSQL may switch to a generic
// plan, made once and kept however the tables grow. The plan that went bad
// was the delete of refused events: made while the partition was empty, it
// scanned the partition on every batch, so the cost per event grew with the
// table (123 → 447 µs). The statement now reads no event at all: it only
// inserts them. These tests make the generic plan on empty tables, fill the
// events partition (200,000 rows) and the outbox (20,000 rows awaiting the
// relay), and check the same cached plan, and a fresh one after ANALYZE,
// for any scan of a table that grows: the events partitions, the outbox,
// usage_daily, channels.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import postgres from 'postgres'
import { describePg, useTestHerald } from '../harness'
import { writeEventBatch } from '../../src/ingest/statement'
import type { Submission } from '../../src/ingest/submission'
import type { Sql } from '../../src/core/db'

const types = { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } }

describePg('the ingest statement keeps good plans on empty and full tables (PostgreSQL)', () => {
  let spy: Sql
  const notices: string[] = []
  const wsIds: number[] = []

  // Registered before the Herald's own afterAll: the spy's connection ends before Herald drops its database.
  afterAll(() => spy?.end())
  const h = useTestHerald('postgres', {}, 60_000)
  beforeAll(async () => {
    for (let i = 0; i < 20; i++) {
      const { name } = await h.workspace({ rateLimit: { perSecond: 1e9, burst: 1e9 }, monthlyQuota: 1e9 })
      wsIds.push((await h.db.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${name}`)[0]!.id)
    }
    // One connection, as an ingest lane has. auto_explain reports the plan
    // each execution used, as a notice; force_generic_plan makes that the
    // generic plan from the first execution on (PostgreSQL switches to it
    // after five executions of its own accord).
    spy = postgres(h.databaseUrl!, { max: 1, types, connection: { jit: 'off', plan_cache_mode: 'force_generic_plan' }, onnotice: (n) => notices.push(String(n.message)) }) as unknown as Sql
    await spy.unsafe("LOAD 'auto_explain'")
    await spy.unsafe('SET auto_explain.log_min_duration = 0')
    await spy.unsafe('SET auto_explain.log_level = notice')
  }, 60_000)

  const event = (ws: number, i: number): Submission => {
    const id = Bun.randomUUIDv7()
    return {
      principal: { workspaceId: ws, workspace: 'w', keyId: 1, defaultChannel: 'general' },
      id, createdAt: new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)), channel: `ch${i % 3}`, changes: [],
      event: { message: `event ${i}`, event: 'user.signup', channel: null, title: 'Title', link: null, tags: ['a', 'b'], data: { i }, priority: 3, ttl: null, collapseKey: null, ack: null, to: null, scheduledFor: null },
    }
  }
  const batch = (n: number) => Array.from({ length: n }, (_, i) => event(wsIds[i % wsIds.length]!, i))

  /** The plans of one batch's statements (new channels included, so every part runs). */
  async function planOfBatch(): Promise<string> {
    notices.length = 0
    await writeEventBatch(spy, batch(16), [{ ws: wsIds[0]!, channel: `new-${Date.now()}` }])
    const plans = notices.filter((n) => n.includes('plan:')).join('\n')
    if (!plans.includes('Insert on events')) throw new Error(`auto_explain reported no plan that inserts events: ${plans.slice(0, 500)}`)
    return plans
  }

  /** Scans in a plan of a table that grows with traffic. */
  const growingScans = (plan: string) =>
    [...plan.matchAll(/(?:Seq Scan|Index Scan(?: Backward)? using \S+|Index Only Scan(?: Backward)? using \S+|Bitmap Heap Scan) on (\S+)/g)]
      .map((m) => m[1]!)
      .filter((t) => /^(events|outbox|usage_daily|channels)/.test(t))
  const seqScans = (plan: string) => [...plan.matchAll(/Seq Scan on (\S+)/g)].map((m) => m[1]!)

  test('the generic plan made on empty tables still reads no event and scans no outbox once they are full; so does a fresh one after ANALYZE', async () => {
    const empty = await planOfBatch()
    // The outbox is only inserted into: rows leave it when workers record their fan-out.
    expect(growingScans(empty)).toEqual([])

    // 200,000 events in this month's partition, 20,000 outbox rows waiting for the relay.
    await h.db.sql`
      INSERT INTO events (id, workspace_id, channel, created_at, message, tags)
      SELECT (lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7000' || '8' || lpad(to_hex(i), 15, '0'))::uuid,
        (${wsIds}::bigint[])[1 + i % ${wsIds.length}], 'ch' || (i % 20), t, 'message ' || i, ARRAY['t' || (i % 30)]
      FROM generate_series(1, 200000) AS i, LATERAL (SELECT date_trunc('month', now()) + (i * interval '1 ms') AS t) x`
    await h.db.sql`INSERT INTO outbox (event_ids, workspace_ids) SELECT '{}', '{}' FROM generate_series(1, 20000)`
    // And 20,000 other workspaces: a server's workspace rows are reached by id too.
    await h.db.sql`INSERT INTO workspaces (name, monthly_quota, rate_per_second, rate_burst, tokens)
      SELECT 'many-' || i, 1000, 100, 200, 200 FROM generate_series(1, 20000) AS i`
    const full = await planOfBatch() // the same cached generic plan
    expect(seqScans(full)).toEqual([])
    expect(growingScans(full)).toEqual([])

    await h.db.sql`ANALYZE`
    const analyzed = await planOfBatch() // planned again, with the statistics of full tables
    expect(seqScans(analyzed)).toEqual([])
    expect(growingScans(analyzed)).toEqual([])
  }, 120_000)

  test('the ingest connections (and every other) run without JIT', async () => {
    const lane = h.db.connection() // what the batcher's lanes get; closed with the database
    expect((await lane`SELECT current_setting('jit') AS jit`)[0]!.jit).toBe('off')
    expect((await h.db.sql`SELECT current_setting('jit') AS jit`)[0]!.jit).toBe('off')
  })
})
