// Receipts: an event sent with `ack` repeats until someone acknowledges it,
// someone cancels it, or it expires. This file holds the receipt's rows and
// its transitions; the repeats are receipt_timer.ts's.
//
// A receipt leaves 'pending' once, by one conditional UPDATE (… WHERE status
// = 'pending' RETURNING): of two acknowledgements at once, or an
// acknowledgement and the expiry, the statement that changes the row first
// wins and the other finds it ended. The same transaction cancels the
// repeats still queued (so none is sent after the end), and queues the
// deliveries of the routers with `receipts: true` that forwarded the event.
import type postgres from 'postgres'
import type { Sql, Tx } from '../core/db'
import { deliveryId } from './send_task'

export type ReceiptStatus = 'pending' | 'acknowledged' | 'expired' | 'cancelled'
export type AckVia = 'web' | 'push' | 'link' | 'api'

/** Exactly the JSON of GET /receipts/{receipt}. */
export interface ReceiptView {
  receipt: string
  eventId: string
  status: ReceiptStatus
  acknowledgedAt: string | null
  acknowledgedBy: { userId: string; email: string } | null
  acknowledgedVia: AckVia | null
  expiresAt: string
  lastPushAt: string | null
  pushes: number
  escalated: string[]
}

/** won: this call ended the receipt; else it was no longer pending (the view says who or what ended it). */
export type Transition = { won: true; receipt: ReceiptView } | { won: false; receipt: ReceiptView }

/** What an event asks of its receipt (NormalizedEvent.ack), in seconds. */
export interface AckSpec {
  retry: number
  expire: number
  escalate: { after: number; channel: string }[]
}

/** A receipt to make with its event, in the event's transaction (src/ingest/serial.ts). */
export interface NewReceipt {
  id: string
  workspaceId: number
  eventId: string
  eventAt: Date
  channel: string
  ack: AckSpec
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The view's columns. pushes and lastPushAt are read from the event's push
 * deliveries (the first pushes and every repeat) that reached their device,
 * in the one partition of the event's month.
 */
const viewColumns = (sql: Tx) => sql`
  r.id AS receipt, r.event_id AS "eventId", r.status, iso_time(r.acknowledged_at) AS "acknowledgedAt",
  CASE WHEN r.acknowledged_at IS NULL OR (r.acknowledged_by IS NULL AND r.acknowledged_email IS NULL) THEN NULL
    ELSE json_build_object('userId', r.acknowledged_by, 'email', COALESCE(u.email, r.acknowledged_email)) END AS "acknowledgedBy",
  r.acknowledged_via AS "acknowledgedVia", iso_time(r.expires_at) AS "expiresAt",
  iso_time(p.last_at) AS "lastPushAt", COALESCE(p.n, 0)::int AS pushes, to_json(r.escalated) AS escalated`

const viewJoins = (sql: Tx) => sql`
  LEFT JOIN users u ON u.id = r.acknowledged_by
  LEFT JOIN LATERAL (
    SELECT count(*) AS n, max(d.updated_at) AS last_at FROM deliveries d
    WHERE d.event_id = r.event_id AND d.event_at = r.event_at AND d.kind = 'push' AND d.status = 'succeeded') p ON true`

/**
 * Whether the event of the receipt aliased `r` may be seen by who reads or
 * acknowledges it: SQL made by src/ingest/event_reads.ts (eventVisibleTo)
 * on the statement's own connection; `true` for the API key, the operator
 * and a signed link. A receipt of an event one may not see is not there.
 */
export type ReceiptVisible = (sql: Tx) => postgres.PendingQuery<postgres.Row[]>
export const anyReceipt: ReceiptVisible = (sql) => sql`true`

/** The receipt `receiptId` of the workspace; null when it has none of this id that `visible` lets through. */
export async function readReceipt(sql: Sql | Tx, workspaceId: number, receiptId: string, visible: ReceiptVisible): Promise<ReceiptView | null> {
  if (!UUID.test(receiptId)) return null
  const [row] = await sql<ReceiptView[]>`
    SELECT ${viewColumns(sql)} FROM receipts r ${viewJoins(sql)}
    WHERE r.id = ${receiptId} AND r.workspace_id = ${workspaceId} AND ${visible(sql)}`
  return row ?? null
}

/** The receipt of an event, whichever its workspace (the receipt deliveries of routers). */
export async function readEventReceipt(sql: Sql | Tx, eventId: string): Promise<ReceiptView | null> {
  const [row] = await sql<ReceiptView[]>`
    SELECT ${viewColumns(sql)} FROM receipts r ${viewJoins(sql)} WHERE r.event_id = ${eventId} LIMIT 1`
  return row ?? null
}

/** The workspace of a receipt, by its id alone (a signed link names only the receipt). */
export async function findReceiptWorkspace(sql: Sql, receiptId: string): Promise<number | null> {
  if (!UUID.test(receiptId)) return null
  const [row] = await sql<{ ws: string }[]>`SELECT workspace_id AS ws FROM receipts WHERE id = ${receiptId}`
  return row ? Number(row.ws) : null
}

/** A member acknowledges: the first one wins; the others get won: false and who it was. Null: no such receipt here. */
export function acknowledgeReceipt(sql: Sql, workspaceId: number, receiptId: string, by: { userId: string | null; via: AckVia }, visible: ReceiptVisible): Promise<Transition | null> {
  return endReceipt(sql, workspaceId, receiptId, visible, (tx) => tx`
    status = 'acknowledged', acknowledged_at = now(), acknowledged_via = ${by.via},
    acknowledged_by = ${by.userId}::uuid, acknowledged_email = (SELECT email FROM users WHERE id = ${by.userId}::uuid)`)
}

/** The sender cancels (its API key): won: false when it had already ended. */
export function cancelReceipt(sql: Sql, workspaceId: number, receiptId: string): Promise<Transition | null> {
  return endReceipt(sql, workspaceId, receiptId, anyReceipt, (tx) => tx`status = 'cancelled'`)
}

async function endReceipt(sql: Sql, workspaceId: number, receiptId: string, visible: ReceiptVisible, set: (tx: Tx) => ReturnType<Tx>): Promise<Transition | null> {
  if (!UUID.test(receiptId)) return null
  return sql.begin(async (tx) => {
    const ended = await tx<EndedReceipt[]>`
      UPDATE receipts r SET ${set(tx)}, ended_at = now()
      WHERE r.id = ${receiptId} AND r.workspace_id = ${workspaceId} AND r.status = 'pending' AND ${visible(tx)}
      RETURNING ${endedColumns(tx)}`
    if (ended.length) await afterEnd(tx, ended)
    const view = await readReceipt(tx, workspaceId, receiptId, visible)
    if (!view) return null
    return ended.length ? { won: true, receipt: view } : { won: false, receipt: view }
  })
}

/** What the transaction that ended receipts needs of them. */
export interface EndedReceipt {
  id: string
  workspaceId: string // bigint, as postgres.js reads it
  eventId: string
  eventAt: Date
  status: Exclude<ReceiptStatus, 'pending'>
}
export const endedColumns = (sql: Tx) => sql`r.id, r.workspace_id AS "workspaceId", r.event_id AS "eventId", r.event_at AS "eventAt", r.status`

/**
 * In the transaction that ended `ended`: their repeats still queued end
 * `cancelled` (never sent), and each router with `receipts: true` that
 * forwarded one of their events is owed a delivery of the new state (kind
 * 'receipt', the scheduler sends it).
 */
export async function afterEnd(tx: Tx, ended: EndedReceipt[]): Promise<void> {
  const events = ended.map((e) => e.eventId)
  const months = ended.map((e) => new Date(e.eventAt).toISOString())
  await tx`
    UPDATE deliveries d SET status = 'cancelled', last_error = 'not sent: the receipt ' || x.status, updated_at = now()
    FROM unnest(${events}::uuid[], ${months}::timestamptz[], ${ended.map((e) => e.status)}::text[]) AS x(event_id, event_at, status)
    WHERE d.event_id = ANY(${events}::uuid[]) AND d.event_at = ANY(${months}::timestamptz[])
      AND d.event_id = x.event_id AND d.event_at = x.event_at AND d.kind = 'push' AND d.repeat > 0 AND d.status = 'pending'`
  const routers = await tx<{ eventId: string; eventAt: Date; workspaceId: string; routerId: string }[]>`
    SELECT DISTINCT d.event_id AS "eventId", d.event_at AS "eventAt", d.workspace_id AS "workspaceId", d.router_id::text AS "routerId"
    FROM deliveries d JOIN routers ro ON ro.id = d.router_id AND ro.receipts AND ro.enabled
    WHERE d.event_id = ANY(${events}::uuid[]) AND d.event_at = ANY(${months}::timestamptz[]) AND d.kind = 'router'`
  if (!routers.length) return
  await tx`
    INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts, next_attempt_at)
    SELECT x.id, x.event_id, x.event_at, x.ws, 'receipt', x.router_id, x.router_id::text, 'pending', 0, now()
    FROM unnest(${routers.map((r) => deliveryId(r.eventId, 'receipt', r.routerId))}::uuid[], ${routers.map((r) => r.eventId)}::uuid[],
      ${routers.map((r) => new Date(r.eventAt).toISOString())}::timestamptz[], ${routers.map((r) => r.workspaceId)}::bigint[], ${routers.map((r) => r.routerId)}::uuid[])
      AS x(id, event_id, event_at, ws, router_id)
    ON CONFLICT DO NOTHING`
}

/**
 * Makes the receipts of events just written, in their transaction. The
 * first repeat is due `retry` after the event; an escalation step `after`
 * after it; the receipt expires `expire` after it.
 */
export async function insertReceipts(tx: Tx, receipts: NewReceipt[]): Promise<void> {
  if (!receipts.length) return
  const json = JSON.stringify(receipts.map((r) => ({
    i: r.id, w: r.workspaceId, e: r.eventId, t: r.eventAt.getTime(), c: r.channel, r: r.ack.retry, x: r.ack.expire,
    s: [...r.ack.escalate].sort((a, b) => a.after - b.after),
  })))
  await tx`
    INSERT INTO receipts (id, workspace_id, event_id, event_at, created_at, channel, retry_s, expires_at, escalate, next_repeat_at, next_push_at)
    SELECT i, w, e, to_timestamp(t / 1000.0), to_timestamp(t / 1000.0), c, r, to_timestamp(t / 1000.0) + x * interval '1 s', s,
      to_timestamp(t / 1000.0) + r * interval '1 s',
      to_timestamp(t / 1000.0) + LEAST(r, x, COALESCE((SELECT min((q->>'after')::float8) FROM jsonb_array_elements(s) q), r)) * interval '1 s'
    FROM json_to_recordset(${json}::text::json) AS n(i uuid, w bigint, e uuid, t float8, c text, r int, x int, s jsonb)`
}

/**
 * How many more receipts each workspace may have pending, counted under
 * the workspace rows' locks (taken here, in id order, as the write path's
 * statement takes them), so that batches on any instances add up one
 * after the other and the cap is exact. Two statements: under READ
 * COMMITTED, a count in the statement that waited for the lock would read
 * the snapshot taken before the wait, without the receipts the lock's
 * previous holder committed.
 */
export async function pendingRoom(tx: Tx, workspaceIds: number[], max: number): Promise<Map<number, number>> {
  const ids = [...new Set(workspaceIds)].sort((a, b) => a - b)
  await tx`SELECT id FROM workspaces WHERE id = ANY(${ids}::bigint[]) ORDER BY id FOR NO KEY UPDATE`
  const rows = await tx<{ id: string; n: number }[]>`
    SELECT w.id, (SELECT count(*) FROM receipts r WHERE r.workspace_id = w.id AND r.status = 'pending')::int AS n
    FROM unnest(${ids}::bigint[]) AS w(id)`
  return new Map(rows.map((r) => [Number(r.id), Math.max(0, max - r.n)]))
}

/** The slugs among `slugs` that the workspace has no channel of. */
export async function missingChannelSlugs(tx: Tx, workspaceId: number, slugs: string[]): Promise<Set<string>> {
  if (!slugs.length) return new Set()
  const rows = await tx<{ slug: string }[]>`SELECT slug FROM channels WHERE workspace_id = ${workspaceId} AND slug = ANY(${slugs}::text[])`
  const have = new Set(rows.map((r) => r.slug))
  return new Set(slugs.filter((s) => !have.has(s)))
}
