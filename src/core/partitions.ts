// Monthly partitions of `events`. Partitions are created a few months ahead so
// inserts never wait on DDL; rows that land outside them go to events_default
// and are moved when their month's partition is created. Retention drops whole
// partitions, which frees the space at once and costs no vacuum.
import type { Sql } from './db'

const MONTHS_AHEAD = 2
const LOCK_ID = 7262_0002

const monthStart = (year: number, month: number) => new Date(Date.UTC(year, month, 1))
const partitionName = (d: Date) => `events_y${d.getUTCFullYear()}m${String(d.getUTCMonth() + 1).padStart(2, '0')}`

export async function ensurePartitions(sql: Sql, now = new Date()): Promise<string[]> {
  const created: string[] = []
  const existing = new Set(
    (await sql<{ name: string }[]>`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'events'::regclass`).map((r) => r.name),
  )
  for (let k = 0; k <= MONTHS_AHEAD; k++) {
    const from = monthStart(now.getUTCFullYear(), now.getUTCMonth() + k)
    const to = monthStart(from.getUTCFullYear(), from.getUTCMonth() + 1)
    const name = partitionName(from)
    if (existing.has(name)) continue
    await sql.begin(async (tx) => {
      const [lock] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(${LOCK_ID}) AS ok`
      if (!lock?.ok) return
      const [found] = await tx<{ exists: boolean }[]>`SELECT to_regclass(${name}) IS NOT NULL AS exists`
      if (found?.exists) return
      // Build the partition beside the table, move any rows of its month out of
      // the default partition, then attach: the attach finds nothing to move.
      await tx.unsafe(`CREATE TABLE ${name} (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`)
      await tx.unsafe(
        `WITH moved AS (DELETE FROM events_default WHERE created_at >= $1 AND created_at < $2 RETURNING *)
         INSERT INTO ${name} SELECT * FROM moved`,
        [from.toISOString(), to.toISOString()],
      )
      await tx.unsafe(`ALTER TABLE events ATTACH PARTITION ${name} FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`)
      created.push(name)
    })
  }
  return created
}

/** Drops partitions older than `months` whole months before the current one. 0 keeps everything. */
export async function dropExpiredPartitions(sql: Sql, months: number, now = new Date()): Promise<string[]> {
  if (months <= 0) return []
  const cutoff = monthStart(now.getUTCFullYear(), now.getUTCMonth() - months + 1)
  const dropped: string[] = []
  const rows = await sql<{ name: string }[]>`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass AND c.relname ~ '^events_y[0-9]{4}m[0-9]{2}$'`
  for (const { name } of rows) {
    const start = monthStart(Number(name.slice(8, 12)), Number(name.slice(13, 15)) - 1)
    if (start >= cutoff) continue
    await sql.unsafe(`DROP TABLE IF EXISTS ${name}`)
    dropped.push(name)
  }
  await sql`DELETE FROM events_default WHERE created_at < ${cutoff}`
  return dropped
}
