// The delivery worker: turns events from the bus into deliveries and runs
// them. For a batch of events it gathers the routers of their workspaces and
// the devices of their channels (cached), hands the batch to the pool, where
// one task matches, renders and sends every first attempt, and then writes
// each delivery's row with the outcome of that attempt in one statement. Only
// then may the bus forget the events: a worker that dies before has its events
// redelivered, and the same deliveries are made again under the same ids
// (workers/send.ts derives them from event and target), which receivers
// deduplicate. A scheduler takes due retries and replays from PostgreSQL.
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import type { Config } from '../core/config'
import type { SecretBox } from '../core/secrets'
import type { EventBus, Incoming } from './bus'
import type { Pool } from './pool'
import type { PushConfig } from './push/config'
import type { RouterSpec, SendConfig } from './job'
import type { EventView } from './event_view'
import type { PushTarget } from './push/job'
import type { Planned, Sent } from '../../workers/send'
import type { RouterRecord } from './routers'
import { claimDueDeliveries, clearOwed, existingDeliveryIds, insertDeliveries, type AttemptRecord, type ClaimedWithEvent } from './deliveries'
import { ledgerMasks } from './relay'
import { findDevice } from './push/devices'
import { nextStep, parseSchedule } from './retry'
import { attemptRecorder, pushTargetCache, routerCache } from './worker_state'
import { deliveryAttempted, deliveryHeld } from './metrics'
import { signedProviderToken } from './push/apns'
import { sharedAccessToken } from './push/fcm'

// Who is pushed for a channel is cached this long; the API announces every
// change of members, devices and mutes, so this only bounds a lost announcement.
const AUDIENCE_TTL_MS = 60_000
// Deliveries per pool task at most (see split).
const CHUNK = 500

/** The units of work (see reserve) the fan-out hands the pool at most, for WORKER_CONCURRENCY `concurrency`. */
export const workRoom = (concurrency: number) => Math.max(concurrency * 2, CHUNK * 4)

/** A pool task's share of a batch: its events, and the routers and devices they may go to. */
interface Part {
  events: Incoming[]
  routers: Record<string, RouterSpec[]>
  devices: Record<string, PushTarget[]>
  units: number
}

export interface FanoutOptions {
  leaseMs: number // a retry taken by a worker that then died is taken again after this
  schedulerIntervalMs: number
  routerCacheMs: number
}

const spec = (r: RouterRecord): RouterSpec => ({
  id: r.id, name: r.name, pattern: r.pattern, destination: r.destination, signingSecret: r.signingSecret, ...(r.template ? { template: r.template } : {}),
})

export function createFanout(sql: Sql, bus: EventBus, pool: Pool, secrets: SecretBox, config: Config, push: PushConfig, log: Logger, opts: FanoutOptions) {
  const schedule = parseSchedule(config.HERALD_RETRY_SCHEDULE)
  const sendConfig: SendConfig = {
    maxInFlight: Math.max(1, Math.ceil(config.WORKER_CONCURRENCY / config.WORKER_THREADS)),
    circuit: {
      maxInFlight: Math.max(1, Math.ceil(config.DESTINATION_CONCURRENCY / config.WORKER_THREADS)),
      failures: config.CIRCUIT_FAILURES,
      cooldownMs: config.CIRCUIT_COOLDOWN_MS,
      maxCooldownMs: config.CIRCUIT_COOLDOWN_MAX_MS,
      waitMs: Math.min(2000, config.DELIVERY_TIMEOUT_MS),
    },
    outbound: {
      allow: config.HERALD_OUTBOUND_ALLOW.split(',').map((s) => s.trim()).filter(Boolean),
      timeoutMs: config.DELIVERY_TIMEOUT_MS,
      maxResponseBytes: 64 * 1024,
    },
    endpoints: { telegram: config.TELEGRAM_API_URL, twilio: config.TWILIO_API_URL, smtpUrl: config.SMTP_URL, smtpFrom: config.SMTP_FROM },
    apns: push.apns,
    fcm: push.fcm,
    webpush: push.webpush,
  }
  // The APNs provider token and the FCM access token are had here, once for
  // the process, and go to the pool's threads with each task: one token of
  // each, however many threads push. A key that cannot sign, or a token
  // endpoint that fails, is reported by each push (the threads try too).
  async function withTokens(c: SendConfig, providers: Set<string>): Promise<SendConfig> {
    let apns = c.apns
    let fcm = c.fcm
    if (apns && providers.has('apns')) {
      try {
        apns = { ...apns, shared: signedProviderToken(apns) }
      } catch {}
    }
    if (fcm && providers.has('fcm')) {
      const shared = await sharedAccessToken(fcm)
      if (shared) fcm = { ...fcm, shared }
    }
    return apns === c.apns && fcm === c.fcm ? c : { ...c, apns, fcm }
  }
  const routers = routerCache(sql, secrets, opts.routerCacheMs)
  const devices = pushTargetCache(sql, AUDIENCE_TTL_MS)
  bus.onChange((c) => {
    if (c.kind === 'routers') routers.forget(c.workspaceId)
    else if (c.kind === 'audience') devices.clear()
  })
  const recorder = attemptRecorder(sql, log)
  const pushable = (d: PushTarget) => (d.provider === 'apns' ? !!push.apns : d.provider === 'fcm' ? !!push.fcm : !!push.webpush)

  // Backpressure. Work is counted in units of one event plus one per device
  // it pushes (routers are few, devices can be thousands); past twice
  // WORKER_CONCURRENCY units (and at least four full tasks, so that a large
  // channel keeps every thread busy), new work waits, and so does the bus:
  // JetStream keeps its events unacknowledged, the in-process relay its rows.
  // The pool's threads themselves send at most WORKER_CONCURRENCY at once.
  const room = workRoom(config.WORKER_CONCURRENCY)
  let busy = 0
  const waiting: (() => void)[] = []
  async function reserve(units: number) {
    while (busy > 0 && busy + units > room) await new Promise<void>((res) => waiting.push(res))
    busy += units
  }
  function release(units: number) {
    busy -= units
    for (const f of waiting.splice(0)) f()
  }

  /** What attempt `s` leaves its delivery in, per the retry schedule. */
  function outcome(s: Sent): AttemptRecord {
    const r = s.result
    const next = nextStep(schedule, s.attempt, r)
    if (r.held) deliveryHeld(s.destination, r.held) // not sent: not an attempt, no row (see holdDeliveries)
    else deliveryAttempted(s.destination, next.status, r.durationMs)
    const error = r.error ?? r.reason
    if (!r.ok && !r.held) log.info({ deliveryId: s.id, attempt: s.attempt, kind: s.kind, status: r.status, error, durationMs: r.durationMs, next: next.status }, 'delivery attempt failed')
    return {
      deliveryId: s.id, attempt: s.attempt, startedAt: new Date(s.startedAt), durationMs: r.durationMs, ok: r.ok,
      status: r.status, error, response: r.response, next: next.status, delayMs: next.status === 'pending' ? next.delayMs : 0,
      unregisteredDevice: s.kind === 'push' && r.unregistered ? s.target : undefined, held: !!r.held,
    }
  }

  /** The first attempts of a batch, then their rows. Throws (the bus redelivers) when the rows cannot be written. */
  async function fanOut(batch: Incoming[]) {
    const wsIds = [...new Set(batch.map((e) => e.workspaceId))]
    const channelKeys = [...new Set(batch.map((e) => `${e.workspaceId}/${e.channel}`))]
    const [routerLists, deviceLists] = await Promise.all([
      Promise.all(wsIds.map((ws) => routers.get(ws))),
      Promise.all(channelKeys.map((k) => devices.get(Number(k.slice(0, k.indexOf('/'))), k.slice(k.indexOf('/') + 1)))),
    ])
    const byWs: Record<string, RouterSpec[]> = {}
    wsIds.forEach((ws, i) => routerLists[i]!.length && (byWs[ws] = routerLists[i]!.map(spec)))
    const byChannel: Record<string, PushTarget[]> = {}
    channelKeys.forEach((k, i) => {
      const list = deviceLists[i]!.filter(pushable)
      if (list.length) byChannel[k] = list
    })
    const again = batch.filter((e) => e.redelivered).map((e) => e.eventId)
    const skip = again.length ? await existingDeliveryIds(sql, again) : []
    const parts = split(batch, byWs, byChannel)
    // The ledger: an event in one part is cleared by the statement that
    // records that part's deliveries; one in none (nothing to deliver) or in
    // several (a large channel) once every part is recorded.
    const partsOf = new Map<Incoming, number>()
    for (const part of parts) for (const e of part.events) partsOf.set(e, (partsOf.get(e) ?? 0) + 1)
    await Promise.all(parts.map((part) => run(part, skip, part.events.filter((e) => partsOf.get(e) === 1))))
    const rest = batch.filter((e) => partsOf.get(e) !== 1)
    if (rest.length) await persist(() => clearOwed(sql, ledgerOf(rest)), rest.length)
  }

  /** The ledger bits of events whose fan-out is recorded (the relay deletes the rows it completes). */
  const ledgerOf = (events: Incoming[]) => ledgerMasks(events.flatMap((e) => (e.outbox ? [e.outbox] : [])))

  /**
   * Batches of at most CHUNK deliveries (routers count as one, devices one
   * each): events share a task while they fit, and an event whose channel has
   * more devices is cut into several tasks, so that a large channel is spread
   * over the pool's threads and recorded as it goes.
   */
  function split(batch: Incoming[], byWs: Record<string, RouterSpec[]>, byChannel: Record<string, PushTarget[]>): Part[] {
    const parts: Part[] = []
    let open: Part | null = null
    for (const e of batch) {
      const key = `${e.workspaceId}/${e.channel}`
      const routerList = byWs[e.workspaceId]
      const deviceList = byChannel[key] ?? []
      if (!routerList && !deviceList.length) continue
      const units = 1 + deviceList.length
      if (units > CHUNK) {
        for (let i = 0; i < deviceList.length; i += CHUNK) {
          const devices = deviceList.slice(i, i + CHUNK)
          parts.push({ events: [e], routers: i === 0 && routerList ? { [e.workspaceId]: routerList } : {}, devices: { [key]: devices }, units: 1 + devices.length })
        }
        continue
      }
      if (!open || open.units + units > CHUNK) parts.push((open = { events: [], routers: {}, devices: {}, units: 0 }))
      open.events.push(e)
      open.units += units
      if (routerList) open.routers[e.workspaceId] = routerList
      if (deviceList.length) open.devices[key] = deviceList
    }
    return parts
  }

  /** Sends one part's first attempts through the pool, then writes their rows. */
  async function run(part: Part, skip: string[], recorded: Incoming[]) {
    await reserve(part.units)
    let sent: Sent[]
    try {
      const providers = new Set(Object.values(part.devices).flatMap((list) => list.map((d) => d.provider)))
      sent = await pool.send({
        events: part.events.map((e) => e.view),
        match: { workspace: part.events.map((e) => e.workspaceId), routers: part.routers, devices: part.devices, skip },
        config: await withTokens(sendConfig, providers),
      })
    } finally {
      release(part.units)
    }
    const rows = sent.map((s) => {
      const e = part.events[s.event]!
      return { ...outcome(s), eventId: e.eventId, workspaceId: e.workspaceId, kind: s.kind, target: s.target }
    })
    const ledger = ledgerOf(recorded)
    await persist(() => insertDeliveries(sql, rows, ledger), rows.length)
    // The rows just written deleted the devices APNs or FCM disowned: look
    // the channels up afresh rather than push them again from the cache.
    if (rows.some((r) => r.unregisteredDevice)) devices.clear()
  }

  /** A write that may meet a restarting database: three tries before the batch is given back to the bus. */
  async function persist(write: () => Promise<void>, n: number) {
    for (let i = 1; ; i++) {
      try {
        return await write()
      } catch (err) {
        if (i === 3) throw err
        log.warn({ err, deliveries: n }, 'could not record deliveries; retrying')
        await Bun.sleep(500 * i)
      }
    }
  }

  // Events being fanned out in this process. A second copy (the relay found
  // the outbox row of an event still in flight here) waits for the first
  // rather than delivering it again.
  const inFlight = new Map<string, Promise<void>>()
  let stopped = false

  /** The bus handler: resolves once the events' deliveries are made and recorded (then the bus may forget them). */
  async function accept(batch: Incoming[]) {
    if (stopped) throw new Error('this worker is stopping; another takes the events')
    const earlier: Promise<void>[] = []
    const fresh: Incoming[] = []
    const taken = new Set<string>()
    for (const e of batch) {
      const p = inFlight.get(e.eventId)
      if (p) earlier.push(p)
      // Two copies in one batch (JetStream redelivered an event to a worker
      // that was frozen with the first): the first is fanned out, once.
      else if (!taken.has(e.eventId)) {
        taken.add(e.eventId)
        fresh.push(e)
      }
    }
    if (fresh.length) {
      const p = fanOut(fresh)
      for (const e of fresh) inFlight.set(e.eventId, p)
      try {
        await p
      } finally {
        for (const e of fresh) if (inFlight.get(e.eventId) === p) inFlight.delete(e.eventId)
      }
    }
    await Promise.all(earlier)
  }

  // ---------------------------------------------------------------- retries

  const retrying = new Set<Promise<void>>()

  /** Plans the attempt of a due delivery, or records why it cannot be made. */
  async function planRetry(d: ClaimedWithEvent, views: EventView[], index: Map<string, number>): Promise<Planned | null> {
    const fail = (reason: string) => {
      recorder.add({ deliveryId: d.id, attempt: d.attempts + 1, startedAt: new Date(), durationMs: 0, ok: false, error: reason, next: 'failed', delayMs: 0 })
      return null
    }
    if (!d.event) return fail('the event no longer exists')
    let target: Pick<Planned, 'router' | 'device'>
    if (d.kind === 'router') {
      const router = (await routers.get(d.workspaceId)).find((r) => r.id === d.target)
      if (!router) return fail('the router was deleted or disabled')
      target = { router: spec(router) }
    } else {
      const device = await findDevice(sql, d.target)
      if (!device) return fail('the device was removed')
      if (!pushable(device)) return fail(`${device.provider} is not configured`)
      target = { device }
    }
    let i = index.get(d.eventId)
    if (i === undefined) index.set(d.eventId, (i = views.push(d.event) - 1))
    return { id: d.id, event: i, kind: d.kind, target: d.target, attempt: d.attempts + 1, ...target }
  }

  /** Takes due deliveries (retries, replays, and those of dead workers) while there is room. */
  async function sweep() {
    const free = room - busy
    if (free <= 0) return
    const due = await claimDueDeliveries(sql, Math.min(free, 500), opts.leaseMs)
    const views: EventView[] = []
    const index = new Map<string, number>()
    const planned: Planned[] = []
    for (const d of due) {
      const p = await planRetry(d, views, index)
      if (p) planned.push(p)
    }
    if (!planned.length) return
    busy += planned.length
    const providers = new Set(planned.flatMap((p) => (p.device ? [p.device.provider] : [])))
    const task = withTokens(sendConfig, providers)
      .then((config) => pool.send({ events: views, planned, config }))
      .then((sent) => {
        for (const s of sent) recorder.add(outcome(s))
        if (sent.some((s) => s.result.unregistered)) devices.clear()
      })
      // Still leased: taken again once the lease runs out.
      .catch((err) => log.error({ err, deliveries: planned.length }, 'retries failed in the pool'))
      .finally(() => {
        release(planned.length)
        retrying.delete(task)
      })
    retrying.add(task)
  }

  let wakeSweeper: (() => void) | null = null
  const sweeper = (async () => {
    while (!stopped) {
      await sweep().catch((err) => log.warn({ err }, 'delivery scheduler: could not claim due deliveries'))
      await new Promise<void>((res) => {
        const t = setTimeout(res, opts.schedulerIntervalMs)
        wakeSweeper = () => (clearTimeout(t), res())
      })
      wakeSweeper = null
    }
  })()

  return {
    accept,
    /** Work units under way or reserved (see reserve), for metrics. */
    inFlight: () => busy,
    /** Looks for due deliveries now (after a replay) rather than at the next interval. */
    wake: () => wakeSweeper?.(),
    /** Waits (up to `ms`) for the deliveries under way and writes their outcomes. */
    async stop(ms: number) {
      stopped = true
      wakeSweeper?.()
      const settled = Promise.allSettled([...inFlight.values(), ...retrying])
      await Promise.race([settled, Bun.sleep(ms)])
      await sweeper
      await Promise.race([recorder.flush(), Bun.sleep(Math.max(ms, 1000))])
    },
  }
}
export type Fanout = ReturnType<typeof createFanout>
