// The reads behind `herald status`: the pipeline's counts. `herald status`
// runs them itself against DATABASE_URL, and the operator API runs them
// (GET /admin/status) for a CLI that has no database to read (the embedded
// default), so both print the same numbers from the same SQL.
import type { Sql } from '../core/db'
import type { BusState } from './bus'
import { uuidFloor } from './deliveries'
import { countOutbox, type OutboxBacklog } from './relay'

const RECENT_MS = 24 * 3600 * 1000
// Workspaces shown nearest their quota: a screenful.
const NEAREST_QUOTA_ROWS = 10

export interface DeliveryCounts {
  pendingDue: number // all pending deliveries whose next attempt is due now
  pendingLater: number // all pending deliveries waiting for a later attempt
  succeeded: number // of the last 24 h's events
  failed: number // of the last 24 h's events
}

export interface QuotaUse {
  workspace: string
  used: number
  quota: number
  percent: number
}

export interface Status {
  bus: 'jetstream' | 'in-process'
  /** null without NATS_URL, or while the stream does not exist yet. */
  jetstream: BusState | null
  outbox: OutboxBacklog
  deliveries: DeliveryCounts
  nearestQuota: QuotaUse[]
}

export async function countDeliveriesByState(sql: Sql, since: Date): Promise<DeliveryCounts> {
  const [[pending], [recent]] = await Promise.all([
    sql<{ due: number; later: number }[]>`
      SELECT count(*) FILTER (WHERE next_attempt_at <= now())::int AS due, count(*) FILTER (WHERE next_attempt_at > now())::int AS later
      FROM deliveries WHERE status = 'pending'`,
    // A delivery id begins with its event's time (uuidFloor): "the last 24 h's
    // events" is a range of the primary key, not a scan of the table.
    sql<{ succeeded: number; failed: number }[]>`
      SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE status = 'failed')::int AS failed
      FROM deliveries WHERE id >= ${uuidFloor(since.getTime())}::uuid`,
  ])
  return { pendingDue: pending!.due, pendingLater: pending!.later, succeeded: recent!.succeeded, failed: recent!.failed }
}

/** The `limit` workspaces that have used the largest share of this month's quota (a quota of 0 counts as used up). */
export async function findNearestQuota(sql: Sql, limit: number): Promise<QuotaUse[]> {
  const rows = await sql<{ workspace: string; used: number; quota: number }[]>`
    SELECT name AS workspace, used, monthly_quota AS quota FROM (
      SELECT name, monthly_quota,
        CASE WHEN quota_period < date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN 0 ELSE quota_used END AS used
      FROM workspaces) w
    ORDER BY CASE WHEN monthly_quota = 0 THEN 1 ELSE used::float8 / monthly_quota END DESC, used DESC, name
    LIMIT ${limit}`
  return rows.map((r) => ({ ...r, percent: r.quota === 0 ? 100 : Math.round((r.used / r.quota) * 1000) / 10 }))
}

/** Everything of the status that PostgreSQL holds. */
export async function readDatabaseStatus(sql: Sql): Promise<Pick<Status, 'outbox' | 'deliveries' | 'nearestQuota'>> {
  const [outbox, deliveries, nearestQuota] = await Promise.all([
    countOutbox(sql, Number.MAX_SAFE_INTEGER),
    countDeliveriesByState(sql, new Date(Date.now() - RECENT_MS)),
    findNearestQuota(sql, NEAREST_QUOTA_ROWS),
  ])
  return { outbox, deliveries, nearestQuota }
}
