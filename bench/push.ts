#!/usr/bin/env bun
// Push benchmark: one event fanned out to every device of a channel (10,000 by
// default, half APNs, half FCM; --providers picks the mix, Web Push included),
// through `herald serve` + `herald worker`, PostgreSQL and JetStream, to local
// APNs, FCM and Web Push stand-ins (test/stand_ins.ts, test/web_push_service.ts)
// running in a child process (bench/push_stand_ins.ts). Two scenarios:
//   burst:  one event at a time; POST → all N pushes received, and → all N
//           delivery rows written (none pending); pushes/s = N ÷ that time.
//   stream: events at a steady rate (1/s = 10,000 pushes/s); pushes/s
//           achieved, backlog, per-event completion, RSS, CPU per push.
// With Web Push, the encryption is also measured alone (bench/push_webpush.ts),
// and the floor sender (bench/push_floor.ts) runs before and after Herald,
// posting as Herald does (over HTTP/2 with WORKER_CONCURRENCY in flight, or
// over HTTP/1.1 with WEB_PUSH_CONNECTIONS_PER_ORIGIN): Herald's CPU per push
// is held against it. The Web Push stand-in speaks HTTP/2 as FCM, Mozilla
// and Apple do (--webpush-http1: HTTP/1.1 only), and with --delay-ms answers
// each push that much later, as a push service far away does.
// Prints one JSON object and saves it under bench/results/push-<timestamp>.json.
//
//   npx bun bench/push.ts [--devices 10000] [--providers apns,fcm] [--scenario burst|stream|both] [--bursts 3]
//                         [--events-per-second target÷10,000] [--duration 20] [--warmup 3] [--drain 20]
//                         [--burst-timeout 120] [--preferences] [--webpush-http1] [--delay-ms 0]
//
// DATABASE_URL names a PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
// and NATS_URL a NATS server with JetStream (default nats://127.0.0.1:4222); the
// run creates the database herald_bench_push_<ts> and the stream HERALD_BENCH_PUSH_<ts>
// and removes both at the end, also on Ctrl-C. WORKER_CONCURRENCY, WORKER_THREADS,
// DATABASE_POOL_MAX, JETSTREAM_MAX_ACK_PENDING (and the other knobs of
// TUNING_KEYS) in the environment go to Herald and are recorded in
// params.herald_env; BENCH_BUN_FLAGS goes to the Bun that runs Herald.
import { parseArgs } from 'node:util'
import { loadavg } from 'node:os'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { addOtherCores, backendPids, cpuMeter, dist, machine, mean, median, natsPids, quarters, round, rssMb, rssSampler, slope } from './proc'
import {
  DATABASE_URL, NATS_URL, backendPid, createWorkspace, deliveryOutcomes, fail, freePort, harness, intFlag, jetstreamEnv, logTails, now,
  runtimeOf, stampOf, stopInTurn, tuningEnv, until,
} from './harness'
import { openLoop, postEvent, type Posted } from './load'
import { APNS_MAX_STREAMS, pushesOf, standInsReport, startStandIns, type Final } from './push_stand_ins'
import { DEVICES_PER_USER, PROVIDERS, completion, givePreferences, devicesPerProvider, duplicateRows, eventRows, parseProviders, populate, type EventRows, type Provider } from './push_db'
import { measureEncryption, vapidPair, webPushFloor, webPushReport } from './push_webpush'

const h = harness('push')
const { cleanups, progress } = h

// 10,000 pushes/s for every provider. Web Push encrypts each push for its
// browser (a P-256 key pair and an ECDH per push, RFC 8291), so it is also
// held against the smallest sender there can be (bench/push_floor.ts), run
// in the same run before Herald starts: at least 0.9 × its rate.
// Per push, Herald's worker may spend 1.25 × the floor sender's CPU (the pool,
// the SSRF check, the delivery rows), and the push service no more than 1.15 ×
// what the floor costs it: the same connections, reused the same way.
const TARGETS = {
  pushes_per_s: 10_000, webpush_pushes_per_s: 10_000, webpush_vs_floor: 0.9, webpush_worker_cpu_vs_floor: 1.25, webpush_stand_in_cpu_vs_floor: 1.15,
  worker_peak_rss_mb: 1024, rss_growth_ratio: 1.2,
}
// Herald's defaults of the keys that set how many Web Pushes it has in flight to one push service.
const DEFAULT_WORKER_CONCURRENCY = 256
const DEFAULT_CONNECTIONS_PER_ORIGIN = 32
const TUNING_KEYS = ['WORKER_CONCURRENCY', 'WORKER_THREADS', 'DATABASE_POOL_MAX', 'JETSTREAM_MAX_ACK_PENDING', 'JETSTREAM_ACK_WAIT_MS',
  'BATCH_MAX_EVENTS', 'BATCH_WINDOW_MS', 'BATCH_CONCURRENCY', 'OUTBOX_RELAY_INTERVAL_MS', 'DELIVERY_TIMEOUT_MS', 'WEB_PUSH_CONNECTIONS_PER_ORIGIN']
const CHANNEL = 'alerts'
// A channel every member but the first muted: its event pushes that member's
// devices only, to open the APNs session, fetch the FCM token and sign the
// VAPID token before the bursts.
const WARMUP_CHANNEL = 'warmup'

const { values: flags } = parseArgs({
  options: {
    devices: { type: 'string', default: '10000' },
    providers: { type: 'string', default: 'apns,fcm' },
    scenario: { type: 'string', default: 'both' },
    bursts: { type: 'string', default: '3' },
    'events-per-second': { type: 'string' }, // default: the target pushes/s ÷ 10,000 (1 for APNs and FCM)
    duration: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    drain: { type: 'string', default: '20' },
    'burst-timeout': { type: 'string', default: '120' },
    // Every member has preferences that let the bench's events through: quiet
    // hours that do not hold now and a level for the channel, so each push
    // goes through the preference check (sql/0020) and is still sent.
    preferences: { type: 'boolean', default: false },
    'webpush-http1': { type: 'boolean', default: false }, // the Web Push stand-in speaks HTTP/1.1 only
    'delay-ms': { type: 'string', default: '0' }, // the Web Push stand-in (and the floor's) answers each push this much later
  },
})

type NumFlag = 'devices' | 'bursts' | 'duration' | 'warmup' | 'drain' | 'burst-timeout' | 'delay-ms'
const int = (name: NumFlag, min: number) => intFlag(flags, name, min)

// ---------------------------------------------------------------- setup

/** The pushes/s target of a mix: the time its devices take, each provider's at its own target rate. */
function targetOf(d: Record<Provider, number>) {
  const seconds = (d.apns + d.fcm) / TARGETS.pushes_per_s + d.webpush / TARGETS.webpush_pushes_per_s
  return Math.round((d.apns + d.fcm + d.webpush) / seconds)
}

function parameters() {
  const scenario = flags.scenario
  if (scenario !== 'burst' && scenario !== 'stream' && scenario !== 'both') fail(`--scenario must be burst, stream or both, got ${JSON.stringify(scenario)}`)
  const devices = int('devices', DEVICES_PER_USER)
  const providers = parseProviders(flags.providers) ?? fail(`--providers must list some of ${PROVIDERS.join(', ')} once each, got ${JSON.stringify(flags.providers)}`)
  const target = targetOf(devicesPerProvider(devices, providers))
  const eps = Number(flags['events-per-second'] ?? target / 10_000)
  if (!(eps > 0 && eps <= 1000)) fail(`--events-per-second must be a number > 0 (fractions allowed), got ${JSON.stringify(flags['events-per-second'])}`)
  return {
    devices,
    providers,
    target_pushes_per_s: target,
    scenario,
    bursts: scenario !== 'stream' ? int('bursts', 1) : 0,
    events_per_second: eps,
    duration_s: int('duration', 1),
    warmup_s: int('warmup', 0),
    drain_s: int('drain', 0),
    burst_timeout_s: int('burst-timeout', 1),
    preferences: flags.preferences === true,
    webpush_protocol: flags['webpush-http1'] ? 'http1.1' : 'http2',
    webpush_delay_ms: int('delay-ms', 0),
    channel: CHANNEL,
    devices_per_user: DEVICES_PER_USER,
    apns_max_concurrent_streams: APNS_MAX_STREAMS,
    bun_flags: process.env.BENCH_BUN_FLAGS ?? '',
    herald_env: tuningEnv(TUNING_KEYS),
  }
}

/** The stand-ins, Herald (serve + worker) pointed at them, the workspace and its devices, and the meters. */
async function setUp(params: ReturnType<typeof parameters>, started: Date, vapid: ReturnType<typeof vapidPair>) {
  const stamp = stampOf(started)
  const stream = `HERALD_BENCH_PUSH_${stamp}`
  const tmp = h.tempDir('herald-bench-push-')
  const credsDir = join(tmp, 'credentials')
  mkdirSync(credsDir)

  const db = await h.createDatabase(DATABASE_URL, `herald_bench_push_${stamp}`)
  const { nc, jsm } = await h.connectNats(NATS_URL, stream)
  const rt = await runtimeOf(db.sql, nc)
  const webpushDevices = devicesPerProvider(params.devices, params.providers).webpush
  const si = await startStandIns(h, credsDir, join(tmp, 'stand_ins.log'), webpushDevices, vapid.pair.publicKey, { http1: params.webpush_protocol === 'http1.1', delayMs: params.webpush_delay_ms })
  if (webpushDevices) progress(`${webpushDevices} browser subscriptions made by the Web Push stand-in in ${round(si.subscribeMs / 1000, 1)} s`)

  // Herald: serve + worker, sharing the database, the stream, the secret key and the push credentials.
  const port = await freePort()
  const env = {
    ...jetstreamEnv({ databaseUrl: db.url, natsUrl: NATS_URL, stream, dataDir: join(tmp, 'data') }), PORT: String(port), ...si.heraldEnv, ...vapid.heraldEnv,
  }
  const { child: api, base } = await h.startApi('serve', env, join(tmp, 'serve.log'), port)
  const worker = h.startWorker(env, join(tmp, 'worker.log'))
  await h.workerReady(worker, jsm, stream)

  const apiKey = await createWorkspace(base, 'bench-push')
  const [ws] = await db.sql<{ id: number }[]>`SELECT id::int AS id FROM workspaces WHERE name = 'bench-push'`
  const t0Populate = now()
  const pop = await populate(db.sql, ws!.id, params.devices, WARMUP_CHANNEL, params.providers, si.subscriptions)
  if (params.preferences) await givePreferences(db.sql, ws!.id, CHANNEL)
  progress(`${params.devices} devices (${pop.apns} APNs, ${pop.fcm} FCM, ${pop.webpush} Web Push) of ${pop.users} users in ${round((now() - t0Populate) / 1000, 1)} s`)

  const samplerPid = await backendPid(db.sql)
  const rss = { herald_serve: rssSampler(api.proc.pid), herald_worker: rssSampler(worker.proc.pid) }
  const groups: Parameters<typeof cpuMeter>[0] = {
    herald_serve: () => [api.proc.pid],
    herald_worker: () => [worker.proc.pid],
    postgres_backends: () => backendPids(db.name).filter((p) => p !== samplerPid),
    nats_server: natsPids,
    stand_ins: () => [si.proc.pid],
    bench: () => [process.pid],
  }
  const ingestErrors: string[] = []
  let posts = 0
  const post = (channel: string) => postEvent(`${base}/event`, apiKey, JSON.stringify({ message: `Deploy #${posts++} of api finished on production in 42 s`, title: 'Deploy finished', channel }))
  return { N: params.devices, params, stream, tmp, db, jsm, rt, si, api, worker, pop, rss, groups, post, ingestErrors, warnings: [] as string[] }
}
type Run = Awaited<ReturnType<typeof setUp>>

// ---------------------------------------------------------------- scenarios

/** One event that pushes the first user's devices only: opens the APNs connections, fetches the FCM token, signs the VAPID token. */
async function warmUp({ si, db, pop, tmp, post }: Run) {
  const before = si.total()
  const p = await post(WARMUP_CHANNEL)
  if (!p.eventId) fail(`the warm-up event was refused: ${p.error}`)
  const ok = await until(() => si.total() >= before + pop.warmupDevices, 30_000, 20)
  if (!ok) fail(`the warm-up event's ${pop.warmupDevices} pushes did not arrive within 30 s (got ${si.total() - before}); logs in ${tmp}`)
  await until(async () => {
    const [r] = await eventRows(db.sql, [p.eventId!])
    return !!r && r.rows >= pop.warmupDevices && r.pending === 0
  }, 30_000, 50)
  progress(`warm-up event pushed in ${round(si.state.latest.lastAt - p.t, 1)} ms`)
}

/** A. One event to every device, one after the other, each once the stand-ins are quiet. */
async function bursts(run: Run) {
  const { N, params, si, db, groups, post, pop } = run
  const runs: (Record<string, unknown> & { cpu: Record<string, number>; webpush_pushes_per_s?: number })[] = []
  const rates: number[] = []
  for (let b = 0; b < params.bursts; b++) {
    await si.quiet()
    const before = si.total()
    const meter = cpuMeter(groups)
    const p = await post(CHANNEL)
    if (!p.eventId) {
      run.ingestErrors.push(p.error)
      fail(`burst ${b + 1}: POST /event answered ${p.error}`)
    }
    const allPushed = await until(() => si.total() >= before + N, params.burst_timeout_s * 1000, 10)
    const pushedAt = allPushed ? si.state.latest.lastAt : NaN
    const webpushMs = (allPushed ? si.state.latest.webpushLastAt : NaN) - p.t
    let rows: EventRows | undefined
    const allRows = await until(async () => {
      ;[rows] = await eventRows(db.sql, [p.eventId!])
      return !!rows && rows.rows >= N && rows.pending === 0
    }, allPushed ? 30_000 : 1000, 50)
    const wall = (now() - p.t) / 1000
    const cpu = addOtherCores(meter.stop(N, wall, 'push'))
    const received = si.total() - before
    const pushesMs = pushedAt - p.t
    const rowsMs = (rows?.last_written ?? NaN) - p.t
    const r = {
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
      // POST → the last Web Push received, over the Web Push devices
      ...(pop.webpush ? { webpush_pushes_per_s: allPushed ? round((pop.webpush * 1000) / webpushMs, 1) : 0 } : {}),
      cpu,
    }
    runs.push(r)
    rates.push(r.pushes_per_s)
    progress(`burst ${b + 1}/${params.bursts}: ${received}/${N} pushes in ${r.all_pushed_ms} ms (${r.pushes_per_s}/s), rows after ${r.all_rows_written_ms} ms`)
    if (!allPushed || !allRows) {
      run.warnings.push(`burst ${b + 1} did not complete within --burst-timeout ${params.burst_timeout_s} s (${received}/${N} pushes, ${rows?.rows ?? 0} rows, ${rows?.pending ?? 0} pending); later bursts skipped`)
      break
    }
  }
  return { runs, best_pushes_per_s: [...rates].sort((a, b) => a - b).at(-1) ?? 0, median_pushes_per_s: rates.length ? median(rates) : 0 }
}

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

/** B. Events at a steady rate, open loop, for --warmup + --duration s, then a drain of up to --drain s. */
async function stream(run: Run) {
  const { N, params, si, jsm, api, worker, groups, post, pop } = run
  const eps = params.events_per_second
  await si.quiet()
  const base0 = si.total()
  const total = Math.ceil((params.warmup_s + params.duration_s) * eps - 1e-9)
  const firstMeasured = Math.ceil(params.warmup_s * eps - 1e-9)
  progress(`stream: ${eps} events/s × ${N} devices = ${eps * N} pushes/s offered, ${params.warmup_s} + ${params.duration_s} s`)
  const t0 = now()
  const measureStart = t0 + params.warmup_s * 1000
  const measureEnd = measureStart + params.duration_s * 1000
  const posts: Posted[] = []
  let accepted = 0
  const acceptedAt: number[] = [] // when each accepted event's 200 arrived
  const inflight = new Set<Promise<void>>()
  // The first event goes at t0 (lead 1), the rest on the schedule.
  const genDone = openLoop(h, t0, eps, total, (slot) => {
    const task = post(CHANNEL).then((p) => {
      posts[slot] = p
      if (p.eventId) {
        accepted++
        acceptedAt.push(p.okAt)
      } else run.ingestErrors.push(p.error)
    })
    inflight.add(task)
    task.finally(() => inflight.delete(task))
  }, 1)

  const samples: Sample[] = []
  let drainStart = Infinity
  // Events come in blocks of N pushes, so the backlog at one instant depends
  // on where in the event period it falls (and a 1 s sampler at 1 event/s
  // always falls at the same place). Its mean over the stand-ins' reports of
  // the last second does not.
  const meanBacklog = (t: number): number | null => {
    const reports = si.state.history.filter((r) => r.t > t - 1000 && r.t <= t && r.t >= t0)
    if (!reports.length) return null
    const backlogs = reports.map((r) => N * acceptedAt.filter((a) => a <= r.t).length - (pushesOf(r) - base0))
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
    jsm.streams.info(run.stream).then((i) => (s.stream_messages = i.state.messages)).catch(() => {})
  }, 1000)
  cleanups.push(() => clearInterval(sampler))

  await Bun.sleep(Math.max(0, measureStart - now()))
  const meter = cpuMeter(groups)
  const c0 = si.state.latest
  await Bun.sleep(Math.max(0, measureEnd - now()))
  const c1 = si.state.latest
  const windowS = (c1.t - c0.t) / 1000
  const pushedInWindow = pushesOf(c1) - pushesOf(c0)
  const cpu = addOtherCores(meter.stop(pushedInWindow, (now() - measureStart) / 1000, 'push'))
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
  const missing = Math.max(0, accepted * N - received)

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
  const keepsUpAt = (target: number) => (rate: number, offer: number) => offer >= target && rate >= 0.98 * offer && (backlog.growth ?? 0) <= 0.1 * offered
  const webpush = pop.webpush ? { webpush_pushes_per_s: round((c1.webpush - c0.webpush) / windowS, 1), webpush_offered_pushes_per_s: eps * pop.webpush } : {}
  const result = {
    offered_pushes_per_s: eps * N,
    events_sent: total, events_accepted: accepted,
    events_accepted_measured: posts.slice(firstMeasured).filter((p) => p?.eventId).length,
    expected_pushes: accepted * N, received_pushes: received, missing_pushes: missing,
    extra_pushes: Math.max(0, received - accepted * N),
    pushes_in_window: pushedInWindow, window_s: round(windowS, 2),
    pushes_per_s: pushesPerS,
    ratio_to_offered: round(pushesPerS / (eps * N), 3),
    ...webpush,
    drain_used_s: drainUsed,
    backlog,
    rss_trend_mb: { ...rssTrend, worker_kept_growing: !workerGrowthOk },
    cpu,
    series: samples,
    // completion (POST → …) per event: filled in from PostgreSQL once Herald has stopped
    completion_ms: null as unknown,
    post_ms: dist(posts.slice(firstMeasured).filter((p) => p?.eventId).map((p) => p.okAt - p.t)),
    first_measured_slot: firstMeasured,
  }
  progress(`stream: ${pushesPerS} pushes/s in the window (offered ${eps * N}), ${received}/${accepted * N} received after the drain`)
  const pass = { pushes: keepsUpAt(params.target_pushes_per_s)(pushesPerS, offered), rss: workerGrowthOk }
  return { result, pass, webpushKeepsUp: keepsUpAt(TARGETS.webpush_pushes_per_s), posts, missing }
}

// ---------------------------------------------------------------- main

/**
 * How the floor sender posts, as Herald does to this run's stand-in: over
 * HTTP/2 with Herald's sends in flight (WORKER_CONCURRENCY), over HTTP/1.1
 * with as many as Herald keeps connections (WEB_PUSH_CONNECTIONS_PER_ORIGIN).
 * null without Web Push.
 */
function webPushFloorOptions(params: ReturnType<typeof parameters>) {
  if (!params.providers.includes('webpush')) return null
  const env = (key: string, fallback: number) => Number(process.env[key] ?? fallback)
  const http2 = params.webpush_protocol === 'http2'
  const concurrency = http2 ? env('WORKER_CONCURRENCY', DEFAULT_WORKER_CONCURRENCY) : env('WEB_PUSH_CONNECTIONS_PER_ORIGIN', DEFAULT_CONNECTIONS_PER_ORIGIN)
  // Far away, fewer pushes: at 40 ms and 32 connections the floor makes 800/s.
  return { http2, concurrency, delayMs: params.webpush_delay_ms, pushes: params.webpush_delay_ms > 0 ? 5000 : 20_000 }
}

async function main() {
  const params = parameters()
  const started = new Date()
  const load1m = loadavg()[0]!
  const vapid = vapidPair()
  const encryption = params.providers.includes('webpush') ? await measureEncryption(vapid.pair, CHANNEL) : null
  if (encryption) progress(`Web Push encryption alone: ${encryption.us_per_push} µs CPU per push (${JSON.stringify(encryption.candidates_us)})`)
  const floorOptions = webPushFloorOptions(params)
  const floor = floorOptions ? await webPushFloor(floorOptions) : null
  if (floor) progress(`Web Push floor (encrypt and post, nothing else, ${floorOptions!.concurrency} in flight): ${floor.pushes_per_s} pushes/s, CPU µs/push ${JSON.stringify(floor.cpu_us_per_push)}`)
  const run = await setUp(params, started, vapid)
  const { N, si, db, pop, warnings, ingestErrors } = run

  await warmUp(run)
  const burst = params.scenario !== 'stream' ? await bursts(run) : null
  const burstRuns = burst?.runs ?? []
  const streamed = params.scenario !== 'burst' ? await stream(run) : null
  const streamResult = streamed?.result ?? null
  const mem = Object.fromEntries(Object.entries(run.rss).map(([k, s]) => [k, s.peak()]))

  // ---- stop Herald (SIGTERM writes the outstanding outcomes), then the stand-ins, then read PostgreSQL
  progress('stopping Herald')
  const stopS = await stopInTurn({ herald_worker: run.worker.stop, herald_serve: run.api.stop, stand_ins: si.stop })
  const final: Final | null = si.state.final
  progress(`stopped (${Object.entries(stopS).map(([k, v]) => `${k} ${v} s`).join(', ')})`)
  const floorAfter = floorOptions ? await webPushFloor(floorOptions) : null
  if (floorAfter) progress(`Web Push floor again: ${floorAfter.pushes_per_s} pushes/s, CPU µs/push ${JSON.stringify(floorAfter.cpu_us_per_push)}`)
  const logs = logTails({ herald_serve: [run.api], herald_worker: [run.worker] })
  const { byStatus, attemptErrors } = await deliveryOutcomes(db.sql)
  const dups = await duplicateRows(db.sql)
  const failed = byStatus.failed?.n ?? 0
  if (streamed) streamed.result.completion_ms = await completion(db.sql, streamed.posts, streamed.result.first_measured_slot, N)

  const channelEvents = burstRuns.length + (streamResult ? streamResult.events_accepted : 0)
  const standIns = standInsReport(final, channelEvents, N, pop.warmupDevices)
  const burstMissing = burstRuns.reduce((a, r) => a + Math.max(0, N - (r.received as number)), 0)
  const streamMissing = streamed?.missing ?? 0
  const missing = burstMissing + streamMissing
  const problems = final?.problems ?? si.state.latest.problems

  // ---- warnings
  const cpus = [...burstRuns.map((r) => r.cpu as Record<string, number>), ...(streamResult ? [streamResult.cpu] : [])]
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
  if (!standIns.perDeviceOk) warnings.push(`pushes per device differ from one per event (expected ${JSON.stringify(standIns.expected)}, got ${JSON.stringify(final?.per_device_counts)})`)

  const target = params.target_pushes_per_s
  const webpush = pop.webpush ? webPushReport({
    devices: pop.webpush, only: pop.webpush === N, target: TARGETS.webpush_pushes_per_s, bursts: burstRuns,
    stream: streamResult, streamKeepsUp: streamed?.webpushKeepsUp ?? (() => false), encryption, floor, floorAfter, vsFloor: TARGETS.webpush_vs_floor,
    cpuVsFloor: { worker: TARGETS.webpush_worker_cpu_vs_floor, standIn: TARGETS.webpush_stand_in_cpu_vs_floor },
  }) : null
  const workerPeak = mem.herald_worker!.peak_mb
  const rssBounded = workerPeak < TARGETS.worker_peak_rss_mb && streamed?.pass.rss !== false
  const report = {
    benchmark: 'push',
    started_at: started.toISOString(),
    machine: machine(load1m),
    runtime: run.rt,
    params: { ...params, apns_devices: pop.apns, fcm_devices: pop.fcm, webpush_devices: pop.webpush, users: pop.users, stream: run.stream, database: db.name },
    results: {
      burst,
      stream: streamResult,
      deliveries: {
        by_status: byStatus, duplicate_pairs: dups.pairs, duplicate_rows: dups.extra, failed, attempt_errors: attemptErrors,
      },
      stand_ins: standIns.report,
      ...(webpush ? { webpush } : {}),
      missing_pushes: { burst: burstMissing, stream: streamMissing },
      peak_rss_mb: mem,
      stop_s: stopS,
      logs,
    },
    warnings,
    targets: {
      pushes_per_s: `≥ ${target} pushes/s: burst (best of --bursts: N ÷ POST → last push received); stream: offers ≥ ${target}/s, receives ≥ 98 % of it in the measured window, backlog growth ≤ 0.1 s of the offered rate${target === TARGETS.pushes_per_s ? '' : ` (${TARGETS.pushes_per_s}/s for APNs and FCM, ${TARGETS.webpush_pushes_per_s}/s for Web Push, over this mix of devices)`}`,
      ...(pop.webpush ? {
        webpush_pushes_per_s: `≥ ${TARGETS.webpush_pushes_per_s} Web Push pushes/s, encryption included: burst (best of --bursts: Web Push devices ÷ POST → last Web Push received); stream: offers ≥ ${TARGETS.webpush_pushes_per_s} Web Push pushes/s and receives ≥ 98 % of them in the measured window, backlog growth as above`,
        webpush_vs_floor: `the best burst ≥ ${TARGETS.webpush_vs_floor} × the floor sender's pushes/s (bench/push_floor.ts, run before Herald in this run)`,
        webpush_worker_cpu_vs_floor: `(--providers webpush only) herald_worker's CPU per push ≤ ${TARGETS.webpush_worker_cpu_vs_floor} × the floor sender's, median over the bursts and the stream (results.webpush.cpu_vs_floor)`,
        webpush_stand_in_cpu_vs_floor: `(--providers webpush only) the stand-ins' CPU per push under Herald ≤ ${TARGETS.webpush_stand_in_cpu_vs_floor} × the stand-in's under the floor, median over the bursts and the stream`,
      } : {}),
      rss_bounded: `herald worker peak RSS < ${TARGETS.worker_peak_rss_mb} MB, and over the stream's measured window the worker's last-quarter mean RSS ≤ ${TARGETS.rss_growth_ratio} × its first-quarter mean`,
      no_missing: 'every push of every accepted event reached the stand-ins (bursts within --burst-timeout, the stream within --drain)',
      no_problems: 'the stand-ins found no protocol violation (JWTs, headers, payloads, OAuth assertions, VAPID tokens, Web Push encryption)',
      no_failed: 'no delivery ended failed',
      pass: {
        pushes_per_s_burst: burst ? burst.best_pushes_per_s >= target : null,
        pushes_per_s_stream: streamed ? streamed.pass.pushes : null,
        ...(webpush ? {
          webpush_pushes_per_s_burst: webpush.pass.burst, webpush_pushes_per_s_stream: webpush.pass.stream, webpush_vs_floor: webpush.pass.vs_floor,
          webpush_worker_cpu_vs_floor: webpush.pass.worker_cpu_vs_floor, webpush_stand_in_cpu_vs_floor: webpush.pass.stand_in_cpu_vs_floor,
        } : {}),
        rss_bounded: rssBounded,
        no_missing: missing === 0,
        no_problems: problems === 0,
        no_failed: failed === 0,
      },
    },
  }
  if (problems > 0) console.error(`bench/push: the stand-ins found ${problems} protocol problem(s), e.g.:\n  ${(final?.problem_samples ?? []).slice(0, 5).join('\n  ')}`)
  h.saveReport(started, report)
}

await h.run(main)
