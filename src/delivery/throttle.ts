// A router's throttle (docs/routers.md, "Throttle and digest"): at
// most `limit` deliveries per window and rendered key, the window starting
// with the key's first event. The pool never sends a throttled router's
// first attempts (send_task.ts windowed); the worker's main thread admits
// them here, in the transaction of windowed.ts, under the lock of the key's
// counter row (router_throttles, sql/0024): the count is read and raised in
// one locked section, whatever the workers and instances. Admitted
// deliveries are pending rows due now (the scheduler sends them); the rest
// end `throttled`, no attempt. A delivery that already exists (a redelivered
// event) is skipped, looked for under the same lock: it never counts twice.
import type { Tx } from '../core/db'

/** One (router, key) group's deliveries to admit, their events in order. */
export interface ThrottleGroup {
  routerId: string
  key: string
  limit: number
  per: number // seconds
  items: { deliveryId: string; eventId: string; workspaceId: number; again?: boolean }[]
}

/** Admits a group's deliveries; answers how many were admitted and how many throttled (rows newly written). */
export async function admitThrottled(tx: Tx, g: ThrottleGroup): Promise<{ admitted: number; throttled: number }> {
  // Takes the counter's lock; a window that ended starts again with this event.
  const [w] = await tx<{ count: number }[]>`
    INSERT INTO router_throttles (router_id, key, window_end, count) VALUES (${g.routerId}::uuid, ${g.key}, now() + ${g.per} * interval '1 second', 0)
    ON CONFLICT (router_id, key) DO UPDATE SET
      count = CASE WHEN router_throttles.window_end <= now() THEN 0 ELSE router_throttles.count END,
      window_end = CASE WHEN router_throttles.window_end <= now() THEN now() + ${g.per} * interval '1 second' ELSE router_throttles.window_end END
    RETURNING count`
  // Only redelivered copies are looked for (a first copy has no row); the insert's ON CONFLICT keeps any other
  // duplicate out, and only the rows it wrote are counted.
  const again = g.items.filter((i) => i.again)
  const newAgain = again.length ? new Set((await freshOnly(tx, again)).map((i) => i.deliveryId)) : null
  const fresh = newAgain ? g.items.filter((i) => !i.again || newAgain.has(i.deliveryId)) : g.items
  if (!fresh.length) return { admitted: 0, throttled: 0 }
  const room = Math.max(0, g.limit - w!.count)
  const why = `throttled: more than ${g.limit} per ${g.per} s${g.key ? ` for key ${JSON.stringify(g.key)}` : ''}`
  const json = JSON.stringify(fresh.map((r, i) => ({ i: r.deliveryId, e: r.eventId, w: r.workspaceId, s: i < room ? 'pending' : 'throttled' })))
  const [n] = await tx<{ admitted: number; throttled: number }[]>`
    WITH r AS (SELECT * FROM json_to_recordset(${json}::text::json) AS r(i uuid, e uuid, w bigint, s text)),
    d AS (
      INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts, next_attempt_at, last_error)
      SELECT i, e, uuidv7_time(e), w, 'router', ${g.routerId}::uuid, ${g.routerId}, s, 0, now(), CASE WHEN s = 'throttled' THEN ${why} END FROM r
      ON CONFLICT DO NOTHING
      RETURNING status
    ), counted AS (
      UPDATE router_throttles SET count = count + (SELECT count(*) FROM d WHERE status = 'pending')
      WHERE router_id = ${g.routerId}::uuid AND key = ${g.key}
    )
    SELECT count(*) FILTER (WHERE status = 'pending')::int AS admitted, count(*) FILTER (WHERE status = 'throttled')::int AS throttled FROM d`
  return n!
}

/** The items whose delivery has no row yet (read under the caller's lock). */
export async function freshOnly<T extends { deliveryId: string }>(tx: Tx, items: T[]): Promise<T[]> {
  const rows = await tx<{ id: string }[]>`SELECT id::text FROM deliveries WHERE id = ANY(${items.map((i) => i.deliveryId)}::uuid[])`
  if (!rows.length) return items
  const have = new Set(rows.map((r) => r.id))
  return items.filter((i) => !have.has(i.deliveryId))
}

/** Deletes up to `limit` counters whose window ended (a key not seen since); answers how many. */
export async function deleteEndedThrottles(tx: Tx, limit: number): Promise<number> {
  const rows = await tx`
    DELETE FROM router_throttles t USING (
      SELECT router_id, key FROM router_throttles WHERE window_end < now() ORDER BY window_end LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ) o WHERE t.router_id = o.router_id AND t.key = o.key
    RETURNING 1`
  return rows.length
}
