// The database connection: PostgreSQL when DATABASE_URL is set, otherwise an
// embedded PGlite in this process (src/core/embedded.ts), so that postgres.js
// and every SQL statement run unchanged on both.
import postgres from 'postgres'
import { InProcessSocket } from './embedded'
import { privateDataDir } from './data_dir'
import { lockDataDir } from './dir_lock'
import type { Config } from './config'
import type { Logger } from './log'

export type Sql = postgres.Sql<{ bigint: number }>
export type Tx = postgres.TransactionSql<{ bigint: number }> | Sql

export interface Database {
  sql: Sql
  embedded: boolean
  /**
   * A client of one connection, for work that must keep to one connection
   * (an ingest lane pipelines its batches on its own), closed with the
   * database unless ended before. Embedded, it is the single connection
   * PGlite has.
   */
  connection(): Sql
  close(): Promise<void>
}

const baseOptions = {
  // int8 ids and counters stay far below 2^53; numbers are easier to use than strings.
  types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  onnotice: () => {},
  // JIT compiling Herald's short statements costs far more than it saves:
  // it fired on the ingest statement in some runs and halved its rate.
  connection: { application_name: 'herald', jit: 'off' },
  // Fail a query fast when PostgreSQL is unreachable instead of queueing forever.
  connect_timeout: 5,
  // Pause before a closed connection reconnects, in seconds. postgres.js's
  // default grows with every failed attempt of the whole pool up to 20 s, so
  // after an outage of a few seconds queries waited that long for PostgreSQL
  // to be tried again, and each attempt fails only one waiting query.
  backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
}

export async function openDatabase(config: Config, log: Logger): Promise<Database> {
  if (config.DATABASE_URL) {
    const url = config.DATABASE_URL
    const sql = postgres(url, { ...baseOptions, max: config.DATABASE_POOL_MAX }) as unknown as Sql
    const own = new Set<Sql>()
    return {
      sql,
      embedded: false,
      connection() {
        const conn = postgres(url, { ...baseOptions, max: 1 }) as unknown as Sql
        own.add(conn)
        const end = conn.end.bind(conn)
        conn.end = (o) => (own.delete(conn), end(o))
        return conn
      },
      close: async () => {
        await Promise.all([sql, ...own].map((s) => s.end({ timeout: 5 })))
      },
    }
  }
  return openEmbedded(config.HERALD_DATA_DIR, log)
}

// A fresh PGlite cluster, as PGlite's initdb leaves it (nothing of Herald's
// in it yet), dumped once: in-memory databases then start from it instead of
// running initdb each (about 3 s against 0.7 s here). Only for a process that
// starts many (the test suite), which asks with shareFreshClusters().
let fresh: Promise<Blob> | null = null
let shareFresh = false

/** Every in-memory embedded database of this process starts from one dump of a fresh cluster. */
export function shareFreshClusters() {
  shareFresh = true
}

async function freshCluster(): Promise<Blob> {
  const { PGlite } = await import('@electric-sql/pglite')
  const db = await PGlite.create('memory://')
  try {
    return await db.dumpDataDir('none')
  } finally {
    await db.close()
  }
}

export async function openEmbedded(dataDir: string, log: Logger): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite')
  const inMemory = dataDir.startsWith('memory://')
  if (!inMemory) privateDataDir(dataDir)
  // Before PGlite opens the files: a second process stops here (src/core/dir_lock.ts).
  const lock = inMemory ? { held: true, release() {} } : lockDataDir(dataDir)
  if (!lock.held) log.warn({ dataDir }, 'this platform cannot lock the data directory: make sure no other Herald uses it')
  let db: InstanceType<typeof PGlite>
  try {
    if (inMemory && shareFresh) {
      const loadDataDir = await (fresh ??= freshCluster().catch((err) => ((fresh = null), Promise.reject(err))))
      db = await PGlite.create({ dataDir, loadDataDir })
    } else db = await PGlite.create(inMemory ? dataDir : `${dataDir}/pgdata`)
  } catch (err) {
    lock.release()
    throw err
  }
  log.info({ dataDir }, 'embedded PostgreSQL (PGlite) started in-process; it listens on no port or socket')
  // PGlite is a single session: one connection keeps transactions from interleaving.
  // The connection is an in-memory socket (src/core/embedded.ts): no listener exists.
  const sql = postgres({ ...baseOptions, socket: () => new InProcessSocket(db), user: 'postgres', database: 'postgres', max: 1 } as postgres.Options<{}>) as unknown as Sql
  return {
    sql,
    embedded: true,
    connection: () => sql,
    async close() {
      await sql.end({ timeout: 5 })
      await db.close()
      lock.release()
    },
  }
}

/**
 * The error means this connection is gone (closed, reset, or a FATAL error,
 * after which the server closes it), not only that a statement failed.
 */
export function connectionLost(err: unknown): boolean {
  const e = err as { code?: string; severity?: string }
  return ['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'ECONNRESET', 'EPIPE'].includes(e?.code ?? '') ||
    e?.severity === 'FATAL' || e?.severity === 'PANIC'
}

// A batch gets its connection within this time or answers 503: postgres.js
// 3.4.9 can lose a reserve() that waits while the connection it waits for is
// terminated (porsager/postgres#1195), which would stall the batch's lane.
const RESERVE_TIMEOUT_MS = 5_000

/** sql.reserve(), failing with CONNECT_TIMEOUT after RESERVE_TIMEOUT_MS; a connection that comes later is given back. */
export async function reserve(sql: Sql): Promise<postgres.ReservedSql<{ bigint: number }>> {
  const pending = sql.reserve()
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no database connection within ${RESERVE_TIMEOUT_MS} ms`), { code: 'CONNECT_TIMEOUT' })), RESERVE_TIMEOUT_MS)
  })
  try {
    return await Promise.race([pending, late])
  } catch (err) {
    pending.then((c) => c.release(), () => {})
    throw err
  } finally {
    clearTimeout(timer)
  }
}

/** PostgreSQL error classes that mean "the database is unreachable", not "this statement is wrong". */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; errno?: string }
  const code = e?.code ?? ''
  return (
    code.startsWith('08') || code.startsWith('57P') || code.startsWith('53') ||
    ['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(code)
  )
}

/** A round trip to the database. */
export const ping = (sql: Sql) => sql`SELECT 1`

/** This database's id, made by its first migration run (sql/0010_instance.sql). */
export async function instanceId(sql: Sql): Promise<string> {
  const [row] = await sql<{ id: string }[]>`SELECT id::text AS id FROM herald_instance`
  return row!.id
}
