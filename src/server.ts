// Starts Herald: database (PostgreSQL or embedded), migrations, partitions,
// the bus (JetStream or in-process), the outbox relay, and then the API
// (ingest batcher and HTTP server), the delivery worker, or both; stops them
// in reverse on SIGTERM.
import { problemResponse } from './core/problems'
import { bodyOnGet as bodyOnGetError, noHost as noHostError, twoHosts as twoHostsError } from './core/errors'
import { hostOf } from './core/url'
import { ConfigError, type Config } from './core/config'
import type { Logger } from './core/log'
import { instanceId, isConnectionError, openDatabase, type Database } from './core/db'
import { migrate } from './core/migrate'
import { deleteExpiredUsage, dropExpiredPartitions, ensurePartitions, retentionCutoff } from './core/partitions'
import { deleteExpiredMarks } from './ingest/read_state'
import { apiKeyCacheOptions, createApiKeyAuth } from './ingest/auth'
import { createBatcher } from './ingest/batcher'
import { deleteExpiredIdempotencyKeys } from './ingest/idempotency'
import { createApp } from './http/app'
import { SERVER_MAX_BODY_BYTES } from './http/body'
import { withPeer } from './core/peer'
import { hiddenBody, lingering } from './http/linger'
import { createSecretBox, loadSecretKey } from './core/secrets'
import { narrowDataDir } from './core/data_dir'
import { createOutage } from './core/outage'
import { createInProcessBus, type BusEvent, type EventBus } from './delivery/bus'
import { createChanges, type Changes } from './core/changes'
import { createJetStreamBus } from './delivery/bus_jetstream'
import { createRelay } from './delivery/relay'
import { createRelease } from './delivery/release'
import { deleteOldCancelledEvents } from './ingest/schedule'
import { createPool } from './delivery/pool'
import { createFanout, type Fanout } from './delivery/fanout'
import { workRoom } from './delivery/backpressure'
import { sendConfigFrom } from './delivery/send_config'
import { ackLinkKey } from './delivery/ack_link'
import type { SendConfig } from './delivery/job'
import { loadPushConfig } from './delivery/push/config'
import { createMailer } from './accounts/mailer'
import { startHealthSweeps } from './delivery/health_sweep'
import { deleteExpiredSigninFailures } from './accounts/throttle'
import { deleteExpiredSignupRequests } from './accounts/users'
import { countWorkspaces, insertWorkspace, waitingWorkspace } from './accounts/workspaces'
import { loadAdminToken } from './core/admin_token'
import { serveMetrics } from './core/metrics'
import { watchMetrics } from './delivery/metrics_scrape'

const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000 // partitions are made months ahead; hourly is plenty

export interface Herald {
  url: string
  port: number
  db: Database
  app: ReturnType<typeof createApp>
  stop(): Promise<void>
}

/**
 * What a process runs. `all`: the API and the delivery worker (the default,
 * and the only choice without NATS, where events go to the worker in-process).
 * `api`: the API and the outbox relay. `worker`: the JetStream consumer, the
 * retry scheduler and the pool, no HTTP.
 */
export type Role = 'all' | 'api' | 'worker'

interface Pipeline {
  bus: EventBus
  /** This process's changes, carried by the bus to the other processes. */
  changes: Changes
  fanout: Fanout | null
  handoff(outboxId: number, events: BusEvent[]): void
  /** An event was scheduled for `at` here: the release wakes for it. */
  scheduled(at: Date): void
  stop(): Promise<void>
}

// Scheduled events go out within this of their time when another process
// scheduled them (this one's are woken for): the contract keeps them to 1 s.
const RELEASE_MAX_SLEEP_MS = 250
// On the embedded database no other process can schedule anything, and this
// one wakes the release for each event it schedules: the loop only looks now
// and then, in case a wake was missed, rather than four times a second.
const RELEASE_ALONE_MAX_SLEEP_MS = 5_000
// Events released by one statement: 10,000 due in one second go in a few.
const RELEASE_BATCH = 2000

/** The bus, the relay and, when this process delivers, the pool and the fan-out. `send`: sendConfigFrom's, made at boot. */
async function startPipeline(db: Database, config: Config, log: Logger, deliver: boolean, secrets: ReturnType<typeof createSecretBox>, send: SendConfig, onFatal?: (err: Error) => void): Promise<Pipeline> {
  const instance = config.NATS_URL ? await instanceId(db.sql) : ''
  const changes = createChanges()
  // Without NATS at start, the bus joins it when it comes: the API keeps
  // taking events into the ledger, and a worker is not ready until then.
  const bus = config.NATS_URL
    ? await createJetStreamBus({
        url: config.NATS_URL, stream: config.NATS_STREAM, replicas: config.NATS_STREAM_REPLICAS,
        maxAckPending: config.JETSTREAM_MAX_ACK_PENDING, ackWaitMs: config.JETSTREAM_ACK_WAIT_MS, batchMaxEvents: config.JETSTREAM_BATCH_MAX_EVENTS, log, instance, onFatal, changes,
      })
    : createInProcessBus({ alone: db.embedded })
  let fanout: Fanout | null = null
  let pool: ReturnType<typeof createPool> | null = null
  let sweeps: ReturnType<typeof startHealthSweeps> | null = null
  let mailer: ReturnType<typeof createMailer> | null = null
  if (deliver) {
    const room = workRoom(config.WORKER_CONCURRENCY)
    pool = createPool(config.WORKER_THREADS, room)
    fanout = createFanout(db.sql, bus, changes, pool, secrets, send, log, {
      schedule: config.retryScheduleMs, room, leaseMs: config.DELIVERY_LEASE_MS, schedulerIntervalMs: 1000,
      trialMs: Math.max(config.CIRCUIT_COOLDOWN_MS, config.CIRCUIT_COOLDOWN_MAX_MS),
      cacheMaxAgeMs: config.CACHE_MAX_AGE_MS, cacheMax: config.WORKER_CACHE_MAX,
    })
    await bus.consume(fanout.accept)
    mailer = createMailer(config, log)
    sweeps = startHealthSweeps({ sql: db.sql, log, mailer, config, schedule: config.retryScheduleMs, announce: changes.announce })
  }
  const relay = createRelay(db.sql, bus, log, { intervalMs: config.OUTBOX_RELAY_INTERVAL_MS, rowsPerRound: 20, replayAfterMs: config.FANOUT_REPLAY_AFTER_MS })
  const release = createRelease(db.sql, relay.handoff, log, { maxSleepMs: db.embedded ? RELEASE_ALONE_MAX_SLEEP_MS : RELEASE_MAX_SLEEP_MS, batch: RELEASE_BATCH })
  const unwatch = watchMetrics({ sql: db.sql, bus, pool, fanout })
  return {
    bus,
    changes,
    fanout,
    handoff: relay.handoff,
    scheduled: release.wake,
    async stop() {
      unwatch()
      await sweeps?.stop()
      mailer?.close()
      await release.stop()
      await relay.stop()
      await fanout?.stop(Math.min(config.SHUTDOWN_TIMEOUT_MS, config.DELIVERY_TIMEOUT_MS))
      await bus.close()
      await pool?.close()
    },
  }
}


/** A start-up failure to connect, said with the setting and the address to check. */
export class UnreachableError extends Error {}
async function reaching<T>(what: string, key: 'DATABASE_URL' | 'NATS_URL', url: string, connect: () => Promise<T>, unreachable: (err: unknown) => boolean): Promise<T> {
  try {
    return await connect()
  } catch (err) {
    if (!unreachable(err)) throw err
    const e = err as { code?: string; message?: string }
    throw new UnreachableError(`cannot reach ${what} at ${hostOf(url, '(an unreadable URL)')} (${key}): ${e.code ?? e.message ?? String(err)}`, { cause: err })
  }
}

async function openStore(config: Config, log: Logger) {
  // On either database: with DATABASE_URL the directory holds the generated secrets.
  narrowDataDir(config.HERALD_DATA_DIR, log)
  const db = await openDatabase(config, log)
  const applied = config.DATABASE_URL
    ? await reaching('PostgreSQL', 'DATABASE_URL', config.DATABASE_URL, () => migrate(db.sql), (err) => isConnectionError(err) || /ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ETIMEDOUT/.test(String((err as { code?: string }).code)))
    : await migrate(db.sql)
  if (applied.length) log.info({ applied }, 'migrations applied')
  await maintain(db, config, log)
  const secretKey = loadSecretKey(config, log)
  const secrets = createSecretBox(secretKey)
  const timer = setInterval(() => maintain(db, config, log).catch((err) => log.error({ err }, 'maintenance failed')), MAINTENANCE_INTERVAL_MS)
  timer.unref()
  return { db, secrets, linkKey: ackLinkKey(secretKey), stopMaintenance: () => clearInterval(timer) }
}

/** `herald worker`: consumes JetStream and delivers; needs DATABASE_URL and NATS_URL. */
export async function startWorker(config: Config, log: Logger, opts: { onFatal?: (err: Error) => void } = {}): Promise<{ stop(): Promise<void> }> {
  if (!config.DATABASE_URL || !config.NATS_URL) {
    throw new Error('herald worker needs DATABASE_URL and NATS_URL; without NATS, `herald start` delivers in-process')
  }
  portFree(config.METRICS_PORT, config.HOST, 'METRICS_PORT')
  const { db, secrets, linkKey, stopMaintenance } = await openStore(config, log)
  const pipeline = await startPipeline(db, config, log, true, secrets, sendConfigFrom(config, loadPushConfig(config, log), linkKey), opts.onFatal)
  // Not healthy while it consumes nothing: NATS away, or its consumer gone and not yet made again.
  const metrics = bound(config.METRICS_PORT, config.HOST, 'METRICS_PORT', () => serveMetrics({ port: config.METRICS_PORT, hostname: config.HOST, token: config.HERALD_METRICS_TOKEN, ready: () => pipeline.bus.ready() }), async () => {
    stopMaintenance()
    await pipeline.stop()
    await db.close()
  })
  log.info({ threads: config.WORKER_THREADS, concurrency: config.WORKER_CONCURRENCY, metricsPort: metrics.port }, 'Herald worker is running')
  let stopping: Promise<void> | undefined
  return {
    stop: () =>
      (stopping ??= (async () => {
        metrics.stop(true)
        stopMaintenance()
        await pipeline.stop()
        await db.close()
        log.info('Herald worker stopped')
      })()),
  }
}

/**
 * Listens, or says that the port is taken, naming the setting to change,
 * after `release` has let go of what the process opened.
 */
export function bound<T>(port: number, host: string, key: 'PORT' | 'METRICS_PORT', listen: () => T, release: () => Promise<void> = async () => {}): T {
  try {
    return listen()
  } catch (err) {
    if ((err as { code?: string }).code !== 'EADDRINUSE') throw err
    void release().catch(() => {})
    throw new ConfigError(`port ${port} is already in use on ${host} (${key}): another Herald or another program listens there; stop it, or start this one with ${key}=<a free port>`)
  }
}

/**
 * Says at once that the port is taken, before the database is opened: a
 * second Herald on a taken port used to open (and migrate) the database,
 * and on the embedded default wait for its lock, only to stop at bound().
 * The real bind later still decides; this is the fast answer. PORT 0 takes
 * whatever is free.
 */
export function portFree(port: number, host: string, key: 'PORT' | 'METRICS_PORT'): void {
  if (port === 0) return
  bound(port, host, key, () => Bun.serve({ port, hostname: host, reusePort: false, fetch: () => new Response(null, { status: 503 }) })).stop(true)
}

export async function maintain(db: Database, config: Config, log: Logger) {
  const created = await ensurePartitions(db.sql)
  const dropped = await dropExpiredPartitions(db.sql, config.HERALD_RETENTION_MONTHS)
  await deleteExpiredUsage(db.sql, config.HERALD_RETENTION_MONTHS)
  // Read marks go with their events' months (watermarks are one row per member and channel).
  if (config.HERALD_RETENTION_MONTHS > 0) await deleteExpiredMarks(db.sql, retentionCutoff(config.HERALD_RETENTION_MONTHS))
  await deleteExpiredIdempotencyKeys(db.sql)
  await deleteOldCancelledEvents(db.sql)
  await deleteExpiredSigninFailures(db.sql)
  await deleteExpiredSignupRequests(db.sql)
  if (created.length || dropped.length) log.info({ created, dropped }, 'partitions of events and deliveries maintained')
}

/** On a fresh embedded install, the demo workspace (awaiting its first owner) and its key, shown once. */
// The demo workspace of a local install is for trying Herald out, batches
// and benchmarks included: a limit that the README's client snippet meets at
// once (100/s) only makes it look slow. These let one machine send what it
// can; an operator lowers them with `herald workspace set demo`.
export const DEMO_LIMITS = { monthlyQuota: 10_000_000, rateLimit: { perSecond: 50_000, burst: 100_000 } }

async function createDemoWorkspace(db: Database, config: Config): Promise<string | undefined> {
  if (!db.embedded || !config.HERALD_DEMO_WORKSPACE || (await countWorkspaces(db.sql)) > 0) return undefined
  const ws = await insertWorkspace(db.sql, 'demo', DEMO_LIMITS, { awaitsFirstOwner: true })
  return ws?.apiKey
}

/**
 * What a person needs after `herald start`: where the dashboard is, who will
 * own the demo workspace, the demo key (first start only) and the operator
 * token's file. Printed on stdout rather than through the logger: the key is
 * a secret and the logs redact secrets. It is never shown again.
 */
async function printBanner(db: Database, url: string, demoKey: string | undefined, adminTokenFile: string | undefined) {
  const waiting = await waitingWorkspace(db.sql)
  const lines = [
    '',
    'Herald is running.',
    `  Dashboard:   ${url}${waiting ? `  (the first account to sign up owns the workspace "${waiting}")` : ''}`,
    `  API docs:    ${url}/docs`,
  ]
  if (adminTokenFile) lines.push(`  Operator:    the CLI on this machine reads the token in ${adminTokenFile}: try \`npx herald workspace list\` (from this folder)`)
  if (demoKey) {
    lines.push(
      '',
      'Herald created the workspace "demo". Its API key (shown only this once):',
      '',
      `    ${demoKey}`,
      '',
      `Its limits: ${DEMO_LIMITS.rateLimit.perSecond.toLocaleString('en')} events/s (bursts of ${DEMO_LIMITS.rateLimit.burst.toLocaleString('en')}) and ${DEMO_LIMITS.monthlyQuota.toLocaleString('en')} a month;`,
      '  change them with `npx herald workspace set demo --rate <events/s> --burst <n> --quota <n>`.',
      '',
      'Try it:',
      `    curl -X POST ${url}/event -H 'Authorization: Bearer ${demoKey}' -H 'Content-Type: application/json' -d '{"message":"Hello from Herald"}'`,
    )
  }
  process.stdout.write(lines.join('\n') + '\n\n')
}

/** `opts.banner`: print where the dashboard is, the demo key and the operator token (off in tests). */
export async function startHerald(config: Config, log: Logger, role: Exclude<Role, 'worker'> = 'all', opts: { banner?: boolean; onFatal?: (err: Error) => void } = {}): Promise<Herald> {
  portFree(config.PORT, config.HOST, 'PORT')
  const { db, secrets, linkKey, stopMaintenance } = await openStore(config, log)
  const demoKey = await createDemoWorkspace(db, config)
  const admin = loadAdminToken(config)
  // Without NATS the API process is the only one that can deliver its events.
  const push = loadPushConfig(config, log)
  // What every send shares, derived from the configuration once: the
  // fan-out's and the dashboard's test send.
  const send = sendConfigFrom(config, push, linkKey)
  const pipeline = await startPipeline(db, config, log, role === 'all' || !config.NATS_URL, secrets, send, opts.onFatal)

  const state = { draining: false }
  const auth = createApiKeyAuth(db.sql, apiKeyCacheOptions(config, () => pipeline.bus.announcesEverywhere()))
  pipeline.changes.onChange((c) => {
    if (c.kind === 'keys') auth.forget(c.workspaceId)
    else if (c.kind === 'everything') auth.forget(null)
  })
  const outage = createOutage(log)
  const batcher = createBatcher(db.sql, db.connection, log, {
    outage,
    maxEvents: config.BATCH_MAX_EVENTS, windowMs: config.BATCH_WINDOW_MS, onCommit: pipeline.handoff,
    lanes: config.BATCH_CONCURRENCY, pipeline: config.BATCH_PIPELINE, maxChannels: config.HERALD_MAX_CHANNELS_PER_WORKSPACE,
    maxPendingReceipts: config.HERALD_MAX_PENDING_RECEIPTS,
    maxScheduled: config.HERALD_MAX_SCHEDULED_EVENTS, onScheduled: pipeline.scheduled,
    // PGlite's one connection cannot be replaced: a slow batch there is only slow.
    timeoutMs: db.embedded ? 0 : undefined,
    // While announcements cannot reach this process, a channel renamed or
    // deleted elsewhere is trusted as long as a revoked key is, then looked
    // up again (and made again by its next event).
    channelCache: { max: config.INGEST_CHANNEL_CACHE_MAX, maxAgeMs: config.CACHE_MAX_AGE_MS, fallbackMs: config.API_KEY_CACHE_TTL_MS, announced: () => pipeline.bus.announcesEverywhere() },
  })
  pipeline.changes.onChange((c) => {
    if (c.kind === 'channels') batcher.forgetChannels(c.workspaceId)
    else if (c.kind === 'everything') batcher.forgetChannels(null)
  })
  const mailer = createMailer(config, log)
  const app = createApp({
    sql: db.sql, config: { ...config, HERALD_ADMIN_TOKEN: admin.token }, log, auth, batcher, state, secrets,
    changes: pipeline.changes,
    bus: pipeline.bus,
    mailer,
    wakeScheduler: () => pipeline.fanout?.wake(),
    vapidPublicKey: push.webpush.publicKey,
    send,
    outage,
  })
  // With no Host (or an empty one) Bun's request.url is the bare path, which
  // the router would read from its 8th character: `/xxxxxx/admin/x` routed as
  // `/admin/x`, a path no proxy in front saw. HTTP/1.1 requires a Host.
  const hasHost = (req: Request) => req.url.charCodeAt(0) !== 47 /* "/" */
  const noHost = () => problemResponse(noHostError())
  // Bun joins repeated Host lines, whatever their case, into one value with
  // ", " and builds request.url from the first, while a proxy in front may
  // have read the other. No host name has a comma, so one means more than one
  // Host: a 400 (RFC 9112 §3.2), at the cost of one header look-up.
  const manyHosts = (req: Request) => req.headers.get('host')?.includes(',') === true
  const twoHosts = () => problemResponse(twoHostsError())
  // An answer given before the body was read to its end is sent at once; the
  // rest of the body is then drained within these bounds and the connection
  // closed (src/http/linger.ts).
  const linger = { maxBytes: config.LINGER_MAX_BYTES, maxMs: config.LINGER_MAX_MS }
  const handle = (req: Request) => app.handle(req).then((res: Response) => lingering(req, res, linger))
  const bodyOnGet = () => problemResponse(bodyOnGetError(), { connection: 'close' })
  const server = bound(config.PORT, config.HOST, 'PORT', () => Bun.serve({
    port: config.PORT,
    hostname: config.HOST,
    // Bun shares a port between processes (SO_REUSEPORT) when development is
    // off, unless told not to: a second Herald on a taken port would start
    // and take every other request. It must stop instead.
    reusePort: false,
    // Development mode answers errors with a large HTML page; never in production.
    development: false,
    // Every route refuses a body past its own limit (256 KiB for POST /event,
    // a few KiB to 64 KiB elsewhere) while it streams in, with a 413 problem,
    // after its guard has checked who is calling (src/http/body.ts). Bun's own
    // limit is only a backstop far above those: a body declared larger is
    // refused (a bare 413) before any handler runs, and nothing can read more.
    maxRequestBodySize: SERVER_MAX_BODY_BYTES,
    // Seconds a connection may wait for a complete request, a complete body or
    // its answer (the live feed lifts it per request). Bytes trickling in do
    // not reset it, so it also cuts off slowloris clients
    // (test/faults/slow_clients.test.ts). Bun's default, stated so that a
    // change of default cannot lift it.
    idleTimeout: 10,
    // Each request carries its peer's address to the routes that count per
    // client (src/core/peer.ts).
    fetch: (req, srv) => {
      const peer = srv.requestIP(req)?.address
      if (peer) withPeer(req, peer)
      return hiddenBody(req) ? bodyOnGet() : manyHosts(req) ? lingering(req, twoHosts(), linger) : hasHost(req) ? handle(req) : lingering(req, noHost(), linger)
    },
  }), async () => {
    stopMaintenance()
    await pipeline.stop()
    await auth.stop()
    mailer.close()
    await db.close()
  })
  // Elysia's handlers see `server` as the app's own, which is null when it is
  // not Elysia that listens: the live feed lifts the idle time-out of its
  // stream through it (server.timeout), which did nothing without this.
  ;(app as { server: unknown }).server = server
  const publicUrl = (config.HERALD_PUBLIC_URL ?? `http://localhost:${server.port}`).replace(/\/+$/, '')
  if (opts.banner !== false) await printBanner(db, publicUrl, demoKey, admin.file)
  log.info({ port: server.port, embedded: db.embedded, bus: pipeline.bus.kind, delivers: !!pipeline.fanout }, 'Herald is listening')

  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      state.draining = true
      stopMaintenance()
      const deadline = Bun.sleep(config.SHUTDOWN_TIMEOUT_MS)
      // Stop accepting, let in-flight requests finish, commit what is queued.
      await Promise.race([server.stop(false).then(() => batcher.drain()), deadline])
      server.stop(true)
      await pipeline.stop()
      await auth.stop()
      mailer.close()
      await db.close()
      log.info('Herald stopped')
    })())
  return { url: `http://127.0.0.1:${server.port}`, port: server.port!, db, app, stop }
}
