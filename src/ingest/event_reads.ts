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

export function eventReads(sql: Sql) {
  return {
    /** A page of the feed, newest first, each event with its deliveries counted by state. */
    async feedPage(workspaceId: number, filter: FeedFilter, before: string | null, limit: number) {
      const page = await readFeed(sql, workspaceId, filter, before, limit)
      const counts = await countEventDeliveries(sql, workspaceId, page.events.map((e) => e.eventId))
      return { ...page, events: page.events.map((e) => ({ ...e, deliveryCounts: counts.get(e.eventId)! })) }
    },
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
