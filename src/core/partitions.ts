// Retention. `events`, `deliveries` and `delivery_attempts` are partitioned by
// month of their event (created_at; event_at for the other two, sql/0012).
// Partitions are created a few months ahead so inserts never wait on DDL;
// rows that land outside them go to the table's default partition and are
// moved when their month's partition is created. HERALD_RETENTION_MONTHS drops
// whole partitions, which frees the space at once and costs no vacuum; the
// rows that are not partitioned but grow with traffic (the outbox, usage_daily)
// are deleted by age here too. Idempotency keys, sign-in failures and sign-up
// requests expire on their own clocks (see maintain() in src/server.ts).
import type { Sql, Tx } from './db'

const MONTHS_AHEAD = 2
const LOCK_ID = 7262_0002

/**
 * The partitioned tables and their keys, each a month of the same events.
 * A month's attempts go with its deliveries: made after them, dropped
 * before them, so that no attempt outlives its delivery (sql/0012).
 */
const TABLES = [
  { table: 'events', key: 'created_at' },
  { table: 'deliveries', key: 'event_at' },
  { table: 'delivery_attempts', key: 'event_at' },
] as const
type Table = (typeof TABLES)[number]

/**
 * usage_daily keeps HERALD_RETENTION_MONTHS months, and at least this many,
 * also when the retention is 0 (which keeps every event): it is a summary,
 * one row per workspace and day, and nothing reads far back. The dashboard's
 * chart reads the last 30 days and the quota is counted on the workspace row;
 * 13 months let an operator compare a month with the same month a year before.
 */
const USAGE_MONTHS_KEPT = 13

const monthStart = (year: number, month: number) => new Date(Date.UTC(year, month, 1))
const partitionName = (table: string, d: Date) => `${table}_y${d.getUTCFullYear()}m${String(d.getUTCMonth() + 1).padStart(2, '0')}`
/** The first month older than the `months` kept (the current one counts as the first). */
export const retentionCutoff = (months: number, now = new Date()) => cutoffOf(months, now)
/** The same, for the tables of this file. */
const cutoffOf = (months: number, now: Date) => monthStart(now.getUTCFullYear(), now.getUTCMonth() - months + 1)

/** The monthly partitions that exist, with the month each holds. */
async function monthlyPartitions(sql: Sql): Promise<{ table: Table['table']; name: string; start: Date }[]> {
  const rows = await sql<{ parent: string; name: string }[]>`
    SELECT p.relname AS parent, c.relname AS name FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE i.inhparent = ANY(${TABLES.map((t) => t.table)}::text[]::regclass[])`
  return rows.flatMap(({ parent, name }) => {
    const m = /_y(\d{4})m(\d{2})$/.exec(name)
    if (!m || name !== `${parent}${m[0]}`) return []
    return [{ table: parent as Table['table'], name, start: monthStart(Number(m[1]), Number(m[2]) - 1) }]
  })
}

export async function ensurePartitions(sql: Sql, now = new Date()): Promise<string[]> {
  const created: string[] = []
  const existing = new Set((await monthlyPartitions(sql)).map((p) => p.name))
  for (let k = 0; k <= MONTHS_AHEAD; k++) {
    const from = monthStart(now.getUTCFullYear(), now.getUTCMonth() + k)
    if (TABLES.every((t) => existing.has(partitionName(t.table, from)))) continue
    created.push(...(await partitionChange(sql, CREATE_LOCKS, (tx) => createMonth(tx, from))))
  }
  return created
}

/** How long a change of partitions waits for a lock before it gives up and tries again. */
const LOCK_TIMEOUT = '5s'
const ATTEMPTS = 3
/**
 * The locks a change takes first, in the order ingest takes them. Ingest's
 * statement locks events, then workspaces (the quota), then the event's
 * partition. Attaching a month of deliveries locks workspaces for its foreign
 * key after the change has locked the month's and the default partitions,
 * and dropping a month locks each parent whole: taken in their own order,
 * the change and ingest once deadlocked (the change failed, or waited for
 * the deadlock detector's second). Taken first, in ingest's order, they make
 * ingest wait for the change (tens of milliseconds, once a month) instead.
 */
const CREATE_LOCKS = ['LOCK TABLE workspaces IN SHARE ROW EXCLUSIVE MODE']
const DROP_LOCKS = ['LOCK TABLE events IN ACCESS EXCLUSIVE MODE', 'LOCK TABLE workspaces IN SHARE ROW EXCLUSIVE MODE']

/**
 * Runs a change of partitions in one transaction, by one instance at a time
 * (another instance at it skips), while events flow: its locks first (see
 * CREATE_LOCKS). A change that waits longer than LOCK_TIMEOUT (a long
 * transaction holds a table) or still meets a deadlock is rolled back whole
 * and tried again; if every try fails, the next maintenance takes it up.
 */
async function partitionChange(sql: Sql, locks: string[], change: (tx: Tx) => Promise<string[]>): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await sql.begin(async (tx) => {
        const [lock] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(${LOCK_ID}) AS ok`
        if (!lock?.ok) return [] // another instance is at it
        await tx.unsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`)
        for (const lock of locks) await tx.unsafe(lock)
        return await change(tx)
      })
    } catch (err) {
      const code = (err as { code?: string }).code
      const retryable = code === '40P01' /* deadlock */ || code === '55P03' /* lock_timeout */
      if (!retryable || attempt >= ATTEMPTS) throw err
      await Bun.sleep(100 * attempt + Math.random() * 100)
    }
  }
}

/**
 * Creates the month's missing partitions in one transaction. Each is built
 * beside its table, the rows of its month are moved out of the default
 * partition, and then it is attached: the attach finds nothing to move.
 * Attempts are moved before deliveries, and deliveries attached before
 * attempts, so that no attempt is ever without its delivery.
 */
async function createMonth(tx: Tx, from: Date): Promise<string[]> {
  const to = monthStart(from.getUTCFullYear(), from.getUTCMonth() + 1)
  const missing: (Table & { name: string })[] = []
  for (const t of TABLES) {
    const name = partitionName(t.table, from)
    const [found] = await tx<{ exists: boolean }[]>`SELECT to_regclass(${name}) IS NOT NULL AS exists`
    if (!found?.exists) missing.push({ ...t, name })
  }
  for (const t of missing) await tx.unsafe(`CREATE TABLE ${t.name} (LIKE ${t.table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`)
  for (const t of [...missing].reverse()) {
    await tx.unsafe(
      `WITH moved AS (DELETE FROM ${t.table}_default WHERE ${t.key} >= $1 AND ${t.key} < $2 RETURNING *)
       INSERT INTO ${t.name} SELECT * FROM moved`,
      [from.toISOString(), to.toISOString()],
    )
  }
  for (const t of missing) {
    await tx.unsafe(`ALTER TABLE ${t.table} ATTACH PARTITION ${t.name} FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`)
  }
  return missing.map((t) => t.name)
}

/**
 * Drops the partitions of months older than `months` whole months before the
 * current one (0 keeps everything): a month's events, deliveries and
 * attempts together. Rows of those months in the default partitions, and the
 * outbox rows that list their events (the fan-out they owe can no longer be
 * made: the events are gone), and their events' receipts, are deleted.
 */
export async function dropExpiredPartitions(sql: Sql, months: number, now = new Date()): Promise<string[]> {
  if (months <= 0) return []
  const cutoff = cutoffOf(months, now)
  // The default partitions first: an attempt left there must not hold on to
  // a deliveries partition about to be detached.
  for (const t of [...TABLES].reverse()) await sql.unsafe(`DELETE FROM ${t.table}_default WHERE ${t.key} < $1`, [cutoff.toISOString()])
  const expired = (await monthlyPartitions(sql)).filter((p) => p.start < cutoff)
  const dropped: string[] = []
  for (const start of new Set(expired.map((p) => p.start.getTime()))) {
    dropped.push(...(await partitionChange(sql, DROP_LOCKS, (tx) => dropMonth(tx, expired.filter((p) => p.start.getTime() === start)))))
  }
  // An outbox row is written after the events it lists, so one older than the
  // cutoff lists only events that are gone.
  await sql`DELETE FROM outbox WHERE created_at < ${cutoff}`
  // Receipts live as long as their events (a receipt expires within hours:
  // only ended ones are this old), by the receipts_event_at index.
  await sql`DELETE FROM receipts WHERE event_at < ${cutoff}`
  return dropped
}

/**
 * Drops one month's partitions in one transaction: its attempts before the
 * deliveries they belong to.
 */
async function dropMonth(tx: Tx, month: { table: Table['table']; name: string }[]): Promise<string[]> {
  const dropped: string[] = []
  for (const t of [...TABLES].reverse()) {
    const p = month.find((m) => m.table === t.table)
    if (!p) continue
    const [found] = await tx<{ exists: boolean }[]>`SELECT to_regclass(${p.name}) IS NOT NULL AS exists`
    if (!found?.exists) continue
    await tx.unsafe(`DROP TABLE ${p.name}`)
    dropped.push(p.name)
  }
  return dropped
}

/** Deletes the usage_daily rows older than the retention, and at least USAGE_MONTHS_KEPT months old. */
export async function deleteExpiredUsage(sql: Sql, months: number, now = new Date()): Promise<number> {
  const cutoff = cutoffOf(Math.max(months, USAGE_MONTHS_KEPT), now)
  const result = await sql`DELETE FROM usage_daily WHERE day < ${cutoff.toISOString().slice(0, 10)}::date`
  return result.count
}
