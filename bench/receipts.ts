#!/usr/bin/env bun
// Receipts benchmark: N pending receipts (10,000 by default) repeating every
// `retry` (30 s) to one device each, through `herald serve` + `herald worker`,
// PostgreSQL and JetStream, to the APNs stand-in (test/stand_ins.ts), run in
// this process so that each push's arrival is timed. Two phases, same rate,
// same device, same run:
//   plain:    N events without `ack`, spread over `retry` seconds: the CPU of a
//             plain push (ingest, fan-out, push, its row) is the reference.
//   receipts: N events with `ack` at the same rate, then `repeats` rounds of
//             repeats (N each); only the repeat windows are metered (no
//             ingest then): CPU per repeat, its ratio to a plain push
//             (target ≤ 1.2), the lateness of each repeat (its arrival at the
//             stand-in minus event time + n × retry; target p99 ≤ 1 s), and
//             PostgreSQL's cost per repeat (backend CPU; commits, rows and
//             buffers from pg_stat_database).
// Prints one JSON object and saves it under bench/results/receipts-<timestamp>.json.
//
//   npx bun bench/receipts.ts [--receipts 10000] [--retry 30] [--repeats 2] [--drain 30]
//
// Shorter: --receipts 1000 --repeats 1. DATABASE_URL and NATS_URL as in bench/push.ts.
import { parseArgs } from 'node:util'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { addOtherCores, backendPids, cpuMeter, dist, machine, natsPids, round } from './proc'
import { DATABASE_URL, NATS_URL, adminPost, backendPid, createWorkspace, fail, harness, intFlag, jetstreamEnv, now, runtimeOf, stampOf, until } from './harness'
import { CA_FILE, TEAM, TOPIC, startApns, startGoogle, writeCredentials } from '../test/stand_ins'

const h = harness('receipts')
const { progress } = h
const TARGETS = { cpu_ratio_repeat_to_push: 1.2, lateness_p99_ms: 1000 }
const KID = 'BENCHRCPT1'

const { values: flags } = parseArgs({
  options: {
    receipts: { type: 'string', default: '10000' },
    retry: { type: 'string', default: '30' },
    repeats: { type: 'string', default: '2' },
    drain: { type: 'string', default: '30' },
  },
})
const params = {
  receipts: intFlag(flags, 'receipts', 10),
  retry_s: intFlag(flags, 'retry', 30), // the contract's minimum; the events are spread over it
  repeats: intFlag(flags, 'repeats', 1),
  drain_s: intFlag(flags, 'drain', 5),
}

/** pg_stat_database's counters of the run's database. */
async function pgCounters(sql: Awaited<ReturnType<typeof h.createDatabase>>['sql'], db: string) {
  const [r] = await sql<Record<string, string>[]>`
    SELECT xact_commit, tup_inserted, tup_updated, tup_deleted, tup_fetched, blks_hit, blks_read FROM pg_stat_database WHERE datname = ${db}`
  return Object.fromEntries(Object.entries(r!).map(([k, v]) => [k, Number(v)]))
}
const perUnit = (a: Record<string, number>, b: Record<string, number>, n: number) =>
  Object.fromEntries(Object.keys(a).map((k) => [`${k}_per_push`, round((b[k]! - a[k]!) / n, 2)]))

/** Sends `n` events spread evenly over `seconds`, in batches of POST /events every 100 ms. */
async function sendSpread(base: string, key: string, n: number, seconds: number, body: (i: number) => Record<string, unknown>) {
  const ticks = Math.max(1, seconds * 10)
  const t0 = now()
  let sent = 0
  const posts: Promise<void>[] = []
  for (let t = 0; t < ticks && sent < n; t++) {
    const wait = t0 + t * 100 - now()
    if (wait > 0) await Bun.sleep(wait)
    const k = Math.min(n - sent, Math.ceil((n - sent) / (ticks - t)))
    const events = Array.from({ length: k }, (_, j) => body(sent + j))
    sent += k
    posts.push(fetch(`${base}/events`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ events }) })
      .then(async (r) => {
        const { results } = (await r.json()) as { results: { eventId?: string; status?: number; title?: string }[] }
        const bad = results.find((x) => !x.eventId)
        if (bad) fail(`an event was refused: ${JSON.stringify(bad)}`)
      }))
  }
  await Promise.all(posts)
  return t0
}

await h.run(async () => {
  const started = new Date()
  const stamp = stampOf(started)
  const stream = `HERALD_BENCH_RECEIPTS_${stamp}`
  const tmp = h.tempDir('herald-bench-receipts-')
  const db = await h.createDatabase(DATABASE_URL, `herald_bench_receipts_${stamp}`)
  const { nc, jsm } = await h.connectNats(NATS_URL, stream)
  const rt = await runtimeOf(db.sql, nc)
  // The stand-ins record each push's arrival (its event and time), for the lateness.
  const apns = await startApns({ maxConcurrentStreams: 1000 })
  apns.kid = KID
  const google = startGoogle()
  h.cleanups.push(() => apns.close(), () => google.stop())
  const creds = writeCredentials(tmp, `${google.url}/token`)
  const env = {
    ...jetstreamEnv({ databaseUrl: db.url, natsUrl: NATS_URL, stream, dataDir: join(tmp, 'data') }),
    APNS_KEY_FILE: creds.p8, APNS_KEY_ID: KID, APNS_TEAM_ID: TEAM, APNS_TOPIC: TOPIC, APNS_ORIGIN: apns.origin, NODE_EXTRA_CA_CERTS: CA_FILE,
    HERALD_MAX_PENDING_RECEIPTS: String(params.receipts + 10),
  }
  const { child: api, base } = await h.startApi('serve', env, join(tmp, 'serve.log'))
  const worker = h.startWorker(env, join(tmp, 'worker.log'))
  await h.workerReady(worker, jsm, stream)

  const key = await createWorkspace(base, 'bench-receipts')
  const { userToken } = await adminPost(base, '/admin/workspaces/bench-receipts/members', { email: 'oncall@example.com' })
  const device = 'ab'.repeat(32)
  const reg = await fetch(`${base}/v1/devices`, { method: 'POST', headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ platform: 'ios', provider: 'apns', token: device, environment: 'sandbox' }) })
  if (reg.status !== 201) fail(`the device was refused: ${reg.status} ${await reg.text()}`)

  const samplerPid = await backendPid(db.sql)
  const groups = {
    herald_serve: () => [api.proc.pid],
    herald_worker: () => [worker.proc.pid],
    postgres_backends: () => backendPids(db.name).filter((p) => p !== samplerPid),
    nats_server: natsPids,
    bench_and_stand_ins: () => [process.pid],
  }
  const N = params.receipts
  const arrivals = () => apns.seen.length
  // A warm-up push: the APNs session and its token are made before the meters run.
  await sendSpread(base, key, 1, 0, () => ({ message: 'warm-up' }))
  if (!(await until(() => arrivals() >= 1, 30_000, 20))) fail('the warm-up push did not arrive')
  apns.seen.length = 0

  // --- plain: N pushes at the rate the receipts will have
  progress(`plain: ${N} events over ${params.retry_s} s`)
  let c0 = await pgCounters(db.sql, db.name)
  let meter = cpuMeter(groups)
  let t = now()
  await sendSpread(base, key, N, params.retry_s, (i) => ({ message: `plain ${i}: disk 91% on db-${i % 7}` }))
  if (!(await until(() => arrivals() >= N, 120_000, 20))) fail(`plain: ${arrivals()} of ${N} pushes arrived`)
  await until(async () => (await db.sql`SELECT 1 FROM deliveries WHERE status = 'pending' LIMIT 1`).length === 0, 30_000, 50)
  const plainWall = (now() - t) / 1000
  const plain = { cpu: addOtherCores(meter.stop(N, plainWall, 'push')), postgres: perUnit(c0, await pgCounters(db.sql, db.name), N), wall_s: round(plainWall, 1) }
  apns.seen.length = 0

  // --- receipts: N events with ack at the same rate, then their repeats
  progress(`receipts: ${N} events with ack (retry ${params.retry_s} s) over ${params.retry_s} s, then ${params.repeats} rounds of repeats`)
  const ack = { retry: params.retry_s, expire: params.retry_s * (params.repeats + 2) }
  const t0 = await sendSpread(base, key, N, params.retry_s, (i) => ({ message: `receipt ${i}: disk 91% on db-${i % 7}`, ack }))
  if (!(await until(() => arrivals() >= N, 120_000, 20))) fail(`receipts: ${arrivals()} of ${N} first pushes arrived`)
  // The repeat windows: from the first repeat's time to the last one's arrival.
  const firstDue = t0 + params.retry_s * 1000
  if (firstDue - 500 > now()) await Bun.sleep(firstDue - 500 - now())
  c0 = await pgCounters(db.sql, db.name)
  meter = cpuMeter(groups)
  t = now()
  const want = N * (1 + params.repeats)
  const done = await until(() => arrivals() >= want, (params.retry_s * params.repeats + params.drain_s) * 1000, 20)
  const repeatWall = (now() - t) / 1000
  const repeatsMade = arrivals() - N
  const cpu = addOtherCores(meter.stop(repeatsMade, repeatWall, 'repeat'))
  const postgres = perUnit(c0, await pgCounters(db.sql, db.name), repeatsMade)
  // Cancelled before they expire, so the run leaves nothing ringing.
  await db.sql`UPDATE receipts SET status = 'cancelled', ended_at = now() WHERE status = 'pending'`

  // Lateness: the k-th arrival of an event is its repeat k-1, due at its time + (k-1) × retry.
  const seenOf = new Map<string, number[]>()
  for (const s of apns.seen) {
    const id = JSON.parse(s.body).eventId as string
    const list = seenOf.get(id) ?? []
    list.push(s.at)
    seenOf.set(id, list)
  }
  const lateness: number[] = []
  let doubles = 0
  for (const [id, ats] of seenOf) {
    const at0 = parseInt(id.slice(0, 8) + id.slice(9, 13), 16)
    ats.sort((a, b) => a - b)
    if (ats.length > 1 + params.repeats) doubles += ats.length - 1 - params.repeats
    for (let k = 1; k < ats.length && k <= params.repeats; k++) lateness.push(ats[k]! - (at0 + k * params.retry_s * 1000))
  }
  lateness.sort((a, b) => a - b)
  const late = dist(lateness)
  const plainTotal = plain.cpu.herald_serve_us_per_push! + plain.cpu.herald_worker_us_per_push! + plain.cpu.postgres_backends_us_per_push!
  const repeatTotal = cpu.herald_serve_us_per_repeat! + cpu.herald_worker_us_per_repeat! + cpu.postgres_backends_us_per_repeat!
  const ratio = round(repeatTotal / plainTotal, 2)
  const report = {
    bench: 'receipts',
    started: started.toISOString(),
    machine: machine(loadavg()[0]!),
    runtime: rt,
    params,
    complete: done,
    repeats_expected: N * params.repeats,
    repeats_received: repeatsMade,
    repeats_twice: doubles,
    plain_push: { ...plain, us_per_push_herald_and_postgres: round(plainTotal, 1) },
    repeat: { cpu, postgres, wall_s: round(repeatWall, 1), us_per_repeat_herald_and_postgres: round(repeatTotal, 1) },
    cpu_ratio_repeat_to_push: ratio,
    lateness_ms: late,
    targets: TARGETS,
    meets: { cpu_ratio: ratio <= TARGETS.cpu_ratio_repeat_to_push, lateness_p99: late.p99 <= TARGETS.lateness_p99_ms, complete: done && doubles === 0 },
  }
  h.saveReport(started, report)
})
