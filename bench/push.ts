#!/usr/bin/env bun
// Push benchmark: one event fanned out to every device of a channel (10,000 by
// default, half APNs, half FCM), through `herald serve` + `herald worker`,
// PostgreSQL and JetStream, to local APNs and FCM stand-ins
// (test/stand_ins.ts) running in a child process. Two scenarios:
//   burst:  one event at a time; POST → all N pushes received, and → all N
//           delivery rows written (none pending); pushes/s = N ÷ that time.
//   stream: events at a steady rate (1/s = 10,000 pushes/s); pushes/s
//           achieved, backlog, per-event completion, RSS, CPU per push.
// Prints one JSON object and saves it under bench/results/push-<timestamp>.json.
//
//   npx bun bench/push.ts [--devices 10000] [--scenario burst|stream|both] [--bursts 3]
//                         [--events-per-second 1] [--duration 20] [--warmup 3] [--drain 20]
//                         [--burst-timeout 120]
//
// DATABASE_URL names a PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
// and NATS_URL a NATS server with JetStream (default nats://127.0.0.1:4222); the
// run creates the database herald_bench_push_<ts> and the stream HERALD_BENCH_PUSH_<ts>
// and removes both at the end, also on Ctrl-C. WORKER_CONCURRENCY, WORKER_THREADS,
// DATABASE_POOL_MAX, JETSTREAM_MAX_ACK_PENDING (and the other knobs of
// TUNING_KEYS) in the environment go to Herald and are recorded in
// params.herald_env; BENCH_BUN_FLAGS goes to the Bun that runs Herald.
import type postgres from 'postgres'
import { parseArgs } from 'node:util'
import { loadavg, tmpdir } from 'node:os'
import { mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { randomBytes, randomUUID } from 'node:crypto'
import type { NatsConnection } from '@nats-io/transport-node'
import { backendPids, cpuMeter, dist, machine, mean, natsPids, quarters, round, rssSampler, slope } from './proc'
import { BenchError, ROOT, deadline, eachLine, fail, freePort, harness, stopper, type Child } from './harness'

const { cleanups, cleanup, spawnBun, waitFor, createDatabase, connectNats, adminPost } = harness('push')

const TARGETS = { pushes_per_s: 10_000, worker_peak_rss_mb: 1024, rss_growth_ratio: 1.2 }
const ADMIN_TOKEN = `bench-admin-${randomUUID()}`
const TUNING_KEYS = ['WORKER_CONCURRENCY', 'WORKER_THREADS', 'DATABASE_POOL_MAX', 'JETSTREAM_MAX_ACK_PENDING', 'JETSTREAM_ACK_WAIT_MS',
  'BATCH_MAX_EVENTS', 'BATCH_WINDOW_MS', 'BATCH_CONCURRENCY', 'OUTBOX_RELAY_INTERVAL_MS', 'DELIVERY_TIMEOUT_MS']
// The APNs provider key id (the stand-in checks the JWT's kid against it) and
// Apple's own limit of concurrent streams per connection.
const APNS_KEY_ID = 'KEYID12345'
const APNS_MAX_STREAMS = 1000
const CHANNEL = 'alerts'
// A channel every member but the first muted: its event pushes that member's
// devices only, to open the APNs session and fetch the FCM token before the bursts.
const WARMUP_CHANNEL = 'warmup'
const DEVICES_PER_USER = 4
const REPORT_MS = 100 // how often the stand-ins report their counts
const TICK_MS = 10

/** Wall-clock milliseconds with sub-millisecond resolution; the stand-ins (another process) use the same clock. */
const now = () => performance.timeOrigin + performance.now()

const { values: flags } = parseArgs({
  options: {
    devices: { type: 'string', default: '10000' },
    scenario: { type: 'string', default: 'both' },
    bursts: { type: 'string', default: '3' },
    'events-per-second': { type: 'string', default: '1' },
    duration: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    drain: { type: 'string', default: '20' },
    'burst-timeout': { type: 'string', default: '120' },
    'stand-ins': { type: 'boolean' }, // internal: run as the APNs + FCM stand-ins child
    dir: { type: 'string' }, // internal: where the stand-ins child writes the credentials
  },
})


const progress = (msg: string) => console.error(`bench/push: ${new Date().toISOString().slice(11, 19)} ${msg}`)


type NumFlag = 'devices' | 'bursts' | 'duration' | 'warmup' | 'drain' | 'burst-timeout'
function int(name: NumFlag, min: number): number {
  const n = Number(flags[name])
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(flags[name])}`)
  return n
}

// ---------------------------------------------------------------- the stand-ins (child process)

interface Counts {
  t: number // when the child took the counts
  apns: number
  fcm: number
  lastAt: number // when the last push so far arrived (0: none yet)
  problems: number
}

interface Final extends Counts {
  problem_samples: string[]
  apns_sessions: number
  apns_max_active_streams: number
  fcm_token_calls: number
  devices_seen: number
  per_device_counts: Record<string, number> // pushes to one device → how many devices got that many
}

/**
 * Runs the APNs and FCM stand-ins of test/stand_ins.ts, which make their TLS
 * certificate and keys at import time, in this process: writes the
 * credentials into --dir, prints `READY {apnsOrigin, googleUrl, caFile, p8, account, team, topic}`,
 * then `S {counts}` every REPORT_MS, and `F {final}` when told to stop (SIGTERM,
 * SIGINT, or its stdin closing with the parent).
 */
async function standIns(dir: string) {
  const s = await import('../test/stand_ins')
  const apns = await s.startApns({ maxConcurrentStreams: APNS_MAX_STREAMS }, { keep: false })
  apns.kid = APNS_KEY_ID
  const google = s.startGoogle(undefined, { keep: false })
  const { p8, account } = s.writeCredentials(dir, `${google.url}/token`)
  // The stand-ins keep no bodies (keep: false); their reply hooks see each
  // valid push's device token: count per device, and note the time.
  const perDevice = new Map<string, number>()
  let lastAt = 0
  const seen = (token: string) => {
    perDevice.set(token, (perDevice.get(token) ?? 0) + 1)
    lastAt = now()
    return undefined // the default answer: 200
  }
  apns.reply = seen
  google.reply = seen
  const problems = () => [...apns.problems.map((p) => `apns: ${p}`), ...google.problems.map((p) => `fcm: ${p}`)]
  const counts = (): Counts => ({ t: now(), apns: apns.count, fcm: google.count, lastAt, problems: apns.problems.length + google.problems.length })
  const write = (line: string) => process.stdout.write(line + '\n')
  write(`READY ${JSON.stringify({ apnsOrigin: apns.origin, googleUrl: google.url, caFile: s.CA_FILE, p8, account, team: s.TEAM, topic: s.TOPIC })}`)
  const timer = setInterval(() => write(`S ${JSON.stringify(counts())}`), REPORT_MS)
  let done = false
  const finish = () => {
    if (done) return
    done = true
    clearInterval(timer)
    const hist: Record<string, number> = {}
    for (const n of perDevice.values()) hist[n] = (hist[n] ?? 0) + 1
    const final: Final = {
      ...counts(), problem_samples: problems().slice(0, 10), apns_sessions: apns.sessions, apns_max_active_streams: apns.maxActive,
      fcm_token_calls: google.tokenCalls, devices_seen: perDevice.size, per_device_counts: hist,
    }
    write(`F ${JSON.stringify(final)}`)
    process.exit(0) // the 'exit' handler of test/stand_ins.ts removes its certificate directory
  }
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, finish)
  // The parent holds our stdin: when it dies, however, so do we.
  ;(async () => {
    for await (const _ of Bun.stdin.stream()) {
    }
    finish()
  })()
}

// ---------------------------------------------------------------- processes

/** Starts the stand-ins child and follows its counts. */
interface StandInInfo {
  apnsOrigin: string
  googleUrl: string
  caFile: string
  p8: string
  account: string
  team: string // APNS_TEAM_ID the stand-in expects
  topic: string // APNS_TOPIC the stand-in expects
}

async function startStandIns(dir: string, logPath: string) {
  const err = openSync(logPath, 'w')
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'push.ts'), '--stand-ins', '--dir', dir], {
    cwd: ROOT, stdin: 'pipe', stdout: 'pipe', stderr: err,
  })
  const stop = stopper(proc)
  cleanups.push(stop)
  const zero: Counts = { t: now(), apns: 0, fcm: 0, lastAt: 0, problems: 0 }
  const state = { latest: zero, history: [zero] as Counts[], final: null as Final | null, info: null as StandInInfo | null }
  let gotInfo = () => {}
  const ready = new Promise<void>((res) => (gotInfo = res))
  const reading = eachLine(proc.stdout as ReadableStream<Uint8Array>, (line) => {
    if (line.startsWith('S ')) {
      state.latest = JSON.parse(line.slice(2)) as Counts
      state.history.push(state.latest)
    } else if (line.startsWith('F ')) {
      state.final = JSON.parse(line.slice(2)) as Final
      state.latest = state.final
    } else if (line.startsWith('READY ')) {
      state.info = JSON.parse(line.slice(6)) as StandInInfo
      gotInfo()
    }
  })
  const timeout = deadline(30_000)
  const started = await Promise.race([ready, timeout.promise, proc.exited.then(() => 'exited')])
  timeout.cancel()
  if (started !== undefined) fail(`the stand-ins did not start (${started}): ${readFileSync(logPath, 'utf8').slice(-4000)}`)
  // Its own exit handler removes the certificate directory; this covers a SIGKILL.
  const tlsDir = dirname(state.info!.caFile)
  cleanups.push(() => rmSync(tlsDir, { recursive: true, force: true }))
  return {
    proc,
    info: state.info!,
    state,
    total: () => state.latest.apns + state.latest.fcm,
    /** The last report taken at or before `t`. */
    at(t: number): Counts {
      const h = state.history
      let lo = 0
      let hi = h.length - 1
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1
        if (h[mid]!.t <= t) lo = mid
        else hi = mid - 1
      }
      return h[lo]!
    },
    stop: async () => (await stop(), await reading, state.final),
  }
}
type StandIns = Awaited<ReturnType<typeof startStandIns>>

// ---------------------------------------------------------------- setup

const admin = (base: string, path: string, body: unknown) => adminPost(base, ADMIN_TOKEN, path, body)

/**
 * `n` devices straight into PostgreSQL, DEVICES_PER_USER per user, every user
 * a member of the workspace; even devices are iPhones on APNs (production),
 * odd ones Android phones on FCM. All users but the first mute WARMUP_CHANNEL.
 */
async function populate(sql: postgres.Sql, workspaceId: number, n: number) {
  const users = Math.ceil(n / DEVICES_PER_USER)
  const userIds = Array.from({ length: users }, () => randomUUID())
  await sql`INSERT INTO users (id, email) SELECT id, 'bench-' || i || '@example.com' FROM unnest(${userIds}::uuid[]) WITH ORDINALITY AS u(id, i)`
  await sql`INSERT INTO memberships (workspace_id, user_id, role) SELECT ${workspaceId}, id, 'member' FROM unnest(${userIds}::uuid[]) AS u(id)`
  const ids: string[] = []
  const owners: string[] = []
  const providers: string[] = []
  const platforms: string[] = []
  const tokens: string[] = []
  for (let i = 0; i < n; i++) {
    const ios = i % 2 === 0
    ids.push(randomUUID())
    owners.push(userIds[Math.floor(i / DEVICES_PER_USER)]!)
    providers.push(ios ? 'apns' : 'fcm')
    platforms.push(ios ? 'ios' : 'android')
    tokens.push(ios ? randomBytes(32).toString('hex') : `fcm-${randomBytes(70).toString('base64url')}`)
  }
  await sql`
    INSERT INTO devices (id, user_id, platform, provider, token, environment)
    SELECT id, user_id, platform, provider, token, 'production'
    FROM unnest(${ids}::uuid[], ${owners}::uuid[], ${platforms}::text[], ${providers}::text[], ${tokens}::text[]) AS d(id, user_id, platform, provider, token)`
  await sql`INSERT INTO channel_mutes (workspace_id, user_id, channel) SELECT ${workspaceId}, id, ${WARMUP_CHANNEL} FROM unnest(${userIds.slice(1)}::uuid[]) AS u(id)`
  await sql`ANALYZE`
  return {
    users,
    apns: providers.filter((p) => p === 'apns').length,
    fcm: providers.filter((p) => p === 'fcm').length,
    warmupDevices: Math.min(n, DEVICES_PER_USER),
  }
}

/** Pids of the local nats-server, if it runs on this machine. */
/** Resident memory of a process now, in MB; 0 once it is gone. */
function rssMb(pid: number): number {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)
    return m ? round(Number(m[1]) / 1024, 1) : 0
  } catch {
    return 0
  }
}

// ---------------------------------------------------------------- figures


/** CPU per push by process, from cpuMeter's per-"request" figures. */
function perPush(raw: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(raw)) out[k.replace(/_us_per_req$/, '_us_per_push')] = v
  const ours = Object.entries(out).filter(([k]) => k.endsWith('_cores') && k !== 'machine_busy_cores').reduce((a, [, v]) => a + v, 0)
  out.other_cores = round(out.machine_busy_cores! - ours, 2)
  return out
}

/** Per event, from PostgreSQL: rows, their states, and when its pushes started, were answered, and were written. */
interface EventRows {
  event_id: string
  rows: number
  pending: number
  failed: number
  first_started: number | null // ms since the epoch
  last_answered: number | null // max(started_at + duration) of first attempts
  last_written: number | null // max(updated_at)
}

const eventRows = (sql: postgres.Sql, ids: string[]) => sql<EventRows[]>`
  SELECT d.event_id::text, count(*)::int AS rows,
    count(*) FILTER (WHERE d.status = 'pending')::int AS pending,
    count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
    extract(epoch FROM min(a.started_at))::float8 * 1000 AS first_started,
    extract(epoch FROM max(a.started_at + a.duration_ms * interval '1 ms'))::float8 * 1000 AS last_answered,
    extract(epoch FROM max(d.updated_at))::float8 * 1000 AS last_written
  FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
  WHERE d.event_id = ANY(${ids}::uuid[])
  GROUP BY d.event_id`

// ---------------------------------------------------------------- load

interface Posted {
  eventId: string | null
  t: number // when fetch was called
  okAt: number
  status: number | string
}

async function postEvent(url: string, apiKey: string, channel: string, n: number): Promise<Posted> {
  const t = now()
  const body = JSON.stringify({ message: `Deploy #${n} of api finished on production in 42 s`, title: 'Deploy finished', channel })
  try {
    const res = await fetch(url, {
      method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(10_000),
    })
    const text = await res.text()
    const okAt = now()
    if (res.status !== 200) return { eventId: null, t, okAt, status: `${res.status} ${text.slice(0, 200)}` }
    return { eventId: (JSON.parse(text) as { eventId: string }).eventId, t, okAt, status: 200 }
  } catch (err) {
    return { eventId: null, t, okAt: now(), status: String((err as Error).message ?? err) }
  }
}

async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, everyMs: number): Promise<boolean> {
  const deadline = now() + timeoutMs
  while (now() < deadline) {
    if (await cond()) return true
    await Bun.sleep(everyMs)
  }
  return cond()
}

/** Waits until the stand-ins' count has not moved for `ms` (at most 10 s). */
async function quiet(si: StandIns, ms = 300) {
  let last = si.total()
  let since = now()
  const deadline = now() + 10_000
  while (now() < deadline && now() - since < ms) {
    await Bun.sleep(REPORT_MS)
    if (si.total() !== last) (last = si.total()), (since = now())
  }
}

// ---------------------------------------------------------------- main

async function runtime(sql: postgres.Sql, nc: NatsConnection) {
  const [v] = await sql`SELECT current_setting('server_version') AS v`
  return { bun: Bun.version, postgres: v!.v as string, nats_server: nc.info?.version ?? 'unknown' }
}

async function main() {
  const scenario = flags.scenario
  if (scenario !== 'burst' && scenario !== 'stream' && scenario !== 'both') fail(`--scenario must be burst, stream or both, got ${JSON.stringify(scenario)}`)
  const eps = Number(flags['events-per-second'])
  if (!(eps > 0 && eps <= 1000)) fail(`--events-per-second must be a number > 0 (fractions allowed), got ${JSON.stringify(flags['events-per-second'])}`)
  const doBursts = scenario !== 'stream'
  const doStream = scenario !== 'burst'
  const params = {
    devices: int('devices', DEVICES_PER_USER),
    scenario,
    bursts: doBursts ? int('bursts', 1) : 0,
    events_per_second: eps,
    duration_s: int('duration', 1),
    warmup_s: int('warmup', 0),
    drain_s: int('drain', 0),
    burst_timeout_s: int('burst-timeout', 1),
    channel: CHANNEL,
    devices_per_user: DEVICES_PER_USER,
    apns_max_concurrent_streams: APNS_MAX_STREAMS,
    bun_flags: process.env.BENCH_BUN_FLAGS ?? '',
    herald_env: Object.fromEntries(TUNING_KEYS.filter((k) => process.env[k]).map((k) => [k, process.env[k]!])),
  }
  const N = params.devices
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222'
  const started = new Date()
  const stamp = `${started.toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`
  const stream = `HERALD_BENCH_PUSH_${stamp}`
  const load1m = loadavg()[0]!
  const tmp = mkdtempSync(join(tmpdir(), 'herald-bench-push-'))
  cleanups.push(() => rmSync(tmp, { recursive: true, force: true }))
  const credsDir = join(tmp, 'credentials')
  mkdirSync(credsDir)

  const db = await createDatabase(adminUrl, `herald_bench_push_${stamp}`)
  const { nc, jsm } = await connectNats(natsUrl, stream)
  const rt = await runtime(db.sql, nc)
  const si = await startStandIns(credsDir, join(tmp, 'stand_ins.log'))
  const { apnsOrigin, googleUrl, caFile, p8, account, team, topic } = si.info

  // Herald: serve + worker, sharing the database, the stream, the secret key and the push credentials.
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const env = {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: db.url, NATS_URL: natsUrl, NATS_STREAM: stream,
    HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', LOG_LEVEL: 'warn',
    HERALD_SECRET_KEY: randomBytes(32).toString('base64'), HERALD_DATA_DIR: join(tmp, 'data'),
    APNS_KEY_FILE: p8, APNS_KEY_ID, APNS_TEAM_ID: team, APNS_TOPIC: topic, APNS_ORIGIN: apnsOrigin,
    FCM_SERVICE_ACCOUNT_FILE: account, FCM_ORIGIN: googleUrl, GOOGLE_OAUTH_TOKEN_URL: `${googleUrl}/token`,
    NODE_EXTRA_CA_CERTS: caFile,
  }
  const bunFlags = process.env.BENCH_BUN_FLAGS?.split(' ').filter(Boolean) ?? []
  const api = spawnBun([...bunFlags, 'src/cli/main.ts', 'serve'], env, join(tmp, 'serve.log'))
  await waitFor('Herald', api, () => fetch(`${base}/readyz`).then((r) => r.ok))
  // serve has applied the migrations; a worker started now finds them done.
  const worker = spawnBun([...bunFlags, 'src/cli/main.ts', 'worker'], env, join(tmp, 'worker.log'))
  // A worker is consuming once its pull consumer has requests waiting on the stream.
  await waitFor('the delivery worker', worker, async () => ((await jsm.consumers.info(stream, 'herald-workers')).num_waiting ?? 0) > 0)

  const { apiKey } = await admin(base, '/admin/workspaces', { name: 'bench-push', monthlyQuota: 100_000_000, rateLimit: { perSecond: 1e9, burst: 1e9 } })
  const [ws] = await db.sql<{ id: number }[]>`SELECT id::int AS id FROM workspaces WHERE name = 'bench-push'`
  const t0Populate = now()
  const pop = await populate(db.sql, ws!.id, N)
  progress(`${N} devices (${pop.apns} APNs, ${pop.fcm} FCM) of ${pop.users} users in ${round((now() - t0Populate) / 1000, 1)} s`)

  const samplerPid = Number((await db.sql`SELECT pg_backend_pid() AS pid`)[0]!.pid)
  const herald: Record<string, Child> = { herald_serve: api, herald_worker: worker }
  const rss = Object.fromEntries(Object.entries(herald).map(([k, c]) => [k, rssSampler(c.proc.pid)]))
  const groups: Parameters<typeof cpuMeter>[0] = {
    herald_serve: () => [api.proc.pid],
    herald_worker: () => [worker.proc.pid],
    postgres_backends: () => backendPids(db.name).filter((p) => p !== samplerPid),
    nats_server: natsPids,
    stand_ins: () => [si.proc.pid],
    bench: () => [process.pid],
  }
  const eventUrl = `${base}/event`
  const warnings: string[] = []
  const ingestErrors: string[] = []
  let posts = 0

  // ---- warm-up: one event that pushes the first user's devices only
  {
    const before = si.total()
    const p = await postEvent(eventUrl, apiKey!, WARMUP_CHANNEL, posts++)
    if (!p.eventId) fail(`the warm-up event was refused: ${p.status}`)
    const ok = await until(() => si.total() >= before + pop.warmupDevices, 30_000, 20)
    if (!ok) fail(`the warm-up event's ${pop.warmupDevices} pushes did not arrive within 30 s (got ${si.total() - before}); logs in ${tmp}`)
    await until(async () => {
      const [r] = await eventRows(db.sql, [p.eventId!])
      return !!r && r.rows >= pop.warmupDevices && r.pending === 0
    }, 30_000, 50)
    progress(`warm-up event pushed in ${round(si.state.latest.lastAt - p.t, 1)} ms`)
  }

  // ---- A. bursts: one event to every device, one after the other
  const burstRuns: Record<string, unknown>[] = []
  const burstRates: number[] = []
  for (let b = 0; b < params.bursts; b++) {
    await quiet(si)
    const before = si.total()
    const meter = cpuMeter(groups)
    const p = await postEvent(eventUrl, apiKey!, CHANNEL, posts++)
    if (!p.eventId) {
      ingestErrors.push(String(p.status))
      fail(`burst ${b + 1}: POST /event answered ${p.status}`)
    }
    const allPushed = await until(() => si.total() >= before + N, params.burst_timeout_s * 1000, 10)
    const pushedAt = allPushed ? si.state.latest.lastAt : NaN
    let rows: EventRows | undefined
    const allRows = await until(async () => {
      ;[rows] = await eventRows(db.sql, [p.eventId!])
      return !!rows && rows.rows >= N && rows.pending === 0
    }, allPushed ? 30_000 : 1000, 50)
    const wall = (now() - p.t) / 1000
    const cpu = perPush(meter.stop(N, wall))
    const received = si.total() - before
    const pushesMs = pushedAt - p.t
    const rowsMs = (rows?.last_written ?? NaN) - p.t
    const run = {
      event_id: p.eventId,
      complete: allPushed && allRows,
      received,
      rows: rows?.rows ?? 0,
      pending: rows?.pending ?? 0,
      failed: rows?.failed ?? 0,
      post_ms: round(p.okAt - p.t, 1),
      first_push_started_ms: round((rows?.first_started ?? NaN) - p.t, 1),
      all_pushed_ms: round(pushesMs, 1),
      all_rows_written_ms: round(rowsMs, 1),
      pushes_per_s: allPushed ? round((N * 1000) / pushesMs, 1) : round(received / wall, 1),
      rows_per_s: allRows ? round((N * 1000) / rowsMs, 1) : null,
      cpu,
    }
    burstRuns.push(run)
    burstRates.push(run.pushes_per_s)
    progress(`burst ${b + 1}/${params.bursts}: ${received}/${N} pushes in ${run.all_pushed_ms} ms (${run.pushes_per_s}/s), rows after ${run.all_rows_written_ms} ms`)
    if (!allPushed || !allRows) {
      warnings.push(`burst ${b + 1} did not complete within --burst-timeout ${params.burst_timeout_s} s (${received}/${N} pushes, ${rows?.rows ?? 0} rows, ${rows?.pending ?? 0} pending); later bursts skipped`)
      break
    }
  }
  const sortedRates = [...burstRates].sort((a, b) => a - b)
  const burst = doBursts
    ? {
        runs: burstRuns,
        best_pushes_per_s: sortedRates.at(-1) ?? 0,
        median_pushes_per_s: sortedRates.length ? sortedRates[Math.floor((sortedRates.length - 1) / 2)]! : 0,
      }
    : null

  // ---- B. stream: events at a steady rate, open loop
  let streamResult: Record<string, unknown> | null = null
  let streamPass: { pushes: boolean; rss: boolean | null } = { pushes: false, rss: null }
  const streamPosts: Posted[] = []
  let streamMissing = 0
  if (doStream) {
    await quiet(si)
    const base0 = si.total()
    const total = Math.ceil((params.warmup_s + params.duration_s) * eps - 1e-9)
    const firstMeasured = Math.ceil(params.warmup_s * eps - 1e-9)
    progress(`stream: ${eps} events/s × ${N} devices = ${eps * N} pushes/s offered, ${params.warmup_s} + ${params.duration_s} s`)
    const t0 = now()
    const measureStart = t0 + params.warmup_s * 1000
    const measureEnd = measureStart + params.duration_s * 1000
    let accepted = 0
    const acceptedAt: number[] = [] // when each accepted event's 200 arrived
    const inflight = new Set<Promise<void>>()
    let slots = 0
    const genDone = new Promise<void>((resolveDone) => {
      const timer = setInterval(() => {
        const due = Math.min(total, Math.floor(((now() - t0) * eps) / 1000) + 1)
        while (slots < due) {
          const slot = slots++
          const task = postEvent(eventUrl, apiKey!, CHANNEL, posts++).then((p) => {
            streamPosts[slot] = p
            if (p.eventId) {
              accepted++
              acceptedAt.push(p.okAt)
            } else ingestErrors.push(String(p.status))
          })
          inflight.add(task)
          task.finally(() => inflight.delete(task))
        }
        if (slots >= total) {
          clearInterval(timer)
          resolveDone()
        }
      }, TICK_MS)
      cleanups.push(() => clearInterval(timer))
    })

    interface Sample {
      t_s: number
      phase: 'warmup' | 'measured' | 'drain'
      accepted_events: number
      expected: number
      received: number
      backlog: number
      backlog_mean_1s: number | null
      stream_messages: number | null
      rss_serve_mb: number
      rss_worker_mb: number
    }
    const samples: Sample[] = []
    let drainStart = Infinity
    // Events come in blocks of N pushes, so the backlog at one instant depends
    // on where in the event period it falls (and a 1 s sampler at 1 event/s
    // always falls at the same place). Its mean over the stand-ins' reports of
    // the last second does not.
    const meanBacklog = (t: number): number | null => {
      const reports = si.state.history.filter((r) => r.t > t - 1000 && r.t <= t && r.t >= t0)
      if (!reports.length) return null
      const backlogs = reports.map((r) => N * acceptedAt.filter((a) => a <= r.t).length - (r.apns + r.fcm - base0))
      return round(mean(backlogs), 0)
    }
    const sampler = setInterval(() => {
      const t = now()
      const received = si.total() - base0
      const s: Sample = {
        t_s: round((t - t0) / 1000, 1),
        phase: t >= drainStart || t >= measureEnd ? 'drain' : t < measureStart ? 'warmup' : 'measured',
        accepted_events: accepted, expected: accepted * N, received, backlog: accepted * N - received, backlog_mean_1s: meanBacklog(t), stream_messages: null,
        rss_serve_mb: rssMb(api.proc.pid), rss_worker_mb: rssMb(worker.proc.pid),
      }
      samples.push(s)
      jsm.streams.info(stream).then((i) => (s.stream_messages = i.state.messages)).catch(() => {})
    }, 1000)
    cleanups.push(() => clearInterval(sampler))

    await Bun.sleep(Math.max(0, measureStart - now()))
    const meter = cpuMeter(groups)
    const c0 = si.state.latest
    await Bun.sleep(Math.max(0, measureEnd - now()))
    const c1 = si.state.latest
    const windowS = (c1.t - c0.t) / 1000
    const pushedInWindow = c1.apns + c1.fcm - (c0.apns + c0.fcm)
    const cpu = perPush(meter.stop(pushedInWindow, (now() - measureStart) / 1000))
    await genDone
    await Promise.all(inflight)

    // ---- drain
    progress(`stream: load done; draining (at most ${params.drain_s} s)`)
    drainStart = now()
    await until(() => si.total() - base0 >= accepted * N, params.drain_s * 1000, 50)
    const drainUsed = round((now() - drainStart) / 1000, 1)
    await Bun.sleep(1000) // late duplicates, and the last sample
    clearInterval(sampler)
    const received = si.total() - base0
    streamMissing = Math.max(0, accepted * N - received)

    const measured = samples.filter((s) => s.phase === 'measured')
    const meanSeries = measured.filter((s) => s.backlog_mean_1s !== null)
    const backlog = {
      rule: 'backlog = events accepted × N − pushes received; per sample, its mean over the stand-ins\' 100 ms reports of the second before (backlog_mean_1s); quarters and slope over the measured samples',
      ...quarters(meanSeries.map((s) => s.backlog_mean_1s!)),
      slope_pushes_per_s: round(slope(meanSeries.map((s) => s.t_s), meanSeries.map((s) => s.backlog_mean_1s!)), 1),
      max_instant: Math.max(0, ...samples.map((s) => s.backlog)),
    }
    const rssTrend = {
      herald_worker: quarters(measured.map((s) => s.rss_worker_mb)),
      herald_serve: quarters(measured.map((s) => s.rss_serve_mb)),
    }
    const workerGrowthOk = measured.length > 0 && rssTrend.herald_worker.last_quarter_mean <= TARGETS.rss_growth_ratio * rssTrend.herald_worker.first_quarter_mean
    const pushesPerS = round(pushedInWindow / windowS, 1)
    // The stream cannot deliver more than it is offered, and its window edges
    // cut events in two: it passes when it offers at least the target, takes
    // 98 % of it within the window, and its backlog does not grow by more than
    // 100 ms of pushes over the window.
    const offered = eps * N
    const keepsUp = offered >= TARGETS.pushes_per_s && pushesPerS >= 0.98 * offered && (backlog.growth ?? 0) <= 0.1 * offered
    streamPass = { pushes: keepsUp, rss: workerGrowthOk }
    streamResult = {
      offered_pushes_per_s: eps * N,
      events_sent: slots, events_accepted: accepted,
      events_accepted_measured: streamPosts.slice(firstMeasured).filter((p) => p?.eventId).length,
      expected_pushes: accepted * N, received_pushes: received, missing_pushes: streamMissing,
      extra_pushes: Math.max(0, received - accepted * N),
      pushes_in_window: pushedInWindow, window_s: round(windowS, 2),
      pushes_per_s: pushesPerS,
      ratio_to_offered: round(pushesPerS / (eps * N), 3),
      drain_used_s: drainUsed,
      backlog,
      rss_trend_mb: { ...rssTrend, worker_kept_growing: !workerGrowthOk },
      cpu,
      series: samples,
      // completion (POST → …) per event: filled in from PostgreSQL once Herald has stopped
      completion_ms: null as unknown,
      post_ms: dist(streamPosts.slice(firstMeasured).filter((p) => p?.eventId).map((p) => p.okAt - p.t)),
      first_measured_slot: firstMeasured,
    }
    progress(`stream: ${pushesPerS} pushes/s in the window (offered ${eps * N}), ${received}/${accepted * N} received after the drain`)
  }

  const mem = Object.fromEntries(Object.entries(rss).map(([k, s]) => [k, s.peak()]))

  // ---- stop Herald (SIGTERM writes the outstanding outcomes), then the stand-ins, then read PostgreSQL
  progress('stopping Herald')
  const stopS: Record<string, number> = {}
  const timed = async (name: string, f: () => Promise<unknown>) => {
    const t = now()
    const r = await f()
    stopS[name] = round((now() - t) / 1000, 2)
    return r
  }
  await timed('herald_worker', () => worker.stop())
  await timed('herald_serve', () => api.stop())
  const final = (await timed('stand_ins', () => si.stop())) as Final | null
  progress(`stopped (${Object.entries(stopS).map(([k, v]) => `${k} ${v} s`).join(', ')})`)
  const logs = Object.fromEntries(Object.entries(herald).map(([k, c]) => {
    const lines = readFileSync(c.logPath, 'utf8').split('\n').filter(Boolean)
    return [k, { lines_at_warn: lines.length, last: lines.slice(-3).map((l) => l.slice(0, 400)) }]
  }))
  const statusRows = await db.sql<{ status: string; n: number; retried: number }[]>`
    SELECT status, count(*)::int AS n, count(*) FILTER (WHERE attempts > 1)::int AS retried FROM deliveries GROUP BY status`
  const [dups] = await db.sql<{ pairs: number; extra: number }[]>`
    SELECT count(*)::int AS pairs, coalesce(sum(n - 1), 0)::int AS extra
    FROM (SELECT event_id, target, count(*) AS n FROM deliveries GROUP BY event_id, target HAVING count(*) > 1) x`
  const attemptErrors = await db.sql<{ error: string; n: number }[]>`
    SELECT coalesce(error, 'HTTP ' || status) AS error, count(*)::int AS n FROM delivery_attempts WHERE NOT ok GROUP BY 1 ORDER BY 2 DESC LIMIT 5`
  const byStatus = Object.fromEntries(statusRows.map((x) => [x.status, { n: x.n, retried: x.retried }]))
  const failed = byStatus.failed?.n ?? 0

  if (streamResult) {
    const first = streamResult.first_measured_slot as number
    const ids = streamPosts.filter((p) => p?.eventId).map((p) => p.eventId!)
    const rows = new Map((await eventRows(db.sql, ids)).map((r) => [r.event_id, r]))
    const answered: number[] = []
    const written: number[] = []
    let incomplete = 0
    streamPosts.forEach((p, slot) => {
      if (!p?.eventId || slot < first) return
      const r = rows.get(p.eventId)
      if (!r || r.rows < N || r.pending > 0 || r.last_answered === null) return void incomplete++
      answered.push(r.last_answered - p.t)
      written.push(r.last_written! - p.t)
    })
    streamResult.completion_ms = {
      rule: 'per event sent in the measured window: POST → the answer to its last push (max started_at + duration_ms of its first attempts), and → its last delivery row written (max updated_at)',
      last_push_answered: dist(answered),
      last_row_written: dist(written),
      incomplete_events: incomplete,
    }
  }

  // Every device should have been pushed once per event of CHANNEL (and the first user's once more, for the warm-up).
  const channelEvents = burstRuns.length + (streamResult ? (streamResult.events_accepted as number) : 0)
  const expectedHist: Record<string, number> = {}
  if (channelEvents > 0 || pop.warmupDevices) {
    expectedHist[channelEvents] = (expectedHist[channelEvents] ?? 0) + N - pop.warmupDevices
    expectedHist[channelEvents + 1] = (expectedHist[channelEvents + 1] ?? 0) + pop.warmupDevices
  }
  const perDeviceOk = !!final && JSON.stringify(Object.entries(final.per_device_counts).sort()) === JSON.stringify(Object.entries(expectedHist).filter(([, v]) => v > 0).sort())
  const burstMissing = burstRuns.reduce((a, r) => a + Math.max(0, N - (r.received as number)), 0)
  const missing = burstMissing + streamMissing
  const problems = final?.problems ?? si.state.latest.problems

  // ---- warnings
  const cpus = [...burstRuns.map((r) => r.cpu as Record<string, number>), ...(streamResult ? [streamResult.cpu as Record<string, number>] : [])]
  const busy = Math.max(0, ...cpus.map((c) => c.machine_busy_pct!))
  const steal = Math.max(0, ...cpus.map((c) => c.machine_steal_pct!))
  const other = Math.max(0, ...cpus.map((c) => c.other_cores!))
  if (busy > 90) warnings.push(`the machine's CPU was saturated (up to ${busy}% busy): Herald, PostgreSQL, NATS, the stand-ins and the benchmark share ${machine(load1m).cores} cores`)
  if (steal > 5) warnings.push(`the hypervisor stole up to ${steal}% of the CPU during a measured window`)
  if (other > 0.25) warnings.push(`up to ${other} cores went to none of the metered processes (the kernel's loopback work, other processes)`)
  if (load1m > 0.5) warnings.push(`the 1-minute load average was ${round(load1m, 2)} at the start: something ran just before or alongside (other_cores shows what ran during the windows)`)
  const standInCores = Math.max(0, ...cpus.map((c) => c.stand_ins_cores!))
  if (standInCores > 0.8) warnings.push(`the stand-ins used up to ${standInCores} cores (one thread): they may have limited the rate`)
  if (ingestErrors.length) warnings.push(`${ingestErrors.length} POST /event failed: ${ingestErrors.slice(0, 3).join('; ')}`)
  if (!perDeviceOk) warnings.push(`pushes per device differ from one per event (expected ${JSON.stringify(expectedHist)}, got ${JSON.stringify(final?.per_device_counts)})`)

  const workerPeak = mem.herald_worker!.peak_mb
  const rssBounded = workerPeak < TARGETS.worker_peak_rss_mb && streamPass.rss !== false
  const report = {
    benchmark: 'push',
    started_at: started.toISOString(),
    machine: machine(load1m),
    runtime: rt,
    params: { ...params, apns_devices: pop.apns, fcm_devices: pop.fcm, users: pop.users, stream, database: db.name },
    results: {
      burst,
      stream: streamResult,
      deliveries: {
        by_status: byStatus, duplicate_pairs: dups!.pairs, duplicate_rows: dups!.extra, failed, attempt_errors: attemptErrors,
      },
      stand_ins: final ? {
        apns_pushes: final.apns, fcm_pushes: final.fcm, problems: final.problems, problem_samples: final.problem_samples,
        apns_sessions: final.apns_sessions, apns_max_active_streams: final.apns_max_active_streams, fcm_token_calls: final.fcm_token_calls,
        devices_seen: final.devices_seen, per_device_counts: final.per_device_counts, per_device_expected: expectedHist, per_device_ok: perDeviceOk,
      } : null,
      missing_pushes: { burst: burstMissing, stream: streamMissing },
      peak_rss_mb: mem,
      stop_s: stopS,
      logs,
    },
    warnings,
    targets: {
      pushes_per_s: `≥ ${TARGETS.pushes_per_s} pushes/s: burst (best of --bursts: N ÷ POST → last push received); stream: offers ≥ ${TARGETS.pushes_per_s}/s, receives ≥ 98 % of it in the measured window, backlog growth ≤ 0.1 s of the offered rate`,
      rss_bounded: `herald worker peak RSS < ${TARGETS.worker_peak_rss_mb} MB, and over the stream's measured window the worker's last-quarter mean RSS ≤ ${TARGETS.rss_growth_ratio} × its first-quarter mean`,
      no_missing: 'every push of every accepted event reached the stand-ins (bursts within --burst-timeout, the stream within --drain)',
      no_problems: 'the stand-ins found no protocol violation (JWTs, headers, payloads, OAuth assertions)',
      no_failed: 'no delivery ended failed',
      pass: {
        pushes_per_s_burst: burst ? burst.best_pushes_per_s >= TARGETS.pushes_per_s : null,
        pushes_per_s_stream: streamResult ? streamPass.pushes : null,
        rss_bounded: rssBounded,
        no_missing: missing === 0,
        no_problems: problems === 0,
        no_failed: failed === 0,
      },
    },
  }
  if (problems > 0) console.error(`bench/push: the stand-ins found ${problems} protocol problem(s), e.g.:\n  ${(final?.problem_samples ?? []).slice(0, 5).join('\n  ')}`)
  const json = JSON.stringify(report, null, 2)
  console.log(json)
  const dir = join(import.meta.dir, 'results')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `push-${started.toISOString().replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, json + '\n')
  console.error(`bench/push: saved ${file}`)
}

if (flags['stand-ins']) {
  if (!flags.dir) throw new Error('--stand-ins needs --dir')
  await standIns(flags.dir)
} else {
  let stopping = false
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (stopping) return
      stopping = true
      progress(`${sig}: cleaning up`)
      cleanup().finally(() => process.exit(130))
    })
  }
  try {
    await main()
  } catch (err) {
    console.error(`bench/push: ${err instanceof BenchError ? err.message : (err as Error).stack ?? err}`)
    process.exitCode = 1
  } finally {
    await cleanup()
  }
}
