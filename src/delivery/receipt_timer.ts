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
// then moves next_push_at on. The delivery scheduler (scheduler.ts), woken at
// once, sends the queued pushes under its leases. So a repeat is queued once
// whichever instance claims it, sent once whichever worker takes it, logged
// as a push delivery of its own, and spends no quota (it is no event).
import type { Sql, Tx } from '../core/db'
import type { Logger } from '../core/log'
import type { PushTarget } from './push/job'
import { findPushTargets } from './push/devices'
import { afterEnd, endedColumns, type EndedReceipt } from './receipts'
import { deliveryId } from './send_task'

export interface ReceiptTimerDeps {
  sql: Sql
  log: Logger
  /** Whether this process pushes to the device's provider: an escalation's devices are filtered by it, as the fan-out's are. */
  pushable: (d: PushTarget) => boolean
  /** Wakes the delivery scheduler: the repeats just queued go out now, not at its next interval. */
  wake: () => void
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

/** Runs until stop(); wake() looks now. */
export function startReceiptTimer(deps: ReceiptTimerDeps) {
  const batch = deps.batch ?? 500
  let stopped = false
  let wake: (() => void) | null = null
  const loop = (async () => {
    while (!stopped) {
      let waitMs = deps.intervalMs
      try {
        const r = await fireDueReceipts(deps.sql, batch, deps.pushable)
        if (r.queued) deps.wake()
        if (r.claimed === batch) continue // more are due: at once
        if (r.nextDueMs !== null) waitMs = Math.max(5, Math.min(deps.intervalMs, r.nextDueMs - r.nowMs + 5))
      } catch (err) {
        deps.log.warn({ err }, 'receipt timer: could not claim due receipts')
      }
      if (stopped) break
      await new Promise<void>((res) => {
        const t = setTimeout(res, waitMs)
        wake = () => (clearTimeout(t), res())
      })
      wake = null
    }
  })()
  return {
    wake: () => wake?.(),
    /** Claims no more; resolves once the look under way has committed. */
    stop(): Promise<void> {
      stopped = true
      wake?.()
      return loop
    },
  }
}

/**
 * One look: claims up to `limit` due receipts and fires them in one
 * transaction. Answers how many it claimed, how many pushes it queued, and
 * when the next pending receipt is due.
 */
export async function fireDueReceipts(sql: Sql, limit: number, pushable: (d: PushTarget) => boolean = () => true) {
  const out = await sql.begin(async (tx) => {
    const due = await tx<Due[]>`
      SELECT r.id, r.workspace_id AS "workspaceId", r.event_id AS "eventId", r.event_at AS "eventAt", r.retry_s AS "retryS",
        r.escalate, r.escalated, r.repeats,
        extract(epoch FROM r.created_at)::float8 * 1000 AS "startMs", extract(epoch FROM r.expires_at)::float8 * 1000 AS "expiresMs",
        extract(epoch FROM r.next_repeat_at)::float8 * 1000 AS "nextRepeatMs", extract(epoch FROM now())::float8 * 1000 AS "nowMs"
      FROM receipts r WHERE r.status = 'pending' AND r.next_push_at <= now()
      ORDER BY r.next_push_at LIMIT ${limit}
      FOR UPDATE SKIP LOCKED`
    if (!due.length) return { claimed: 0, queued: 0 }
    const expired = due.filter((r) => r.nowMs >= r.expiresMs)
    if (expired.length) await expireReceipts(tx, expired.map((r) => r.id))
    const live = due.filter((r) => r.nowMs < r.expiresMs)
    const queued = live.length ? await fire(tx, live, pushable) : 0
    return { claimed: due.length, queued }
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

/** Queues the pushes of the due repeats and escalation steps, and moves each receipt's timer on; answers the pushes queued. */
async function fire(tx: Tx, due: Due[], pushable: (d: PushTarget) => boolean): Promise<number> {
  const first = await firstPushes(tx, due)
  const audiences = new Map<string, Promise<string[]>>()
  const audience = (ws: string, channel: string) => {
    const k = `${ws}/${channel}`
    let a = audiences.get(k)
    if (!a) audiences.set(k, (a = findPushTargets(tx, Number(ws), channel).then((list) => list.filter(pushable).map((d) => d.id))))
    return a
  }
  const pushes: { id: string; eventId: string; eventAt: string; workspaceId: string; device: string; repeat: number }[] = []
  const fired: Fired[] = []
  for (const r of due) {
    const repeatDue = r.nextRepeatMs <= r.nowMs
    const newSteps = r.escalate.filter((s) => !r.escalated.includes(s.channel) && r.startMs + s.after * 1000 <= r.nowMs)
    const escalated = [...r.escalated, ...newSteps.map((s) => s.channel)]
    const before = new Set<string>(first.get(r.eventId) ?? [])
    for (const c of r.escalated) for (const d of await audience(r.workspaceId, c)) before.add(d)
    // A repeat goes to everyone; a step due between repeats to its channel's members not pushed already.
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
    fired.push({ id: r.id, repeats: n, nextRepeatMs, nextPushMs: Math.min(nextRepeatMs, r.expiresMs, ...steps), escalated, pushed: devices.size > 0 })
  }
  await queuePushes(tx, pushes)
  await tx`
    UPDATE receipts r SET repeats = u.repeats, escalated = ARRAY(SELECT jsonb_array_elements_text(u.escalated)),
      next_repeat_at = to_timestamp(u.next_repeat / 1000.0), next_push_at = to_timestamp(u.next_push / 1000.0),
      last_push_at = CASE WHEN u.pushed THEN now() ELSE r.last_push_at END
    FROM json_to_recordset(${JSON.stringify(fired.map((f) => ({ id: f.id, repeats: f.repeats, escalated: f.escalated, next_repeat: f.nextRepeatMs, next_push: f.nextPushMs, pushed: f.pushed })))}::text::json)
      AS u(id uuid, repeats int, escalated jsonb, next_repeat float8, next_push float8, pushed bool)
    WHERE r.id = u.id`
  return pushes.length
}

/** The devices each event's first pushes went to (its push deliveries of repeat 0). */
async function firstPushes(tx: Tx, due: Due[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  if (!due.length) return out
  const rows = await tx<{ eventId: string; target: string }[]>`
    SELECT d.event_id AS "eventId", d.target FROM unnest(${due.map((r) => r.eventId)}::uuid[], ${due.map((r) => new Date(r.eventAt).toISOString())}::timestamptz[]) AS x(event_id, event_at)
    JOIN deliveries d ON d.event_id = x.event_id AND d.event_at = x.event_at AND d.kind = 'push' AND d.repeat = 0`
  for (const r of rows) {
    const list = out.get(r.eventId)
    if (list) list.push(r.target)
    else out.set(r.eventId, [r.target])
  }
  return out
}

/**
 * Writes the repeats' push deliveries as pending rows, due now; a row that
 * exists (the same repeat queued twice) is kept. An earlier repeat of the
 * same device still waiting for a retry ends `cancelled`: this one rings in
 * its place, and a phone that was away does not get every missed repeat at
 * once when it is back.
 */
async function queuePushes(tx: Tx, pushes: { id: string; eventId: string; eventAt: string; workspaceId: string; device: string; repeat: number }[]) {
  if (!pushes.length) return
  await tx`
    UPDATE deliveries d SET status = 'cancelled', last_error = 'not sent: repeat ' || p.repeat || ' went in its place', updated_at = now()
    FROM json_to_recordset(${JSON.stringify(pushes.map((p) => ({ event_id: p.eventId, event_at: p.eventAt, device: p.device, repeat: p.repeat })))}::text::json)
      AS p(event_id uuid, event_at timestamptz, device text, repeat int)
    WHERE d.event_id = p.event_id AND d.event_at = p.event_at AND d.kind = 'push' AND d.target = p.device
      AND d.repeat > 0 AND d.repeat < p.repeat AND d.status = 'pending'`
  await tx`
    INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, target, repeat, status, attempts, next_attempt_at)
    SELECT p.id, p.event_id, p.event_at, p.ws, 'push', p.device, p.repeat, 'pending', 0, now()
    FROM json_to_recordset(${JSON.stringify(pushes.map((p) => ({ id: p.id, event_id: p.eventId, event_at: p.eventAt, ws: p.workspaceId, device: p.device, repeat: p.repeat })))}::text::json)
      AS p(id uuid, event_id uuid, event_at timestamptz, ws bigint, device text, repeat int)
    ON CONFLICT DO NOTHING`
}
