// Starts the API: database (PostgreSQL or embedded), migrations, partitions,
// the ingest batcher and the HTTP server; stops them in reverse on SIGTERM.
import type { Config } from './config'
import type { Logger } from './log'
import { openDatabase, type Database } from './db'
import { migrate } from './migrate'
import { dropExpiredPartitions, ensurePartitions } from './partitions'
import { createApiKeyAuth } from './auth'
import { createBatcher, deleteExpiredIdempotencyKeys } from './ingest'
import { createApp } from './app'
import { countWorkspaces, insertWorkspace } from './workspaces'

const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000 // partitions are made months ahead; hourly is plenty

export interface Herald {
  url: string
  port: number
  db: Database
  app: ReturnType<typeof createApp>
  stop(): Promise<void>
}

export async function maintain(db: Database, config: Config, log: Logger) {
  const created = await ensurePartitions(db.sql)
  const dropped = await dropExpiredPartitions(db.sql, config.HERALD_RETENTION_MONTHS)
  await deleteExpiredIdempotencyKeys(db.sql)
  if (created.length || dropped.length) log.info({ created, dropped }, 'event partitions maintained')
}

async function createDemoWorkspace(db: Database, config: Config) {
  if (!db.embedded || !config.HERALD_DEMO_WORKSPACE || (await countWorkspaces(db.sql)) > 0) return
  const ws = await insertWorkspace(db.sql, 'demo', {
    monthlyQuota: config.HERALD_DEFAULT_MONTHLY_QUOTA,
    rateLimit: { perSecond: config.HERALD_DEFAULT_RATE_PER_SECOND, burst: config.HERALD_DEFAULT_RATE_BURST },
  })
  if (!ws) return
  // Printed once, on stdout rather than through the logger: the key is a secret
  // and the logs redact secrets. It is never shown again.
  process.stdout.write(
    `\nHerald created the workspace "demo". Its API key (shown only this once):\n\n    ${ws.apiKey}\n\n` +
      `Try it:\n    curl -X POST http://localhost:${config.PORT}/event -H 'Authorization: Bearer ${ws.apiKey}' -H 'Content-Type: application/json' -d '{"message":"Hello from Herald"}'\n\n`,
  )
}

export async function startHerald(config: Config, log: Logger): Promise<Herald> {
  const db = await openDatabase(config, log)
  const applied = await migrate(db.sql)
  if (applied.length) log.info({ applied }, 'migrations applied')
  await maintain(db, config, log)
  await createDemoWorkspace(db, config)

  const state = { draining: false }
  const auth = createApiKeyAuth(db.sql, config.API_KEY_CACHE_TTL_MS)
  const batcher = createBatcher(db.sql, log, { maxEvents: config.BATCH_MAX_EVENTS, windowMs: config.BATCH_WINDOW_MS, concurrency: config.BATCH_CONCURRENCY })
  const app = createApp({ sql: db.sql, config, log, auth, batcher, state })
  const server = Bun.serve({
    port: config.PORT,
    hostname: config.HOST,
    // Development mode answers errors with a large HTML page; never in production.
    development: false,
    // POST /event decides 413 itself, after 401 and without buffering; Bun must
    // not refuse a large body before the handler has checked the API key.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: (req) => app.handle(req),
  })
  const timer = setInterval(() => maintain(db, config, log).catch((err) => log.error({ err }, 'maintenance failed')), MAINTENANCE_INTERVAL_MS)
  timer.unref()
  log.info({ port: server.port, embedded: db.embedded }, 'Herald is listening')

  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      state.draining = true
      clearInterval(timer)
      const deadline = Bun.sleep(config.SHUTDOWN_TIMEOUT_MS)
      // Stop accepting, let in-flight requests finish, commit what is queued.
      await Promise.race([server.stop(false).then(() => batcher.drain()), deadline])
      server.stop(true)
      await auth.stop()
      await db.close()
      log.info('Herald stopped')
    })())
  return { url: `http://127.0.0.1:${server.port}`, port: server.port!, db, app, stop }
}
