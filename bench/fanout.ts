#!/usr/bin/env bun
// Fan-out benchmark: events are ingested at a steady rate (open loop) while one
// webhook router per workspace delivers them, through the outbox relay and
// NATS JetStream, to a local receiver (bench/fanout_receiver.ts). It reports
// deliveries per second, the end-to-end latency from POST to receipt, and the
// backlog over time, against the targets; prints one JSON object and saves it
// under bench/results/.
//
//   npx bun bench/fanout.ts [--rate N] [--duration 30] [--warmup 5] [--workspaces 20] [--mode split|all|prototype|prototype-batch|prototype-lean]
//                           [--drain 10] [--inflight 256] [--skip-analyze] [--routers 1] [--matching 1] [--router plain|digest]
//
// --router digest makes the matching routers digests (a 10 s window, max 1,000, one key): each
// event is gathered and goes out inside a digest; the receiver counts each event a digest carries
// as its delivery, so `cpu.*_us_per_delivery` is the cost per gathered event (run with --drain 15).
//
// --routers N gives each workspace N webhook routers, of which --matching M
// match the benchmark's event (`*`, then `user.*`, `user.signup`, `u*`…) and
// the rest do not (exact keys, prefixes and suffixes of other events, in
// turn): the cost of routers that do not match is what it shows
// (bench/scale.ts compares 10 and 1,000).
//
// --rate defaults to half the Herald req/s of the newest bench/results/ingest-*.json
// (the ingest benchmark at 50% load), else 4000. --mode split runs `herald serve`
// and `herald worker` (the scale-out path); --mode all runs one `herald start`;
// --mode prototype runs the smallest pipeline with Herald's guarantees in
// their place (bench/prototype_server.ts publishing to JetStream after each
// commit, bench/prototype_worker.ts posting and recording), on a database and
// routers Herald made: what Herald's fan-out is measured against;
// --mode prototype-batch runs the same two files with PROTOTYPE_BATCH=1, the
// batched design (one JetStream message per committed batch, one row per
// delivery): the floor of that design; --mode prototype-lean with
// PROTOTYPE_BATCH=lean, fewer rows still (messages of ids, the views read from
// PostgreSQL, one row of arrays per group of deliveries that succeeded; no
// delivery log reads it): the floor of the problem rather than of a design.
// `cpu_per_delivery` sums up each
// mode's CPU µs per delivered event as serve, worker, PostgreSQL, NATS, total.
// DATABASE_URL names a PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
// and NATS_URL a NATS server with JetStream (default nats://127.0.0.1:4222); the
// run creates the database herald_bench_fo_<ts> and the stream HERALD_BENCH_<ts>
// and removes both at the end. BATCH_*, DATABASE_POOL_MAX, WORKER_* and
// OUTBOX_RELAY_INTERVAL_MS in the environment are passed on to Herald, and
// BENCH_BUN_FLAGS to the Bun that runs it (e.g. a CPU profile).
import { parseArgs } from 'node:util'
import { loadavg } from 'node:os'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { addOtherCores, backendPids, cpuMeter, dist, machine, mean, natsPids, round, rssSampler, slope } from './proc'
import {
  DATABASE_URL, NATS_URL, backendPid, backendsByApplication, checkpoints, createWebhookRouter, createWorkspace, deliveryOutcomes, fail, harness, intFlag,
  jetstreamEnv, logTails, now, runtimeOf, stampOf, tuningEnv, until, type Child,
} from './harness'
import { TICK_MS, generator } from './load'
import { startReceiver } from './fanout_receiver'

const h = harness('fanout')
const { cleanups, progress } = h

const TARGETS = { keeps_up_ratio: 0.95, p99_ms: 1000, backlog_growth_s: 0.1 }
const TUNING_KEYS = ['BATCH_MAX_EVENTS', 'BATCH_WINDOW_MS', 'BATCH_CONCURRENCY', 'DATABASE_POOL_MAX', 'API_KEY_CACHE_TTL_MS',
  'WORKER_CONCURRENCY', 'WORKER_THREADS', 'OUTBOX_RELAY_INTERVAL_MS', 'JETSTREAM_ACK_WAIT_MS']
const DEFAULT_RATE = 4000
// The same event as the ingest benchmark (bench/ingest.lua).
const BODY = JSON.stringify({
  message: 'New signup: jane@example.com upgraded from the free trial',
  event: 'user.signup', channel: 'signups', title: 'New signup', tags: ['a', 'b'], data: { plan: 'pro', n: 42 },
})

const { values: flags } = parseArgs({
  options: {
    rate: { type: 'string' },
    duration: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '5' },
    workspaces: { type: 'string', default: '20' },
    mode: { type: 'string', default: 'split' },
    drain: { type: 'string', default: '10' },
    inflight: { type: 'string', default: '256' },
    'skip-analyze': { type: 'boolean', default: false },
    api: { type: 'string', default: '1' },
    workers: { type: 'string', default: '1' },
    routers: { type: 'string', default: '1' },
    router: { type: 'string', default: 'plain' },
    matching: { type: 'string', default: '1' },
  },
})

const MODES = ['split', 'all', 'prototype', 'prototype-batch', 'prototype-lean']
const isPrototype = (mode: string) => mode.startsWith('prototype')

type NumFlag = 'rate' | 'duration' | 'warmup' | 'workspaces' | 'drain' | 'inflight' | 'api' | 'workers' | 'routers' | 'matching'
const posInt = (name: NumFlag, min = 1) => intFlag(flags, name, min)

// ---------------------------------------------------------------- setup

/** Half the Herald req/s of the newest ingest result: the ingest benchmark's rate at 50% load. */
function defaultRate(): { rate: number; source: string } {
  const dir = join(import.meta.dir, 'results')
  let files: string[] = []
  try {
    files = readdirSync(dir).filter((f) => /^ingest-.*\.json$/.test(f)).sort()
  } catch {}
  const newest = files.at(-1)
  if (newest) {
    try {
      // The ingest report keeps each round's figures; its last round with Herald in it.
      const report = JSON.parse(readFileSync(join(dir, newest), 'utf8')) as { rounds?: { herald?: { rps?: number } }[] }
      const rps = Number(report.rounds?.findLast((r) => r.herald?.rps)?.herald?.rps)
      if (rps > 0) return { rate: Math.max(1, Math.round(rps / 2)), source: `half of herald.rps ${rps} in bench/results/${newest}` }
    } catch {}
  }
  return { rate: DEFAULT_RATE, source: `default ${DEFAULT_RATE} (no readable bench/results/ingest-*.json)` }
}

function parameters() {
  const mode = flags.mode
  if (!MODES.includes(mode)) fail(`--mode must be ${MODES.join(', ')}, got ${JSON.stringify(mode)}`)
  const def = flags.rate === undefined ? defaultRate() : { rate: posInt('rate'), source: '--rate' }
  return {
    rate: def.rate,
    rate_source: def.source,
    duration_s: posInt('duration'),
    warmup_s: posInt('warmup', 0),
    workspaces: posInt('workspaces'),
    routers_per_workspace: posInt('routers'),
    matching_routers: Math.min(posInt('matching'), posInt('routers')),
    router: flags.router === 'digest' ? 'digest' as const : flags.router === 'plain' ? 'plain' as const : fail(`--router must be plain or digest, got ${JSON.stringify(flags.router)}`),
    mode,
    drain_s: posInt('drain', 0),
    inflight_limit: posInt('inflight'),
    api_processes: mode === 'split' ? posInt('api') : 1,
    worker_processes: mode === 'split' ? posInt('workers') : isPrototype(mode) ? 1 : 0,
    tick_ms: TICK_MS,
    analyze: !flags['skip-analyze'],
    bun_flags: process.env.BENCH_BUN_FLAGS ?? '',
    herald_env: tuningEnv(TUNING_KEYS),
  }
}

/** The receiver, then Herald: serve(s) + worker(s) (split) or start (all), sharing the database, the stream and the secret key. */
async function setUp(params: ReturnType<typeof parameters>, started: Date) {
  const stamp = stampOf(started)
  const stream = `HERALD_BENCH_${stamp}`
  const tmp = h.tempDir('herald-bench-fanout-')
  const db = await h.createDatabase(DATABASE_URL, `herald_bench_fo_${stamp}`)
  const { nc, jsm } = await h.connectNats(NATS_URL, stream)
  const rt = await runtimeOf(db.sql, nc)
  const receiver = await startReceiver(h, join(tmp, 'receiver.log'))

  const split = params.mode === 'split'
  const env = { ...jetstreamEnv({ databaseUrl: db.url, natsUrl: NATS_URL, stream, dataDir: join(tmp, 'data') }), HERALD_MAX_ROUTERS_PER_WORKSPACE: String(Math.max(100, params.routers_per_workspace)) }
  const apis: Child[] = []
  const bases: string[] = []
  for (let i = 0; i < params.api_processes; i++) {
    const { child, base } = await h.startApi(split ? 'serve' : 'start', env, join(tmp, split ? `serve-${i}.log` : 'start.log'))
    apis.push(child)
    bases.push(base)
  }
  const prototype = isPrototype(params.mode)
  const workers = prototype ? [] : Array.from({ length: params.worker_processes }, (_, i) => h.startWorker(env, join(tmp, `worker-${i}.log`)))
  if (!prototype) await h.workerReady(workers[0] ?? apis[0]!, jsm, stream)
  // Webhook routers per workspace: --matching of them take every event to the receiver, the rest match none.
  const keys: string[] = []
  const hook = `http://127.0.0.1:${receiver.port}/hook`
  for (let i = 0; i < params.workspaces; i++) {
    keys.push(await createWorkspace(bases[0]!, `bench-${i}`))
    const routers = Array.from({ length: params.routers_per_workspace }, (_, j) => routerPattern(j, params.matching_routers))
    for (let j = 0; j < routers.length; j += 16) {
      const digest = (k: number) => (params.router === 'digest' && j + k < params.matching_routers ? { digest: { window: '10s', max: 1000 } } : {})
      await Promise.all(routers.slice(j, j + 16).map((pattern, k) => createWebhookRouter(bases[0]!, `bench-${i}`, `r${j + k}`, hook, pattern, digest(k))))
    }
  }
  if (prototype) {
    // Herald made the tables, the workspaces and their routers; the prototype takes its place.
    for (const a of apis.splice(0)) await a.stop()
    await jsm.streams.delete(stream).catch(() => {})
    const keysFile = join(tmp, 'keys.txt')
    writeFileSync(keysFile, keys.join('\n') + '\n')
    const protoEnv = { ...env, KEYS_FILE: keysFile, RECEIVER_URL: hook, PORT: '0', PROTOTYPE_BATCH: params.mode === 'prototype-batch' ? '1' : params.mode === 'prototype-lean' ? 'lean' : '0' }
    const server = await h.spawnTalker('the prototype server', ['bench/prototype_server.ts'], join(tmp, 'prototype-server.log'), (line) => {
      const port = (JSON.parse(line) as { port?: number }).port
      if (port) bases.splice(0, bases.length, `http://127.0.0.1:${port}`)
      return !!port
    }, false, protoEnv)
    const worker = await h.spawnTalker('the prototype worker', ['bench/prototype_worker.ts'], join(tmp, 'prototype-worker.log'), (line) => line.includes('"ready"'), false, protoEnv)
    return { stream, db, jsm, rt, receiver, apis: [server], workers: [worker], bases, keys, herald: { prototype_server: [server], prototype_worker: [worker] } as Record<string, Child[]> }
  }
  // Processes by role: their CPU is metered together; RSS is each one's peak.
  const herald: Record<string, Child[]> = split ? { herald_serve: apis, herald_worker: workers } : { herald_start: apis }
  return { stream, db, jsm, rt, receiver, apis, workers, bases, keys, herald }
}

/**
 * The pattern of router j: the first `matching` match the event's key
 * (user.signup), the rest do not, in turn an exact key, a prefix and a
 * suffix of other events: each kind of lookup the index has.
 */
function routerPattern(j: number, matching: number): string {
  const match = ['*', 'user.*', 'user.signup', 'u*', '*.signup', 'user.s*']
  if (j < matching) return match[j % match.length]!
  return [`order.${j}`, `order${j}.*`, `*.paid${j}`][j % 3]!
}

// ---------------------------------------------------------------- figures

interface Sample {
  t_s: number
  phase: 'warmup' | 'measured' | 'drain'
  accepted: number
  delivered: number
  backlog: number
  outbox_events: number | null
  pending_deliveries: number | null
  stream_messages: number | null
}

/**
 * The rule for "no growing backlog": over the measured window, the mean
 * backlog (accepted − delivered) of the last quarter of the samples may exceed
 * that of the first quarter by at most TARGETS.backlog_growth_s × rate events
 * (what 100 ms of ingest adds). A pipeline that keeps up holds a flat
 * backlog (the events in flight); one that falls behind adds (rate −
 * deliveries/s) events every second.
 */
function backlogVerdict(samples: Sample[], rate: number) {
  const m = samples.filter((s) => s.phase === 'measured')
  const q = Math.max(1, Math.floor(m.length / 4))
  const first = mean(m.slice(0, q).map((s) => s.backlog))
  const last = mean(m.slice(-q).map((s) => s.backlog))
  const allowed = TARGETS.backlog_growth_s * rate
  return {
    rule: `mean backlog of the last quarter of the measured samples − that of the first quarter ≤ ${TARGETS.backlog_growth_s} s × rate = ${allowed} events`,
    samples: m.length,
    first_quarter_mean: round(first, 1),
    last_quarter_mean: round(last, 1),
    growth: round(last - first, 1),
    allowed_growth: allowed,
    slope_events_per_s: round(slope(m.map((s) => s.t_s), m.map((s) => s.backlog)), 1),
    max: Math.max(...m.map((s) => s.backlog)),
    pass: m.length > 0 && last - first <= allowed,
  }
}

/**
 * CPU µs per delivered event by part, whichever mode ran: serve (herald serve,
 * herald start or the prototype server), worker (null when it runs inside
 * herald start), PostgreSQL (the run's backends), NATS (every nats-server of
 * the machine), and their total.
 */
function cpuPerDelivery(cpu: Record<string, number>) {
  const of = (...keys: string[]) => keys.map((k) => cpu[`${k}_us_per_delivery`]).find((v) => v !== undefined) ?? null
  const parts = {
    serve: of('herald_serve', 'herald_start', 'prototype_server'),
    worker: of('herald_worker', 'prototype_worker'),
    postgres: of('postgres_backends'),
    nats: of('nats_server'),
  }
  return { ...parts, total: round(Object.values(parts).reduce<number>((a, v) => a + (v ?? 0), 0), 1) }
}

// ---------------------------------------------------------------- main

async function main() {
  const params = parameters()
  const started = new Date()
  const load1m = loadavg()[0]!
  const { stream, db, jsm, rt, receiver, apis, workers, bases, keys, herald } = await setUp(params, started)
  progress(`${params.mode}: ${params.rate} events/s for ${params.warmup_s} + ${params.duration_s} s (${params.rate_source})`)

  const samplerPid = await backendPid(db.sql)
  const cp0 = await checkpoints(db.sql)
  const rss = Object.fromEntries(Object.entries(herald).flatMap(([k, cs]) => cs.map((c, i) => [cs.length > 1 ? `${k}_${i}` : k, rssSampler(c.proc.pid)])))

  // ---- load, with the backlog sampled every second
  const r = receiver.receipts
  const gen = generator(h, bases.map((b) => `${b}/event`), keys, BODY, params.rate, params.warmup_s, params.duration_s, params.inflight_limit)
  const samples: Sample[] = []
  let drainStart = Infinity
  let sampling = false
  const sampler = setInterval(() => {
    const t = now()
    const s: Sample = {
      t_s: round((t - gen.t0) / 1000, 1),
      phase: t >= drainStart ? 'drain' : t < gen.measureStart ? 'warmup' : t < gen.measureEnd ? 'measured' : 'drain',
      accepted: gen.stats.accepted, delivered: r.first.size, backlog: gen.stats.accepted - r.first.size,
      outbox_events: null, pending_deliveries: null, stream_messages: null,
    }
    samples.push(s)
    if (sampling) return // the previous look at PostgreSQL and NATS has not answered yet
    sampling = true
    Promise.all([
      db.sql<{ outbox: number; pending: number }[]>`SELECT
        (SELECT coalesce(sum(cardinality(event_ids)), 0) FROM outbox)::int AS outbox,
        (SELECT count(*) FROM deliveries WHERE status = 'pending')::int AS pending`.then(([row]) => {
        s.outbox_events = row!.outbox
        s.pending_deliveries = row!.pending
      }),
      jsm.streams.info(stream).then((i) => (s.stream_messages = i.state.messages)),
    ]).catch(() => {}).finally(() => (sampling = false))
  }, 1000)
  cleanups.push(() => clearInterval(sampler))

  const groups: Parameters<typeof cpuMeter>[0] = {
    ...Object.fromEntries(Object.entries(herald).map(([k, cs]) => [k, () => cs.map((c) => c.proc.pid)])),
    postgres_backends: () => backendPids(db.name).filter((p) => p !== samplerPid),
    nats_server: () => natsPids(NATS_URL),
    receiver: () => [receiver.proc.pid],
    generator: () => [process.pid],
  }
  // The tables of a new database have no statistics until autovacuum first
  // looks at them (up to a minute later), and PostgreSQL's plans for the relay
  // then differ from those of a running installation (see bench/README.md):
  // one second into the warm-up, once the tables hold events, the run
  // analyzes them, so that the warm-up reaches the steady state of production.
  let analyzeMs: number | null = null
  if (params.analyze) {
    await Bun.sleep(Math.max(0, gen.t0 + Math.min(1000, (params.warmup_s * 1000) / 2) - now()))
    const t = now()
    await db.sql`ANALYZE`
    analyzeMs = round(now() - t, 1)
  }
  // PostgreSQL's CPU by the application_name of its connections (the
  // prototypes name theirs: ingest, fan-out), looked up at both ends: a pool
  // may open a connection in the window, whose CPU then counts from its birth.
  const apps = await backendsByApplication(db.sql, db.name, samplerPid)
  await Bun.sleep(Math.max(0, gen.measureStart - now()))
  const meter = cpuMeter(groups, { born: true })
  const pgMeter = cpuMeter(Object.fromEntries(['prototype_server', 'prototype_worker', 'herald'].map((app) => [app, () => apps.get(app) ?? []])), { born: true })
  await Bun.sleep(Math.max(0, gen.measureEnd - now()))
  const appsAtEnd = await backendsByApplication(db.sql, db.name, samplerPid)
  for (const [app, pids] of appsAtEnd) apps.set(app, [...new Set([...(apps.get(app) ?? []), ...pids])])
  const measuredWall = (now() - gen.measureStart) / 1000
  const deliveredMeasured = r.times.filter((t) => t >= gen.measureStart && t < gen.measureEnd).length
  const cpu = meter.stop(deliveredMeasured, measuredWall, 'delivery')
  const pgSplit = pgMeter.stop(deliveredMeasured, measuredWall, 'delivery')
  const postgresByApp = Object.fromEntries([...apps.keys()].map((app) => [app, pgSplit[`${app}_us_per_delivery`]!]))
  const acceptedAtStop = gen.stats.acceptedMeasured
  // The API's work is per accepted event rather than per delivery.
  for (const k of Object.keys(herald).filter((k) => k !== 'herald_worker')) {
    cpu[`${k}_us_per_accepted_event`] = round((cpu[`${k}_cores`]! * 1e6 * measuredWall) / Math.max(1, acceptedAtStop), 1)
  }
  addOtherCores(cpu)
  const cpDuring = (await checkpoints(db.sql)) - cp0

  // ---- drain: wait for the last answers, then for the deliveries
  await gen.done
  progress(`load done; draining (at most ${params.drain_s} s)`)
  drainStart = now()
  const allIn = () => [...gen.sends.keys()].every((id) => r.first.has(id))
  await until(() => r.first.size >= gen.stats.accepted && allIn(), params.drain_s * 1000, 100)
  const drainUsed = round((now() - drainStart) / 1000, 1)
  await Bun.sleep(1000) // late duplicates
  clearInterval(sampler)
  while (sampling) await Bun.sleep(20)
  const mem = Object.fromEntries(Object.entries(rss).map(([k, s]) => [k, s.peak().peak_mb]))

  progress('stopping Herald')
  // ---- stop Herald (SIGTERM writes the outstanding attempt outcomes), then read its view of each delivery
  for (const w of workers) await w.stop()
  for (const a of apis) await a.stop()
  await receiver.stop()
  const logLines = logTails(herald)
  // A first attempt that succeeded may live on its delivery row (first_started_at, sql/0025) rather than in an attempt row.
  const onRow = (await db.sql`SELECT 1 FROM information_schema.columns WHERE table_name = 'deliveries' AND column_name IN ('first_started_at', 'first_duration_ms')`).length === 2
  const dbRows = await db.sql<{ event_id: string; created: number; started: number | null; duration_ms: number | null }[]>`
    SELECT d.event_id::text, extract(epoch FROM d.created_at)::float8 * 1000 AS created,
      extract(epoch FROM ${onRow ? db.sql`coalesce(d.first_started_at, a.started_at)` : db.sql`a.started_at`})::float8 * 1000 AS started,
      ${onRow ? db.sql`coalesce(d.first_duration_ms, a.duration_ms)` : db.sql`a.duration_ms`} AS duration_ms
    FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1`
  const { byStatus, attemptErrors } = await deliveryOutcomes(db.sql)

  // ---- figures
  const e2e: number[] = []
  const stage = { ingest: [] as number[], to_delivery_row: [] as number[], to_attempt: [] as number[], attempt_to_receipt: [] as number[], attempt_duration: [] as number[] }
  const rowByEvent = new Map(dbRows.map((row) => [row.event_id, row]))
  let missing = 0
  let missingMeasured = 0
  const missingSample: string[] = []
  for (const [id, s] of gen.sends) {
    const got = r.first.get(id)
    if (got === undefined) {
      missing++
      if (s.measured) missingMeasured++
      if (missingSample.length < 5) missingSample.push(id)
      continue
    }
    if (!s.measured) continue
    e2e.push(got - s.t)
    stage.ingest.push(s.okAt - s.t)
    const row = rowByEvent.get(id)
    if (row) {
      stage.to_delivery_row.push(row.created - s.okAt)
      if (row.started !== null) {
        stage.to_attempt.push(row.started - row.created)
        stage.attempt_to_receipt.push(got - row.started)
        stage.attempt_duration.push(row.duration_ms ?? NaN)
      }
    }
  }
  const e2eDist = dist(e2e)
  const deliveriesPerS = round(deliveredMeasured / measuredWall, 1)
  const acceptedPerS = round(gen.stats.acceptedMeasured / params.duration_s, 1)
  const backlog = backlogVerdict(samples, params.rate)
  const st = gen.stats
  const errors = Object.values(st.non2xx).reduce((a, b) => a + b, 0) + st.networkErrors

  const warnings: string[] = []
  if (cpu.machine_steal_pct! > 5) warnings.push(`the hypervisor stole ${cpu.machine_steal_pct}% of the CPU during the measured window`)
  if (cpu.machine_busy_pct! > 95) warnings.push(`the machine's CPU was saturated (${cpu.machine_busy_pct}% busy): Herald, PostgreSQL, NATS, the receiver and the generator share ${machine(load1m).cores} cores`)
  if (cpu.other_cores! > 0.25) warnings.push(`${cpu.other_cores} cores went to none of the metered processes (the kernel's loopback work, other processes)`)
  if (st.skipped.measured + st.skipped.warmup > 0) warnings.push(`the generator skipped ${st.skipped.measured + st.skipped.warmup} sends (${st.skipped.measured} measured) because ${params.inflight_limit} requests were in flight: ingest did not keep up with --rate`)
  if (cpDuring > 0) warnings.push(`PostgreSQL ran ${cpDuring} checkpoint(s) during the measured window`)
  if (r.unparsable) warnings.push(`${r.unparsable} webhook bodies had no data.eventId or no webhook-id`)

  h.saveReport(started, {
    benchmark: 'fanout',
    started_at: started.toISOString(),
    machine: machine(load1m),
    runtime: rt,
    params: { ...params, stream, database: db.name },
    results: {
      ingest: {
        sent: st.sent, accepted: st.accepted, sent_measured: st.sentMeasured, accepted_measured: st.acceptedMeasured,
        accepted_per_s: acceptedPerS, skipped: st.skipped, max_inflight: st.maxInflight,
        non2xx: st.non2xx, network_errors: st.networkErrors, error_samples: st.errorSamples,
        latency_ms: dist(st.ingestMs),
      },
      fanout: {
        deliveries_measured: deliveredMeasured, deliveries_per_s: deliveriesPerS, ratio_to_rate: round(deliveriesPerS / params.rate, 3),
        e2e_ms: e2eDist,
        received_events: r.first.size, duplicates: r.duplicates, event_duplicates: r.eventDuplicates,
        missing, missing_measured: missingMeasured, missing_sample: missingSample, drain_used_s: drainUsed,
        deliveries_by_status: byStatus,
        attempt_errors: attemptErrors,
      },
      // Where the end-to-end time goes (measured events): POST → 200; 200 → delivery row created by the
      // worker (outbox relay + JetStream + the worker's batch); row → first attempt started (the worker's
      // queue); attempt started → receipt; and the attempt's duration as Herald recorded it.
      stages_ms: Object.fromEntries(Object.entries(stage).map(([k, v]) => [k, dist(v)])),
      backlog,
      backlog_series: samples,
      cpu,
      cpu_per_delivery: { ...cpuPerDelivery(cpu), postgres_by_application: postgresByApp },
      peak_rss_mb: mem,
      postgres_checkpoints_during_load: cpDuring,
      analyze_ms: analyzeMs,
      logs: logLines,
    },
    warnings,
    targets: {
      keeps_up: `deliveries/s ≥ ${TARGETS.keeps_up_ratio} × rate`,
      backlog_not_growing: backlog.rule,
      p99_ms: TARGETS.p99_ms,
      pass: {
        keeps_up: deliveriesPerS >= TARGETS.keeps_up_ratio * params.rate,
        backlog_not_growing: backlog.pass,
        p99_ms: e2eDist.p99 < TARGETS.p99_ms,
        no_missing: missing === 0,
        no_errors: errors === 0,
      },
    },
  })
}

await h.run(main)
