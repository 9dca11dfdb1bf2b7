// The delivery worker: turns events from the bus into deliveries and runs
// them. For a batch of events it gathers the routers of their workspaces and
// the devices of their channels (cached), cuts the batch into chunks
// (chunks.ts) and hands each to the pool, where one task matches, renders and
// sends every first attempt, and then writes each delivery's row with the
// outcome of that attempt in one statement (persist.ts). Only then may the
// bus forget the events: a worker that dies before has its events
// redelivered, and the same deliveries are made again under the same ids
// (workers/send.ts derives them from event and target), which receivers
// deduplicate. A scheduler (scheduler.ts) takes due retries and replays from
// PostgreSQL. Work waits for room (backpressure.ts); a second copy of an event
// under way waits for the first (inflight.ts).
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import type { SecretBox } from '../core/secrets'
import { eventKeyOf, type EventBus, type Incoming } from './bus'
import type { Changes } from '../core/changes'
import { channelKey, parseChannelKey, type ChannelKey } from '../core/channel_key'
import type { Pool } from './pool'
import type { RouterSpec, SendConfig, Sent } from './job'
import type { PushTarget } from './push/job'
import { clearOwed, existingDeliveryIds, insertDeliveries } from './deliveries'
import { ledgerMasks } from './relay'
import { attemptRecorder, pushTargetCache, routerCache } from './worker_state'
import { circuitBoard } from './circuit'
import { parkedRouters, routerHealthWriter } from './health'
import { deliveryId } from './send_task'
import { deliveryHeld, deliveryTtlExpired, pushesSuppressed } from './metrics'
import { expiredError, isExpired } from './expiry'
import type { FirstAttempt } from './deliveries'
import type { EventView } from './event_view'
import { withPushTokens } from './push/tokens'
import { createWorkRoom, type WorkRoom } from './backpressure'
import { decide, pushableOnly, type Audience } from './audience'
import { chunkBatch, type Chunk } from './chunks'
import { createInFlight } from './inflight'
import { attemptOutcomes, type AttemptOutcome } from './outcome'
import { persist } from './persist'
import { startScheduler, type Dispatch } from './scheduler'
import { startReceiptTimer } from './receipt_timer'
import { startDigestTimer } from './digest_timer'
import { windowedOf } from './windowed'
import { startDismissals } from './push/dismiss'

// While announcements may not reach this process (no NATS, or NATS away), a
// workspace's routers are trusted this long, and who is pushed for a channel
// this long: a change made through another process takes effect within it.
const ROUTERS_FALLBACK_MS = 5_000
const AUDIENCE_FALLBACK_MS = 60_000

export interface FanoutOptions {
  schedule: number[] // HERALD_RETRY_SCHEDULE, parsed (retry.ts)
  room: number // units of work under way at most (backpressure.ts workRoom)
  leaseMs: number // a retry taken by a worker that then died is taken again after this
  trialMs: number // a parked router's trial is the only one for this long (the circuits' longest open period)
  schedulerIntervalMs: number
  cacheMaxAgeMs: number // CACHE_MAX_AGE_MS: routers and audiences, while every change is announced here
  cacheMax: number // WORKER_CACHE_MAX: workspaces' routers and channels' audiences kept
}

/** What a chunk's first attempts need besides the chunk. */
interface FirstAttemptDeps {
  sql: Sql
  log: Logger
  room: WorkRoom
  devices: ReturnType<typeof pushTargetCache>
  dispatch: Dispatch
  outcome: AttemptOutcome
}

/** `send`: the send configuration (send_config.ts), made once at boot. */
export function createFanout(sql: Sql, bus: EventBus, changes: Pick<Changes, 'onChange'>, pool: Pool, secrets: SecretBox, send: SendConfig, log: Logger, opts: FanoutOptions) {
  const age = { maxAgeMs: opts.cacheMaxAgeMs, max: opts.cacheMax, announced: () => bus.announcesEverywhere() }
  const routers = routerCache(sql, secrets, { ...age, fallbackMs: ROUTERS_FALLBACK_MS })
  const devices = pushTargetCache(sql, { ...age, fallbackMs: AUDIENCE_FALLBACK_MS })
  changes.onChange((c) => {
    if (c.kind === 'routers') routers.forget(c.workspaceId)
    else if (c.kind === 'audience') devices.clear()
    else if (c.kind === 'everything') {
      routers.clear()
      devices.clear()
    }
  })
  const recorder = attemptRecorder(sql, log)
  const circuits = circuitBoard()
  const room = createWorkRoom(opts.room)
  const pushable = (d: PushTarget) => (d.provider === 'apns' ? !!send.apns : d.provider === 'fcm' ? !!send.fcm : !!send.webpush)
  const dispatch: Dispatch = async (task, providers) => pool.send({ ...task, config: await withPushTokens(send, providers) })
  const health = routerHealthWriter(sql, log)
  const outcome = attemptOutcomes(opts.schedule, circuits, health, log)
  const first: FirstAttemptDeps = { sql, log, room, devices, dispatch, outcome }
  const parked = parkedRouters(sql, log)

  /** The first attempts of a batch, then their rows. Throws (the bus redelivers) when the rows cannot be written. */
  async function fanOut(batch: Incoming[]) {
    const targets = await targetsOf(batch, routers, devices, pushable)
    const { routersOf, held } = holdParked(targets.routersOf, await parked())
    // Throttled and digest routers' deliveries: admitted or gathered here, not sent by the pool (windowed.ts).
    const windows = windowedOf(routersOf, viewOf)
    const again = batch.filter((e) => e.redelivered).map((e) => e.eventId)
    const skip = again.length ? await existingDeliveryIds(sql, again) : []
    const chunks = chunkBatch(batch, windows.routersOf, targets.byChannel, targets.only)
    // Before the ledger is cleared (recordChunks): a redelivered event makes them again, as the same rows.
    const unsent = held.length ? (targets.suppressed.length ? [...held, ...targets.suppressed] : held) : targets.suppressed
    if (unsent.length) await persist(() => insertDeliveries(sql, unsent), unsent.length, log)
    // Events that have nothing else to record (no chunk: all their routers
    // windowed, or nothing matched) are cleared from the ledger in the
    // windows' transaction: one commit per batch rather than two.
    let cleared: Set<Incoming> | undefined
    if (windows.pending()) {
      const inChunk = new Set(chunks.flatMap((c) => c.events))
      cleared = new Set(batch.filter((e) => !inChunk.has(e)))
      // The digest timer is not woken: a window opened here ends at least
      // 10 s on (the shortest window), after its next look (intervalMs). A
      // look per batch was two statements per batch, for nothing.
      if (await windows.record(sql, log, ledgerOf([...cleared]))) scheduler.wake()
    }
    await recordChunks(first, batch, chunks, skip, cleared)
  }

  const inFlight = createInFlight(fanOut)
  const scheduler = startScheduler({ sql, log, room, routers, devices, recorder, pushable, dispatch, outcome, leaseMs: opts.leaseMs, trialMs: opts.trialMs, intervalMs: opts.schedulerIntervalMs })
  // Receipts' repeats: queued as push deliveries leased to this process, which its scheduler sends at once.
  const receiptTimer = startReceiptTimer({ sql, log, pushable, send: scheduler.send, leaseMs: opts.leaseMs, intervalMs: opts.schedulerIntervalMs })
  // Digest windows' ends (rows in PostgreSQL): their digests are queued due now, for the scheduler.
  const digestTimer = startDigestTimer({ sql, log, fired: () => scheduler.wake(), intervalMs: opts.schedulerIntervalMs })
  // Notifications read on another device: closed on the member's browsers (best effort).
  const dismissals = startDismissals({ sql, log, webpush: send.webpush, outbound: send.outbound, intervalMs: opts.schedulerIntervalMs })
  changes.onChange((c) => c.kind === 'read' && dismissals.wake())
  let stopped = false

  return {
    /** The bus handler: resolves once the events' deliveries are made and recorded (then the bus may forget them). */
    async accept(batch: Incoming[]) {
      if (stopped) throw new Error('this worker is stopping; another takes the events')
      await inFlight.accept(batch)
    },
    /** Work units under way or reserved (see backpressure.ts), for metrics. */
    inFlight: () => room.busy(),
    /** The circuits of this pool's threads, for metrics. */
    circuits: circuits.summary,
    /** Looks for due deliveries now (after a replay) rather than at the next interval. */
    wake: () => scheduler.wake(),
    /** Waits (up to `ms`) for the deliveries under way and writes their outcomes. */
    async stop(ms: number) {
      stopped = true
      await receiptTimer.stop()
      await digestTimer.stop()
      await dismissals.stop()
      const ended = scheduler.stop()
      const settled = Promise.allSettled([...inFlight.underWay(), ...scheduler.underWay()])
      await Promise.race([settled, Bun.sleep(ms)])
      await ended
      await Promise.race([Promise.all([recorder.flush(), health.flush()]), Bun.sleep(Math.max(ms, 1000))])
    },
  }
}
export type Fanout = ReturnType<typeof createFanout>

/**
 * The routers each event of a batch matches (looked up in its workspace's
 * index, not tested one by one), and the devices of its channels this
 * process can push to.
 */
async function targetsOf(batch: Incoming[], routers: ReturnType<typeof routerCache>, devices: ReturnType<typeof pushTargetCache>, pushable: (d: PushTarget) => boolean) {
  const wsIds = [...new Set(batch.map((e) => e.workspaceId))]
  const channelKeys = [...new Set(batch.map((e) => channelKey(e.workspaceId, e.channel)))]
  const [routerSets, deviceLists] = await Promise.all([
    Promise.all(wsIds.map((ws) => routers.get(ws))),
    Promise.all(channelKeys.map((k) => parseChannelKey(k)).map(({ ws, channel }) => devices.get(ws, channel))),
  ])
  const setOf = new Map(wsIds.map((ws, i) => [ws, routerSets[i]!]))
  const routersOf = (e: Incoming): RouterSpec[] => {
    const set = setOf.get(e.workspaceId)!
    return set.records.length ? atPriority(set.match(eventKeyOf(e)), e) : []
  }
  const byChannel: Record<ChannelKey, PushTarget[]> = {}
  const audiences = new Map<ChannelKey, Audience>()
  channelKeys.forEach((k, i) => {
    const a = pushableOnly(deviceLists[i]!, pushable)
    if (!a.devices.length) return
    byChannel[k] = a.devices
    audiences.set(k, a)
  })
  return { routersOf, byChannel, ...pushesOf(batch, audiences) }
}

/**
 * Each event's push decision (audience.ts), for the events that need one: of
 * a channel where some member's preference can hold a push back, or naming
 * recipients. Every other event is pushed to all its channel's devices, and
 * its view is not read here. Answers the devices of the events decided, and
 * the rows of the pushes held back: `suppressed`, with the reason, no attempt.
 */
function pushesOf(batch: Incoming[], audiences: Map<ChannelKey, Audience>) {
  const only = new Map<Incoming, PushTarget[]>()
  const suppressed: FirstAttempt[] = []
  if (!audiences.size) return { only, suppressed }
  const now = Date.now()
  for (const e of batch) {
    const a = audiences.get(channelKey(e.workspaceId, e.channel))
    if (!a) continue
    const to = recipientsOf(e)
    if (a.plain && !to) continue
    const decided = decide(a, { channel: e.channel, priority: viewOf(e).priority ?? 3, to }, now)
    only.set(e, decided.push)
    for (const s of decided.suppressed) {
      pushesSuppressed(s.reason)
      suppressed.push({
        deliveryId: deliveryId(e.eventId, 'push', s.device.id), eventId: e.eventId, workspaceId: e.workspaceId, kind: 'push', target: s.device.id,
        attempt: 1, startedAt: new Date(now), durationMs: 0, ok: false, next: 'suppressed', delayMs: 0, error: s.why,
      })
    }
  }
  return { only, suppressed }
}

/**
 * An event's recipients (`to`), or null. A view still in its JSON text is
 * parsed only when the text may name some: JSON.stringify writes `"to":[`
 * for a list, `"to":null` otherwise (a key of `data` spelled so only costs
 * the parse).
 */
function recipientsOf(e: Incoming): string[] | null {
  if (typeof e.view === 'string' && !e.view.includes('"to":[')) return null
  return viewOf(e).to ?? null
}

// The views of incoming events read here (a JetStream message carries its
// view as text, which the pool's thread parses): only an event that a router
// with a minPriority matched, one held for a parked router, or one whose
// pushes a preference or its recipients decide (pushesOf), is read.
const parsed = new WeakMap<Incoming, EventView>()
function viewOf(e: Incoming): EventView {
  if (typeof e.view !== 'string') return e.view
  let view = parsed.get(e)
  if (!view) parsed.set(e, (view = JSON.parse(e.view) as EventView))
  return view
}

/** The routers whose minPriority the event's priority reaches (an event without one is 3). */
function atPriority(routers: RouterSpec[], e: Incoming): RouterSpec[] {
  if (!routers.some((r) => (r.minPriority ?? 1) > 1)) return routers
  const priority = viewOf(e).priority ?? 3
  return routers.filter((r) => (r.minPriority ?? 1) <= priority)
}

/**
 * Takes the routers parked in PostgreSQL (health.ts) out of the batch's
 * targets: their first attempts are held here, as pending rows due when the
 * router's open period ends, with no attempt, as a thread's circuit would
 * hold them, but without a trip through the pool. One whose event already
 * outlived its ttl is not held: it ends `expired` at once.
 */
function holdParked(routersOf: (e: Incoming) => RouterSpec[], parked: Map<string, number>) {
  const held: FirstAttempt[] = []
  if (!parked.size) return { routersOf, held }
  const now = Date.now()
  return {
    held,
    routersOf(e: Incoming): RouterSpec[] {
      const all = routersOf(e)
      const keep = all.filter((r) => !parked.has(r.id))
      if (keep.length === all.length) return all
      for (const r of all) {
        const until = parked.get(r.id)
        if (until === undefined) continue
        const row = { deliveryId: deliveryId(e.eventId, 'router', r.id), eventId: e.eventId, workspaceId: e.workspaceId, kind: 'router' as const, target: r.id, attempt: 1, startedAt: new Date(now), durationMs: 0, ok: false }
        if (isExpired(viewOf(e), now)) {
          deliveryTtlExpired(r.destination.type)
          held.push({ ...row, next: 'expired', delayMs: 0, error: expiredError(viewOf(e)) })
          continue
        }
        deliveryHeld(r.destination.type, 'circuit_open')
        held.push({ ...row, next: 'pending', delayMs: Math.max(0, until - now), held: true })
      }
      return keep
    },
  }
}

/** The ledger bits of events whose fan-out is recorded (the relay deletes the rows it completes). */
const ledgerOf = (events: Incoming[]) => ledgerMasks(events.flatMap((e) => (e.outbox ? [e.outbox] : [])))

/**
 * Runs every chunk of a batch and records it. The ledger: an event in one
 * chunk is cleared by the statement that records that chunk's deliveries;
 * one in none (nothing to deliver) or in several (a large channel) once
 * every chunk is recorded.
 */
async function recordChunks(deps: FirstAttemptDeps, batch: Incoming[], chunks: Chunk[], skip: string[], cleared?: Set<Incoming>) {
  const chunksOf = new Map<Incoming, number>()
  for (const chunk of chunks) for (const e of chunk.events) chunksOf.set(e, (chunksOf.get(e) ?? 0) + 1)
  await Promise.all(chunks.map((chunk) => runChunk(deps, chunk, skip, chunk.events.filter((e) => chunksOf.get(e) === 1))))
  const rest = batch.filter((e) => chunksOf.get(e) !== 1 && !cleared?.has(e))
  if (rest.length) await persist(() => clearOwed(deps.sql, ledgerOf(rest)), rest.length, deps.log)
}

/** Sends one chunk's first attempts through the pool, then writes their rows (clearing the ledger of `recorded`). */
async function runChunk(deps: FirstAttemptDeps, chunk: Chunk, skip: string[], recorded: Incoming[]) {
  const { room, sql } = deps
  await room.reserve(chunk.units)
  let sent: Sent[]
  try {
    const providers = new Set([...Object.values(chunk.devices), ...Object.values(chunk.only ?? {})].flatMap((list) => list.map((d) => d.provider)))
    const match = { workspace: chunk.events.map((e) => e.workspaceId), routers: chunk.routers, devices: chunk.devices, only: chunk.only, skip }
    sent = await deps.dispatch({ events: chunk.events.map((e) => e.view), match }, providers)
  } finally {
    room.release(chunk.units)
  }
  const rows = sent.map((s) => {
    const e = chunk.events[s.event]!
    return { ...deps.outcome(s, e.eventId), eventId: e.eventId, workspaceId: e.workspaceId, kind: s.kind, target: s.target }
  })
  const ledger = ledgerOf(recorded)
  await persist(() => insertDeliveries(sql, rows, ledger), rows.length, deps.log)
  // The rows just written deleted the devices APNs or FCM disowned: look
  // the channels up afresh rather than push them again from the cache.
  if (rows.some((r) => r.unregisteredDevice)) deps.devices.clear()
}
