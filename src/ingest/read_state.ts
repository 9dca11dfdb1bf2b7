// Read state per member (sql/0021_read_state.sql): each event is unread, read
// or archived for each member. Watermarks ("read through event X", for all
// channels or one) plus explicit marks above them, so the storage is bounded
// by members × channels plus recent marks, never members × events.
//
// The queries here take `visible`, a condition over `events e` that says
// which events the member may see (event_reads.ts passes it): counts and
// marks only ever touch visible events.
import postgres from 'postgres'
import type { Sql, Tx } from '../core/db'
import { readBeforeUnknown, readChannelUnknown, readEventsUnknown } from '../core/errors'
import { plausibleUuidv7, uuidv7Time } from './event'

export type ReadStatus = 'unread' | 'read' | 'archived'
export type Mark = 'read' | 'archived'
export type Fragment = postgres.PendingQuery<postgres.Row[]>
export interface Reader {
  userId: string
  workspaceId: number
}

/** The most event ids one call marks. */
export const MARK_IDS_MAX = 100
/**
 * Unread counts stop at this: counting is a walk of the (workspace, channel,
 * id) index above the member's watermark, and a member who never reads
 * would walk every event. A count of COUNT_CAP means "at least COUNT_CAP".
 */
export const COUNT_CAP = 1000

interface Bounds {
  read: string | null
  archived: string | null
}
/** A member's watermarks: for all channels, and per channel. */
export interface Watermarks {
  all: Bounds
  channels: Map<string, Bounds>
}

const max = (...ids: (string | null | undefined)[]) => ids.reduce<string | null>((m, x) => (x && (!m || x > m) ? x : m), null)

export async function readWatermarks(sql: Tx, r: Reader): Promise<Watermarks> {
  const rows = await sql<{ channel: string | null; read: string | null; archived: string | null }[]>`
    SELECT channel, read_through AS read, archived_through AS archived FROM read_watermarks
    WHERE workspace_id = ${r.workspaceId} AND user_id = ${r.userId}`
  const all = rows.find((x) => x.channel === null) ?? { read: null, archived: null }
  const channels = new Map(rows.filter((x) => x.channel !== null).map((x) => [x.channel!, { read: x.read, archived: x.archived }]))
  return { all: { read: all.read, archived: all.archived }, channels }
}

/** The ids at or below which an event of `channel` is read (archived implies read) and archived. */
function boundsOf(wm: Watermarks, channel: string) {
  const c = wm.channels.get(channel)
  const archived = max(wm.all.archived, c?.archived)
  return { archived, read: max(wm.all.read, c?.read, archived) }
}

/** The status of each of these events (each `{eventId, channel}`), as the member has it. */
export async function statusesOf(sql: Tx, r: Reader, wm: Watermarks, events: { eventId: string; channel: string }[]): Promise<Map<string, ReadStatus>> {
  const marks = events.length
    ? await sql<{ eventId: string; state: Mark }[]>`
      SELECT event_id AS "eventId", state FROM read_marks
      WHERE workspace_id = ${r.workspaceId} AND user_id = ${r.userId} AND event_id = ANY(${events.map((e) => e.eventId)}::uuid[])`
    : []
  const marked = new Map(marks.map((m) => [m.eventId, m.state]))
  return new Map(events.map((e) => {
    const b = boundsOf(wm, e.channel)
    const m = marked.get(e.eventId)
    const status: ReadStatus = m === 'archived' || (b.archived && e.eventId <= b.archived) ? 'archived' : m === 'read' || (b.read && e.eventId <= b.read) ? 'read' : 'unread'
    return [e.eventId, status]
  }))
}

/** A bound per channel of `e`, as SQL: the channels with a watermark of their own, else the one for all. */
function boundSql(sql: Tx, wm: Watermarks, kind: keyof Bounds): Fragment {
  const all = kind === 'read' ? max(wm.all.read, wm.all.archived) : wm.all.archived
  const own = [...wm.channels.keys()].map((c) => [c, boundsOf(wm, c)[kind]] as const).filter(([, b]) => b !== all)
  if (!own.length) return sql`${all}::uuid`
  return sql`(CASE e.channel ${own.map(([c, b]) => sql`WHEN ${c} THEN ${b}::uuid `)} ELSE ${all}::uuid END)`
}

/**
 * The feed's condition for a status, over `events e`, and the id above
 * which every unread event lies (an index range for the unread page).
 */
export function statusFilter(sql: Tx, r: Reader, wm: Watermarks, status: ReadStatus): { where: Fragment; after: string | null } {
  const mark = (states: Mark[]) => sql`EXISTS (SELECT 1 FROM read_marks m WHERE m.workspace_id = ${r.workspaceId} AND m.user_id = ${r.userId} AND m.event_id = e.id AND m.state = ANY(${states}::text[]))`
  const archived = sql`coalesce(e.id <= ${boundSql(sql, wm, 'archived')} OR ${mark(['archived'])}, false)`
  if (status === 'archived') return { where: archived, after: null }
  const read = sql`coalesce(e.id <= ${boundSql(sql, wm, 'read')} OR ${mark(['read', 'archived'])}, false)`
  if (status === 'read') return { where: sql`${read} AND NOT ${archived}`, after: null }
  // No bound: every event is above it (a NULL bound makes the comparison NULL).
  return { where: sql`NOT ${read}`, after: max(wm.all.read, wm.all.archived) }
}

/**
 * Unread events per channel of the workspace (its channels as they are now),
 * each counted up to COUNT_CAP; `unread` is their sum, capped the same way.
 * One index range per channel, above the member's watermark for it, walked
 * newest first (ORDER BY makes it an ordered index scan, which stops at the
 * cap: a bitmap scan would read the whole range first); no time bound on
 * created_at, so the walk is an index-only scan on a vacuumed table.
 */
export async function countUnread(sql: Tx, r: Reader, visible: Fragment): Promise<{ unread: number; byChannel: Record<string, number> }> {
  const rows = await sql<{ channel: string; n: number }[]>`
    SELECT c.slug AS channel, (
      SELECT count(*) FROM (
        SELECT 1 FROM events e
        WHERE e.workspace_id = c.workspace_id AND e.channel = c.slug
          AND e.id > b.bound
          AND NOT EXISTS (SELECT 1 FROM read_marks m WHERE m.workspace_id = e.workspace_id AND m.user_id = ${r.userId} AND m.event_id = e.id)
          AND ${visible}
        ORDER BY e.id DESC LIMIT ${COUNT_CAP}) x)::int AS n
    FROM channels c
    LEFT JOIN read_watermarks g ON g.workspace_id = c.workspace_id AND g.user_id = ${r.userId} AND g.channel IS NULL
    LEFT JOIN read_watermarks w ON w.workspace_id = c.workspace_id AND w.user_id = ${r.userId} AND w.channel = c.slug
    CROSS JOIN LATERAL (SELECT coalesce(greatest(g.read_through, g.archived_through, w.read_through, w.archived_through), '00000000-0000-7000-8000-000000000000'::uuid) AS bound) b
    WHERE c.workspace_id = ${r.workspaceId}
    ORDER BY c.slug`
  const byChannel = Object.fromEntries(rows.filter((x) => x.n > 0).map((x) => [x.channel, x.n]))
  return { unread: Math.min(COUNT_CAP, rows.reduce((s, x) => s + x.n, 0)), byChannel }
}

/** Whether an error is PostgreSQL's "no such membership" for a read-state row (the member left meanwhile). */
export const lostMembership = (err: unknown) => (err as { code?: string }).code === '23503'

/**
 * Marks these events read or archived for the member: only events of the
 * workspace the member can see (others are a 400 naming them). A mark never
 * goes back (read on an archived event stays archived), and no mark is kept
 * for an event its watermarks already cover. Returns the ids whose status changed.
 */
export async function markEvents(sql: Sql, r: Reader, ids: string[], state: Mark, visible: Fragment): Promise<{ eventIds: string[]; tags: string[] }> {
  const wanted = [...new Set(ids.map((x) => x.toLowerCase()))]
  const bad = wanted.filter((x) => !plausibleUuidv7(x))
  const times = wanted.filter((x) => !bad.includes(x)).map((x) => uuidv7Time(x).toISOString())
  const found = times.length
    ? await sql<{ eventId: string; channel: string; tag: string }[]>`
      SELECT e.id AS "eventId", e.channel, coalesce(e.collapse_key, e.id::text) AS tag FROM events e
      WHERE e.workspace_id = ${r.workspaceId} AND e.id = ANY(${wanted.filter((x) => !bad.includes(x))}::uuid[])
        AND e.created_at = ANY(${times}::timestamptz[]) AND ${visible}`
    : []
  const unknown = wanted.filter((x) => !found.some((f) => f.eventId === x))
  if (unknown.length) throw readEventsUnknown(unknown.map((x) => ids.findIndex((i) => i.toLowerCase() === x)))
  const wm = await readWatermarks(sql, r)
  const before = await statusesOf(sql, r, wm, found)
  const rank = { unread: 0, read: 1, archived: 2 }
  const changing = found.filter((e) => rank[before.get(e.eventId)!] < rank[state])
  if (changing.length) {
    await sql`
      INSERT INTO read_marks (workspace_id, user_id, event_id, state, event_at)
      SELECT ${r.workspaceId}, ${r.userId}, id, ${state}, uuidv7_time(id) FROM unnest(${changing.map((e) => e.eventId)}::uuid[]) AS id
      ON CONFLICT (workspace_id, user_id, event_id) DO UPDATE SET state = CASE WHEN excluded.state = 'archived' THEN 'archived' ELSE read_marks.state END`
  }
  return { eventIds: changing.map((e) => e.eventId), tags: [...new Set(changing.map((e) => found.find((f) => f.eventId === e.eventId)!.tag))] }
}

/**
 * Moves the member's watermark (for one channel, or for all) up to `before`,
 * that event included, and deletes the marks it now covers: one statement,
 * whatever the number of events below. `before` must be an event of the
 * workspace the member can see; `channel` one of its channels.
 */
export async function moveWatermark(sql: Sql, r: Reader, before: string, channel: string | null, state: Mark, visible: Fragment): Promise<{ moved: boolean }> {
  before = before.toLowerCase()
  const [ok] = plausibleUuidv7(before)
    ? await sql<{ event: boolean; channel: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM events e WHERE e.workspace_id = ${r.workspaceId} AND e.id = ${before} AND e.created_at = ${uuidv7Time(before)} AND ${visible}) AS event,
        ${channel === null} OR EXISTS (SELECT 1 FROM channels WHERE workspace_id = ${r.workspaceId} AND slug = ${channel}) AS channel`
    : [{ event: false, channel: true }]
  if (!ok!.event) throw readBeforeUnknown()
  if (!ok!.channel) throw readChannelUnknown(channel!)
  const column = state === 'read' ? sql`read_through` : sql`archived_through`
  // Covered: marks at or below `before` (of the channel, for a channel's
  // watermark) that the new watermark says as much as (a read watermark
  // leaves archived marks, which say more).
  const [row] = await sql<{ moved: boolean }[]>`
    WITH old AS (
      SELECT ${column} AS through FROM read_watermarks
      WHERE workspace_id = ${r.workspaceId} AND user_id = ${r.userId} AND channel IS NOT DISTINCT FROM ${channel}
    ), up AS (
      INSERT INTO read_watermarks AS w (workspace_id, user_id, channel, ${column}) VALUES (${r.workspaceId}, ${r.userId}, ${channel}, ${before})
      ON CONFLICT ON CONSTRAINT read_watermarks_key DO UPDATE SET ${column} = greatest(w.${column}, excluded.${column}), updated_at = now()
      RETURNING 1
    ), covered AS (
      DELETE FROM read_marks m
      WHERE m.workspace_id = ${r.workspaceId} AND m.user_id = ${r.userId} AND m.event_id <= ${before}
        ${state === 'read' ? sql`AND m.state = 'read'` : sql``}
        ${channel === null ? sql`` : sql`AND EXISTS (SELECT 1 FROM events e WHERE e.workspace_id = m.workspace_id AND e.id = m.event_id AND e.created_at = m.event_at AND e.channel = ${channel})`}
      RETURNING 1
    )
    -- up and covered run whatever is selected (data-modifying CTEs always do).
    SELECT coalesce((SELECT through FROM old) < ${before}::uuid, true) AS moved`
  return { moved: row!.moved }
}

/** The tags of the member's newest notifications now read (to close on other devices): the newest few below `before`. */
export async function tagsBelow(sql: Tx, r: Reader, before: string, channel: string | null, visible: Fragment, limit = 20): Promise<string[]> {
  const rows = await sql<{ tag: string }[]>`
    SELECT coalesce(e.collapse_key, e.id::text) AS tag FROM events e
    WHERE e.workspace_id = ${r.workspaceId} AND e.id <= ${before} AND e.created_at <= uuidv7_time(${before}) AND e.created_at > now() - interval '1 day'
      ${channel === null ? sql`` : sql`AND e.channel = ${channel}`} AND ${visible}
    ORDER BY e.id DESC LIMIT ${limit}`
  return [...new Set(rows.map((x) => x.tag))]
}

/** Deletes the marks of events older than the retention's cutoff (their events are gone). */
export const deleteExpiredMarks = (sql: Tx, cutoff: Date) => sql`DELETE FROM read_marks WHERE event_at < ${cutoff}`
