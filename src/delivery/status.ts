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

/** What the delivery gauges read (src/delivery/metrics_scrape.ts). */
export interface DeliveryBacklog {
  pending: number // pending deliveries, counted up to the cap
  oldestPendingAgeSeconds: number // since the event of the oldest pending delivery; 0 when none
  overdueSeconds: number // how long the most overdue pending delivery has been due; 0 when none is
  failedLastHour: number // deliveries that failed for good in the last hour, counted up to the cap
}

/**
 * The delivery backlog, for a scrape: each figure a range of a partial
 * index (pending rows: deliveries_due and deliveries_pending_age; failed
 * ones: deliveries_failed_at, sql/0014) read in every month's partition,
 * and the counts stop at `cap` rows, so that a scrape stays cheap whatever
 * the table holds (test/ops/ops.backlog.test.ts reads the plan).
 */
export async function countDeliveryBacklog(sql: Sql, cap: number): Promise<DeliveryBacklog> {
  const [row] = await deliveryBacklogQuery(sql, cap)
  return { pending: row!.pending, oldestPendingAgeSeconds: Math.max(0, row!.oldest), overdueSeconds: Math.max(0, row!.overdue), failedLastHour: row!.failed }
}

/** The statement of countDeliveryBacklog, which a test EXPLAINs. */
export const deliveryBacklogQuery = (sql: Sql, cap: number) =>
  sql<{ pending: number; oldest: number; overdue: number; failed: number }[]>`
    SELECT
      (SELECT count(*) FROM (SELECT 1 FROM deliveries WHERE status = 'pending' ORDER BY next_attempt_at LIMIT ${cap}) p)::int AS pending,
      coalesce(extract(epoch FROM now() - (SELECT event_at FROM deliveries WHERE status = 'pending' ORDER BY event_at LIMIT 1)), 0)::float8 AS oldest,
      coalesce(extract(epoch FROM now() - (SELECT min(next_attempt_at) FROM deliveries WHERE status = 'pending')), 0)::float8 AS overdue,
      (SELECT count(*) FROM (SELECT 1 FROM deliveries WHERE status = 'failed' AND updated_at > now() - interval '1 hour' LIMIT ${cap}) f)::int AS failed`

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
