// The repeats of receipts. Every worker process runs this timer; the timers
// are the receipts' rows (next_push_at), never this process's memory. A look
// claims the due pending receipts FOR UPDATE SKIP LOCKED and, in the same
// transaction, for each one:
// - past expires_at: ends it `expired` (receipts.ts afterEnd: its queued
//   repeats cancelled, its routers told);
// - a repeat due: queues a push delivery (pending, due now) to every device
//   its event was pushed to and to the members of each channel it escalated
//   to, with ids derived from (event, device, repeat number);
// - an escalation step due: queues pushes to the step's channel's members
//   (those not pushed already), and adds them to the following repeats;
// then moves next_push_at on. The pushes are queued leased to the worker that
// claimed them, which sends them at once (scheduler.ts send); should it die,
// the lease runs out and any worker's scheduler takes them. So a repeat is
// queued once whichever instance claims it, sent once whichever worker takes
// it, logged as a push delivery of its own, and spends no quota (it is no
// event).
import type { Sql, Tx } from '../core/db'
import type { Logger } from '../core/log'
import type { PushTarget } from './push/job'
import { findPushTargets } from './push/devices'
import { afterEnd, endedColumns, type EndedReceipt } from './receipts'
import { deliveryId } from './send_task'
import { eventViewJson, type EventView } from './event_view'
import type { ClaimedWithEvent } from './deliveries'
import { startTimerLoop } from './timer_loop'

export interface ReceiptTimerDeps {
  sql: Sql
  log: Logger
  /** Whether this process pushes to the device's provider: an escalation's devices are filtered by it, as the fan-out's are. */
  pushable: (d: PushTarget) => boolean
  /** Sends repeats this process queued leased to itself (the scheduler's send): they go out now, and another worker takes them only if this one dies. */
  send: (due: ClaimedWithEvent[]) => Promise<void>
  /** DELIVERY_LEASE_MS: how long a repeat queued here is this process's alone. */
  leaseMs: number
  /** The longest wait between looks (a receipt made by another process is seen within it). */
  intervalMs: number
  /** Receipts claimed per transaction. */
  batch?: number
}

interface Due {
  id: string
  workspaceId: string
  eventId: string
  eventAt: Date
  retryS: number
  escalate: { after: number; channel: string }[]
  escalated: string[]
  repeats: number
  startMs: number // the event's time, as the receipt counts it (escalation steps are `after` it)
  expiresMs: number
  nextRepeatMs: number
  nowMs: number
}

/** What one firing changes of its receipt. */
interface Fired {
  id: string
  repeats: number
  nextRepeatMs: number
  nextPushMs: number
  escalated: string[]
  pushed: boolean
}

const GATHER_MS = 100

/** Runs until stop(); wake() looks now. */
export function startReceiptTimer(deps: ReceiptTimerDeps) {
  const batch = deps.batch ?? 500
  // Not sooner than GATHER_MS: receipts falling due one after the other are
  // claimed together, a few statements for many repeats, at the cost of
  // that much lateness (the contract allows a second).
  return startTimerLoop({ intervalMs: deps.intervalMs, gatherMs: GATHER_MS, log: deps.log, failure: 'receipt timer: could not claim due receipts' }, async () => {
    const r = await fireDueReceipts(deps.sql, batch, deps.pushable, deps.leaseMs)
    if (r.leased.length) await deps.send(r.leased)
    return { full: r.claimed === batch, nextInMs: r.nextDueMs === null ? null : r.nextDueMs - r.nowMs }
  })
}

/**
 * One look: claims up to `limit` due receipts and fires them in one
 * transaction. Answers how many it claimed, the pushes it queued, and when
 * the next pending receipt is due. With `leaseMs`, the pushes are queued
 * leased to the caller, who sends them at once (`leased`, with their
 * events): no claim of the scheduler, and no second write of each row to
 * take it. Without, they are due now, for any scheduler.
 */
export async function fireDueReceipts(sql: Sql, limit: number, pushable: (d: PushTarget) => boolean = () => true, leaseMs?: number) {
  const out = await sql.begin(async (tx) => {
    const due = await tx<Due[]>`
      SELECT r.id, r.workspace_id AS "workspaceId", r.event_id AS "eventId", r.event_at AS "eventAt", r.retry_s AS "retryS",
        r.escalate, r.escalated, r.repeats,
        extract(epoch FROM r.created_at)::float8 * 1000 AS "startMs", extract(epoch FROM r.expires_at)::float8 * 1000 AS "expiresMs",
        extract(epoch FROM r.next_repeat_at)::float8 * 1000 AS "nextRepeatMs", extract(epoch FROM now())::float8 * 1000 AS "nowMs"
      FROM receipts r WHERE r.status = 'pending' AND r.next_push_at <= now()
      ORDER BY r.next_push_at LIMIT ${limit}
      FOR UPDATE SKIP LOCKED`
    if (!due.length) return { claimed: 0, queued: 0, leased: [] as ClaimedWithEvent[] }
    const expired = due.filter((r) => r.nowMs >= r.expiresMs)
    if (expired.length) await expireReceipts(tx, expired.map((r) => r.id))
    const live = due.filter((r) => r.nowMs < r.expiresMs)
    const pushes = live.length ? await fire(tx, live, pushable, leaseMs ?? 0) : []
    const leased = leaseMs && pushes.length ? await leasedWithEvents(tx, pushes) : []
    return { claimed: due.length, queued: pushes.length, leased }
  })
  const [next] = await sql<{ at: number | null; now: number }[]>`
    SELECT extract(epoch FROM min(next_push_at))::float8 * 1000 AS at, extract(epoch FROM now())::float8 * 1000 AS now
    FROM receipts WHERE status = 'pending'`
  return { ...out, nextDueMs: next?.at ?? null, nowMs: next?.now ?? Date.now() }
}

/** Ends receipts past their expiry, in the claim's transaction. */
async function expireReceipts(tx: Tx, ids: string[]) {
  const ended = await tx<EndedReceipt[]>`
    UPDATE receipts r SET status = 'expired', ended_at = now()
    WHERE r.id = ANY(${ids}::uuid[]) AND r.status = 'pending'
    RETURNING ${endedColumns(tx)}`
  if (ended.length) await afterEnd(tx, ended)
}

type Push = { id: string; eventId: string; eventAt: string; workspaceId: string; device: string; repeat: number }
type Audience = (ws: string, channel: string) => Promise<string[]>

/** Queues the pushes of the due repeats and escalation steps (leased `leaseMs`), and moves each receipt's timer on; answers the pushes queued. */
async function fire(tx: Tx, due: Due[], pushable: (d: PushTarget) => boolean, leaseMs: number): Promise<Push[]> {
  const first = await firstPushes(tx, due)
  const audiences = new Map<string, Promise<string[]>>()
  const audience: Audience = (ws, channel) => {
    const k = `${ws}/${channel}`
    let a = audiences.get(k)
    if (!a) audiences.set(k, (a = findPushTargets(tx, Number(ws), channel).then((list) => list.filter(pushable).map((d) => d.id))))
    return a
  }
  const pushes: Push[] = []
  const fired: Fired[] = []
  for (const r of due) fired.push(await firing(r, first.get(r.eventId) ?? [], audience, pushes))
  const inserted = await queuePushes(tx, pushes, leaseMs)
  await tx`
    UPDATE receipts r SET repeats = u.repeats, escalated = ARRAY(SELECT jsonb_array_elements_text(u.escalated)),
      next_repeat_at = to_timestamp(u.next_repeat / 1000.0), next_push_at = to_timestamp(u.next_push / 1000.0),
      last_push_at = CASE WHEN u.pushed THEN now() ELSE r.last_push_at END
    FROM json_to_recordset(${JSON.stringify(fired.map((f) => ({ id: f.id, repeats: f.repeats, escalated: f.escalated, next_repeat: f.nextRepeatMs, next_push: f.nextPushMs, pushed: f.pushed })))}::text::json)
      AS u(id uuid, repeats int, escalated jsonb, next_repeat float8, next_push float8, pushed bool)
    WHERE r.id = u.id`
  return pushes.filter((p) => inserted.has(p.id))
}

/** The queued pushes as the scheduler's claim gives them, each with its event's view. */
async function leasedWithEvents(tx: Tx, pushes: Push[]): Promise<ClaimedWithEvent[]> {
  const rows = await tx<{ id: string; view: EventView }[]>`
    SELECT e.id::text AS id, ${eventViewJson(tx as Sql)} AS view FROM events e JOIN workspaces w ON w.id = e.workspace_id
    WHERE e.id = ANY(${[...new Set(pushes.map((p) => p.eventId))]}::uuid[]) AND e.created_at = ANY(${[...new Set(pushes.map((p) => p.eventAt))]}::timestamptz[])`
  const views = new Map(rows.map((r) => [r.id, r.view]))
  return pushes.map((p) => ({ id: p.id, eventId: p.eventId, workspaceId: Number(p.workspaceId), kind: 'push' as const, target: p.device, attempts: 0, event: views.get(p.eventId) ?? null }))
}

/**
 * One receipt's firing: the pushes it queues (added to `pushes`) and what it
 * changes of the receipt. A repeat goes to every device the event was pushed
 * to and to the members of every channel escalated to; a step due between
 * repeats goes to its channel's members not pushed already.
 */
async function firing(r: Due, firstDevices: string[], audience: Audience, pushes: Push[]): Promise<Fired> {
  const repeatDue = r.nextRepeatMs <= r.nowMs
  const newSteps = r.escalate.filter((s) => !r.escalated.includes(s.channel) && r.startMs + s.after * 1000 <= r.nowMs)
  const escalated = [...r.escalated, ...newSteps.map((s) => s.channel)]
  const before = new Set<string>(firstDevices)
  for (const c of r.escalated) for (const d of await audience(r.workspaceId, c)) before.add(d)
  const devices = repeatDue ? before : new Set<string>()
  for (const s of newSteps) for (const d of await audience(r.workspaceId, s.channel)) if (repeatDue || !before.has(d)) devices.add(d)
  const n = r.repeats + 1
  const at = new Date(r.eventAt).toISOString()
  for (const device of devices) {
    pushes.push({ id: deliveryId(r.eventId, 'push', `${device}/${n}`), eventId: r.eventId, eventAt: at, workspaceId: r.workspaceId, device, repeat: n })
  }
  let nextRepeatMs = r.nextRepeatMs
  // Every `retry` from the event, not from this late look: a repeat late by a backlog does not shift the rest.
  while (nextRepeatMs <= r.nowMs) nextRepeatMs += r.retryS * 1000
  const steps = r.escalate.filter((s) => !escalated.includes(s.channel)).map((s) => r.startMs + s.after * 1000)
  return { id: r.id, repeats: n, nextRepeatMs, nextPushMs: Math.min(nextRepeatMs, r.expiresMs, ...steps), escalated, pushed: devices.size > 0 }
}

/** The devices each event's first pushes went to (its push deliveries of repeat 0; not those a preference held back). */
async function firstPushes(tx: Tx, due: Due[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  if (!due.length) return out
  // `= ANY(…)` of the ids and of their months: an index look-up in the
  // months named, whatever the planner guesses of a join with an array.
  const rows = await tx<{ eventId: string; target: string }[]>`
    SELECT d.event_id AS "eventId", d.target FROM deliveries d
    WHERE d.event_id = ANY(${due.map((r) => r.eventId)}::uuid[]) AND d.event_at = ANY(${[...new Set(due.map((r) => new Date(r.eventAt).toISOString()))]}::timestamptz[])
      AND d.kind = 'push' AND d.repeat = 0 AND d.status <> 'suppressed'`
  for (const r of rows) {
    const list = out.get(r.eventId)
    if (list) list.push(r.target)
    else out.set(r.eventId, [r.target])
  }
  return out
}

/**
 * Writes the repeats' push deliveries as pending rows, due now, or leased
 * `leaseMs` to the caller, who sends them; answers the ids written (a row
 * that exists, the same repeat queued twice, is kept and not sent again). An earlier repeat of the
 * same device still waiting for a retry ends `cancelled`: this one rings in
 * its place, and a phone that was away does not get every missed repeat at
 * once when it is back.
 */
async function queuePushes(tx: Tx, pushes: Push[], leaseMs: number): Promise<Set<string>> {
  if (!pushes.length) return new Set()
  await tx`
    UPDATE deliveries d SET status = 'cancelled', last_error = 'not sent: repeat ' || p.repeat || ' went in its place', updated_at = now()
    FROM json_to_recordset(${JSON.stringify(pushes.map((p) => ({ event_id: p.eventId, event_at: p.eventAt, device: p.device, repeat: p.repeat })))}::text::json)
      AS p(event_id uuid, event_at timestamptz, device text, repeat int)
    WHERE d.event_id = ANY(${[...new Set(pushes.map((p) => p.eventId))]}::uuid[]) AND d.event_at = ANY(${[...new Set(pushes.map((p) => p.eventAt))]}::timestamptz[])
      AND d.event_id = p.event_id AND d.event_at = p.event_at AND d.kind = 'push' AND d.target = p.device
      AND d.repeat > 0 AND d.repeat < p.repeat AND d.status = 'pending'`
  const rows = await tx<{ id: string }[]>`
    INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, target, repeat, status, attempts, next_attempt_at)
    SELECT p.id, p.event_id, p.event_at, p.ws, 'push', p.device, p.repeat, 'pending', 0, now() + ${leaseMs} * interval '1 ms'
    FROM json_to_recordset(${JSON.stringify(pushes.map((p) => ({ id: p.id, event_id: p.eventId, event_at: p.eventAt, ws: p.workspaceId, device: p.device, repeat: p.repeat })))}::text::json)
      AS p(id uuid, event_id uuid, event_at timestamptz, ws bigint, device text, repeat int)
    ON CONFLICT DO NOTHING
    RETURNING id`
  return new Set(rows.map((r) => r.id))
}
