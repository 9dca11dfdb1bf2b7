#!/usr/bin/env bun
// Ingest benchmark: in one run on one machine, wrk drives POST /event against
// (a) Herald on real PostgreSQL with 100 workspaces, and (b) a bare Bun.serve
// that only parses the same JSON body; it prints one JSON object comparing them
// with the targets, and saves it under bench/results/.
//
//   npx bun bench/ingest.ts [--duration 15] [--connections 64] [--workspaces 100] [--threads 2] [--warmup 3] [--api 1]
//
// --api N starts N `herald serve` processes on one database and drives each
// with its own wrk, the connections split between them (the scale-out path).
//
// DATABASE_URL names a PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres);
// the run creates a database herald_bench_<ts> there and drops it at the end.
// BATCH_*, DATABASE_POOL_MAX and API_KEY_CACHE_TTL_MS in the environment are
// passed on to Herald, so tuning experiments need no code change.
import postgres from 'postgres'
import { parseArgs } from 'node:util'
import { loadavg, tmpdir } from 'node:os'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { backendPids, cpuMeter, machine, round, rssSampler } from './proc'
import { BenchError, fail, freePort, harness, type Child } from './harness'

const { cleanups, cleanup, spawnBun, waitFor, createDatabase } = harness('ingest')

const TARGETS = { ratio: 0.5, p99_ms: 25, rss_mb: 300 }
const ADMIN_TOKEN = `bench-admin-${crypto.randomUUID()}`
// Herald's own knobs that a run may vary; they are recorded in params.
const TUNING_KEYS = ['BATCH_MAX_EVENTS', 'BATCH_WINDOW_MS', 'BATCH_CONCURRENCY', 'DATABASE_POOL_MAX', 'API_KEY_CACHE_TTL_MS']

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '15' },
    connections: { type: 'string', default: '64' },
    workspaces: { type: 'string', default: '100' },
    threads: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '3' },
    api: { type: 'string', default: '1' },
  },
})
const params = {
  duration_s: posInt('duration'),
  warmup_s: posInt('warmup'),
  connections: posInt('connections'),
  workspaces: posInt('workspaces'),
  threads: posInt('threads'),
  api_processes: posInt('api'),
  herald_env: Object.fromEntries(TUNING_KEYS.filter((k) => process.env[k]).map((k) => [k, process.env[k]!])),
}

function posInt(name: keyof typeof flags): number {
  const n = Number(flags[name])
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a positive integer, got ${JSON.stringify(flags[name])}`)
  return n
}


// ---------------------------------------------------------------- processes

for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => cleanup().finally(() => process.exit(130)))

async function waitReady(child: Child, probe: () => Promise<Response>, what: string) {
  await waitFor(what, child, () => probe().then((r) => r.ok))
}

// ---------------------------------------------------------------- wrk

interface WrkResult {
  duration_us: number
  requests: number
  bytes: number
  errors: { connect: number; read: number; write: number; status: number; timeout: number }
  latency_us: { min: number; mean: number; max: number; stdev: number; p50: number; p90: number; p99: number; p999: number }
}

async function wrk(url: string, seconds: number, keysFile: string, share = 1): Promise<WrkResult & { cpu_s: number }> {
  const threads = Math.max(1, Math.round(params.threads / share))
  const connections = Math.max(threads, Math.round(params.connections / share))
  const args = ['wrk', `-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--timeout', '10s',
    '-s', join(import.meta.dir, 'ingest.lua'), url, '--', keysFile]
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '))
  if (code !== 0 || !line) fail(`wrk failed (exit ${code}):\n${out}\n${err}`)
  const cpuUs = Number(proc.resourceUsage()?.cpuTime.total ?? 0)
  return { ...(JSON.parse(line.slice('WRK_JSON '.length)) as WrkResult), cpu_s: cpuUs / 1e6 }
}

/** Several wrk runs at once, one per URL, as one result: counts add up, latencies are the slowest run's. */
async function wrkAll(urls: string[], seconds: number, keysFile: string): Promise<WrkResult & { cpu_s: number }> {
  const runs = await Promise.all(urls.map((u) => wrk(u, seconds, keysFile, urls.length)))
  if (runs.length === 1) return runs[0]!
  const sum = (f: (r: WrkResult & { cpu_s: number }) => number) => runs.reduce((a, r) => a + f(r), 0)
  const max = (f: (r: WrkResult) => number) => Math.max(...runs.map(f))
  const weighted = (f: (r: WrkResult) => number) => sum((r) => f(r) * r.requests) / Math.max(1, sum((r) => r.requests))
  return {
    duration_us: max((r) => r.duration_us),
    requests: sum((r) => r.requests),
    bytes: sum((r) => r.bytes),
    errors: { connect: sum((r) => r.errors.connect), read: sum((r) => r.errors.read), write: sum((r) => r.errors.write), status: sum((r) => r.errors.status), timeout: sum((r) => r.errors.timeout) },
    latency_us: {
      min: Math.min(...runs.map((r) => r.latency_us.min)), mean: weighted((r) => r.latency_us.mean), max: max((r) => r.latency_us.max),
      stdev: max((r) => r.latency_us.stdev), p50: weighted((r) => r.latency_us.p50), p90: max((r) => r.latency_us.p90),
      p99: max((r) => r.latency_us.p99), p999: max((r) => r.latency_us.p999),
    },
    cpu_s: sum((r) => r.cpu_s),
  }
}

/** A warm-up run, then the measured run, during which the CPU time of each group of processes is metered. */
async function load(url: string | string[], keysFile: string, groups: Parameters<typeof cpuMeter>[0]) {
  const urls = Array.isArray(url) ? url : [url]
  const warm = await wrkAll(urls, params.warmup_s, keysFile)
  const meter = cpuMeter(groups)
  const run = await wrkAll(urls, params.duration_s, keysFile)
  const wall = run.duration_us / 1e6
  const cpu = meter.stop(run.requests, wall)
  cpu.wrk_cores = round(run.cpu_s / wall, 2)
  // What neither the server(s) under test nor wrk used: the kernel's softirq
  // work for loopback traffic, and anything else running on the machine.
  const ours = Object.entries(cpu).filter(([k]) => k.endsWith('_cores') && k !== 'machine_busy_cores').reduce((a, [, v]) => a + v, 0)
  cpu.other_cores = round(cpu.machine_busy_cores! - ours, 2)
  return { warm, run, cpu }
}

const ok2xx = (r: WrkResult) => r.requests - r.errors.status
const rps = (r: WrkResult) => round(r.requests / (r.duration_us / 1e6), 0)
const errorCount = (r: WrkResult) => r.errors.connect + r.errors.read + r.errors.write + r.errors.timeout
const ms = (us: number) => round(us / 1000, 2)

// ---------------------------------------------------------------- the two runs

async function runBaseline(keysFile: string, logDir: string) {
  const port = await freePort()
  const child = spawnBun(['bench/baseline_server.ts'], { ...process.env, PORT: String(port) }, join(logDir, 'baseline.log'))
  const url = `http://127.0.0.1:${port}/event`
  await waitReady(child, () => fetch(url, { method: 'POST', body: '{"message":"ready?"}' }), 'the baseline server')
  const { run, cpu } = await load(url, keysFile, { server: () => [child.proc.pid] })
  await child.stop()
  return {
    rps: rps(run), p50_ms: ms(run.latency_us.p50), p99_ms: ms(run.latency_us.p99), non2xx: run.errors.status, errors: errorCount(run),
    cpu,
  }
}

async function createWorkspaces(base: string, n: number, keysFile: string) {
  const keys: string[] = []
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${base}/admin/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      // Limits far above what the run can reach: the benchmark measures the
      // write path, not the 429 path.
      body: JSON.stringify({ name: `bench-${i}`, monthlyQuota: 100_000_000, rateLimit: { perSecond: 1e9, burst: 1e9 } }),
    })
    if (res.status !== 201) fail(`POST /admin/workspaces answered ${res.status}: ${await res.text()}`)
    keys.push(((await res.json()) as { apiKey: string }).apiKey)
  }
  writeFileSync(keysFile, keys.join('\n') + '\n')
}

async function runHerald(adminUrl: string, keysFile: string, logDir: string) {
  const db = await createDatabase(adminUrl, `herald_bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`)
  const children: Child[] = []
  const bases: string[] = []
  for (let i = 0; i < params.api_processes; i++) {
    const port = await freePort()
    const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: db.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'warn' }
    const child = spawnBun([...(process.env.BENCH_BUN_FLAGS?.split(' ').filter(Boolean) ?? []), 'src/cli.ts', 'serve'], env, join(logDir, `herald-${i}.log`))
    await waitReady(child, () => fetch(`http://127.0.0.1:${port}/readyz`), 'Herald')
    children.push(child)
    bases.push(`http://127.0.0.1:${port}`)
  }
  const base = bases[0]!
  await createWorkspaces(base, params.workspaces, keysFile)
  const syncCommit = ((await db.sql`SHOW synchronous_commit`)[0]!.synchronous_commit as string)

  const checkpoints = async () => Number((await db.sql`SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter`)[0]!.n)
  const cp0 = await checkpoints()
  const rss = children.map((c) => rssSampler(c.proc.pid))
  // PostgreSQL's CPU can be metered only when it runs here; its backends for the
  // bench database exist by the measured run, opened during the warm-up.
  const { warm, run, cpu } = await load(bases.map((b) => `${b}/event`), keysFile, { herald: () => children.map((c) => c.proc.pid), postgres_backends: () => backendPids(db.name) })
  const mems = rss.map((r) => r.peak())
  const mem = mems.reduce((a, m) => (m.peak_mb > a.peak_mb ? m : a))
  // A checkpoint (another client's CREATE or DROP DATABASE forces one) stalls
  // commits and adds full-page writes: a run that saw one has a noisy tail.
  const cpDuring = (await checkpoints()) - cp0
  for (const c of children) await c.stop() // SIGTERM drains the batcher; every 2xx was committed before it was sent anyway
  const rows = Number((await db.sql`SELECT count(*)::bigint AS n FROM events`)[0]!.n)
  const sent2xx = ok2xx(warm) + ok2xx(run)
  return {
    db,
    syncCommit,
    result: {
      rps: rps(run), p50_ms: ms(run.latency_us.p50), p90_ms: ms(run.latency_us.p90), p99_ms: ms(run.latency_us.p99), max_ms: ms(run.latency_us.max),
      requests: run.requests, non2xx: run.errors.status, errors: errorCount(run), error_detail: run.errors,
      peak_rss_mb: mem.peak_mb, rss: mem,
      log_lines_at_warn: children.reduce((n, c) => n + readFileSync(c.logPath, 'utf8').split('\n').filter(Boolean).length, 0),
      cpu,
      postgres_checkpoints_during_load: cpDuring,
    },
    durability: { events_rows: rows, wrk_2xx: sent2xx, wrk_2xx_measured: ok2xx(run), wrk_2xx_warmup: ok2xx(warm), pass: rows >= sent2xx },
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

/** Signs that the numbers say more about the machine than about Herald. */
function noiseWarnings(base: Record<string, number>, her: Record<string, number>, checkpoints: number): string[] {
  const w: string[] = []
  for (const [name, c] of [['baseline', base], ['herald', her]] as const) {
    if (c.machine_steal_pct! > 5) w.push(`${name}: the hypervisor stole ${c.machine_steal_pct}% of the CPU during the run`)
    if (c.other_cores! > 0.25) w.push(`${name}: ${c.other_cores} cores went to neither the server under test nor wrk (other processes, or the kernel's loopback work)`)
  }
  if (checkpoints > 0) w.push(`PostgreSQL ran ${checkpoints} checkpoint(s) during Herald's load; commits stall while it writes`)
  return w
}

// ---------------------------------------------------------------- main

async function main() {
  if (!Bun.which('wrk')) fail('wrk is not on PATH. Install it first, e.g. `apt-get install -y wrk` (Debian/Ubuntu) or `brew install wrk` (macOS).')
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const tmp = mkdtempSync(join(tmpdir(), 'herald-bench-'))
  cleanups.push(() => rmSync(tmp, { recursive: true, force: true }))
  const keysFile = join(tmp, 'keys.txt')

  const started = new Date()
  const load1m = loadavg()[0]!
  const rt = await runtime(adminUrl)
  const herald = await runHerald(adminUrl, keysFile, tmp) // writes the keys file the baseline reuses
  const baseline = await runBaseline(keysFile, tmp)
  const ratio = round(herald.result.rps / baseline.rps, 3)
  const warnings = noiseWarnings(baseline.cpu, herald.result.cpu, herald.result.postgres_checkpoints_during_load)

  const report = {
    benchmark: 'ingest',
    started_at: started.toISOString(),
    machine: machine(load1m),
    runtime: rt,
    params,
    baseline,
    herald: herald.result,
    ratio,
    synchronous_commit: herald.syncCommit,
    durability: herald.durability,
    warnings,
    targets: {
      ...TARGETS,
      pass: {
        ratio: ratio >= TARGETS.ratio,
        p99_ms: herald.result.p99_ms < TARGETS.p99_ms,
        rss_mb: herald.result.peak_rss_mb < TARGETS.rss_mb,
        synchronous_commit: herald.syncCommit === 'on',
        no_errors: herald.result.non2xx === 0 && herald.result.errors === 0,
        durability: herald.durability.pass,
      },
    },
  }
  const json = JSON.stringify(report, null, 2)
  console.log(json)
  const dir = join(import.meta.dir, 'results')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `ingest-${started.toISOString().replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, json + '\n')
  console.error(`bench/ingest: saved ${file}`)
}

try {
  await main()
} catch (err) {
  console.error(`bench/ingest: ${err instanceof BenchError ? err.message : (err as Error).stack ?? err}`)
  process.exitCode = 1
} finally {
  await cleanup()
}
