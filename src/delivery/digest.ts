// A router's digest (docs/routers.md, "Throttle and digest"): its
// matching events gathered per rendered key into a window (digest_windows,
// sql/0024) that opens with the key's first event, sent as ONE delivery
// (kind `digest`) when the window ends (digest_timer.ts) or holds `max`
// events. The pool never sends a digest router's first attempts, bar those
// of events at or above its bypassPriority (send_task.ts windowed); the
// worker's main thread gathers the rest here, a batch's groups together, in
// the transaction of windowed.ts, in three statements whatever the number
// of groups (each statement per group was what a digest cost in
// PostgreSQL):
// - the batch's windows are upserted in one statement, (router, key)
//   order, which takes their locks: two workers adding to one key take
//   turns, and never wait on each other in a circle;
// - under them, events that already have their router delivery (a
//   redelivered event) are left out;
// - the rest are shared out here between the open window and, past `max`,
//   new ones; one statement then writes each event's delivery, `digested`,
//   naming its digest (digest_id), the windows' new counts (or removes a
//   window that filled with nothing after it), and the digests of the
//   windows that filled or were found past their end.
// A digest's delivery is pending and due now: any worker's scheduler sends
// it, retries it, and a replay sends it again, like any delivery; its
// events are read through deliveries_digest. Its event_id is its first
// event's (the partition key event_at follows it), and its id is derived
// from that event, the router and `digest` (send_task.ts deliveryId): it
// sorts with its first event in the lists.
import type { Sql, Tx } from '../core/db'
import { eventViewJson, type EventView } from './event_view'
import { freshOnly } from './throttle'
import { deliveryId } from './send_task'
import { clearOwed, clearing, type LedgerMask } from './deliveries'
import type { DigestBatch } from './destinations/destination'

/** One (router, key) group's events to gather, in order. */
export interface DigestGroup {
  routerId: string
  workspaceId: number
  key: string
  window: number // seconds
  max: number
  items: { deliveryId: string; eventId: string; workspaceId: number; again?: boolean }[]
}

/** What a gathering did: events newly gathered, and digests it fired (full, or past their end). */
export interface Gathered {
  gathered: number
  fired: number
}

interface LockedWindow {
  routerId: string
  key: string
  id: string
  count: number
  firstEventId: string
  due: boolean
  had: string[] | null
}

/** An event thought fresh was gathered meanwhile by another worker: roll back, and gather again strict. */
export class StaleGather extends Error {}

/** A window's state as the gathering leaves it; `fresh`: opened by this gathering (its end is now + the window). */
interface Open {
  id: string
  first: string
  count: number
  fresh: boolean
}

/**
 * Gathers the groups' events into their keys' windows (opening windows as
 * they fill); see the head of this file. `ledger`: the batch's events with
 * nothing else to record, cleared from the outbox's ledger in the write. The windows' locks are held from
 * the first statement to the commit, and every worker's batches queue on
 * them: the look for events already gathered rides in the first statement,
 * so it reads before the locks are taken. An event gathered by another
 * worker in between (a redelivery racing the first delivery) then makes the
 * write find a row it did not expect: it throws StaleGather, the caller
 * rolls back and gathers again `strict`, looking under the locks.
 */
export async function gatherDigests(tx: Tx, groups: DigestGroup[], strict = false, ledger: LedgerMask[] = []): Promise<Gathered> {
  if (!groups.length) {
    await clearOwed(tx, ledger)
    return { gathered: 0, fired: 0 }
  }
  // Only copies that may have been recorded before (redelivered) are looked for: a first copy has no row,
  // and should one have it after all (a copy under way elsewhere), the write finds fewer rows new and the
  // gathering goes again `strict`.
  const again = groups.flatMap((g) => g.items.filter((i) => i.again).map((i) => i.deliveryId))
  // Takes the windows' locks, (router, key) order, opening those that have none (empty, named after the group's first event).
  const open = JSON.stringify(groups.map((g) => ({ r: g.routerId, k: g.key, i: deliveryId(g.items[0]!.eventId, 'digest', g.routerId), w: g.workspaceId, e: g.items[0]!.eventId, s: g.window })))
  const locked = await tx<LockedWindow[]>`
    INSERT INTO digest_windows (router_id, key, id, workspace_id, first_event_id, due_at)
    SELECT r, k, i, w, e, now() + s * interval '1 second' FROM json_to_recordset(${open}::text::json) AS x(r uuid, k text, i uuid, w bigint, e uuid, s int)
    ORDER BY r, k
    ON CONFLICT (router_id, key) DO UPDATE SET count = digest_windows.count
    RETURNING router_id::text AS "routerId", key, id::text, count, first_event_id::text AS "firstEventId", due_at <= now() AS due,
      ${strict || !again.length ? tx`NULL` : tx`(SELECT array_agg(id::text) FROM deliveries WHERE id = ANY(${again}::uuid[]))`} AS had`
  const windowOf = new Map(locked.map((w) => [`${w.routerId}\n${w.key}`, w]))
  // Which events were gathered (or sent) already: read with the locks, or under them.
  const all = groups.flatMap((g) => g.items)
  const had = new Set(strict ? [] : locked[0]?.had ?? [])
  const fresh = new Set((strict ? await freshOnly(tx, all) : all.filter((i) => !had.has(i.deliveryId))).map((i) => i.deliveryId))
  const rows: { i: string; e: string; w: number; t: string; d: string }[] = []
  const fired: { i: string; e: string; w: number; t: string; k: string; c: number }[] = []
  const kept: { t: string; k: string; i: string; e: string; c: number; s: number | null }[] = []
  const dropped: { t: string; k: string }[] = []
  for (const g of groups) {
    const items = g.items.filter((i) => fresh.has(i.deliveryId))
    if (!items.length) continue
    const w = windowOf.get(`${g.routerId}\n${g.key}`)!
    const fire = (o: Open) => fired.push({ i: o.id, e: o.first, w: g.workspaceId, t: g.routerId, k: g.key, c: o.count })
    // An empty window (just opened, or left empty) is named after the first event it gathers; one past its end is fired first.
    let cur: Open | null = w.count > 0 ? { id: w.id, first: w.firstEventId, count: w.count, fresh: false } : null
    if (cur && w.due) {
      fire(cur)
      cur = null
    }
    let changed = !cur
    for (const item of items) {
      cur ??= { id: deliveryId(item.eventId, 'digest', g.routerId), first: item.eventId, count: 0, fresh: true }
      rows.push({ i: item.deliveryId, e: item.eventId, w: item.workspaceId, t: g.routerId, d: cur.id })
      changed = true
      if (++cur.count >= g.max) {
        fire(cur)
        cur = null
      }
    }
    if (cur) kept.push({ t: g.routerId, k: g.key, i: cur.id, e: cur.first, c: cur.count, s: cur.fresh ? g.window : null })
    else if (changed) dropped.push({ t: g.routerId, k: g.key })
  }
  if (!rows.length && !fired.length) {
    await clearOwed(tx, ledger)
    return { gathered: 0, fired: 0 }
  }
  // Every row is new (else StaleGather: ON CONFLICT keeps the others from failing the statement first).
  const [n] = await tx<{ gathered: number; fired: number }[]>`
    WITH r AS (SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::text::json) AS r(i uuid, e uuid, w bigint, t uuid, d uuid)),
    g AS (
      INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts, next_attempt_at, digest_id)
      SELECT i, e, uuidv7_time(e), w, 'router', t, t::text, 'digested', 0, now(), d FROM r
      ON CONFLICT DO NOTHING
      RETURNING 1
    ), f AS (
      SELECT * FROM json_to_recordset(${JSON.stringify(fired)}::text::json) AS f(i uuid, e uuid, w bigint, t uuid, k text, c int)
    ), d AS (
      INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts, next_attempt_at, digest_key, digest_count)
      SELECT i, e, uuidv7_time(e), w, 'digest', t, t::text, 'pending', 0, now(), k, c FROM f
      ON CONFLICT DO NOTHING
      RETURNING 1
    ), kept AS (
      UPDATE digest_windows x SET id = u.i, first_event_id = u.e, count = u.c,
        due_at = CASE WHEN u.s IS NULL THEN x.due_at ELSE now() + u.s * interval '1 second' END,
        opened_at = CASE WHEN u.s IS NULL THEN x.opened_at ELSE now() END
      FROM json_to_recordset(${JSON.stringify(kept)}::text::json) AS u(t uuid, k text, i uuid, e uuid, c int, s int)
      WHERE x.router_id = u.t AND x.key = u.k
    ), dropped AS (
      DELETE FROM digest_windows x USING json_to_recordset(${JSON.stringify(dropped)}::text::json) AS u(t uuid, k text)
      WHERE x.router_id = u.t AND x.key = u.k
    )${ledger.length ? tx`, owed AS (${clearing(tx, ledger)})` : tx``}
    SELECT (SELECT count(*) FROM g)::int AS gathered, (SELECT count(*) FROM d)::int AS fired`
  if (n!.gathered !== rows.length) throw new StaleGather(`${rows.length - n!.gathered} of the batch's events were gathered meanwhile`)
  return n!
}

// The window rows `f` (deleted, RETURNING *) become their digests' deliveries; an empty one is dropped.
const digestRows = (tx: Tx) => tx`
  INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts, next_attempt_at, digest_key, digest_count)
  SELECT f.id, f.first_event_id, uuidv7_time(f.first_event_id), f.workspace_id, 'digest', f.router_id, f.router_id::text, 'pending', 0, now(), f.key, f.count
  FROM f WHERE f.count > 0
  ON CONFLICT DO NOTHING
  RETURNING id`

/**
 * The timer's look: claims up to `limit` windows past their end (FOR UPDATE
 * SKIP LOCKED: one a gatherer holds is its to fire, or the next look's) and
 * fires them in one statement. Answers how many it claimed, the digests it
 * made and their events, and when the next window ends.
 */
export async function fireDueDigests(sql: Sql, limit: number) {
  const [row] = await sql<{ claimed: number; fired: number; events: number; nextMs: number | null; nowMs: number }[]>`
    WITH due AS (
      SELECT router_id, key FROM digest_windows WHERE due_at <= now() ORDER BY due_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ), f AS (
      DELETE FROM digest_windows w USING due WHERE w.router_id = due.router_id AND w.key = due.key RETURNING w.*
    ), d AS (${digestRows(sql)})
    SELECT (SELECT count(*) FROM f)::int AS claimed, (SELECT count(*) FROM d)::int AS fired,
      (SELECT coalesce(sum(count), 0) FROM f WHERE count > 0)::int AS events,
      (SELECT extract(epoch FROM min(due_at))::float8 * 1000 FROM digest_windows WHERE NOT EXISTS (SELECT 1 FROM due WHERE due.router_id = digest_windows.router_id AND due.key = digest_windows.key)) AS "nextMs",
      extract(epoch FROM now())::float8 * 1000 AS "nowMs"`
  return row!
}

/**
 * A digest delivery's key, count and the events retention kept, oldest
 * first (ids are UUIDv7, whichever worker gathered which first), read
 * through its events' digested deliveries (deliveries_digest); null when it
 * is no digest.
 */
export async function readDigest(sql: Tx, id: string): Promise<DigestBatch | null> {
  const [d] = await sql<{ key: string; count: number }[]>`
    SELECT coalesce(digest_key, '') AS key, coalesce(digest_count, 0) AS count FROM deliveries
    WHERE id = ${id}::uuid AND event_at = uuidv7_time(${id}::uuid) AND kind = 'digest'`
  if (!d) return null
  const rows = await sql<{ view: EventView }[]>`
    SELECT ${eventViewJson(sql as Sql)} AS view FROM deliveries x
    JOIN events e ON e.id = x.event_id AND e.created_at = x.event_at
    JOIN workspaces w ON w.id = e.workspace_id
    WHERE x.digest_id = ${id}::uuid
    ORDER BY x.event_id`
  return { key: d.key, count: d.count, events: rows.map((r) => r.view) }
}
