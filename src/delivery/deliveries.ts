// Queries on deliveries: one row per (event, router) or (event, device) with
// a stable id, and one row per attempt. A first attempt is made before its
// row exists (the row is written with its outcome); a retry is a pending row
// that a worker owns while its lease runs (next_attempt_at in the future); a
// worker that dies simply lets it run out.
import type { Sql, Tx } from '../core/db'
import type { EventView } from './event_view'

export interface Claimed {
  id: string
  eventId: string
  workspaceId: number
  kind: 'router' | 'push'
  target: string // the router id, or the device id of a push
  attempts: number // attempts made before this one
}

export interface ClaimedWithEvent extends Claimed {
  event: EventView | null // null when the event is gone (retention)
}

/** A first attempt, made before its delivery had a row (src/delivery/fanout.ts). */
export interface FirstAttempt extends AttemptRecord {
  eventId: string
  workspaceId: number
  kind: 'router' | 'push'
  target: string
}

/**
 * Creates the rows of deliveries whose first attempt has been made, each in
 * the state that attempt left it: one statement, so one round trip and one
 * implicit transaction for a whole batch. A delivery that already has a row
 * (a duplicate of a redelivered event) keeps it; its duplicate attempt is not
 * recorded. Devices that APNs or FCM no longer know are deleted with it.
 */
export async function insertDeliveries(sql: Tx, rows: FirstAttempt[]): Promise<void> {
  if (!rows.length) return
  // One JSON parameter rather than an array per column: JSON.stringify is
  // native, postgres.js escapes arrays element by element in JavaScript.
  const json = JSON.stringify(rows.map((r) => ({
    i: r.deliveryId, e: r.eventId, w: r.workspaceId, k: r.kind, t: r.target, n: r.next, d: r.delayMs, s: r.startedAt.getTime(),
    u: Math.round(r.durationMs), h: r.status ?? null, o: r.ok, r: r.error ?? null, p: r.response ?? null,
  })))
  const gone = rows.flatMap((r) => (r.unregisteredDevice ? [r.unregisteredDevice] : []))
  await sql`
    WITH r AS MATERIALIZED (
      SELECT * FROM json_to_recordset(${json}::text::json)
        AS r(i uuid, e uuid, w bigint, k text, t text, n text, d float8, s float8, u int, h int, o bool, r text, p text)
    ), d AS (
      INSERT INTO deliveries (id, event_id, workspace_id, kind, router_id, target, status, attempts, next_attempt_at, last_status, last_error)
      SELECT i, e, w, k, CASE WHEN k = 'router' THEN t::uuid END, t, n, 1, now() + d * interval '1 ms', h, r
      FROM r
      ON CONFLICT DO NOTHING
      RETURNING id
    )${gone.length ? sql`, gone AS (DELETE FROM devices WHERE id = ANY(${gone}::uuid[]))` : sql``}
    INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status, ok, error, response)
    SELECT r.i, 1, to_timestamp(r.s / 1000), r.u, r.h, r.o, r.r, r.p FROM r JOIN d ON d.id = r.i`
}

/** The ids of the deliveries that exist for these events: a redelivered event skips them. */
export async function existingDeliveryIds(sql: Tx, eventIds: string[]): Promise<string[]> {
  if (!eventIds.length) return []
  const rows = await sql<{ id: string }[]>`SELECT id FROM deliveries WHERE event_id = ANY(${eventIds}::uuid[])`
  return rows.map((r) => r.id)
}

/** Leases up to `limit` deliveries that are due, oldest first, with their events. */
export function claimDueDeliveries(sql: Sql, limit: number, leaseMs: number): Promise<ClaimedWithEvent[]> {
  return sql<ClaimedWithEvent[]>`
    WITH due AS (
      SELECT id FROM deliveries
      WHERE status = 'pending' AND next_attempt_at <= now()
      ORDER BY next_attempt_at LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE deliveries d SET next_attempt_at = now() + ${leaseMs} * interval '1 ms'
      FROM due WHERE d.id = due.id
      RETURNING d.id, d.event_id, d.workspace_id, d.kind, d.target, d.attempts
    )
    SELECT c.id, c.event_id AS "eventId", c.workspace_id AS "workspaceId", c.kind, c.target, c.attempts,
      CASE WHEN e.id IS NULL THEN NULL ELSE json_build_object(
        'eventId', e.id, 'workspace', w.name, 'channel', e.channel, 'event', e.event, 'title', e.title,
        'message', e.message, 'link', e.link, 'tags', e.tags, 'data', e.data, 'createdAt', iso_time(e.created_at)) END AS event
    FROM claimed c
    JOIN workspaces w ON w.id = c.workspace_id
    LEFT JOIN events e ON e.workspace_id = c.workspace_id AND e.id = c.event_id AND e.created_at = uuidv7_time(c.event_id)`
}

export interface AttemptRecord {
  deliveryId: string
  attempt: number
  startedAt: Date
  durationMs: number
  ok: boolean
  status?: number
  error?: string
  response?: string
  next: 'succeeded' | 'failed' | 'pending'
  delayMs: number // until the next attempt, when next is pending
  unregisteredDevice?: string // a device APNs or FCM no longer knows: removed with this record
}

/** Writes a batch of attempts and the state they leave their deliveries in, in one transaction. */
export async function recordAttempts(sql: Sql, records: AttemptRecord[]) {
  if (!records.length) return
  const col = <T>(f: (r: AttemptRecord) => T) => records.map(f)
  await sql.begin(async (tx) => {
    await tx`
      INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status, ok, error, response)
      SELECT * FROM unnest(${col((r) => r.deliveryId)}::uuid[], ${col((r) => r.attempt)}::int[], ${col((r) => r.startedAt.toISOString())}::timestamptz[],
        ${col((r) => Math.round(r.durationMs))}::int[], ${col((r) => r.status ?? null)}::int[], ${col((r) => String(r.ok))}::text[]::bool[],
        ${col((r) => r.error ?? null)}::text[], ${col((r) => r.response ?? null)}::text[])
      ON CONFLICT DO NOTHING`
    await tx`
      UPDATE deliveries d SET status = r.next, attempts = r.attempt, last_status = r.status, last_error = r.error, updated_at = now(),
        next_attempt_at = CASE WHEN r.next = 'pending' THEN now() + r.delay_ms * interval '1 ms' ELSE d.next_attempt_at END
      FROM unnest(${col((r) => r.deliveryId)}::uuid[], ${col((r) => r.attempt)}::int[], ${col((r) => r.next)}::text[],
        ${col((r) => r.delayMs)}::float8[], ${col((r) => r.status ?? null)}::int[], ${col((r) => r.error ?? null)}::text[])
        AS r(id, attempt, next, delay_ms, status, error)
      WHERE d.id = r.id AND d.status = 'pending'`
    const gone = records.flatMap((r) => (r.unregisteredDevice ? [r.unregisteredDevice] : []))
    if (gone.length) await tx`DELETE FROM devices WHERE id = ANY(${gone}::uuid[])`
  })
}

export interface DeliveryView {
  id: string
  kind: 'router' | 'push'
  routerId: string | null
  deviceId: string | null
  status: 'pending' | 'succeeded' | 'failed'
  attempts: { attempt: number; at: string; durationMs: number; ok: boolean; status: number | null; error: string | null; response: string | null }[]
  nextAttemptAt: string | null
  createdAt: string
  updatedAt: string
}

/** The deliveries of one event with every attempt, oldest first. */
export const listEventDeliveries = (sql: Tx, workspaceId: number, eventId: string) => sql<DeliveryView[]>`
  SELECT d.id, d.kind, d.router_id AS "routerId", CASE WHEN d.kind = 'push' THEN d.target END AS "deviceId", d.status,
    CASE WHEN d.status = 'pending' THEN to_json(d.next_attempt_at)#>>'{}' END AS "nextAttemptAt",
    to_json(d.created_at)#>>'{}' AS "createdAt", to_json(d.updated_at)#>>'{}' AS "updatedAt",
    COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'at', to_json(a.started_at)#>>'{}', 'durationMs', a.duration_ms,
        'ok', a.ok, 'status', a.status, 'error', a.error, 'response', a.response) ORDER BY a.started_at)
      FROM delivery_attempts a WHERE a.delivery_id = d.id), '[]'::json) AS attempts
  FROM deliveries d WHERE d.workspace_id = ${workspaceId} AND d.event_id = ${eventId}
  ORDER BY d.created_at, d.id`

/** Failed deliveries of a workspace, newest first. */
export interface FailedDeliveryView {
  id: string
  eventId: string
  kind: string
  routerId: string | null
  status: 'failed'
  lastError: string | null
  attemptCount: number
  createdAt: string
  updatedAt: string
}
export const listFailedDeliveries = (sql: Tx, workspaceId: number, limit: number) => sql<FailedDeliveryView[]>`
  SELECT d.id, d.event_id AS "eventId", d.kind, d.router_id AS "routerId", d.status, d.last_error AS "lastError",
    to_json(d.created_at)#>>'{}' AS "createdAt", to_json(d.updated_at)#>>'{}' AS "updatedAt", d.attempts AS "attemptCount"
  FROM deliveries d WHERE d.workspace_id = ${workspaceId} AND d.status = 'failed'
  ORDER BY d.updated_at DESC LIMIT ${limit}`

/** Makes a finished delivery due again with a fresh schedule, keeping its id and its attempt history. */
export async function replayDelivery(sql: Tx, workspaceId: number, id: string): Promise<boolean> {
  const rows = await sql`
    UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = now(), updated_at = now()
    WHERE id = ${id} AND workspace_id = ${workspaceId} AND status IN ('failed', 'succeeded')
    RETURNING id`
  return rows.length > 0
}
