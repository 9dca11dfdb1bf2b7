// What every benchmark needs to run Herald next to its load: child processes
// with their output in log files, stopped on exit or Ctrl-C; free ports; a
// database and a JetStream stream of the run's own, removed at the end; the
// operator API. Each script passes its name (for messages) to `harness`, and
// runs `cleanup` at its end and on SIGINT/SIGTERM.
import postgres from 'postgres'
import { createServer } from 'node:net'
import { openSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'

export const ROOT = resolve(import.meta.dir, '..')

/** A failure the run reports in one line (no stack): bad flags, a child that did not start. */
export class BenchError extends Error {}

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

/** Ends the run: thrown, so that the cleanup (processes, database, stream) still runs. */
export function fail(msg: string): never {
  throw new BenchError(msg)
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

export function harness(name: string) {
  const cleanups: (() => unknown)[] = []
  const cleanup = async () => {
    while (cleanups.length) await Promise.resolve(cleanups.pop()!()).catch((e) => console.error(`bench/${name}: cleanup:`, e))
  }

  /** Starts `bun <args>` with its stdout and stderr in a log file; stopped on cleanup at the latest. */
  function spawnBun(args: string[], env: Record<string, string | undefined>, logPath: string): Child {
    const fd = openSync(logPath, 'w')
    const proc = Bun.spawn([process.execPath, ...args], { cwd: ROOT, env, stdout: fd, stderr: fd })
    const stop = stopper(proc)
    cleanups.push(stop)
    return { proc, logPath, stop }
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

  /** POST to the operator API; anything but 201 ends the run. */
  async function adminPost(base: string, token: string, path: string, body: unknown): Promise<Record<string, string>> {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (res.status !== 201) fail(`POST ${path} answered ${res.status}: ${await res.text()}`)
    return (await res.json()) as Record<string, string>
  }

  return { cleanups, cleanup, spawnBun, waitFor, createDatabase, connectNats, adminPost }
}
