// The retry scheduler: every interval (or when woken after a replay) it
// takes the due deliveries from PostgreSQL (retries, replays, and those of
// workers that died), as many as the fan-out has room for, plans their
// attempts, sends them through the pool and records the outcomes. A claim is
// a lease: what a dead worker took is taken again once it runs out.
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import type { EventView } from './event_view'
import type { Planned, SendTask, Sent } from './job'
import type { PushTarget } from './push/job'
import type { WorkRoom } from './backpressure'
import type { attemptRecorder, pushTargetCache, routerCache } from './worker_state'
import { claimDueDeliveries, type ClaimedWithEvent } from './deliveries'
import { findDevices } from './push/devices'
import { routerSpec } from './routers'
import { deliveryLog, type AttemptOutcome } from './outcome'
import { CHUNK } from './chunks'
import { readEventReceipt } from './receipts'
import { readDigest } from './digest'

/** Runs a task in the pool, with the push tokens its `providers` need (push/tokens.ts). */
export type Dispatch = (task: Omit<SendTask, 'config'>, providers: ReadonlySet<string>) => Promise<Sent[]>

export interface SchedulerDeps {
  sql: Sql
  log: Logger
  room: WorkRoom
  routers: ReturnType<typeof routerCache>
  devices: ReturnType<typeof pushTargetCache>
  recorder: ReturnType<typeof attemptRecorder>
  /** Whether this process pushes to the device's provider (its credentials are configured). */
  pushable: (d: PushTarget) => boolean
  dispatch: Dispatch
  outcome: AttemptOutcome
  leaseMs: number
  trialMs: number // a parked router's trial: no other for this long (the longest open period of a circuit)
  intervalMs: number
}

/** Runs until stop(): wake() looks now, underWay() lists the batches of retries in the pool. */
export function startScheduler(deps: SchedulerDeps) {
  const { log, intervalMs } = deps
  const retrying = new Set<Promise<void>>()
  let stopped = false
  let wake: (() => void) | null = null
  // A wake during a look (a digest fired, a replay) looks again at once:
  // what it announced may have committed after the look's claim.
  let woken = false
  const loop = (async () => {
    while (!stopped) {
      woken = false
      const full = await sweep(deps, retrying).catch((err) => (log.warn({ err }, 'delivery scheduler: could not claim due deliveries'), false))
      // A full claim means more are due: claim again at once while there is
      // room, rather than one claim per interval (which is how far behind a
      // backlog of overdue retries fell). Room runs out as the sends go on.
      if ((full || woken) && !stopped) continue
      await new Promise<void>((res) => {
        const t = setTimeout(res, intervalMs)
        wake = () => (clearTimeout(t), res())
      })
      wake = null
    }
  })()
  return {
    wake: () => {
      woken = true
      wake?.()
    },
    /** Sends deliveries this process already holds the lease of (a receipt's repeats, leased as they were queued). */
    send: (due: ClaimedWithEvent[]) => sendLeased(deps, retrying, due, true),
    underWay: (): Promise<void>[] => [...retrying],
    /** Claims no more; resolves once the loop has ended (the retries under way go on). */
    stop(): Promise<void> {
      stopped = true
      wake?.()
      return loop
    },
  }
}

/** Takes due deliveries while there is room, and hands their attempts to the pool; true when it took as many as it asked for. */
async function sweep(deps: SchedulerDeps, retrying: Set<Promise<void>>): Promise<boolean> {
  const free = deps.room.free()
  if (free <= 0) return false
  const want = Math.min(free, CHUNK)
  const due = await claimDueDeliveries(deps.sql, want, deps.leaseMs, deps.trialMs)
  await sendLeased(deps, retrying, due, false)
  return due.length === want
}

/**
 * Plans the attempts of deliveries this process holds the lease of, sends
 * them through the pool and records the outcomes. `wait`: wait for room
 * (deliveries leased elsewhere than by a claim: a receipt's repeats) rather
 * than take it (a claim asked for no more than the room had).
 */
async function sendLeased(deps: SchedulerDeps, retrying: Set<Promise<void>>, due: ClaimedWithEvent[], wait: boolean): Promise<void> {
  const { room, log, recorder, devices } = deps
  const views: EventView[] = []
  const index = new Map<string, number>()
  const planned: Planned[] = []
  // The devices of the claim's pushes in one look-up, not one per push (a
  // round of receipt repeats claims hundreds at once).
  const pushIds = [...new Set(due.filter((d) => d.kind === 'push').map((d) => d.target))]
  const devicesById = new Map((pushIds.length ? await findDevices(deps.sql, pushIds) : []).map((d) => [d.id, d]))
  // Planned side by side: a digest's plan reads its events (up to 1,000), and a claim of them waited on each in turn.
  for (const p of await Promise.all(due.map((d) => planRetry(deps, d, views, index, devicesById)))) if (p) planned.push(p)
  if (!planned.length) return
  if (wait) await room.reserve(planned.length)
  else room.take(planned.length)
  const providers = new Set(planned.flatMap((p) => (p.device ? [p.device.provider] : [])))
  const task = deps.dispatch({ events: views, planned }, providers)
    .then((sent) => {
      for (const s of sent) recorder.add(deps.outcome(s, views[s.event]!.eventId, true))
      if (sent.some((s) => s.result.unregistered)) devices.clear()
    })
    // Still leased: taken again once the lease runs out.
    .catch((err) => log.error({ err, deliveryIds: planned.map((p) => p.id) }, 'retries failed in the pool'))
    .finally(() => {
      room.release(planned.length)
      retrying.delete(task)
    })
  retrying.add(task)
}

/** Plans the attempt of a due delivery, or records (and logs) why it cannot be made. */
async function planRetry(deps: SchedulerDeps, d: ClaimedWithEvent, views: EventView[], index: Map<string, number>, devicesById: Map<string, PushTarget>): Promise<Planned | null> {
  const attempt = d.attempts + 1
  const fail = (reason: string) => {
    deliveryLog(deps.log, { id: d.id, attempt, kind: d.kind, target: d.target, eventId: d.eventId }).info({ error: reason, next: 'failed' }, 'delivery attempt failed')
    deps.recorder.add({ deliveryId: d.id, attempt, startedAt: new Date(), durationMs: 0, ok: false, error: reason, next: 'failed', delayMs: 0 })
    return null
  }
  if (!d.event) return fail('the event no longer exists')
  let target: Pick<Planned, 'router' | 'device' | 'receipt' | 'digest'>
  if (d.kind === 'router' || d.kind === 'receipt' || d.kind === 'digest') {
    const router = (await deps.routers.get(d.workspaceId)).byId.get(d.target)
    if (!router) return fail('the router was deleted or disabled')
    target = { router: routerSpec(router) }
    if (d.kind === 'receipt') {
      const receipt = await readEventReceipt(deps.sql, d.eventId)
      if (!receipt || receipt.status === 'pending') return fail('the receipt no longer exists')
      target.receipt = { type: `receipt.${receipt.status}`, data: { ...receipt } }
    }
    if (d.kind === 'digest') {
      // Its gathered events, read afresh on every attempt (a replay sends the same digest).
      const digest = await readDigest(deps.sql, d.id)
      if (!digest || !digest.events.length) return fail('the digest\'s events no longer exist')
      target.digest = digest
    }
  } else {
    const device = devicesById.get(d.target)
    if (!device) return fail('the device was removed')
    if (!deps.pushable(device)) return fail(`${device.provider} is not configured`)
    target = { device }
  }
  let i = index.get(d.eventId)
  if (i === undefined) index.set(d.eventId, (i = views.push(d.event) - 1))
  return { id: d.id, event: i, kind: d.kind, target: d.target, attempt, ...target }
}
