// Scheduled events (sql/0022_scheduled_events.sql): the cancel, the list,
// the read of one that has not gone out, and the purge of cancelled ones.
// The cap is the ingest statement's (src/ingest/statement.ts), their release
// src/delivery/release.ts's.
//
// A cancel and the release of one event end in exactly one of "cancelled"
// or "went out": the release claims due timer rows FOR UPDATE and deletes
// them in the statement that writes their outbox row; the cancel deletes
// only a timer row not yet due, its DELETE waits for that lock and, once the
// release has committed, finds no row and reads the event instead. Cancelling refunds no quota: the event was counted when it
// was accepted.
import type { Sql, Tx } from '../core/db'
import { eventViewJson } from '../delivery/event_view'
import type { FeedEvent } from './feed'
import { afterEnd, endedColumns, type EndedReceipt } from '../delivery/receipts'
import { latestUuidv7, plausibleUuidv7, uuidv7Time } from './event'

export type ScheduledStatus = 'scheduled' | 'cancelled'

/** A scheduled event as GET /events?status=scheduled lists it: the view it will have, when it goes out, and its state. */
export type ScheduledView = FeedEvent & { scheduledFor: string; status: ScheduledStatus }

/** What a cancel found: the event cancelled (now or before), gone out (when), or nothing of this id. */
export type CancelResult = { status: 'cancelled'; scheduledFor: string } | { status: 'sent'; sentAt: string } | null

/** The waiting events (their events rows, with a timer row) and the cancelled ones (their copies) as events: `e` has the columns of `events` and a status. */
const asEvent = (sql: Tx, table: 'scheduled_events' | 'cancelled_events') => table === 'scheduled_events'
  ? sql`(SELECT e.id, e.workspace_id, e.channel, e.created_at, e.event, e.title, e.message, e.link, e.tags, e.data, e.priority, e.ttl,
      e.collapse_key, e.receipt, e.recipients, e.scheduled_for, 'scheduled'::text AS status FROM scheduled_events s
      JOIN events e ON e.workspace_id = s.workspace_id AND e.id = s.id AND e.created_at = uuidv7_time(s.id))`
  : sql`(SELECT s.id, s.workspace_id, s.channel, uuidv7_time(s.id) AS created_at, s.event, s.title, s.message, s.link, s.tags, s.data,
      s.priority, s.ttl, s.collapse_key, s.receipt, s.recipients, uuidv7_time(s.id) AS scheduled_for, 'cancelled'::text AS status FROM cancelled_events s)`

const viewOf = (sql: Tx) => sql`(${eventViewJson(sql as Sql)})::jsonb || jsonb_build_object('status', e.status)`

/**
 * Cancels a scheduled event of the workspace that has not gone out, with its
 * receipt, in one transaction: its timer row and its events row are deleted,
 * a copy goes to cancelled_events, and the workspace's scheduled_count goes
 * down. Only an event not yet due is cancelled: a due one is the release's
 * (and visibleTo shows it from its time), so the answer is then that it went
 * out. A second cancel answers the same; one that comes after the release
 * finds the event and says when it went out.
 */
export async function cancelScheduledEvent(sql: Sql, workspaceId: number, eventId: string, now = Date.now()): Promise<CancelResult> {
  if (!plausibleUuidv7(eventId)) return null
  return sql.begin(async (tx) => {
    const [row] = await tx<{ receipt: string | null; due: string }[]>`
      WITH timer AS (
        DELETE FROM scheduled_events WHERE id = ${eventId} AND workspace_id = ${workspaceId} AND id > ${latestUuidv7(now)}::uuid
        RETURNING id, workspace_id
      ), gone AS (
        DELETE FROM events e USING timer t WHERE e.workspace_id = t.workspace_id AND e.id = t.id AND e.created_at = ${uuidv7Time(eventId)}
        RETURNING e.*
      ), kept AS (
        INSERT INTO cancelled_events (id, workspace_id, channel, event, title, message, link, tags, data, priority, ttl, collapse_key, receipt, recipients)
        SELECT id, workspace_id, channel, event, title, message, link, tags, data, priority, ttl, collapse_key, receipt, recipients FROM gone
      ), n AS (
        UPDATE workspaces w SET scheduled_count = w.scheduled_count - 1 FROM timer WHERE w.id = ${workspaceId}
      )
      SELECT receipt, iso_time(uuidv7_time(id)) AS due FROM gone`
    if (row) {
      if (row.receipt) {
        const ended = await tx<EndedReceipt[]>`
          UPDATE receipts r SET status = 'cancelled', ended_at = now() WHERE r.id = ${row.receipt} AND r.status = 'pending'
          RETURNING ${endedColumns(tx)}`
        if (ended.length) await afterEnd(tx, ended)
      }
      return { status: 'cancelled' as const, scheduledFor: row.due }
    }
    const [was] = await tx<{ due: string }[]>`
      SELECT iso_time(uuidv7_time(id)) AS due FROM cancelled_events WHERE id = ${eventId} AND workspace_id = ${workspaceId}`
    if (was) return { status: 'cancelled' as const, scheduledFor: was.due }
    // Went out: due by this clock, or released already (its timer row gone)
    // by a release whose clock ran a little ahead of this one's; without the
    // second, a cancel in that instant found neither and answered 404.
    const [sent] = await tx<{ at: string }[]>`
      SELECT iso_time(created_at) AS at FROM events
      WHERE workspace_id = ${workspaceId} AND id = ${eventId} AND created_at = ${uuidv7Time(eventId)} AND scheduled_for IS NOT NULL
        AND (id <= ${latestUuidv7(now)}::uuid OR NOT EXISTS (SELECT 1 FROM scheduled_events s WHERE s.id = ${eventId} AND s.workspace_id = ${workspaceId}))`
    return sent ? { status: 'sent' as const, sentAt: sent.at } : null
  })
}

/** A page of the workspace's scheduled events, soonest first, after the event `after` (the cursor: an id, whose time is its due time). */
export async function listScheduledEvents(sql: Sql, workspaceId: number, after: string | null, limit: number): Promise<{ events: (ScheduledView & { status: 'scheduled' })[]; nextCursor: string | null }> {
  const rows = await sql<{ view: ScheduledView & { status: 'scheduled' } }[]>`
    SELECT ${viewOf(sql)} AS view FROM ${asEvent(sql, 'scheduled_events')} e JOIN workspaces w ON w.id = e.workspace_id
    WHERE e.workspace_id = ${workspaceId} ${after ? sql`AND e.id > ${after}::uuid` : sql``}
    ORDER BY e.id LIMIT ${limit + 1}`
  const events = rows.slice(0, limit).map((r) => r.view)
  return { events, nextCursor: rows.length > limit ? events[events.length - 1]!.eventId : null }
}

/** One scheduled (or cancelled) event of the workspace that has not gone out; null when there is none of this id. */
export async function findScheduledEvent(sql: Sql, workspaceId: number, eventId: string): Promise<(ScheduledView & { recipients: { userId: string; email: string }[] | null }) | null> {
  if (!plausibleUuidv7(eventId)) return null
  const [row] = await sql<{ view: ScheduledView; recipients: { userId: string; email: string }[] | null }[]>`
    SELECT ${viewOf(sql)} AS view,
      CASE WHEN e.recipients IS NOT NULL THEN coalesce((SELECT json_agg(json_build_object('userId', u.id, 'email', u.email) ORDER BY lower(u.email))
        FROM users u WHERE u.id = ANY(e.recipients)), '[]') END AS recipients
    FROM (${asEvent(sql, 'scheduled_events')} UNION ALL ${asEvent(sql, 'cancelled_events')}) e JOIN workspaces w ON w.id = e.workspace_id
    WHERE e.workspace_id = ${workspaceId} AND e.id = ${eventId}`
  return row ? { ...row.view, recipients: row.recipients } : null
}

/** Deletes cancelled scheduled events a week past their time (by id, whose time it is): until then a repeated cancel answers the same. */
export const deleteOldCancelledEvents = (sql: Sql) =>
  sql`DELETE FROM cancelled_events WHERE id < ${latestUuidv7(Date.now() - 7 * 86_400_000)}::uuid`

/** The soonest due time of any scheduled event, or null: the release's sleep (the first entry of the primary key). */
export async function nextScheduledAt(sql: Sql): Promise<Date | null> {
  const [row] = await sql<{ id: string | null }[]>`SELECT id FROM scheduled_events ORDER BY id LIMIT 1`
  return row?.id ? uuidv7Time(row.id) : null
}
