// The event as every part of delivery sees it, and as the feed and
// GET /events/{id} show it.

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
  priority: number // 1-5; 3 when the event gave none
  ttl: number | null // seconds
  collapseKey: string | null
  receipt: string | null
}
