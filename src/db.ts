// The database connection: PostgreSQL when DATABASE_URL is set, otherwise an
// embedded PGlite served on a loopback socket, so that postgres.js and every SQL
// statement run unchanged on both.
import postgres from 'postgres'
import { mkdirSync } from 'node:fs'
import type { Config } from './config'
import type { Logger } from './log'

export type Sql = postgres.Sql<{ bigint: number }>
export type Tx = postgres.TransactionSql<{ bigint: number }> | Sql

export interface Database {
  sql: Sql
  embedded: boolean
  close(): Promise<void>
}

const baseOptions = {
  // int8 ids and counters stay far below 2^53; numbers are easier to use than strings.
  types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  onnotice: () => {},
  connection: { application_name: 'herald' },
  // Fail a query fast when PostgreSQL is unreachable instead of queueing forever.
  connect_timeout: 5,
}

export async function openDatabase(config: Config, log: Logger): Promise<Database> {
  if (config.DATABASE_URL) {
    const sql = postgres(config.DATABASE_URL, { ...baseOptions, max: config.DATABASE_POOL_MAX }) as unknown as Sql
    return { sql, embedded: false, close: () => sql.end({ timeout: 5 }) }
  }
  return openEmbedded(config.HERALD_DATA_DIR, log)
}

export async function openEmbedded(dataDir: string, log: Logger): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket')
  const inMemory = dataDir.startsWith('memory://')
  if (!inMemory) mkdirSync(dataDir, { recursive: true })
  const db = await PGlite.create(inMemory ? dataDir : `${dataDir}/pgdata`)
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 })
  await server.start()
  const { port } = (server as unknown as { server: { address(): { port: number } } }).server.address()
  log.info({ dataDir, port }, 'embedded PostgreSQL (PGlite) started')
  // PGlite is a single session: one connection keeps transactions from interleaving.
  const sql = postgres({ ...baseOptions, host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: 1 }) as unknown as Sql
  return {
    sql,
    embedded: true,
    async close() {
      await sql.end({ timeout: 5 })
      await server.stop()
      await db.close()
    },
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
