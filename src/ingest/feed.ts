// The feed: a workspace's events, newest first, filtered by channel, tag,
// event key and words of the title and message, a page at a time. Every
// filter has an index (sql/0005_accounts.sql), and the page ends at an event
// id (a UUIDv7), whose time also bounds the partitions read.
import type postgres from 'postgres'
import type { Sql } from '../core/db'
import type { EventView } from '../delivery/event_view'
import { plausibleUuidv7, uuidv7Time } from './event'
import type { Fragment } from './read_state'

export interface FeedFilter {
  channel?: string
  tag?: string
  event?: string // an exact key, or a prefix ending in * ("user.*")
  q?: string // words, each matching the start of a word of the title or message
  minPriority?: number // 2-5: events at or above it (1 filters nothing)
  status?: 'unread' | 'read' | 'archived' // for the member reading (read_state.ts builds the condition)
}

/** The reader's read-state condition over `events e` (read_state.ts statusFilter), and the id every match is above. */
export interface StateCondition {
  where: Fragment
  after: string | null
}

export const FEED_PAGE_MAX = 100

/** An event's view as columns (the feed's rows; event_view.ts has it as one json value for delivery). */
const feedColumns = (sql: Sql) => sql`e.id AS "eventId", w.name AS workspace, e.channel, e.event, e.title, e.message, e.link, e.tags, e.data,
  iso_time(e.created_at) AS "createdAt", e.priority, e.ttl, e.collapse_key AS "collapseKey", e.receipt, e.recipients AS to`

/** An event as the feed lists it (and GET /events/{id} shows it). */
export type FeedEvent = Omit<EventView, 'data'> & { data: Record<string, unknown> | null }

/** "Deploy fail" → 'deploy:* & fail:*'; only letters and digits survive, so nothing can break the query. */
export function searchQuery(q: string): string | null {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.slice(0, 8) ?? []
  return words.length ? words.map((w) => `${w}:*`).join(' & ') : null
}

// A tag or words filter alone is answered from its GIN index. Next to a
// channel or event-key filter, PostgreSQL estimates the combination as if the
// filters were independent; when they are not (a tag used on one channel), it
// fetches every match of the bitmap to sort them, which at 10 million events
// takes seconds. So such a page first reads the newest WINDOW events of the
// ordered index and filters those: a common combination fills its page there.
// Only when the window is not enough does PostgreSQL plan the whole query;
// the combination is rare then, and its worst case (two filters that never
// meet) reads every event of the ordered filter (bench/feed.ts: 0.6 s for
// 180,000 events). The window takes the reader's visibility too: its bound
// on the id (event_reads.ts visibleTo) keeps the events to come out of it.
const WINDOW = 2000

/** Who may see which event, as SQL over `e` (src/ingest/event_reads.ts visibleTo): every read of events takes it. */
export type Visible = postgres.PendingQuery<postgres.Row[]>

/** A page of the feed; `visible` is the reader's visibility, applied before the page is cut (its cursor is an event the reader sees); `state`, the reader's read-state filter (read_state.ts). */
export async function readFeed(sql: Sql, workspaceId: number, filter: FeedFilter, before: string | null, limit: number, visible: Visible, state?: StateCondition): Promise<{ events: FeedEvent[]; nextCursor: string | null }> {
  const tsq = filter.q ? searchQuery(filter.q) : null
  const key = filter.event
  const ordered = sql`
    e.workspace_id = ${workspaceId}
    ${filter.channel ? sql`AND e.channel = ${filter.channel}` : sql``}
    ${key ? (key.endsWith('*') ? sql`AND e.event LIKE ${key.slice(0, -1).replace(/[\\%_]/g, '\\$&') + '%'}` : sql`AND e.event = ${key}`) : sql``}
    ${before ? sql`AND e.id < ${before} AND e.created_at <= uuidv7_time(${before})` : sql``}
    ${state?.after ? sql`AND e.id > ${state.after} AND e.created_at >= uuidv7_time(${state.after})` : sql``}`
  const unordered = sql`
    AND ${visible}
    ${filter.minPriority && filter.minPriority > 1 ? sql`AND e.priority >= ${filter.minPriority}` : sql``}
    ${filter.tag ? sql`AND e.tags @> ARRAY[${filter.tag}]::text[]` : sql``}
    ${tsq ? sql`AND to_tsvector('simple', coalesce(e.title, '') || ' ' || e.message) @@ to_tsquery('simple', ${tsq})` : sql``}
    ${state ? sql`AND ${state.where}` : sql``}`
  const columns = feedColumns(sql)
  const page = (rows: FeedEvent[]) => {
    const events = rows.slice(0, limit)
    return { events, nextCursor: rows.length > limit ? events[events.length - 1]!.eventId : null }
  }

  if ((filter.tag || tsq || (filter.minPriority ?? 1) > 1 || state) && (filter.channel || key)) {
    const [first] = await sql<{ scanned: number; rows: FeedEvent[] }[]>`
      WITH win AS MATERIALIZED (SELECT e.* FROM events e WHERE ${ordered} AND ${visible} ORDER BY e.id DESC LIMIT ${WINDOW})
      SELECT (SELECT count(*) FROM win)::int AS scanned, coalesce((
        SELECT json_agg(x ORDER BY x."eventId" DESC) FROM (
          SELECT ${columns} FROM win e JOIN workspaces w ON w.id = e.workspace_id WHERE true ${unordered}
          ORDER BY e.id DESC LIMIT ${limit + 1}) x), '[]') AS rows`
    // A full page, or a window that held everything there is: done.
    if (first!.rows.length > limit || first!.scanned < WINDOW) return page(first!.rows)
  }
  return page(await sql<FeedEvent[]>`
    SELECT ${columns}
    FROM events e JOIN workspaces w ON w.id = e.workspace_id
    WHERE ${ordered} ${unordered}
    ORDER BY e.id DESC
    LIMIT ${limit + 1}`)
}

/** Whether a live event passes the filter, as readFeed would have it (words: prefixes of words). */
export function matchesFilter(view: EventView, filter: FeedFilter): boolean {
  if (filter.channel && view.channel !== filter.channel) return false
  if (filter.tag && !view.tags.includes(filter.tag)) return false
  if (filter.minPriority && view.priority < filter.minPriority) return false
  if (filter.event) {
    const k = filter.event
    if (k.endsWith('*') ? !(view.event ?? '').startsWith(k.slice(0, -1)) || view.event === null : view.event !== k) return false
  }
  if (filter.q) {
    const words = `${view.title ?? ''} ${view.message}`.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
    const wanted = filter.q.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.slice(0, 8) ?? []
    if (!wanted.every((w) => words.some((x) => x.startsWith(w)))) return false
  }
  return true
}

/** A recipient of an event sent `to` people, as its page shows them (a user deleted since is left out). */
export interface Recipient {
  userId: string
  email: string
}

/** The event as stored, or null. The id carries the creation time, which picks the partition. */
export async function findEvent(sql: Sql, workspaceId: number, eventId: string, visible: Visible): Promise<(FeedEvent & { recipients: Recipient[] | null }) | null> {
  if (!plausibleUuidv7(eventId)) return null // its time is past any partition (and any date PostgreSQL takes)
  const [row] = await sql<(FeedEvent & { recipients: Recipient[] | null })[]>`
    SELECT ${feedColumns(sql)}, iso_time(e.scheduled_for) AS "scheduledFor",
      CASE WHEN e.recipients IS NOT NULL THEN coalesce((SELECT json_agg(json_build_object('userId', u.id, 'email', u.email) ORDER BY lower(u.email))
        FROM users u WHERE u.id = ANY(e.recipients)), '[]') END AS recipients
    FROM events e JOIN workspaces w ON w.id = e.workspace_id
    WHERE e.workspace_id = ${workspaceId} AND e.id = ${eventId} AND e.created_at = ${uuidv7Time(eventId)} AND ${visible}`
  if (row && row.scheduledFor == null) delete row.scheduledFor // only a scheduled event has the key
  return row ?? null
}
