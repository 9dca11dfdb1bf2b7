#!/usr/bin/env bun
// Read-state benchmark: unread counts and the unread feed page for a member
// of a workspace with 1,000,000 events and 100 members, and "mark all read"
// on 100,000 events, through the functions the routes use
// (src/ingest/event_reads.ts, src/ingest/read_state.ts). Prints one JSON object.
//
//   npx bun bench/unread.ts [--events 1000000] [--members 100] [--runs 100]
//
// DATABASE_URL names the PostgreSQL server (default
// postgres://postgres@127.0.0.1:5432/postgres); the run creates the database
// herald_bench_unread_<ts> and drops it at the end (--keep keeps it).
//
// The members' states, spread over the 100: a fifth never read anything (every
// count stops at the cap), the others read through a point between 90 % and
// 99.9 % of the events (all channels), half of them with a channel watermark
// higher up and 50 marks above their watermarks.
import postgres from 'postgres'
import { parseArgs } from 'node:util'
import { loadavg } from 'node:os'
import { migrate } from '../src/core/migrate'
import { ensurePartitions } from '../src/core/partitions'
import { eventReads } from '../src/ingest/event_reads'
import { COUNT_CAP } from '../src/ingest/read_state'
import type { Sql } from '../src/core/db'
import { machine, round } from './proc'

const TARGET_P99_MS = 50
const TARGET_MARK_ALL_MS = 100
const { values: flags } = parseArgs({ options: { events: { type: 'string', default: '1000000' }, members: { type: 'string', default: '100' }, runs: { type: 'string', default: '100' }, keep: { type: 'boolean', default: false } } })
const EVENTS = Number(flags.events)
const MEMBERS = Number(flags.members)
const RUNS = Number(flags.runs)
const CHANNELS = 10
const MARK_ALL = 100_000
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const stamp = new Date().toISOString().replace(/[:.]/g, '-')
const dbName = `herald_bench_unread_${stamp.replace(/[^0-9a-z_]/gi, '_').toLowerCase()}`
const progress = (m: string) => console.error(`bench/unread: ${new Date().toISOString().slice(11, 19)} ${m}`)
const types = { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } }

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
await admin.unsafe(`CREATE DATABASE ${dbName}`)
const url = new URL(adminUrl)
url.pathname = `/${dbName}`
const sql = postgres(url.toString(), { max: 4, onnotice: () => {}, types }) as unknown as Sql
let exitCode = 0

const timed = async (runs: number, f: () => Promise<unknown>) => {
  for (let i = 0; i < 5; i++) await f() // warm: prepared statements, the cache
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await f()
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  const q = (p: number) => round(times[Math.min(times.length - 1, Math.floor(p * times.length))]!, 2)
  return { p50_ms: q(0.5), p99_ms: q(0.99), max_ms: round(times.at(-1)!, 2) }
}

try {
  await migrate(sql)
  await ensurePartitions(sql)
  const [ws] = await sql<{ id: number }[]>`INSERT INTO workspaces (name, monthly_quota, rate_per_second, rate_burst, tokens) VALUES ('bench', 1e9, 1e6, 1e6, 1e6) RETURNING id`
  const wsId = ws!.id
  await sql`INSERT INTO channels (workspace_id, slug) SELECT ${wsId}, 'ch' || i FROM generate_series(0, ${CHANNELS - 1}) i`
  progress(`loading ${EVENTS.toLocaleString()} events`)
  const loadStart = performance.now()
  // Over the last 60 days (three monthly partitions), in id order.
  const spanS = 60 * 24 * 3600
  await sql.unsafe(`
    INSERT INTO events (id, workspace_id, channel, created_at, message)
    SELECT (lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7000' || '8' || lpad(to_hex(i), 15, '0'))::uuid,
      ${wsId}, 'ch' || (i % ${CHANNELS}), t, 'message ' || i
    FROM generate_series(1, ${EVENTS}) AS i, LATERAL (SELECT date_trunc('milliseconds', now() - ((${EVENTS} - i)::float8 / ${EVENTS} * ${spanS}) * interval '1 second')) AS x(t)`)
  const loadS = round((performance.now() - loadStart) / 1000, 1)
  const ids = (await sql<{ id: string }[]>`SELECT id::text AS id FROM events WHERE workspace_id = ${wsId} ORDER BY id`).map((r) => r.id)
  const at = (fraction: number) => ids[Math.min(ids.length - 1, Math.floor(fraction * ids.length))]!

  progress(`${MEMBERS} members and their read state`)
  const users: string[] = []
  for (let m = 0; m < MEMBERS; m++) users.push(Bun.randomUUIDv7())
  await sql`INSERT INTO users (id, email) SELECT id, id::text || '@example.com' FROM unnest(${users}::uuid[]) id`
  await sql`INSERT INTO memberships (workspace_id, user_id) SELECT ${wsId}, id FROM unnest(${users}::uuid[]) id`
  const reads = eventReads(sql)
  for (let m = 0; m < MEMBERS; m++) {
    if (m % 5 === 0) continue // never read anything
    const reader = { workspaceId: wsId, userId: users[m]! }
    const through = 0.9 + 0.099 * (m / MEMBERS)
    await reads.markBefore(reader, at(through), null, 'read')
    if (m % 2) {
      await reads.markBefore(reader, at(through + 0.0005), 'ch3', 'archived')
      await reads.mark(reader, Array.from({ length: 50 }, (_, k) => at(through + 0.0006 + k * 0.00001)), 'read')
    }
  }
  progress('ANALYZE')
  await sql`ANALYZE`

  // Three members: one who never read (capped counts), one typical (read
  // through 95 %: 50,000 unread), one nearly caught up, with marks.
  const cases = { never_read: 0, read_95pct: 51, read_99pct: 99 } as const
  const results: Record<string, unknown> = {}
  let worst = 0
  for (const [name, m] of Object.entries(cases)) {
    const reader = { workspaceId: wsId, userId: users[m]! }
    const counts = await reads.unreadCounts(reader)
    const c = await timed(RUNS, () => reads.unreadCounts(reader))
    const page = await timed(RUNS, () => reads.feedPage(reader, { status: 'unread' }, null, 50))
    const all = await timed(RUNS, () => reads.feedPage(reader, {}, null, 50))
    worst = Math.max(worst, c.p99_ms, page.p99_ms)
    results[name] = { unread: counts.unread, counts: c, unread_page: page, page_all_statuses: all }
    progress(`${name}: counts p99 ${c.p99_ms} ms, unread page p99 ${page.p99_ms} ms (unread ${counts.unread})`)
  }

  // Mark all read, 100,000 events: a member who read through MARK_ALL events
  // before the newest, with 100 marks above it, passes the newest id.
  const reader = { workspaceId: wsId, userId: users[1]! }
  await reads.markBefore(reader, ids[ids.length - MARK_ALL - 1]!, null, 'read')
  await reads.mark(reader, ids.slice(-100), 'read')
  const t0 = performance.now()
  await reads.markBefore(reader, ids.at(-1)!, null, 'read')
  const markAllMs = round(performance.now() - t0, 2)
  const after = await reads.unreadCounts(reader)
  progress(`mark all read on ${MARK_ALL.toLocaleString()} events: ${markAllMs} ms (unread after: ${after.unread})`)

  const storage = (await sql<{ watermarks: number; marks: number }[]>`SELECT (SELECT count(*)::int FROM read_watermarks) AS watermarks, (SELECT count(*)::int FROM read_marks) AS marks`)[0]!
  const out = {
    benchmark: 'unread',
    started_at: new Date().toISOString(),
    machine: machine(loadavg()[0]!),
    runtime: { bun: Bun.version, postgres: (await sql<{ v: string }[]>`SELECT version() AS v`)[0]!.v },
    params: { events: EVENTS, members: MEMBERS, channels: CHANNELS, runs: RUNS, page: 50, count_cap: COUNT_CAP, span_days: 60 },
    load_s: loadS,
    storage,
    results,
    mark_all_read: { events: MARK_ALL, ms: markAllMs, unread_after: after.unread },
    worst_p99_ms: worst,
    targets: { p99_ms: `<= ${TARGET_P99_MS}`, mark_all_ms: `<= ${TARGET_MARK_ALL_MS}`, pass: worst <= TARGET_P99_MS && markAllMs <= TARGET_MARK_ALL_MS },
  }
  console.log(JSON.stringify(out, null, 2))
} catch (err) {
  console.error('bench/unread:', err)
  exitCode = 1
} finally {
  await sql.end()
  if (!flags.keep) await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
  await admin.end()
}
process.exit(exitCode)
