// Applies sql/NNNN_*.sql in order, each in its own transaction, under an
// advisory lock so that replicas starting together apply each file once.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Sql } from './db'

const SQL_DIR = join(import.meta.dir, '..', '..', 'sql')
const LOCK_ID = 7262_0001 // arbitrary, constant: "herald migrations"

export interface Migration {
  version: number
  name: string
  text: string
}

export function readMigrations(dir = SQL_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_.+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, text: readFileSync(join(dir, f), 'utf8') }))
}

/** Returns the names of the migrations it applied. */
export async function migrate(sql: Sql, migrations = readMigrations()): Promise<string[]> {
  const conn = await sql.reserve()
  const applied: string[] = []
  try {
    await conn`SELECT pg_advisory_lock(${LOCK_ID})`
    await conn`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`
    const done = new Set((await conn<{ version: number }[]>`SELECT version FROM schema_migrations`).map((r) => r.version))
    for (const m of migrations) {
      if (done.has(m.version)) continue
      await conn.unsafe('BEGIN')
      try {
        await conn.unsafe(m.text)
        await conn`INSERT INTO schema_migrations (version, name) VALUES (${m.version}, ${m.name})`
        await conn.unsafe('COMMIT')
      } catch (err) {
        await conn.unsafe('ROLLBACK')
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`)
      }
      applied.push(m.name)
    }
  } finally {
    await conn`SELECT pg_advisory_unlock(${LOCK_ID})`.catch(() => {})
    conn.release()
  }
  return applied
}
