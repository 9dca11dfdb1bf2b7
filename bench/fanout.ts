#!/usr/bin/env bun
// Fan-out benchmark: events are ingested at a steady rate (open loop) while one
// webhook router per workspace delivers them, through the outbox relay and
// NATS JetStream, to a local receiver. It reports deliveries per second, the
// end-to-end latency from POST to receipt, and the backlog over time, against
// the targets; prints one JSON object and saves it under bench/results/.
//
//   npx bun bench/fanout.ts [--rate N] [--duration 30] [--warmup 5] [--workspaces 20] [--mode split|all]
//                           [--drain 10] [--inflight 256] [--skip-analyze]
//
// --rate defaults to half the Herald req/s of the newest bench/results/ingest-*.json
// (the ingest benchmark at 50% load), else 4000. --mode split runs `herald serve`
// and `herald worker` (the scale-out path); --mode all runs one `herald start`.
// DATABASE_URL names a PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
// and NATS_URL a NATS server with JetStream (default nats://127.0.0.1:4222); the
// run creates the database herald_bench_fo_<ts> and the stream HERALD_BENCH_<ts>
// and removes both at the end. BATCH_*, DATABASE_POOL_MAX, WORKER_* and
// OUTBOX_RELAY_INTERVAL_MS in the environment are passed on to Herald, and
// BENCH_BUN_FLAGS to the Bun that runs it (e.g. a CPU profile).
import type postgres from 'postgres'
import { parseArgs } from 'node:util'
import { loadavg, tmpdir } from 'node:os'
import { mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { NatsConnection } from '@nats-io/transport-node'
import { backendPids, cpuMeter, dist, machine, mean, natsPids, round, rssSampler, slope } from './proc'
import { BenchError, ROOT, eachLine, fail, freePort, harness, stopper, type Child } from './harness'

const { cleanups, cleanup, spawnBun, waitFor, createDatabase, connectNats, adminPost } = harness('fanout')

const TARGETS = { keeps_up_ratio: 0.95, p99_ms: 1000, backlog_growth_s: 0.1 }
const ADMIN_TOKEN = `bench-admin-${crypto.randomUUID()}`
const TUNING_KEYS = ['BATCH_MAX_EVENTS', 'BATCH_WINDOW_MS', 'BATCH_CONCURRENCY', 'DATABASE_POOL_MAX', 'API_KEY_CACHE_TTL_MS',
  'WORKER_CONCURRENCY', 'WORKER_THREADS', 'OUTBOX_RELAY_INTERVAL_MS', 'JETSTREAM_ACK_WAIT_MS']
const TICK_MS = 10
const DEFAULT_RATE = 4000
// The same event as the ingest benchmark (bench/ingest.lua).
const BODY = JSON.stringify({
  message: 'New signup: jane@example.com upgraded from the free trial',
  event: 'user.signup', channel: 'signups', title: 'New signup', tags: ['a', 'b'], data: { plan: 'pro', n: 42 },
})

/** Wall-clock milliseconds with sub-millisecond resolution; the receiver (another process) uses the same clock. */
const now = () => performance.timeOrigin + performance.now()

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
    receiver: { type: 'boolean' }, // internal: run as the webhook receiver child
  },
})

function posInt(name: 'rate' | 'duration' | 'warmup' | 'workspaces' | 'drain' | 'inflight' | 'api' | 'workers', min = 1): number {
  const n = Number(flags[name])
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(flags[name])}`)
  return n
}


const progress = (msg: string) => console.error(`bench/fanout: ${new Date().toISOString().slice(11, 19)} ${msg}`)


// ---------------------------------------------------------------- the receiver (child process)

/**
 * Answers every webhook 200 and reports each receipt on stdout as
 * `R <receipt ms> <data.eventId> <webhook-id>`, in small batches. A separate
 * process, so that its CPU time is its own and it does not steal the event
 * loop of the load generator.
 */
async function receiver() {
  let out: string[] = []
  const flush = () => {
    if (out.length) process.stdout.write(out.join(''))
    out = []
  }
  setInterval(flush, 5)
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const t = now()
      const webhookId = req.headers.get('webhook-id') ?? '-'
      let eventId = '-'
      try {
        eventId = ((await req.json()) as { data?: { eventId?: string } }).data?.eventId ?? '-'
      } catch {}
      out.push(`R ${t.toFixed(3)} ${eventId} ${webhookId}\n`)
      return new Response('ok')
    },
  })
  process.stdout.write(`PORT ${server.port}\n`)
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => (flush(), process.exit(0)))
}

// ---------------------------------------------------------------- processes

interface Receipts {
  first: Map<string, number> // eventId → first receipt time
  times: number[] // every receipt time of a new event, in arrival order
  webhookIds: Set<string>
  duplicates: number // the same webhook-id again
  eventDuplicates: number // the same event under another webhook-id
  unparsable: number
}

/** Starts the receiver child and collects its receipt lines. */
async function startReceiver(logPath: string) {
  const err = openSync(logPath, 'w')
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'fanout.ts'), '--receiver'], { cwd: ROOT, stdout: 'pipe', stderr: err })
  const stop = stopper(proc)
  cleanups.push(stop)
  const r: Receipts = { first: new Map(), times: [], webhookIds: new Set(), duplicates: 0, eventDuplicates: 0, unparsable: 0 }
  let port = 0
  let gotPort = () => {}
  const portKnown = new Promise<void>((res) => (gotPort = res))
  const reading = eachLine(proc.stdout as ReadableStream<Uint8Array>, (line) => {
    if (line.startsWith('R ')) {
      const [, t, eventId, webhookId] = line.split(' ')
      if (!eventId || eventId === '-' || !webhookId) {
        r.unparsable++
        return
      }
      const seen = r.webhookIds.has(webhookId)
      if (seen) r.duplicates++
      else r.webhookIds.add(webhookId)
      if (r.first.has(eventId)) {
        if (!seen) r.eventDuplicates++
        return
      }
      const at = Number(t)
      r.first.set(eventId, at)
      r.times.push(at)
    } else if (line.startsWith('PORT ')) {
      port = Number(line.slice(5))
      gotPort()
    }
  })
  const timeout = Bun.sleep(15_000).then(() => 'timeout')
  if ((await Promise.race([portKnown, timeout])) === 'timeout') fail(`the receiver did not start: ${readFileSync(logPath, 'utf8')}`)
  return { proc, port, receipts: r, stop: async () => (await stop(), await reading) }
}

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
      const rps = Number(JSON.parse(readFileSync(join(dir, newest), 'utf8')).herald?.rps)
      if (rps > 0) return { rate: Math.max(1, Math.round(rps / 2)), source: `half of herald.rps ${rps} in bench/results/${newest}` }
    } catch {}
  }
  return { rate: DEFAULT_RATE, source: `default ${DEFAULT_RATE} (no readable bench/results/ingest-*.json)` }
}

const admin = (base: string, path: string, body: unknown) => adminPost(base, ADMIN_TOKEN, path, body)

/** The workspaces, each with one webhook router taking every event to the receiver. */
async function createWorkspaces(base: string, n: number, receiverPort: number): Promise<string[]> {
  const keys: string[] = []
  for (let i = 0; i < n; i++) {
    const name = `bench-${i}`
    // Limits far above what the run can reach: the benchmark measures fan-out, not the 429 path.
    const { apiKey } = await admin(base, '/admin/workspaces', { name, monthlyQuota: 100_000_000, rateLimit: { perSecond: 1e9, burst: 1e9 } })
    await admin(base, `/admin/workspaces/${name}/routers`, {
      name: 'receiver', pattern: '*', destination: { type: 'webhook', url: `http://127.0.0.1:${receiverPort}/hook` },
    })
    keys.push(apiKey!)
  }
  return keys
}

/** Pids of the local nats-server, if it runs on this machine. */
// ---------------------------------------------------------------- load

interface Send {
  t: number // when fetch was called
  okAt: number // when the 200 arrived; 0 otherwise
  measured: boolean
}

/**
 * Open loop: every TICK_MS it sends what the schedule (`rate` per second since
 * the start) says is due, whatever the answers do, skipping a slot when
 * `inflight` requests are already waiting.
 */
function generator(urls: string[], keys: string[], rate: number, warmupS: number, durationS: number, inflightLimit: number) {
  const headers = keys.map((k) => ({ authorization: `Bearer ${k}`, 'content-type': 'application/json' }))
  const total = Math.round(rate * (warmupS + durationS))
  const firstMeasured = Math.round(rate * warmupS)
  const sends = new Map<string, Send>() // eventId → send
  const s = {
    slots: 0, sent: 0, accepted: 0, inflight: 0, maxInflight: 0,
    skipped: { warmup: 0, measured: 0 }, non2xx: {} as Record<string, number>, networkErrors: 0, errorSamples: [] as string[],
    ingestMs: [] as number[], // measured window only
    acceptedMeasured: 0, sentMeasured: 0,
  }
  const t0 = now()
  const done = new Promise<void>((resolveDone) => {
    let finished = false
    const settle = () => {
      if (finished && s.inflight === 0) resolveDone()
    }
    const send = (slot: number) => {
      const measured = slot >= firstMeasured
      const t = now()
      s.sent++
      if (measured) s.sentMeasured++
      s.inflight++
      s.maxInflight = Math.max(s.maxInflight, s.inflight)
      fetch(urls[slot % urls.length]!, { method: 'POST', headers: headers[slot % headers.length], body: BODY, signal: AbortSignal.timeout(10_000) })
        .then(async (res) => {
          const text = await res.text()
          const at = now()
          if (res.status === 200) {
            const { eventId } = JSON.parse(text) as { eventId: string }
            sends.set(eventId, { t, okAt: at, measured })
            s.accepted++
            if (measured) {
              s.acceptedMeasured++
              s.ingestMs.push(at - t)
            }
          } else {
            s.non2xx[res.status] = (s.non2xx[res.status] ?? 0) + 1
            if (s.errorSamples.length < 5) s.errorSamples.push(`${res.status} ${text.slice(0, 200)}`)
          }
        })
        .catch((err: Error) => {
          s.networkErrors++
          if (s.errorSamples.length < 5) s.errorSamples.push(String(err.message ?? err))
        })
        .finally(() => {
          s.inflight--
          settle()
        })
    }
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((now() - t0) * rate) / 1000))
      while (s.slots < due) {
        const slot = s.slots++
        if (s.inflight >= inflightLimit) {
          if (slot >= firstMeasured) s.skipped.measured++
          else s.skipped.warmup++
          continue
        }
        send(slot)
      }
      if (s.slots >= total) {
        clearInterval(timer)
        finished = true
        settle()
      }
    }, TICK_MS)
  })
  return { t0, stats: s, sends, done, measureStart: t0 + warmupS * 1000, measureEnd: t0 + (warmupS + durationS) * 1000 }
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

// ---------------------------------------------------------------- main

async function runtime(sql: postgres.Sql, nc: NatsConnection) {
  const [v] = await sql`SELECT current_setting('server_version') AS v`
  return { bun: Bun.version, postgres: v!.v as string, nats_server: nc.info?.version ?? 'unknown' }
}

async function main() {
  const mode = flags.mode
  if (mode !== 'split' && mode !== 'all') fail(`--mode must be split or all, got ${JSON.stringify(mode)}`)
  const def = flags.rate === undefined ? defaultRate() : { rate: posInt('rate'), source: '--rate' }
  const params = {
    rate: def.rate,
    rate_source: def.source,
    duration_s: posInt('duration'),
    warmup_s: posInt('warmup', 0),
    workspaces: posInt('workspaces'),
    mode,
    drain_s: posInt('drain', 0),
    inflight_limit: posInt('inflight'),
    api_processes: mode === 'split' ? posInt('api') : 1,
    worker_processes: mode === 'split' ? posInt('workers') : 0,
    tick_ms: TICK_MS,
    analyze: !flags['skip-analyze'],
    bun_flags: process.env.BENCH_BUN_FLAGS ?? '',
    herald_env: Object.fromEntries(TUNING_KEYS.filter((k) => process.env[k]).map((k) => [k, process.env[k]!])),
  }
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222'
  const started = new Date()
  const stamp = `${started.toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`
  const stream = `HERALD_BENCH_${stamp}`
  const load1m = loadavg()[0]!
  const tmp = mkdtempSync(join(tmpdir(), 'herald-bench-fanout-'))
  cleanups.push(() => rmSync(tmp, { recursive: true, force: true }))

  const db = await createDatabase(adminUrl, `herald_bench_fo_${stamp}`)
  const { nc, jsm } = await connectNats(natsUrl, stream)
  const rt = await runtime(db.sql, nc)
  const receiver = await startReceiver(join(tmp, 'receiver.log'))

  // Herald: serve(s) + worker(s) (split) or start (all), sharing the database, the stream and the secret key.
  const env = {
    ...process.env, HOST: '127.0.0.1', DATABASE_URL: db.url, NATS_URL: natsUrl, NATS_STREAM: stream,
    HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', LOG_LEVEL: 'warn',
    HERALD_SECRET_KEY: randomBytes(32).toString('base64'), HERALD_DATA_DIR: join(tmp, 'data'),
  }
  const bunFlags = process.env.BENCH_BUN_FLAGS?.split(' ').filter(Boolean) ?? []
  const apis: Child[] = []
  const bases: string[] = []
  for (let i = 0; i < params.api_processes; i++) {
    const port = await freePort()
    const name = mode === 'split' ? `serve-${i}.log` : 'start.log'
    const child = spawnBun([...bunFlags, 'src/cli/main.ts', mode === 'split' ? 'serve' : 'start'], { ...env, PORT: String(port) }, join(tmp, name))
    await waitFor('Herald', child, () => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok))
    apis.push(child)
    bases.push(`http://127.0.0.1:${port}`)
  }
  const api = apis[0]!
  const base = bases[0]!
  // serve has applied the migrations; a worker started now finds them done.
  const workers = Array.from({ length: params.worker_processes }, (_, i) => spawnBun([...bunFlags, 'src/cli/main.ts', 'worker'], env, join(tmp, `worker-${i}.log`)))
  // A worker is consuming once its pull consumer has requests waiting on the stream.
  await waitFor('the delivery worker', workers[0] ?? api, async () => ((await jsm.consumers.info(stream, 'herald-workers')).num_waiting ?? 0) > 0)
  const keys = await createWorkspaces(base, params.workspaces, receiver.port)
  progress(`${mode}: ${params.rate} events/s for ${params.warmup_s} + ${params.duration_s} s (${def.source})`)

  const samplerPid = Number((await db.sql`SELECT pg_backend_pid() AS pid`)[0]!.pid)
  const checkpoints = async () => Number((await db.sql`SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter`)[0]!.n)
  const cp0 = await checkpoints()
  // Processes by role: their CPU is metered together; RSS is each one's peak.
  const herald: Record<string, Child[]> = mode === 'split' ? { herald_serve: apis, herald_worker: workers } : { herald_start: apis }
  const rss = Object.fromEntries(Object.entries(herald).flatMap(([k, cs]) => cs.map((c, i) => [cs.length > 1 ? `${k}_${i}` : k, rssSampler(c.proc.pid)])))

  // ---- load, with the backlog sampled every second
  const r = receiver.receipts
  const gen = generator(bases.map((b) => `${b}/event`), keys, params.rate, params.warmup_s, params.duration_s, params.inflight_limit)
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
    nats_server: natsPids,
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
  await Bun.sleep(Math.max(0, gen.measureStart - now()))
  const meter = cpuMeter(groups)
  await Bun.sleep(Math.max(0, gen.measureEnd - now()))
  const measuredWall = (now() - gen.measureStart) / 1000
  const deliveredMeasured = r.times.filter((t) => t >= gen.measureStart && t < gen.measureEnd).length
  const cpuRaw = meter.stop(deliveredMeasured, measuredWall)
  const acceptedAtStop = gen.stats.acceptedMeasured
  const cpu: Record<string, number> = {}
  for (const [k, v] of Object.entries(cpuRaw)) cpu[k.replace(/_us_per_req$/, '_us_per_delivery')] = v
  // The API's work is per accepted event rather than per delivery.
  for (const k of Object.keys(herald).filter((k) => k !== 'herald_worker')) {
    cpu[`${k}_us_per_accepted_event`] = round((cpu[`${k}_cores`]! * 1e6 * measuredWall) / Math.max(1, acceptedAtStop), 1)
  }
  const ours = Object.entries(cpu).filter(([k]) => k.endsWith('_cores') && k !== 'machine_busy_cores').reduce((a, [, v]) => a + v, 0)
  cpu.other_cores = round(cpu.machine_busy_cores! - ours, 2)
  const cpDuring = (await checkpoints()) - cp0

  // ---- drain: wait for the last answers, then for the deliveries
  await gen.done
  progress(`load done; draining (at most ${params.drain_s} s)`)
  drainStart = now()
  const drainDeadline = drainStart + params.drain_s * 1000
  const allIn = () => [...gen.sends.keys()].every((id) => r.first.has(id))
  while (now() < drainDeadline && !(r.first.size >= gen.stats.accepted && allIn())) await Bun.sleep(100)
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
  const logLines = Object.fromEntries(Object.entries(herald).map(([k, cs]) => {
    const lines = cs.flatMap((c) => readFileSync(c.logPath, 'utf8').split('\n').filter(Boolean))
    return [k, { lines_at_warn: lines.length, last: lines.slice(-3).map((l) => l.slice(0, 400)) }]
  }))
  const dbRows = await db.sql<{ event_id: string; created: number; started: number | null; duration_ms: number | null }[]>`
    SELECT d.event_id::text, extract(epoch FROM d.created_at)::float8 * 1000 AS created,
      extract(epoch FROM a.started_at)::float8 * 1000 AS started, a.duration_ms
    FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1`
  const statusRows = await db.sql<{ status: string; n: number; retried: number }[]>`
    SELECT status, count(*)::int AS n, count(*) FILTER (WHERE attempts > 1)::int AS retried FROM deliveries GROUP BY status`
  const attemptErrors = await db.sql<{ error: string; n: number }[]>`
    SELECT coalesce(error, 'HTTP ' || status) AS error, count(*)::int AS n FROM delivery_attempts WHERE NOT ok GROUP BY 1 ORDER BY 2 DESC LIMIT 5`

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

  const report = {
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
        deliveries_by_status: Object.fromEntries(statusRows.map((x) => [x.status, { n: x.n, retried: x.retried }])),
        attempt_errors: attemptErrors,
      },
      // Where the end-to-end time goes (measured events): POST → 200; 200 → delivery row created by the
      // worker (outbox relay + JetStream + the worker's batch); row → first attempt started (the worker's
      // queue); attempt started → receipt; and the attempt's duration as Herald recorded it.
      stages_ms: Object.fromEntries(Object.entries(stage).map(([k, v]) => [k, dist(v)])),
      backlog,
      backlog_series: samples,
      cpu,
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
  }
  const json = JSON.stringify(report, null, 2)
  console.log(json)
  const dir = join(import.meta.dir, 'results')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `fanout-${started.toISOString().replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, json + '\n')
  console.error(`bench/fanout: saved ${file}`)
}

if (flags.receiver) {
  await receiver()
} else {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => cleanup().finally(() => process.exit(130)))
  try {
    await main()
  } catch (err) {
    console.error(`bench/fanout: ${err instanceof BenchError ? err.message : (err as Error).stack ?? err}`)
    process.exitCode = 1
  } finally {
    await cleanup()
  }
}
