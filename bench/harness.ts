// What every benchmark needs to run Herald next to its load: child processes
// with their output in log files, stopped on exit or Ctrl-C; free ports; a
// database and a JetStream stream of the run's own, removed at the end; the
// operator API; flags and the report. Each script passes its name (for
// messages and its result file) to `harness` and runs its main through `run`,
// which cleans up at the end and on SIGINT/SIGTERM.
import postgres from 'postgres'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { randomBytes, randomUUID } from 'node:crypto'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream'
import { round } from './proc'

export const ROOT = resolve(import.meta.dir, '..')
// BENCH_HERALD_DIR: another checkout whose Herald (src/cli/main.ts) the benchmark runs, with this
// checkout's benchmark: old and new code measured by one script, alternately, in one session.
const HERALD_DIR = process.env.BENCH_HERALD_DIR ? resolve(process.env.BENCH_HERALD_DIR) : ROOT
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222'
/** The operator token every Herald of a run gets. */
export const ADMIN_TOKEN = `bench-admin-${randomUUID()}`
/** BENCH_BUN_FLAGS, for the Bun that runs Herald (e.g. a CPU profile). */
export const BUN_FLAGS = process.env.BENCH_BUN_FLAGS?.split(' ').filter(Boolean) ?? []

/** Wall-clock milliseconds with sub-millisecond resolution; the benchmarks' children use the same clock. */
export const now = () => performance.timeOrigin + performance.now()

/** A failure the run reports in one line (no stack): bad flags, a child that did not start. */
export class BenchError extends Error {}

/** Ends the run: thrown, so that the cleanup (processes, database, stream) still runs. */
export function fail(msg: string): never {
  throw new BenchError(msg)
}

/** The integer value of `--name`, at least `min`. */
export function intFlag(flags: Record<string, unknown>, name: string, min: number): number {
  const n = Number(flags[name])
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(flags[name])}`)
  return n
}

/** Those of Herald's knobs `keys` that are set in the environment: they reach Herald, and the report records them. */
export const tuningEnv = (keys: string[]) => Object.fromEntries(keys.filter((k) => process.env[k]).map((k) => [k, process.env[k]!]))

/** A run's timestamp for database and stream names: digits only, and the pid, so that two runs never collide. */
export const stampOf = (d: Date) => `${d.toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`

/** Calls `f` with each line a child writes to `stream`, until it ends. */
export async function eachLine(stream: ReadableStream<Uint8Array>, f: (line: string) => void) {
  const decoder = new TextDecoder()
  let rest = ''
  for await (const chunk of stream) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n')
    rest = lines.pop()!
    for (const line of lines) f(line)
  }
}

export interface Child {
  proc: ReturnType<typeof Bun.spawn>
  logPath: string
  stop(): Promise<void>
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer()
    srv.once('error', rej)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => res(port))
    })
  })
}

/** Resolves to 'timeout' after `ms`, unless cancelled (a pending Bun.sleep would keep the process alive). */
export function deadline(ms: number) {
  let id: ReturnType<typeof setTimeout> | undefined
  const promise = new Promise<'timeout'>((res) => (id = setTimeout(() => res('timeout'), ms)))
  return { promise, cancel: () => clearTimeout(id) }
}

/** Polls `cond` every `everyMs` until it holds or `timeoutMs` has passed; the last answer. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, everyMs: number): Promise<boolean> {
  const end = now() + timeoutMs
  while (now() < end) {
    if (await cond()) return true
    await Bun.sleep(everyMs)
  }
  return cond()
}

/** SIGTERM, then SIGKILL after 15 s: Herald drains on SIGTERM, a hung one must still go. */
export function stopper(proc: ReturnType<typeof Bun.spawn>) {
  return async () => {
    if (proc.exitCode !== null || proc.signalCode) return
    proc.kill('SIGTERM')
    const timeout = deadline(15_000)
    if ((await Promise.race([proc.exited, timeout.promise])) === 'timeout') proc.kill('SIGKILL')
    timeout.cancel()
  }
}

/** Stops each in turn; the seconds each took (Herald's drain on SIGTERM is part of what a run reports). */
export async function stopInTurn(stops: Record<string, () => Promise<unknown>>) {
  const seconds: Record<string, number> = {}
  for (const [name, stop] of Object.entries(stops)) {
    const t = now()
    await stop()
    seconds[name] = round((now() - t) / 1000, 2)
  }
  return seconds
}

// ---------------------------------------------------------------- Herald and its stores

/** The versions of Bun, PostgreSQL and nats-server, for the report. */
export async function runtimeOf(sql: postgres.Sql, nc: NatsConnection) {
  const [v] = await sql`SELECT current_setting('server_version') AS v`
  return { bun: Bun.version, postgres: v!.v as string, nats_server: nc.info?.version ?? 'unknown' }
}

/** The pid of the backend serving `sql`'s connection: the benchmark's own, left out of PostgreSQL's CPU. */
export const backendPid = async (sql: postgres.Sql) => Number((await sql`SELECT pg_backend_pid() AS pid`)[0]!.pid)

/** The run's PostgreSQL backends by the application_name of their connection (the sampler's left out). */
export async function backendsByApplication(sql: postgres.Sql, database: string, samplerPid: number) {
  const rows = await sql<{ pid: number; app: string }[]>`
    SELECT pid, application_name AS app FROM pg_stat_activity WHERE datname = ${database} AND application_name <> '' AND pid <> ${samplerPid}`
  const by = new Map<string, number[]>()
  for (const r of rows) by.set(r.app, [...(by.get(r.app) ?? []), r.pid])
  return by
}

// A checkpoint (another client's CREATE or DROP DATABASE forces one) stalls
// commits and adds full-page writes: a run that saw one has a noisy tail.
export const checkpoints = async (sql: postgres.Sql) => Number((await sql`SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter`)[0]!.n)

/** Deliveries by status (and how many were retried), and the most frequent errors of failed attempts. */
export async function deliveryOutcomes(sql: postgres.Sql) {
  const statusRows = await sql<{ status: string; n: number; retried: number }[]>`
    SELECT status, count(*)::int AS n, count(*) FILTER (WHERE attempts > 1)::int AS retried FROM deliveries GROUP BY status`
  const attemptErrors = await sql<{ error: string; n: number }[]>`
    SELECT coalesce(error, 'HTTP ' || status) AS error, count(*)::int AS n FROM delivery_attempts WHERE NOT ok GROUP BY 1 ORDER BY 2 DESC LIMIT 5`
  return { byStatus: Object.fromEntries(statusRows.map((x) => [x.status, { n: x.n, retried: x.retried }])), attemptErrors }
}

/** What Herald logged at warn level and above, per role: how many lines, and the last three. */
export function logTails(children: Record<string, Child[]>) {
  return Object.fromEntries(Object.entries(children).map(([k, cs]) => {
    const lines = cs.flatMap((c) => readFileSync(c.logPath, 'utf8').split('\n').filter(Boolean))
    return [k, { lines_at_warn: lines.length, last: lines.slice(-3).map((l) => l.slice(0, 400)) }]
  }))
}

/** Herald's environment on JetStream: the run's database, stream and secret key, outbound HTTP allowed to loopback. */
export function jetstreamEnv(o: { databaseUrl: string; natsUrl: string; stream: string; dataDir: string }) {
  return {
    ...process.env, HOST: '127.0.0.1', DATABASE_URL: o.databaseUrl, NATS_URL: o.natsUrl, NATS_STREAM: o.stream,
    HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', LOG_LEVEL: 'warn',
    HERALD_SECRET_KEY: randomBytes(32).toString('base64'), HERALD_DATA_DIR: o.dataDir,
  }
}

// ---------------------------------------------------------------- the harness

export type Harness = ReturnType<typeof harness>

export function harness(name: string) {
  const cleanups: (() => unknown)[] = []
  const cleanup = async () => {
    while (cleanups.length) await Promise.resolve(cleanups.pop()!()).catch((e) => console.error(`bench/${name}: cleanup:`, e))
  }
  const progress = (msg: string) => console.error(`bench/${name}: ${new Date().toISOString().slice(11, 19)} ${msg}`)

  /** Runs `main`, then the cleanup; SIGINT or SIGTERM cleans up and exits 130. */
  async function run(main: () => Promise<void>) {
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
      console.error(`bench/${name}: ${err instanceof BenchError ? err.message : (err as Error).stack ?? err}`)
      process.exitCode = 1
    } finally {
      await cleanup()
    }
  }

  /** A temporary directory, removed on cleanup. */
  function tempDir(prefix: string) {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    return dir
  }

  /** Prints the report and saves it as bench/results/<name>-<started>.json. */
  function saveReport(started: Date, report: unknown) {
    const json = JSON.stringify(report, null, 2)
    console.log(json)
    const dir = join(import.meta.dir, 'results')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, `${name}-${started.toISOString().replace(/[:.]/g, '-')}.json`)
    writeFileSync(file, json + '\n')
    console.error(`bench/${name}: saved ${file}`)
  }

  /** Starts `bun <args>` with its stdout and stderr in a log file; stopped on cleanup at the latest. */
  function spawnBun(args: string[], env: Record<string, string | undefined>, logPath: string): Child {
    const fd = openSync(logPath, 'w')
    const proc = Bun.spawn([process.execPath, ...args], { cwd: args.includes('src/cli/main.ts') ? HERALD_DIR : ROOT, env, stdout: fd, stderr: fd })
    const stop = stopper(proc)
    cleanups.push(stop)
    return { proc, logPath, stop }
  }

  /**
   * Starts `bun <args>`, a child that talks to the benchmark in lines on its
   * stdout (its stderr goes to a log file), and waits up to 30 s for the line
   * on which `onLine` returns true. With `stdin`, the child gets a pipe that
   * closes when the benchmark dies, however it dies.
   */
  async function spawnTalker(what: string, args: string[], logPath: string, onLine: (line: string) => boolean | void, stdin = false, env?: Record<string, string | undefined>) {
    const err = openSync(logPath, 'w')
    const proc = Bun.spawn([process.execPath, ...args], { cwd: ROOT, stdin: stdin ? 'pipe' : 'ignore', stdout: 'pipe', stderr: err, ...(env ? { env } : {}) })
    const stop = stopper(proc)
    cleanups.push(stop)
    let isReady = () => {}
    const ready = new Promise<void>((res) => (isReady = res))
    const reading = eachLine(proc.stdout as ReadableStream<Uint8Array>, (line) => {
      if (onLine(line)) isReady()
    })
    const timeout = deadline(30_000)
    const why = await Promise.race([ready, timeout.promise, proc.exited.then(() => 'exited')])
    timeout.cancel()
    if (why !== undefined) fail(`${what} did not start (${why}): ${readFileSync(logPath, 'utf8').slice(-4000)}`)
    return { proc, logPath, stop: async () => (await stop(), await reading) }
  }

  /** Waits (up to 30 s) for `ready`, or fails with the end of the child's log. */
  async function waitFor(what: string, child: Child, ready: () => Promise<boolean>) {
    const end = Date.now() + 30_000
    while (Date.now() < end && child.proc.exitCode === null) {
      if (await ready().catch(() => false)) return
      await Bun.sleep(100)
    }
    fail(`${what} did not become ready; its output:\n${readFileSync(child.logPath, 'utf8').slice(-4000)}`)
  }

  /** `herald <command>` (serve, start) on `port` (else a free one), once /readyz answers. */
  async function startApi(command: string, env: Record<string, string | undefined>, logPath: string, port?: number) {
    port ??= await freePort()
    const child = spawnBun([...BUN_FLAGS, 'src/cli/main.ts', command], { ...env, PORT: String(port) }, logPath)
    const base = `http://127.0.0.1:${port}`
    await waitFor('Herald', child, () => fetch(`${base}/readyz`).then((r) => r.ok))
    return { child, base }
  }

  /** `herald worker`; start it after an API, which has applied the migrations. Its metrics on a free port: several workers of a run must not share one. */
  const startWorker = (env: Record<string, string | undefined>, logPath: string) => spawnBun([...BUN_FLAGS, 'src/cli/main.ts', 'worker'], { METRICS_PORT: '0', ...env }, logPath)

  /** A worker is consuming once its pull consumer has requests waiting on the stream. */
  const workerReady = (child: Child, jsm: JetStreamManager, stream: string) =>
    waitFor('the delivery worker', child, async () => ((await jsm.consumers.info(stream, 'herald-workers')).num_waiting ?? 0) > 0)

  /** A database of the run's own on the server of `adminUrl`, dropped on cleanup. */
  async function createDatabase(adminUrl: string, dbName: string) {
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
    await admin.unsafe(`CREATE DATABASE ${dbName}`)
    const url = new URL(adminUrl)
    url.pathname = `/${dbName}`
    const sql = postgres(url.toString(), { max: 1, onnotice: () => {} })
    cleanups.push(async () => {
      await sql.end({ timeout: 5 })
      await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
      await admin.end({ timeout: 5 })
    })
    return { name: dbName, url: url.toString(), sql }
  }

  /** A NATS connection; the run's stream is deleted on cleanup. */
  async function connectNats(url: string, stream: string) {
    const nc: NatsConnection = await connect({ servers: url, name: `herald-bench-${name}` })
    const jsm = await jetstreamManager(nc)
    cleanups.push(async () => {
      await jsm.streams.delete(stream).catch(() => {}) // absent if Herald never created it
      await nc.close()
    })
    return { nc, jsm }
  }

  return {
    cleanups, cleanup, progress, run, tempDir, saveReport, spawnBun, spawnTalker, waitFor, startApi, startWorker, workerReady,
    createDatabase, connectNats,
  }
}

// ---------------------------------------------------------------- the operator API

/** POST to the operator API; anything but 201 ends the run. */
export async function adminPost(base: string, path: string, body: unknown): Promise<Record<string, string>> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (res.status !== 201) fail(`POST ${path} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as Record<string, string>
}

/** A workspace; its API key. */
export async function createWorkspace(base: string, name: string): Promise<string> {
  // Limits far above what a run can reach: the benchmarks measure their path, not the 429 path.
  const { apiKey } = await adminPost(base, '/admin/workspaces', { name, monthlyQuota: 100_000_000, rateLimit: { perSecond: 1e9, burst: 1e9 } })
  return apiKey!
}

/** A router taking every event of `workspace` to the webhook `url`. */
export const createWebhookRouter = (base: string, workspace: string, name: string, url: string, pattern = '*', extra: object = {}) =>
  adminPost(base, `/admin/workspaces/${workspace}/routers`, { name, pattern, destination: { type: 'webhook', url }, ...extra })
