// Starts real Herald servers for tests: on the embedded default (PGlite in
// memory) always, and on real PostgreSQL when DATABASE_URL is set, each test
// file in a database of its own. Under CI=true, PostgreSQL is required.
import { afterAll, beforeAll, describe } from 'bun:test'
import postgres from 'postgres'
import { loadConfig, type Config } from '../src/core/config'
import { createLogger } from '../src/core/log'
import type { DestinationStream } from 'pino'
import { startHerald, type Herald } from '../src/server'
import { startSmtp, type Mail } from './smtp'
import { shareFreshClusters } from '../src/core/db'

// Hundreds of embedded Heralds start in one test process: each starts from
// one dump of a fresh PGlite cluster rather than running initdb again.
shareFreshClusters()

export const ADMIN_TOKEN = 'test-admin-token-0123456789'
export const PG_URL = process.env.DATABASE_URL
export const NATS_URL = process.env.NATS_URL
if (process.env.CI === 'true' && !PG_URL) throw new Error('CI=true but DATABASE_URL is not set: the PostgreSQL suites must run in CI')
if (process.env.CI === 'true' && !NATS_URL) throw new Error('CI=true but NATS_URL is not set: the JetStream suites must run in CI')

export type Backend = 'embedded' | 'postgres'
/**
 * `describe` for suites that need a PostgreSQL server (several processes on one
 * database). It skips only outside CI: under CI=true this module has already
 * refused to load without DATABASE_URL.
 */
export const describePg = PG_URL ? describe : describe.skip
/** `describe` for suites that need PostgreSQL and JetStream together; likewise required under CI=true. */
export const describeJs = PG_URL && NATS_URL ? describe : describe.skip

/** The backends every backend-agnostic suite runs against. */
export const backends: Backend[] = PG_URL ? ['embedded', 'postgres'] : ['embedded']

/**
 * The fan-out pipelines: in-process on the embedded default always, and
 * PostgreSQL + JetStream when both DATABASE_URL and NATS_URL are set.
 */
export type Pipeline = 'in-process' | 'jetstream'
export const pipelines: Pipeline[] = PG_URL && NATS_URL ? ['in-process', 'jetstream'] : ['in-process']

/** A JetStream stream of its own for a test (subjects herald.<name>.…), so runs never share messages. */
export const testStream = () => `HERALD_T_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`.toUpperCase()

/** Starts Herald for a pipeline; `jetstream` also needs a stream, deleted by close(). */
export async function startPipelineHerald(pipeline: Pipeline, env: Record<string, string> = {}, opts: TestHeraldOptions = {}): Promise<TestHerald & { stream?: string }> {
  if (pipeline === 'in-process') return startTestHerald('embedded', env, opts)
  const stream = testStream()
  const herald = await startTestHerald('postgres', { NATS_URL: NATS_URL!, NATS_STREAM: stream, ...env }, opts)
  return {
    ...herald,
    stream,
    async close() {
      await herald.close()
      await deleteStream(stream)
    },
  }
}

export async function deleteStream(stream: string) {
  const { connect } = await import('@nats-io/transport-node')
  const { jetstreamManager } = await import('@nats-io/jetstream')
  const nc = await connect({ servers: NATS_URL! })
  try {
    await (await jetstreamManager(nc)).streams.delete(stream).catch(() => {})
  } finally {
    await nc.close()
  }
}

/** Creates a fresh, empty database on the PostgreSQL server of DATABASE_URL. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!PG_URL) throw new Error('DATABASE_URL is not set')
  const name = `herald_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} })
  await admin.unsafe(`CREATE DATABASE ${name}`)
  const url = new URL(PG_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {})
      await admin.end()
    },
  }
}

export interface TestHerald extends Herald {
  backend: Backend
  databaseUrl?: string
  /** Calls the operator API. */
  admin(method: string, path: string, body?: unknown): Promise<Response>
  /** Creates a workspace through the operator API and returns its API key. */
  workspace(body?: { name?: string; monthlyQuota?: number; rateLimit?: { perSecond: number; burst: number } }): Promise<{ name: string; apiKey: string }>
  /** POST /event with the given key and body over the real socket. */
  post(apiKey: string, body: unknown, headers?: Record<string, string>): Promise<Response>
  /** The e-mails this Herald sent, when the test did not set SMTP_URL itself (a test that does can point this at its own receiver). */
  mails?: Mail[]
  close(): Promise<void>
}

// One SMTP receiver per test process takes the e-mails of every Herald that a
// test did not give an SMTP_URL of its own (sign-up links, resets).
let sharedSmtp: ReturnType<typeof startSmtp> | undefined
const mailbox = () => (sharedSmtp ??= startSmtp())

export interface TestHeraldOptions {
  /** Where the Herald's log lines go, as JSON (with LOG_LEVEL in `env`; silent by default). */
  logs?: DestinationStream
}

let seq = 0
export async function startTestHerald(backend: Backend, env: Record<string, string> = {}, opts: TestHeraldOptions = {}): Promise<TestHerald> {
  const db = backend === 'postgres' ? await createTestDatabase() : undefined
  const smtp = env.SMTP_URL === undefined ? await mailbox() : undefined
  const config: Config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    HERALD_ADMIN_TOKEN: ADMIN_TOKEN,
    HERALD_DATA_DIR: 'memory://',
    HERALD_DEMO_WORKSPACE: 'false',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(db ? { DATABASE_URL: db.url } : {}),
    ...(smtp ? { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } : {}),
    ...env,
  })
  const herald = await startHerald(config, createLogger(config.LOG_LEVEL, opts.logs), 'all', { banner: false })
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(herald.url + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  return {
    ...herald,
    backend,
    databaseUrl: db?.url,
    mails: smtp?.mails,
    admin,
    async workspace(body = {}) {
      const name = body.name ?? `ws-${process.pid}-${++seq}`
      const res = await admin('POST', '/admin/workspaces', { ...body, name })
      if (res.status !== 201) throw new Error(`workspace create failed: ${res.status} ${await res.text()}`)
      const json = (await res.json()) as { apiKey: string }
      return { name, apiKey: json.apiKey }
    },
    post: (apiKey, body, headers = {}) =>
      fetch(herald.url + '/event', {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async close() {
      await herald.stop()
      await db?.drop()
    },
  }
}

/**
 * A Herald for the enclosing `describe`: started in a beforeAll, closed in an
 * afterAll, both registered here with `timeoutMs` (startup on a loaded machine
 * takes more than bun's 5 s default). The handle forwards to the started
 * Herald, so call sites read `h.post(…)`, `h.url`, `send(h, …)`; hooks
 * registered after this call see it started. Touching it before (while the
 * suite is being defined) throws, rather than reading undefined.
 *
 * `env` may be a function, called when the Herald starts: for settings that
 * name something a beforeAll registered before this call started (a
 * receiver's URL, an SMTP port). bun runs afterAll hooks in the order they
 * were registered, so a clean-up that must come before the Herald closes
 * (open streams, a proxy in front of it) is registered before this call.
 */
export function useTestHerald(backend: Backend, env: TestEnv = {}, timeoutMs = 30_000): TestHerald {
  return useStarted(`useTestHerald('${backend}')`, async () => startTestHerald(backend, typeof env === 'function' ? await env() : env), timeoutMs)
}

/** useTestHerald for a pipeline (startPipelineHerald): `jetstream` also has a stream of its own, deleted when it closes. */
export function usePipelineHerald(pipeline: Pipeline, env: TestEnv = {}, opts: TestHeraldOptions = {}, timeoutMs = 30_000): TestHerald & { stream?: string } {
  return useStarted(`usePipelineHerald('${pipeline}')`, async () => startPipelineHerald(pipeline, typeof env === 'function' ? await env() : env, opts), timeoutMs)
}

/** A Herald's settings, or a function that gives them when it starts. */
export type TestEnv = Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>)

function useStarted<T extends TestHerald>(name: string, start: () => Promise<T>, timeoutMs: number): T {
  let herald: T | undefined
  beforeAll(async () => {
    herald = await start()
  }, timeoutMs)
  afterAll(() => herald?.close(), timeoutMs)
  const started = (key: PropertyKey): T => {
    if (herald) return herald
    throw new Error(`${name}: read .${String(key)} before its beforeAll started Herald; use it inside a hook or a test`)
  }
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(started(key), key),
    set: (_, key, value) => Reflect.set(started(key), key, value),
    has: (_, key) => Reflect.has(started(key), key),
    ownKeys: () => Reflect.ownKeys(started('ownKeys')),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(started(key), key),
  })
}

/**
 * useTestHerald with an SMTP receiver of its own, for a suite that reads the
 * e-mails of this Herald alone (the shared receiver takes every Herald's of
 * the test process): `smtp.mails`, also `h.mails`, holds each e-mail it sent.
 * The receiver starts before Herald and closes after it.
 */
export function useMailedHerald(backend: Backend, env: Record<string, string> = {}, timeoutMs = 30_000): { h: TestHerald; smtp: { mails: Mail[] } } {
  const mails: Mail[] = []
  let smtp: Awaited<ReturnType<typeof startSmtp>> | undefined
  beforeAll(async () => {
    smtp = await startSmtp(mails)
  }, timeoutMs)
  const h = useTestHerald(backend, () => ({ SMTP_URL: `smtp://127.0.0.1:${smtp!.port}`, ...env }), timeoutMs)
  beforeAll(() => {
    h.mails = mails
  })
  afterAll(() => smtp?.close(), timeoutMs)
  return { h, smtp: { mails } }
}
