// What is read of a workspace's events, by a person (the feed, its live
// stream, an event's page) or a producer (an event by its API key): the feed's
// pages with their deliveries counted, and one event with its delivery log.
// The routes are given these, not the database: issue 33 puts who may see
// what here, once, for every read path.
import type { Sql } from '../core/db'
import { eventNotFound } from '../core/errors'
import { findAccess } from '../accounts/access'
import { countEventDeliveries, listEventDeliveries } from '../delivery/deliveries'
import { findEvent, readFeed, type FeedFilter } from './feed'
import { countUnread, markEvents, moveWatermark, readWatermarks, statusesOf, statusFilter, tagsBelow, type Fragment, type Mark, type Reader } from './read_state'

export function eventReads(sql: Sql) {
  // TODO(i33-to): the visibility predicate plugs in here, once: visibleTo(sql, viewer)
  // over `events e`. Read-state counts, status filters and marks all take it.
  const visible = (_reader: Reader): Fragment => sql`true`
  return {
    /** A page of the feed, newest first, each event with its deliveries counted by state and its status for the reader, and the reader's unread counts. */
    async feedPage(workspaceId: number, filter: FeedFilter, before: string | null, limit: number, userId: string) {
      const reader = { workspaceId, userId }
      const wm = await readWatermarks(sql, reader)
      const state = filter.status ? statusFilter(sql, reader, wm, filter.status) : undefined
      const [page, unread] = await Promise.all([readFeed(sql, workspaceId, filter, before, limit, state), countUnread(sql, reader, visible(reader))])
      const [counts, statuses] = await Promise.all([
        countEventDeliveries(sql, workspaceId, page.events.map((e) => e.eventId)),
        statusesOf(sql, reader, wm, page.events),
      ])
      return { ...page, events: page.events.map((e) => ({ ...e, status: statuses.get(e.eventId)!, deliveryCounts: counts.get(e.eventId)! })), counts: unread }
    },
    /** The reader's unread counts (counts ignore the feed's filters). */
    unreadCounts: (reader: Reader) => countUnread(sql, reader, visible(reader)),
    /** Marks events (by id) read or archived for the reader. */
    mark: (reader: Reader, ids: string[], state: Mark) => markEvents(sql, reader, ids, state, visible(reader)),
    /** Marks everything up to `before` (included), of one channel or all, read or archived for the reader. */
    markBefore: (reader: Reader, before: string, channel: string | null, state: Mark) => moveWatermark(sql, reader, before, channel, state, visible(reader)),
    /** The notification tags of the newest events up to `before`: what the reader's other devices may still show. */
    tagsBelow: (reader: Reader, before: string, channel: string | null) => tagsBelow(sql, reader, before, channel, visible(reader)),
    /** One event with every delivery and attempt; 404 when the workspace has no such event. */
    async event(workspaceId: number, eventId: string) {
      const event = await findEvent(sql, workspaceId, eventId)
      if (!event) throw eventNotFound()
      return { ...event, deliveries: await listEventDeliveries(sql, workspaceId, event.eventId) }
    },
    /** Whether the person still belongs to the workspace (a live stream ends when they do not). */
    stillMember: async (userId: string, workspace: string) => (await findAccess(sql, userId, workspace)) !== null,
  }
}
export type EventReads = ReturnType<typeof eventReads>
