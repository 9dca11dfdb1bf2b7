// Runs Herald as real child processes (`bun src/cli/main.ts serve`), for the tests
// that need several instances on one database, or a process to kill.
import type { Subprocess } from 'bun'
import { afterAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ADMIN_TOKEN } from './harness'

export interface HeraldProcess {
  proc: Subprocess<'ignore', 'pipe', 'pipe'>
  url: string
  port: number
  pid: number
  /** Every line the process logged so far. */
  output: string[]
  kill(signal?: NodeJS.Signals): Promise<number>
}

/** POST to the operator API (/admin/…) of a Herald process: a JSON body, the test admin token. */
export const adminPost = (herald: { url: string }) => (path: string, body: unknown) =>
  fetch(herald.url + path, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })

/**
 * Starts `herald <cmd>` (by default the API: `serve` on PostgreSQL, `start`
 * on the embedded database, which `serve` refuses).
 */
export async function spawnHerald(env: Record<string, string>, cmd?: string): Promise<HeraldProcess> {
  // Only what the test names reaches the child: an inherited DATABASE_URL
  // would send an "embedded" server to the shared PostgreSQL, and an
  // inherited NATS_URL every server to the shared stream HERALD_EVENTS, where
  // one test's 100,000 events wait for the next test's worker to wade through.
  const { DATABASE_URL: _, NATS_URL: __, NATS_STREAM: ___, ...inherited } = process.env
  const command = cmd ?? (env.DATABASE_URL ? 'serve' : 'start')
  const proc = Bun.spawn([process.execPath, 'src/cli/main.ts', command], {
    cwd: `${import.meta.dir}/..`,
    // METRICS_PORT 0: a second worker on a taken port stops (reusePort is off).
    env: { ...inherited, PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', HERALD_ADMIN_TOKEN: ADMIN_TOKEN, ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const output: string[] = []
  const port = await new Promise<number>((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error(`Herald did not start:\n${output.join('\n')}`)), 30_000)
    const pump = async (stream: ReadableStream<Uint8Array>) => {
      const decoder = new TextDecoder()
      let rest = ''
      for await (const chunk of stream) {
        rest += decoder.decode(chunk, { stream: true })
        const lines = rest.split('\n')
        rest = lines.pop()!
        for (const line of lines) {
          output.push(line)
          if (line.includes('"Herald is listening"') || line.includes('"Herald worker is running"')) {
            clearTimeout(timeout)
            resolve(JSON.parse(line).port ?? 0)
          }
        }
      }
    }
    pump(proc.stdout)
    pump(proc.stderr)
    proc.exited.then((code) => reject(new Error(`Herald exited with ${code}:\n${output.join('\n')}`)))
  })
  return {
    proc,
    url: `http://127.0.0.1:${port}`,
    port,
    pid: proc.pid,
    output,
    async kill(signal = 'SIGTERM') {
      proc.kill(signal)
      return proc.exited
    },
  }
}

/** `herald serve` and `herald worker` on one configuration; each goes into `procs` as soon as it runs, for the caller's finally to kill. */
export async function spawnServeAndWorker(env: Record<string, string>, procs: HeraldProcess[]): Promise<{ api: HeraldProcess; worker: HeraldProcess }> {
  const api = await spawnHerald(env, 'serve')
  procs.push(api)
  const worker = await spawnHerald(env, 'worker')
  procs.push(worker)
  return { api, worker }
}

/** Runs `herald <cmd>` to its end (it must not start, or is killed after 30 s): its exit code, its output and how long it ran. */
export async function runToEnd(cmd: string, env: Record<string, string>) {
  const { DATABASE_URL: _, NATS_URL: __, ...inherited } = process.env
  const started = performance.now()
  const proc = Bun.spawn([process.execPath, 'src/cli/main.ts', cmd], { cwd: `${import.meta.dir}/..`, env: { ...inherited, HOST: '127.0.0.1', ...env }, stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000)
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  clearTimeout(timer)
  return { code, output: out + err, ms: performance.now() - started }
}

/** A suite's Herald processes and scratch data directories: killed and removed after it. */
export function useProcessScratch(prefix: string) {
  const dirs: string[] = []
  const procs: HeraldProcess[] = []
  afterAll(async () => {
    for (const p of procs) await p.kill('SIGKILL')
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })
  const dataDir = () => {
    const d = mkdtempSync(join(tmpdir(), prefix))
    dirs.push(d)
    return d
  }
  return { procs, dataDir }
}
