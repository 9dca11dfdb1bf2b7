// The event as every part of delivery sees it, and as the feed and
// GET /events/{id} show it.
import type { Sql } from '../core/db'

/** The event as GET /events/{id} returns it, without deliveries. */
export interface EventView {
  eventId: string
  workspace: string
  channel: string
  event: string | null
  title: string | null
  message: string
  link: string | null
  tags: string[]
  data: unknown
  createdAt: string // ISO 8601
  priority: number // 1-5
  ttl: number | null // seconds
  collapseKey: string | null
  receipt: string | null // the receipt's id, when the event must be acknowledged
  to: string[] | null // recipients' user ids, when the event was sent `to` people
  scheduledFor?: string // ISO 8601: only on an event that was scheduled (deliverAt / delay), so other events' bodies are unchanged
}

/** The notify fields of an event that sets none (and of a view an older Herald published, which has none). */
export const NOTIFY_DEFAULTS = { priority: 3, ttl: null, collapseKey: null, receipt: null, to: null } as const satisfies Pick<EventView, 'priority' | 'ttl' | 'collapseKey' | 'receipt' | 'to'>

/**
 * The one SQL expression of an event's view, as json, from an `events` row
 * aliased `e` and its `workspaces` row aliased `w`. `scheduledFor` only
 * when the event was scheduled: the webhook body of any other event is
 * exactly what it was.
 */
export const eventViewJson = (sql: Sql) => sql`CASE WHEN e.scheduled_for IS NULL THEN json_build_object(${viewPairs(sql)})
  ELSE json_build_object(${viewPairs(sql)}, 'scheduledFor', iso_time(e.scheduled_for)) END`

const viewPairs = (sql: Sql) => sql`
  'eventId', e.id, 'workspace', w.name, 'channel', e.channel, 'event', e.event, 'title', e.title,
  'message', e.message, 'link', e.link, 'tags', e.tags, 'data', e.data, 'createdAt', iso_time(e.created_at),
  'priority', e.priority, 'ttl', e.ttl, 'collapseKey', e.collapse_key, 'receipt', e.receipt, 'to', e.recipients`
