// What every fault case sets up: a store and a NATS of its own (caseSetup),
// Herald as real child processes (API and workers, caseProcesses),
// workspaces with webhook routers to local receivers, and a list of
// clean-ups that runs also when the test fails.
import { afterAll } from 'bun:test'
import postgres from 'postgres'
import { ADMIN_TOKEN, NATS_URL, createTestDatabase, deleteStream, testStream } from '../harness'
import { spawnHerald, type HeraldProcess } from '../processes'
import { startReceiver, type Receiver } from '../receiver'
import { privateNats, type PrivateNats } from './private_nats'
import { privatePostgres, type PrivatePostgres } from './private_pg'

// Several processes on one database must share the key that encrypts router
// secrets; a fixed one also keeps the tests out of HERALD_DATA_DIR.
const SECRET_KEY = Buffer.alloc(32, 7).toString('base64')

/**
 * Clean-ups, run last first, each once; one's failure does not stop the
 * others. A case runs them in `finally`, and the afterAll registered here
 * (call it in a `describe`) runs them again in case the test timed out
 * before its `finally`.
 */
export function cleanups(timeoutMs = 30_000) {
  const fns: (() => unknown)[] = []
  const c = {
    add(f: () => unknown) {
      fns.push(f)
    },
    async run() {
      while (fns.length) await Promise.resolve().then(fns.pop()!).catch(() => {})
    },
  }
  afterAll(() => c.run(), timeoutMs)
  return c
}
export type Cleanups = ReturnType<typeof cleanups>

/** A database of the case's own on the PostgreSQL of DATABASE_URL, dropped by the clean-ups. */
export async function caseDatabase(c: Cleanups): Promise<{ url: string }> {
  const db = await createTestDatabase()
  c.add(() => db.drop())
  return db
}

/** A PostgreSQL cluster of the case's own, which it may kill and start again; closed by the clean-ups. */
export async function casePostgres(c: Cleanups): Promise<PrivatePostgres> {
  const pg = await privatePostgres()
  c.add(() => pg.close())
  return pg
}

/** A webhook receiver of the case's own (on `port`, to come back where it was), stopped by the clean-ups. */
export function caseReceiver(c: Cleanups, port?: number): Receiver {
  const rx = startReceiver(port)
  c.add(() => rx.stop())
  return rx
}

/** A nats-server of the case's own, stopped by the clean-ups. */
export async function caseNats(c: Cleanups, opts: { start?: boolean } = {}): Promise<PrivateNats> {
  const nats = await privateNats(opts)
  c.add(() => nats.close())
  return nats
}

/**
 * What most cases start from: a store (a database of the case's own on the
 * shared PostgreSQL, or with `store: 'private'` a cluster it may kill), a
 * NATS (a stream of its own on the shared NATS_URL; with `nats: 'private'` a
 * nats-server it may kill, not yet started with `natsUp: false`; or the `url`
 * of one the case started), one webhook receiver, and the processes'
 * environment: DATABASE_URL, NATS_URL, NATS_STREAM (`stream` on a NATS of
 * the case's own), then `env`. All of it goes with the clean-ups.
 */
export async function caseSetup(
  c: Cleanups,
  o: { store?: 'database' | 'private'; nats: 'shared' | 'private' | { url: string }; natsUp?: boolean; stream?: string; env?: Record<string, string> },
) {
  const nats = o.nats === 'private' ? await caseNats(c, { start: o.natsUp !== false }) : undefined
  const natsUrl = nats?.url ?? (typeof o.nats === 'object' ? o.nats.url : NATS_URL!)
  const pg = o.store === 'private' ? await casePostgres(c) : undefined
  const db = pg ?? (await caseDatabase(c))
  const rx = caseReceiver(c)
  const stream = o.nats === 'shared' ? sharedNatsStream(c) : (o.stream ?? 'HERALD_FAULTS')
  const env: Record<string, string> = { DATABASE_URL: db.url, NATS_URL: natsUrl, NATS_STREAM: stream, ...o.env }
  return { db, pg, nats, rx, env }
}

/** `apis` API processes (default 1), then `workers` worker processes (default 1), each SIGKILLed by the clean-ups; `api` and `worker` are the first. */
export async function caseProcesses(c: Cleanups, env: Record<string, string>, o: { apis?: number; workers?: number } = {}) {
  const apis: HeraldProcess[] = []
  const workers: HeraldProcess[] = []
  for (let i = 0; i < (o.apis ?? 1); i++) apis.push(await spawn(c, env, 'serve'))
  for (let i = 0; i < (o.workers ?? 1); i++) workers.push(await spawn(c, env, 'worker'))
  return { api: apis[0]!, apis, worker: workers[0]!, workers }
}

/** The environment of every Herald process of a case; `env` overrides. */
export function heraldEnv(env: Record<string, string>): Record<string, string> {
  // METRICS_PORT 0: several workers of one case must not contend for one port.
  return { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_SECRET_KEY: SECRET_KEY, METRICS_PORT: '0', ...env }
}

/** Spawns a Herald process that is SIGKILLed by the clean-ups (a no-op once it has exited). */
export async function spawn(c: Cleanups, env: Record<string, string>, cmd: 'serve' | 'worker'): Promise<HeraldProcess> {
  const full = heraldEnv(env)
  // The embedded database has no separate API: `start` is its API.
  const p = await spawnHerald(full, cmd === 'serve' && !full.DATABASE_URL ? 'start' : cmd)
  c.add(() => p.kill('SIGKILL'))
  return p
}

/** A JetStream stream of the case's own on the shared NATS, deleted by the clean-ups. */
export function sharedNatsStream(c: Cleanups): string {
  const stream = testStream()
  c.add(() => deleteStream(stream))
  return stream
}

export function admin(apiUrl: string, method: string, path: string, body?: unknown) {
  return fetch(apiUrl + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

let seq = 0
/**
 * Creates `n` workspaces without practical limits (the load must not meet a
 * 429), each with the given routers; returns their API keys and router ids.
 */
export async function workspaces(apiUrl: string, n: number, routers: { name: string; url: string }[]) {
  const out: { name: string; apiKey: string; routers: Record<string, string> }[] = []
  for (let i = 0; i < n; i++) {
    const name = `faults-${process.pid}-${++seq}`
    const res = await admin(apiUrl, 'POST', '/admin/workspaces', { name, monthlyQuota: 10_000_000, rateLimit: { perSecond: 100_000, burst: 100_000 } })
    if (res.status !== 201) throw new Error(`workspace create failed: ${res.status} ${await res.text()}`)
    const { apiKey } = (await res.json()) as { apiKey: string }
    const ids: Record<string, string> = {}
    for (const r of routers) {
      const created = await admin(apiUrl, 'POST', `/admin/workspaces/${name}/routers`, { name: r.name, pattern: '*', destination: { type: 'webhook', url: r.url } })
      if (created.status !== 201) throw new Error(`router create failed: ${created.status} ${await created.text()}`)
      ids[r.name] = ((await created.json()) as { id: string }).id
    }
    out.push({ name, apiKey, routers: ids })
  }
  return out
}

/** One query on the case's database, on a connection of its own. */
export async function query<T extends object>(databaseUrl: string, text: string, params: unknown[] = []): Promise<T[]> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 })
  try {
    return (await sql.unsafe(text, params as never[])) as unknown as T[]
  } finally {
    await sql.end()
  }
}

/** Prints a case's figures in one line, so the CI log shows them. */
export const figures = (name: string, f: Record<string, unknown>) => console.log(`[faults] ${name}: ${JSON.stringify(f)}`)
