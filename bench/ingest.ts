#!/usr/bin/env bun
// Ingest benchmark: in one run on one machine, wrk drives POST /event against
// five servers, one after the other, with the same bytes and connections:
// - bare: a Bun.serve that only parses the body (bench/baseline_server.ts);
// - elysia: Elysia with a TypeBox schema of the body (bench/elysia_server.ts);
// - stub: Herald's own HTTP path with its database stubbed (bench/stub_server.ts);
// - prototype: the smallest durable server with Herald's guarantees, writing
//   Herald's tables in one statement per batch (bench/prototype_server.ts);
// - herald: Herald on real PostgreSQL.
// - herald_batch (with --batch N): Herald taking N events per request on
//   POST /events; its figures are per event, and its ratio to `herald` (durable
//   events/s of one to the other) is taken within the run.
// Each reports req/s, latency and the CPU time per event of its process and
// of its PostgreSQL backends. The ratios (Herald to bare and to the
// prototype, the stub to Elysia) are taken within the run, round by round:
// a ratio in one run means more than any figure across runs on a noisy
// machine. Prints one JSON object and saves it under bench/results/.
//
//   npx bun bench/ingest.ts [--duration 15] [--connections 64] [--workspaces 100] [--threads 1] [--warmup 3] [--rounds 1] [--api 1] [--only bare,prototype,herald]
//   npx bun bench/ingest.ts --batch 100 [--batch-lanes 2] --only herald,herald_batch
//
// --api N starts N `herald serve` processes on one database and drives each
// with its own wrk, the connections split between them (the scale-out path).
//
// DATABASE_URL names a PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres);
// each durable run creates a database herald_bench_<ts> there and drops it at the end.
// BATCH_*, DATABASE_POOL_MAX and API_KEY_CACHE_TTL_MS in the environment are
// passed on to Herald, so tuning experiments need no code change.
import postgres from 'postgres'
import { parseArgs } from 'node:util'
import { loadavg } from 'node:os'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { addOtherCores, backendPids, cpuMeter, machine, median, round, rssSampler } from './proc'
import { generateApiKey } from '../src/core/keys'
import { ADMIN_TOKEN, DATABASE_URL, checkpoints, createWorkspace, fail, freePort, harness, intFlag, stampOf, tuningEnv, type Child } from './harness'
import { runWrk, type WrkResult } from './load'

const h = harness('ingest')
const { spawnBun, waitFor, createDatabase } = h

const VARIANTS = ['bare', 'elysia', 'stub', 'prototype', 'herald', 'herald_batch'] as const
type Variant = (typeof VARIANTS)[number]
const TARGETS = { herald_vs_bare: 0.2, herald_vs_prototype: 0.9, stub_vs_elysia: 0.7, p99_ms: 20, rss_mb: 300, batch_events_per_s: 25_000, batch_vs_single: 2.5 }
// Herald's own knobs that a run may vary; they are recorded in params.
const TUNING_KEYS = ['BATCH_MAX_EVENTS', 'BATCH_WINDOW_MS', 'BATCH_CONCURRENCY', 'BATCH_PIPELINE', 'DATABASE_POOL_MAX', 'API_KEY_CACHE_TTL_MS']

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '15' },
    connections: { type: 'string', default: '64' },
    workspaces: { type: 'string', default: '100' },
    threads: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '1' },
    api: { type: 'string', default: '1' },
    only: { type: 'string', default: VARIANTS.join(',') },
    batch: { type: 'string', default: '0' },
    'batch-lanes': { type: 'string', default: '0' },
  },
})
const only = flags.only!.split(',').map((v) => v.trim()) as Variant[]
for (const v of only) if (!VARIANTS.includes(v)) fail(`--only takes ${VARIANTS.join(', ')}; got ${JSON.stringify(v)}`)
// Events per POST /events (0: no batch run); lanes of the batch run (0: as the environment says).
const batch = intFlag(flags, 'batch', 0)
const batchLanes = intFlag(flags, 'batch-lanes', 0)
if (batch > 1000) fail('--batch takes at most 1000 events, the limit of POST /events')
if (flags.only !== VARIANTS.join(',') && only.includes('herald_batch') && !batch) fail('herald_batch needs --batch N')
const params = {
  duration_s: posInt('duration'),
  warmup_s: posInt('warmup'),
  connections: posInt('connections'),
  workspaces: posInt('workspaces'),
  threads: posInt('threads'),
  rounds: posInt('rounds'),
  api_processes: posInt('api'),
  variants: VARIANTS.filter((v) => only.includes(v) && (v !== 'herald_batch' || batch > 0)),
  herald_env: tuningEnv(TUNING_KEYS),
  batch_events: batch,
  batch_lanes: batchLanes || undefined,
}

function posInt(name: keyof typeof flags): number {
  return intFlag(flags, name, 1)
}

// ---------------------------------------------------------------- wrk

/** One wrk run with this run's threads and connections (a `share` of them: several runs at once). */
const wrk = (url: string, seconds: number, keysFile: string, share = 1, events = 0) =>
  runWrk({ url, seconds, keysFile, events, threads: Math.max(1, Math.round(params.threads / share)), connections: Math.max(1, Math.round(params.connections / share)) })

/** Several wrk runs at once, one per URL, as one result: counts add up, latencies are the slowest run's. */
async function wrkAll(urls: string[], seconds: number, keysFile: string, events = 0): Promise<WrkResult & { cpu_s: number }> {
  const runs = await Promise.all(urls.map((u) => wrk(u, seconds, keysFile, urls.length, events)))
  if (runs.length === 1) return runs[0]!
  const sum = (f: (r: WrkResult & { cpu_s: number }) => number) => runs.reduce((a, r) => a + f(r), 0)
  const max = (f: (r: WrkResult) => number) => Math.max(...runs.map(f))
  const weighted = (f: (r: WrkResult) => number) => sum((r) => f(r) * r.requests) / Math.max(1, sum((r) => r.requests))
  return {
    duration_us: max((r) => r.duration_us),
    requests: sum((r) => r.requests),
    bytes: sum((r) => r.bytes),
    items_ok: sum((r) => r.items_ok),
    items_refused: sum((r) => r.items_refused),
    errors: { connect: sum((r) => r.errors.connect), read: sum((r) => r.errors.read), write: sum((r) => r.errors.write), status: sum((r) => r.errors.status), timeout: sum((r) => r.errors.timeout) },
    latency_us: {
      min: Math.min(...runs.map((r) => r.latency_us.min)), mean: weighted((r) => r.latency_us.mean), max: max((r) => r.latency_us.max),
      stdev: max((r) => r.latency_us.stdev), p50: weighted((r) => r.latency_us.p50), p90: max((r) => r.latency_us.p90),
      p99: max((r) => r.latency_us.p99), p999: max((r) => r.latency_us.p999),
    },
    cpu_s: sum((r) => r.cpu_s),
  }
}

/**
 * A warm-up run, then the measured run, during which the CPU time of each
 * group of processes is metered: per request, or per event with `events` per
 * request (POST /events).
 */
async function load(url: string | string[], keysFile: string, groups: Parameters<typeof cpuMeter>[0], events = 0) {
  const urls = Array.isArray(url) ? url : [url]
  const warm = await wrkAll(urls, params.warmup_s, keysFile, events)
  const meter = cpuMeter(groups)
  const run = await wrkAll(urls, params.duration_s, keysFile, events)
  const wall = run.duration_us / 1e6
  const cpu = events ? meter.stop(run.items_ok, wall, 'event') : meter.stop(run.requests, wall)
  cpu.wrk_cores = round(run.cpu_s / wall, 2)
  return { warm, run, cpu: addOtherCores(cpu) }
}

const ok2xx = (r: WrkResult) => r.requests - r.errors.status
const rps = (r: WrkResult) => round(r.requests / (r.duration_us / 1e6), 0)
const errorCount = (r: WrkResult) => r.errors.connect + r.errors.read + r.errors.write + r.errors.timeout
const ms = (us: number) => round(us / 1000, 2)

// ---------------------------------------------------------------- the runs

type Result = Record<string, unknown> & { rps: number; p99_ms: number; cpu: Record<string, number> }

function summary(run: WrkResult, cpu: Record<string, number>) {
  return {
    rps: rps(run), p50_ms: ms(run.latency_us.p50), p90_ms: ms(run.latency_us.p90), p99_ms: ms(run.latency_us.p99), max_ms: ms(run.latency_us.max),
    requests: run.requests, non2xx: run.errors.status, errors: errorCount(run), cpu,
  }
}

/** A server that needs no database: started, loaded, stopped. */
async function runPlain(script: string, keysFile: string, logDir: string): Promise<Result> {
  const port = await freePort()
  const child = spawnBun([script], { ...process.env, PORT: String(port) }, join(logDir, `${script.replace(/\W+/g, '_')}.log`))
  const url = `http://127.0.0.1:${port}/event`
  // Any answer means it listens (the stub refuses a made-up key with a 401).
  await waitFor(script, child, () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"ready?"}' }).then((r) => r.status < 500))
  const { run, cpu } = await load(url, keysFile, { server: () => [child.proc.pid] })
  await child.stop()
  return summary(run, cpu)
}

async function createWorkspaces(base: string, n: number, keysFile: string) {
  const keys: string[] = []
  for (let i = 0; i < n; i++) keys.push(await createWorkspace(base, `bench-${i}`))
  writeFileSync(keysFile, keys.join('\n') + '\n')
}

/** Herald's own account of its batches (warm-up included), from /metrics: how many, how full, how long to commit. */
async function batchStats(base: string) {
  const text = await (await fetch(`${base}/metrics`)).text()
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN)
  const count = value('herald_ingest_batch_events_count')
  return {
    count,
    events_mean: round(value('herald_ingest_batch_events_sum') / count, 1),
    commit_ms_mean: round((1000 * value('herald_ingest_batch_commit_seconds_sum')) / count, 2),
  }
}

let dbSeq = 0
/** A database of its own, migrated by Herald, with the run's workspaces and their keys in `keysFile`; Herald is left running. */
async function heraldOnNewDatabase(adminUrl: string, keysFile: string, logDir: string, processes: number, extraEnv: Record<string, string> = {}) {
  const db = await createDatabase(adminUrl, `herald_bench_${stampOf(new Date())}_${++dbSeq}`)
  const children: Child[] = []
  const bases: string[] = []
  // The write path alone, as the figures were measured: no NATS (a NATS_URL in
  // the shell would also put every run's database on one stream, which a
  // Herald on the next run's new database refuses).
  const { NATS_URL: _, NATS_STREAM: __, ...inherited } = process.env
  const env = { ...inherited, HOST: '127.0.0.1', DATABASE_URL: db.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'warn', ...extraEnv }
  for (let i = 0; i < processes; i++) {
    const { child, base } = await h.startApi('serve', env, join(logDir, `herald-${dbSeq}-${i}.log`))
    children.push(child)
    bases.push(base)
  }
  await createWorkspaces(bases[0]!, params.workspaces, keysFile)
  return { db, children, bases }
}

/** Every 2xx was a commit: the events table must hold at least as many rows as wrk counted (events, for batches). */
async function durability(sql: postgres.Sql, warm: WrkResult, run: WrkResult, events = 0) {
  const rows = Number((await sql`SELECT count(*)::bigint AS n FROM events`)[0]!.n)
  const sent2xx = events ? warm.items_ok + run.items_ok : ok2xx(warm) + ok2xx(run)
  return { events_rows: rows, [events ? 'accepted_events' : 'wrk_2xx']: sent2xx, pass: rows >= sent2xx }
}

async function runPrototype(adminUrl: string, logDir: string): Promise<Result> {
  const keysFile = join(logDir, `keys-prototype-${dbSeq + 1}.txt`)
  const { db, children } = await heraldOnNewDatabase(adminUrl, keysFile, logDir, 1)
  for (const c of children) await c.stop() // Herald only migrated the database and made the workspaces
  const port = await freePort()
  const child = spawnBun(['bench/prototype_server.ts'], { ...process.env, PORT: String(port), DATABASE_URL: db.url, KEYS_FILE: keysFile }, join(logDir, `prototype-${dbSeq}.log`))
  const url = `http://127.0.0.1:${port}/event`
  await waitFor('the prototype', child, () => fetch(url, { method: 'POST', body: '{}' }).then((r) => r.status === 401))
  const cp0 = await checkpoints(db.sql)
  const { warm, run, cpu } = await load(url, keysFile, { server: () => [child.proc.pid], postgres_backends: () => backendPids(db.name) })
  const cpDuring = (await checkpoints(db.sql)) - cp0
  await child.stop()
  return { ...summary(run, cpu), postgres_checkpoints_during_load: cpDuring, durability: await durability(db.sql, warm, run) }
}

/** Herald on PostgreSQL, one event per POST /event, or `events` per POST /events. */
async function runHerald(adminUrl: string, logDir: string, events = 0): Promise<Result & { keysFile: string; syncCommit: string }> {
  const keysFile = join(logDir, `keys-herald-${dbSeq + 1}.txt`)
  const env: Record<string, string> = events && batchLanes ? { BATCH_CONCURRENCY: String(batchLanes) } : {}
  const { db, children, bases } = await heraldOnNewDatabase(adminUrl, keysFile, logDir, params.api_processes, env)
  const syncCommit = (await db.sql`SHOW synchronous_commit`)[0]!.synchronous_commit as string
  const cp0 = await checkpoints(db.sql)
  const rss = children.map((c) => rssSampler(c.proc.pid))
  // PostgreSQL's CPU can be metered only when it runs here; its backends for the
  // bench database exist by the measured run, opened during the warm-up.
  const path = events ? '/events' : '/event'
  const { warm, run, cpu } = await load(bases.map((b) => b + path), keysFile, { server: () => children.map((c) => c.proc.pid), postgres_backends: () => backendPids(db.name) }, events)
  const mems = rss.map((r) => r.peak())
  const mem = mems.reduce((a, m) => (m.peak_mb > a.peak_mb ? m : a))
  const cpDuring = (await checkpoints(db.sql)) - cp0
  const batches = await batchStats(bases[0]!)
  for (const c of children) await c.stop() // SIGTERM drains the batcher; every 2xx was committed before it was sent anyway
  const wall = run.duration_us / 1e6
  return {
    ...summary(run, cpu),
    ...(events ? { events_per_request: events, durable_events_per_s: round(run.items_ok / wall, 0), events_refused: run.items_refused } : {}),
    peak_rss_mb: mem.peak_mb,
    log_lines_at_warn: children.reduce((n, c) => n + readFileSync(c.logPath, 'utf8').split('\n').filter(Boolean).length, 0),
    postgres_checkpoints_during_load: cpDuring,
    batches,
    durability: await durability(db.sql, warm, run, events),
    keysFile,
    syncCommit,
  }
}

async function runtime(adminUrl: string) {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} })
  try {
    const [v] = await sql`SELECT current_setting('server_version') AS v`
    const wrkVersion = (await new Response(Bun.spawn(['wrk', '-v'], { stdout: 'pipe', stderr: 'pipe' }).stdout).text()).split('\n')[0]
    return { bun: Bun.version, postgres: v!.v as string, wrk: wrkVersion?.trim() }
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/** Signs that the numbers say more about the machine than about the servers. */
function noiseWarnings(round: Partial<Record<Variant, Result>>): string[] {
  const w: string[] = []
  for (const [name, r] of Object.entries(round)) {
    const c = r!.cpu
    if (c.machine_steal_pct! > 5) w.push(`${name}: the hypervisor stole ${c.machine_steal_pct}% of the CPU during the run`)
    if (c.other_cores! > 0.25) w.push(`${name}: ${c.other_cores} cores went to neither the server under test, its PostgreSQL backends nor wrk (other processes, or the kernel's loopback work)`)
    if (Number(r!.postgres_checkpoints_during_load ?? 0) > 0) w.push(`${name}: PostgreSQL ran a checkpoint during the load; commits stall while it writes`)
  }
  return w
}

const ratio = (a: Result | undefined, b: Result | undefined) => (a && b ? round(a.rps / b.rps, 3) : undefined)

async function main() {
  if (!Bun.which('wrk')) fail('wrk is not on PATH. Install it first, e.g. `apt-get install -y wrk` (Debian/Ubuntu) or `brew install wrk` (macOS).')
  const adminUrl = DATABASE_URL
  const tmp = h.tempDir('herald-bench-')
  // The servers without a database take any key; they get a file of made-up ones.
  const anyKeys = join(tmp, 'keys-any.txt')
  writeFileSync(anyKeys, Array.from({ length: params.workspaces }, generateApiKey).join('\n') + '\n')

  const started = new Date()
  const load1m = loadavg()[0]!
  const rt = await runtime(adminUrl)
  const rounds: (Partial<Record<Variant, Result>> & { ratios: Record<string, number | undefined>; warnings: string[] })[] = []
  let syncCommit = 'unknown'
  for (let r = 0; r < params.rounds; r++) {
    const round: Partial<Record<Variant, Result>> = {}
    for (const v of params.variants) {
      if (v === 'bare') round.bare = await runPlain('bench/baseline_server.ts', anyKeys, tmp)
      if (v === 'elysia') round.elysia = await runPlain('bench/elysia_server.ts', anyKeys, tmp)
      if (v === 'stub') round.stub = await runPlain('bench/stub_server.ts', anyKeys, tmp)
      if (v === 'prototype') round.prototype = await runPrototype(adminUrl, tmp)
      if (v === 'herald' || v === 'herald_batch') {
        const { keysFile: _, syncCommit: sc, ...h } = await runHerald(adminUrl, tmp, v === 'herald_batch' ? batch : 0)
        syncCommit = sc
        round[v] = h
      }
    }
    const ratios = {
      herald_vs_bare: ratio(round.herald, round.bare),
      herald_vs_prototype: ratio(round.herald, round.prototype),
      prototype_vs_bare: ratio(round.prototype, round.bare),
      stub_vs_elysia: ratio(round.stub, round.elysia),
      elysia_vs_bare: ratio(round.elysia, round.bare),
      batch_vs_single: round.herald_batch && round.herald ? Math.round((1000 * Number(round.herald_batch.durable_events_per_s)) / round.herald.rps) / 1000 : undefined,
    }
    rounds.push({ ...round, ratios, warnings: noiseWarnings(round) })
    console.error(`bench/ingest: round ${r + 1}: ${Object.entries(round).map(([k, v]) => `${k} ${v!.rps} req/s`).join(', ')}; ${JSON.stringify(ratios)}`)
  }

  const med = (k: keyof (typeof rounds)[number]['ratios']) => {
    const xs = rounds.map((r) => r.ratios[k]).filter((x): x is number => x !== undefined)
    return xs.length ? round(median(xs), 3) : undefined
  }
  const ratios = { herald_vs_bare: med('herald_vs_bare'), herald_vs_prototype: med('herald_vs_prototype'), prototype_vs_bare: med('prototype_vs_bare'), stub_vs_elysia: med('stub_vs_elysia'), elysia_vs_bare: med('elysia_vs_bare'), batch_vs_single: med('batch_vs_single') }
  const herald = rounds.map((r) => r.herald).filter((h): h is Result => !!h)
  const batched = rounds.map((r) => r.herald_batch).filter((h): h is Result => !!h)
  const pass = (x: number | undefined, target: number) => (x === undefined ? undefined : x >= target)
  const report = {
    benchmark: 'ingest',
    started_at: started.toISOString(),
    machine: machine(load1m),
    runtime: rt,
    params,
    synchronous_commit: syncCommit,
    rounds,
    ratios_median: ratios,
    targets: {
      ...TARGETS,
      pass: {
        herald_vs_bare: pass(ratios.herald_vs_bare, TARGETS.herald_vs_bare),
        herald_vs_prototype: pass(ratios.herald_vs_prototype, TARGETS.herald_vs_prototype),
        stub_vs_elysia: pass(ratios.stub_vs_elysia, TARGETS.stub_vs_elysia),
        p99_ms: herald.length ? herald.every((h) => h.p99_ms < TARGETS.p99_ms) : undefined,
        rss_mb: herald.length ? herald.every((h) => Number(h.peak_rss_mb) < TARGETS.rss_mb) : undefined,
        synchronous_commit: herald.length ? syncCommit === 'on' : undefined,
        no_errors: herald.length ? herald.every((h) => h.non2xx === 0 && h.errors === 0) : undefined,
        durability: herald.length || batched.length ? rounds.every((r) => [r.herald, r.herald_batch, r.prototype].every((x) => !x || (x.durability as { pass: boolean }).pass)) : undefined,
        batch_events_per_s: batched.length ? median(batched.map((b) => Number(b.durable_events_per_s))) >= TARGETS.batch_events_per_s : undefined,
        batch_vs_single: pass(ratios.batch_vs_single, TARGETS.batch_vs_single),
        batch_no_refused_events: batched.length ? batched.every((b) => b.events_refused === 0 && b.non2xx === 0 && b.errors === 0) : undefined,
      },
    },
  }
  h.saveReport(started, report)
}

await h.run(main)
