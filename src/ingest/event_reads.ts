// What is read of a workspace's events, by a person (the feed, its live
// stream, an event's page) or a producer (an event by its API key): the feed's
// pages with their deliveries counted, and one event with its delivery log.
// The routes are given these, not the database.
//
// Who may see what is here, once, for every read path: an event sent `to`
// people (events.recipients) is seen by its recipients and by the
// workspace's owners and admins only. Every query that reads events, their
// deliveries or their receipts for a person takes the person as a Viewer and
// adds `visibleTo` (or `eventVisibleTo` for a row that names an event) to
// its own statement, so that the role is read in the statement that reads
// the event: a role changed while a request runs cannot show it an event
// neither the old nor the new role may see. A producer (the API key) and
// the operator are the viewer `null`: they see every event that is out.
//
// Out, for every viewer: a scheduled event is in events from the moment it
// is accepted (sql/0022_scheduled_events.sql), with an id of its due time,
// so every read bounds `e.id <= the greatest UUIDv7 of now` (and created_at,
// which prunes the months ahead). The bound is a parameter, computed here,
// so that it is an index condition of every feed index (workspace_id, …, id)
// and a first page never walks a workspace's events to come
// (test/ingest/feed.test.ts, "events to come"). The clock is this process's: an event
// ingested by an instance whose clock runs ahead shows that much later.
import type { Sql, Tx } from '../core/db'
import type { Role } from '../accounts/members'
import type { EventView } from '../delivery/event_view'
import { eventNotFound } from '../core/errors'
import { findAccess } from '../accounts/access'
import { countEventDeliveries, listEventDeliveries, withDigest } from '../delivery/deliveries'
import { findEvent, readFeed, type FeedFilter, type Visible } from './feed'
import { findScheduledEvent } from './schedule'
import { latestUuidv7 } from './event'
import { countUnread, markEvents, moveWatermark, readWatermarks, statusesOf, statusFilter, tagsBelow, type Mark } from './read_state'

/** A person reading a workspace's events. */
export interface Viewer {
  userId: string
  workspaceId: number
}

/** SQL: whether the `events` row aliased `e` is visible to the viewer (null: every event that is out is). */
export function visibleTo(sql: Tx, viewer: Viewer | null, now = Date.now()): Visible {
  const out = sql`e.id <= ${latestUuidv7(now)}::uuid AND e.created_at <= ${new Date(now)}::timestamptz`
  if (!viewer) return sql`(${out})`
  return sql`(${out} AND ${allowed(sql, viewer)})`
}

/** SQL: whether the viewer's role or the event's recipients let them see the `events` row `e`, out or not. */
function allowed(sql: Tx, viewer: Viewer): Visible {
  // The EXISTS names no column of e: PostgreSQL runs it once per statement.
  return sql`(e.recipients IS NULL OR ${viewer.userId}::uuid = ANY(e.recipients) OR EXISTS (
    SELECT 1 FROM memberships vm WHERE vm.workspace_id = ${viewer.workspaceId} AND vm.user_id = ${viewer.userId}::uuid AND vm.role IN ('owner', 'admin')))`
}

/**
 * SQL: whether the event of a row aliased `alias` (a delivery `d` or a
 * receipt `r`: workspace_id, event_id, event_at) is visible to the viewer:
 * its event is out (its id, as visibleTo bounds it) and the viewer may see
 * it. A row whose event is gone (retention) names no one's event: it stays.
 * The producer (null) sees every row of its workspace, a scheduled event's
 * receipt included (its clocks start at the due time).
 */
export function eventVisibleTo(sql: Tx, viewer: Viewer | null, alias: 'd' | 'r', now = Date.now()): Visible {
  if (!viewer) return sql`true`
  const a = sql(alias)
  return sql`(${a}.event_id <= ${latestUuidv7(now)}::uuid AND NOT EXISTS (SELECT 1 FROM events e WHERE e.workspace_id = ${a}.workspace_id AND e.id = ${a}.event_id
    AND e.created_at = ${a}.event_at AND e.recipients IS NOT NULL AND NOT ${allowed(sql, viewer)}))`
}

/** The same rule in TypeScript, for an event the live stream is handed: the role read just before. */
export const canSee = (view: Pick<EventView, 'to'>, userId: string, role: Role | null) =>
  !view.to || view.to.includes(userId) || role === 'owner' || role === 'admin'

export function eventReads(sql: Sql) {
  return {
    /**
     * A page of the viewer's feed, newest first, each event with its
     * deliveries counted by state and its status for the viewer, and the
     * viewer's unread counts (which ignore the filters).
     */
    async feedPage(viewer: Viewer, filter: FeedFilter, before: string | null, limit: number) {
      const wm = await readWatermarks(sql, viewer)
      const state = filter.status ? statusFilter(sql, viewer, wm, filter.status) : undefined
      const [page, unread] = await Promise.all([readFeed(sql, viewer.workspaceId, filter, before, limit, visibleTo(sql, viewer), state), countUnread(sql, viewer, visibleTo(sql, viewer))])
      // The page holds only events the viewer may see: their deliveries are counted as they are.
      const [counts, statuses] = await Promise.all([
        countEventDeliveries(sql, viewer.workspaceId, page.events.map((e) => e.eventId)),
        statusesOf(sql, viewer, wm, page.events),
      ])
      return { ...page, events: page.events.map((e) => ({ ...e, status: statuses.get(e.eventId)!, deliveryCounts: counts.get(e.eventId)! })), counts: unread }
    },
    /** The viewer's unread counts (counts ignore the feed's filters). */
    unreadCounts: (viewer: Viewer) => countUnread(sql, viewer, visibleTo(sql, viewer)),
    /** Marks events (by id) read or archived for the viewer; an event they may not see is unknown. */
    mark: (viewer: Viewer, ids: string[], state: Mark) => markEvents(sql, viewer, ids, state, visibleTo(sql, viewer)),
    /** Marks everything up to `before` (included), of one channel or all, read or archived for the viewer. */
    markBefore: (viewer: Viewer, before: string, channel: string | null, state: Mark) => moveWatermark(sql, viewer, before, channel, state, visibleTo(sql, viewer)),
    /** The notification tags of the newest events up to `before` the viewer sees: what their other devices may still show. */
    tagsBelow: (viewer: Viewer, before: string, channel: string | null) => tagsBelow(sql, viewer, before, channel, visibleTo(sql, viewer)),
    /** One event with every delivery and attempt; 404 when the workspace has none of this id the viewer may see. */
    async event(workspaceId: number, eventId: string, viewer: Viewer | null) {
      const event = await findEvent(sql, workspaceId, eventId, visibleTo(sql, viewer))
      if (!event) {
        // Not gone out yet: its producer reads it as scheduled (or cancelled).
        const waiting = viewer === null ? await findScheduledEvent(sql, workspaceId, eventId) : null
        if (waiting) return { ...waiting, deliveries: [] }
        throw eventNotFound()
      }
      return { ...event, deliveries: (await listEventDeliveries(sql, workspaceId, event.eventId)).map(withDigest) }
    },
    /** Whether the person still belongs to the workspace (a live stream ends when they do not). */
    stillMember: async (userId: string, workspace: string) => (await findAccess(sql, userId, workspace)) !== null,
    /**
     * Whether the live stream of `viewer` may be sent `view`: an event not
     * sent `to` people, or one naming them, at once; any other is checked
     * against the role they have now (demoted since the stream began, they
     * no longer see others' events).
     */
    async streamSees(viewer: Viewer, view: Pick<EventView, 'to'>): Promise<boolean> {
      if (canSee(view, viewer.userId, null)) return true
      const [row] = await sql<{ role: Role }[]>`
        SELECT role FROM memberships WHERE workspace_id = ${viewer.workspaceId} AND user_id = ${viewer.userId}::uuid`
      return canSee(view, viewer.userId, row?.role ?? null)
    },
  }
}
export type EventReads = ReturnType<typeof eventReads>
