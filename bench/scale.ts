#!/usr/bin/env bun
// Costs that must not grow with the number of workspaces or routers.
//
// workspaces: `herald serve` on PostgreSQL and NATS (as it scales out, so
//   that revocations are announced and API keys may be cached long), driven
//   by wrk with the API keys of 100, then 5,000, then 50,000 workspaces in
//   rotation (bench/ingest.lua), rounds alternating; a fresh process per run,
//   warmed until every key has been used (as on a server that has run a
//   while), then measured. Per size: req/s, p99,
//   Herald's and PostgreSQL's CPU per request, the API keys looked up per
//   1,000 requests (herald_api_key_lookups_total), Herald's RSS. Targets:
//   p99 and Herald's CPU per request within 10 % of the smallest size's
//   (medians of the rounds), RSS bounded.
// routers: bench/fanout.ts with 10 and then 1,000 routers per workspace of
//   which the same 2 match, rounds alternating; target: the worker's CPU per
//   event with 1,000 within 1.5 × of that with 10.
//
//   npx bun bench/scale.ts [--part workspaces|routers|both] [--sizes 100,5000,50000] [--rounds 2]
//                          [--duration 15] [--warmup 5] [--connections 64]
//                          [--routers 10,1000] [--rate 2000] [--fanout-duration 20]
//
// DATABASE_URL and NATS_URL as for the other benchmarks; the run makes its
// own database and stream and removes them. Prints one JSON object and saves
// it under bench/results/.
import type postgres from 'postgres'
import { parseArgs } from 'node:util'
import { loadavg } from 'node:os'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generateApiKey, hashSecret, keyPrefix } from '../src/core/keys'
import { addOtherCores, backendPids, cpuMeter, machine, median, round, rssMb } from './proc'
import { DATABASE_URL, NATS_URL, fail, harness, intFlag, jetstreamEnv, runtimeOf, stampOf } from './harness'
import { runWrk, type WrkResult } from './load'

const h = harness('scale')
const { progress } = h

const TARGETS = { p99_ratio: 1.1, cpu_ratio: 1.1, router_cpu_ratio: 1.5 }

const { values: flags } = parseArgs({
  options: {
    part: { type: 'string', default: 'both' },
    sizes: { type: 'string', default: '100,5000,50000' },
    rounds: { type: 'string', default: '2' },
    duration: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    routers: { type: 'string', default: '10,1000' },
    rate: { type: 'string', default: '2000' },
    'fanout-duration': { type: 'string', default: '20' },
    prototype: { type: 'boolean', default: true },
  },
})
const list = (s: string, name: string) => {
  const xs = s.split(',').map(Number)
  if (xs.length < 2 || !xs.every((x) => Number.isInteger(x) && x > 0)) fail(`--${name} must list two or more whole numbers, smallest first, got ${JSON.stringify(s)}`)
  return xs
}
const params = {
  part: flags.part!,
  sizes: list(flags.sizes!, 'sizes'),
  rounds: intFlag(flags, 'rounds', 1),
  duration_s: intFlag(flags, 'duration', 1),
  warmup_s: intFlag(flags, 'warmup', 0),
  connections: intFlag(flags, 'connections', 1),
  routers: list(flags.routers!, 'routers'),
  fanout_rate: intFlag(flags, 'rate', 1),
  fanout_duration_s: intFlag(flags, 'fanout-duration', 1),
  prototype: flags.prototype!,
}
if (!['workspaces', 'routers', 'both'].includes(params.part)) fail(`--part must be workspaces, routers or both, got ${JSON.stringify(params.part)}`)

// ---------------------------------------------------------------- workspaces

/** `n` workspaces with one API key each, written in bulk; their keys, in order. */
async function bulkWorkspaces(sql: postgres.Sql, n: number): Promise<string[]> {
  const keys: string[] = []
  for (let from = 0; from < n; from += 5000) {
    const count = Math.min(5000, n - from)
    const names = Array.from({ length: count }, (_, i) => `scale-${from + i}`)
    // Limits far above what a run reaches: the benchmark measures the path, not the 429s.
    const ids = await sql<{ id: number }[]>`
      INSERT INTO workspaces (name, monthly_quota, rate_per_second, rate_burst, tokens)
      SELECT name, 1000000000, 1000000000, 1000000000, 1000000000 FROM unnest(${names}::text[]) WITH ORDINALITY AS t(name, i) ORDER BY i
      RETURNING id`
    await sql`INSERT INTO channels (workspace_id, slug) SELECT id, 'general' FROM unnest(${ids.map((r: { id: number }) => r.id)}::bigint[]) AS t(id)`
    const batch: string[] = ids.map(() => generateApiKey())
    await sql`
      INSERT INTO api_keys (workspace_id, name, prefix, hash)
      SELECT id, 'default', prefix, decode(hash, 'hex') FROM unnest(${ids.map((r: { id: number }) => r.id)}::bigint[], ${batch.map(keyPrefix)}::text[], ${batch.map((k) => hashSecret(k).toString('hex'))}::text[]) AS t(id, prefix, hash)`
    keys.push(...batch)
  }
  return keys
}

const metric = async (base: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await (await fetch(`${base}/metrics`)).text())?.[1] ?? NaN)

async function workspacesPart() {
  const started = new Date()
  const stamp = stampOf(started)
  const stream = `HERALD_BENCH_SCALE_${stamp}`
  const tmp = h.tempDir('herald-bench-scale-')
  const db = await h.createDatabase(DATABASE_URL, `herald_bench_scale_${stamp}`)
  const { nc, jsm } = await h.connectNats(NATS_URL, stream)
  const env = { ...jetstreamEnv({ databaseUrl: db.url, natsUrl: NATS_URL, stream, dataDir: join(tmp, 'data') }) }
  // A first start applies the migrations; then the workspaces go in, in bulk.
  const first = await h.startApi('serve', env, join(tmp, 'migrate.log'))
  await first.child.stop()
  const biggest = params.sizes.at(-1)!
  progress(`making ${biggest} workspaces and their keys`)
  const keys = await bulkWorkspaces(db.sql, biggest)
  const files = Object.fromEntries(params.sizes.map((n) => {
    const file = join(tmp, `keys-${n}.txt`)
    writeFileSync(file, keys.slice(0, n).join('\n') + '\n')
    return [n, file]
  }))
  const runs: Record<number, ReturnType<typeof summary>[]> = {}
  const proto: Record<number, Awaited<ReturnType<typeof prototypeRun>>[]> = {}
  for (let r = 0; r < params.rounds; r++) {
    for (const n of params.sizes) {
      const { child, base } = await h.startApi('serve', env, join(tmp, `serve-${n}-${r}.log`))
      const url = `${base}/event`
      const wrk = (seconds: number) => runWrk({ url, seconds, keysFile: files[n]!, threads: 1, connections: params.connections })
      // Warm: every key used at least once, as on a server that has run a
      // while, in one wrk run (each run goes through the keys in turn from the
      // first): long enough for all of them at 1,500 requests/s, the slowest
      // a cold cache goes here. Then the steady state is measured.
      const warmed = await wrk(Math.max(params.warmup_s, Math.ceil((1.2 * n) / 1500)))
      if (warmed.requests < n) progress(`the warm-up used ${warmed.requests} of ${n} keys: the cache is not all warm`)
      const lookups0 = await metric(base, 'herald_api_key_lookups_total')
      const meter = cpuMeter({ herald_serve: () => [child.proc.pid], postgres_backends: () => backendPids(db.name) })
      const run = await wrk(params.duration_s)
      const cpu = addOtherCores(meter.stop(run.requests, run.duration_us / 1e6))
      const lookups = (await metric(base, 'herald_api_key_lookups_total')) - lookups0
      const rss = rssMb(child.proc.pid)
      await child.stop()
      await jsm.streams.purge(stream).catch(() => {}) // no worker runs: the events would pile up in the stream
      const s = summary(run, cpu, lookups, rss)
      ;(runs[n] ??= []).push(s)
      progress(`${n} workspaces, round ${r + 1}: ${s.rps} req/s, p99 ${s.p99_ms} ms, serve ${s.herald_us_per_request} µs/req, ${s.key_lookups_per_1000_requests} look-ups per 1,000, RSS ${rss} MB`)
      if (params.prototype) {
        const p = await prototypeRun(db, files[n]!, join(tmp, `prototype-${n}-${r}.log`))
        ;(proto[n] ??= []).push(p)
        progress(`${n} workspaces, round ${r + 1}, prototype: ${p.rps} req/s, p99 ${p.p99_ms} ms, ${p.server_us_per_request} µs/req, PostgreSQL ${p.postgres_us_per_request} µs/req`)
      }
    }
  }
  const med = (n: number, k: keyof ReturnType<typeof summary>) => median(runs[n]!.map((s) => s[k] as number))
  const base = params.sizes[0]!
  const ratios = Object.fromEntries(params.sizes.slice(1).map((n) => [n, {
    p99: round(med(n, 'p99_ms') / med(base, 'p99_ms'), 3),
    herald_cpu_per_request: round(med(n, 'herald_us_per_request') / med(base, 'herald_us_per_request'), 3),
  }]))
  const runtime = await runtimeOf(db.sql, nc)
  const pmed = (n: number, k: 'p99_ms' | 'server_us_per_request' | 'postgres_us_per_request') => median(proto[n]!.map((x) => x[k]))
  return {
    runtime,
    runs,
    // The same load on the ingest prototype (bench/prototype_server.ts: the
    // one statement, keys read at start, no cache): how much of any growth the
    // write path itself shows when a batch's events belong to more workspaces.
    prototype: params.prototype ? {
      runs: proto,
      ratios_to_smallest: Object.fromEntries(params.sizes.slice(1).map((n) => [n, {
        p99: round(pmed(n, 'p99_ms') / pmed(base, 'p99_ms'), 3),
        server_cpu_per_request: round(pmed(n, 'server_us_per_request') / pmed(base, 'server_us_per_request'), 3),
        postgres_cpu_per_request: round(pmed(n, 'postgres_us_per_request') / pmed(base, 'postgres_us_per_request'), 3),
      }])),
    } : null,
    medians: Object.fromEntries(params.sizes.map((n) => [n, {
      rps: med(n, 'rps'), p99_ms: med(n, 'p99_ms'), herald_us_per_request: med(n, 'herald_us_per_request'), postgres_us_per_request: med(n, 'postgres_us_per_request'),
      key_lookups_per_1000_requests: med(n, 'key_lookups_per_1000_requests'), herald_rss_mb: Math.max(...runs[n]!.map((s) => s.herald_rss_mb)),
    }])),
    ratios_to_smallest: ratios,
    pass: Object.values(ratios).every((x) => x.p99 <= TARGETS.p99_ratio && x.herald_cpu_per_request <= TARGETS.cpu_ratio),
  }
}

/** The ingest prototype on the run's database with these keys: warmed, then measured like Herald. */
async function prototypeRun(db: { name: string; url: string }, keysFile: string, logPath: string) {
  let port = 0
  const child = await h.spawnTalker('the ingest prototype', ['bench/prototype_server.ts'], logPath, (line) => !!(port = (JSON.parse(line) as { port?: number }).port ?? 0), false,
    { ...process.env, NATS_URL: undefined, PORT: '0', DATABASE_URL: db.url, KEYS_FILE: keysFile })
  const url = `http://127.0.0.1:${port}/event`
  const wrk = (seconds: number) => runWrk({ url, seconds, keysFile, threads: 1, connections: params.connections })
  await wrk(params.warmup_s)
  const meter = cpuMeter({ server: () => [child.proc.pid], postgres_backends: () => backendPids(db.name) })
  const run = await wrk(params.duration_s)
  const cpu = meter.stop(run.requests, run.duration_us / 1e6)
  await child.stop()
  return {
    rps: round(run.requests / (run.duration_us / 1e6), 0), p99_ms: round(run.latency_us.p99 / 1000, 2), non2xx: run.errors.status,
    server_us_per_request: cpu.server_us_per_req!, postgres_us_per_request: cpu.postgres_backends_us_per_req!,
  }
}

function summary(run: WrkResult, cpu: Record<string, number>, lookups: number, rss: number) {
  return {
    rps: round(run.requests / (run.duration_us / 1e6), 0),
    p50_ms: round(run.latency_us.p50 / 1000, 2),
    p99_ms: round(run.latency_us.p99 / 1000, 2),
    non2xx: run.errors.status,
    herald_us_per_request: cpu.herald_serve_us_per_req!,
    postgres_us_per_request: cpu.postgres_backends_us_per_req!,
    key_lookups_per_1000_requests: round((1000 * lookups) / Math.max(1, run.requests), 2),
    herald_rss_mb: rss,
    machine_busy_pct: cpu.machine_busy_pct!,
  }
}

// ---------------------------------------------------------------- routers

/** One bench/fanout.ts run; its report. */
async function fanout(routers: number) {
  const args = ['bench/fanout.ts', '--workspaces', '2', '--routers', String(routers), '--matching', '2', '--rate', String(params.fanout_rate),
    '--duration', String(params.fanout_duration_s), '--warmup', '5', '--skip-analyze']
  const proc = Bun.spawn([process.execPath, ...args], { cwd: join(import.meta.dir, '..'), stdout: 'pipe', stderr: 'inherit' })
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
  if (code !== 0) fail(`bench/fanout.ts --routers ${routers} failed (exit ${code})`)
  return JSON.parse(out) as { results: { cpu: Record<string, number>; fanout?: unknown; [k: string]: unknown } }
}

async function routersPart() {
  const runs: Record<number, { worker_us_per_event: number; serve_us_per_event: number; deliveries_per_s: unknown; machine_busy_pct: number }[]> = {}
  for (let r = 0; r < params.rounds; r++) {
    for (const n of params.routers) {
      progress(`fan-out with ${n} routers per workspace (2 match), round ${r + 1}`)
      const { results } = await fanout(n)
      const cpu = results.cpu
      ;(runs[n] ??= []).push({
        worker_us_per_event: cpu.herald_worker_us_per_delivery ?? cpu.herald_worker_us_per_event ?? NaN,
        serve_us_per_event: cpu.herald_serve_us_per_delivery ?? cpu.herald_serve_us_per_event ?? NaN,
        deliveries_per_s: (results.fanout as { deliveries_per_s?: number } | undefined)?.deliveries_per_s ?? null,
        machine_busy_pct: cpu.machine_busy_pct!,
      })
    }
  }
  const med = (n: number) => median(runs[n]!.map((x) => x.worker_us_per_event))
  const base = params.routers[0]!
  const ratios = Object.fromEntries(params.routers.slice(1).map((n) => [n, round(med(n) / med(base), 3)]))
  return { runs, worker_us_per_event_median: Object.fromEntries(params.routers.map((n) => [n, med(n)])), ratios_to_smallest: ratios, pass: Object.values(ratios).every((x) => x <= TARGETS.router_cpu_ratio) }
}

// ---------------------------------------------------------------- main

async function main() {
  const started = new Date()
  const load1m = loadavg()[0]!
  const workspaces = params.part !== 'routers' ? await workspacesPart() : null
  const routers = params.part !== 'workspaces' ? await routersPart() : null
  h.saveReport(started, {
    benchmark: 'scale',
    started_at: started.toISOString(),
    machine: machine(load1m),
    params,
    results: { workspaces, routers },
    targets: {
      workspaces: `at each larger number of workspaces, p99 ≤ ${TARGETS.p99_ratio} × and herald serve's CPU per request ≤ ${TARGETS.cpu_ratio} × those at ${params.sizes[0]} (medians of the rounds)`,
      routers: `the worker's CPU per event with ${params.routers.slice(1).join(', ')} routers per workspace ≤ ${TARGETS.router_cpu_ratio} × that with ${params.routers[0]}, as many matching (2)`,
      pass: { workspaces: workspaces?.pass ?? null, routers: routers?.pass ?? null },
    },
  })
}

await h.run(main)
