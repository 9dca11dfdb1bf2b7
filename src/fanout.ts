// The delivery worker: turns events from the bus into deliveries and runs
// them. For a batch of events it matches routers (on the pool) and finds the
// devices to push, creates the deliveries in PostgreSQL already leased to
// itself, and only then lets the bus acknowledge the events; the attempts run
// afterwards, bounded by WORKER_CONCURRENCY, and their outcomes are written in
// batches. A scheduler takes due retries, and deliveries whose worker died,
// from PostgreSQL.
import type { Sql } from './db'
import type { Logger } from './log'
import type { Config } from './config'
import type { SecretBox } from './secrets'
import type { BusEvent, EventBus } from './bus'
import type { Pool } from './pool'
import type { PushConfig } from './push_config'
import type { DeliveryJob, DeliveryResult, EventView } from '../workers/job'
import type { PushJob } from '../workers/push_job'
import type { RouterRecord } from './routers'
import type { PushTarget } from './devices'
import { claimDueDeliveries, createDeliveries, type Claimed } from './deliveries'
import { findDevice } from './devices'
import { nextStep, parseSchedule } from './retry'
import { attemptRecorder, pushTargetCache, routerCache } from './worker_state'

export interface FanoutOptions {
  leaseMs: number // a claimed delivery whose worker died is retried after this
  schedulerIntervalMs: number
  routerCacheMs: number
}

type Work = { claimed: Claimed; event: EventView } & ({ kind: 'router'; router: RouterRecord } | { kind: 'push'; device: PushTarget })
type Result = DeliveryResult & { unregistered?: boolean; reason?: string }

export function createFanout(sql: Sql, bus: EventBus, pool: Pool, secrets: SecretBox, config: Config, push: PushConfig, log: Logger, opts: FanoutOptions) {
  const schedule = parseSchedule(config.HERALD_RETRY_SCHEDULE)
  const allow = config.HERALD_OUTBOUND_ALLOW.split(',').map((s) => s.trim()).filter(Boolean)
  const routers = routerCache(sql, secrets, opts.routerCacheMs)
  const devices = pushTargetCache(sql, 2000)
  bus.onRoutersChanged((ws) => routers.forget(ws))
  const recorder = attemptRecorder(sql, log)
  const limit = config.WORKER_CONCURRENCY
  const queue: Work[] = []
  let running = 0
  let stopped = false
  const idle = new Set<() => void>()

  const routerJob = (w: Work & { kind: 'router' }): DeliveryJob => ({
    deliveryId: w.claimed.id,
    attempt: w.claimed.attempts + 1,
    event: w.event,
    router: { id: w.router.id, name: w.router.name, destination: w.router.destination, template: w.router.template, signingSecret: w.router.signingSecret },
    outbound: { allow, timeoutMs: config.DELIVERY_TIMEOUT_MS, maxResponseBytes: 64 * 1024 },
    endpoints: { telegram: config.TELEGRAM_API_URL, twilio: config.TWILIO_API_URL, smtpUrl: config.SMTP_URL, smtpFrom: config.SMTP_FROM },
  })
  const pushJob = (w: Work & { kind: 'push' }): PushJob => ({
    deliveryId: w.claimed.id, attempt: w.claimed.attempts + 1, event: w.event, device: w.device, apns: push.apns, fcm: push.fcm,
  })

  async function attempt(w: Work) {
    const startedAt = new Date()
    const n = w.claimed.attempts + 1
    const run = w.kind === 'router' ? pool.deliver(routerJob(w)) : pool.push(pushJob(w))
    const result: Result = await run.catch((err: Error) => ({ ok: false, retryable: true, durationMs: Date.now() - startedAt.getTime(), error: `worker error: ${err.message}` }))
    const next = nextStep(schedule, n, result)
    const l = log.child({ deliveryId: w.claimed.id, attempt: n, kind: w.kind })
    if (result.ok) l.debug({ status: result.status }, 'delivered')
    else l.info({ status: result.status, error: result.error ?? result.reason, durationMs: result.durationMs, next: next.status }, 'delivery attempt failed')
    recorder.add({
      deliveryId: w.claimed.id, attempt: n, startedAt, durationMs: result.durationMs, ok: result.ok,
      status: result.status, error: result.error ?? result.reason, response: result.response,
      next: next.status, delayMs: next.status === 'pending' ? next.delayMs : 0,
      unregisteredDevice: w.kind === 'push' && result.unregistered ? w.device.id : undefined,
    })
  }

  function pump() {
    while (running < limit && queue.length) {
      const w = queue.shift()!
      running++
      attempt(w)
        .catch((err) => log.error({ err, deliveryId: w.claimed.id }, 'delivery crashed'))
        .finally(() => {
          running--
          pump()
          if (!running && !queue.length) for (const f of idle) f()
        })
    }
  }

  const hasRoom = () => running + queue.length < limit * 2
  // Backpressure: the bus waits (and keeps its events unacknowledged) while
  // this worker already holds twice as many deliveries as it runs at once.
  const room = async () => {
    while (!hasRoom() && !stopped) await Bun.sleep(5)
  }

  const pushable = (d: PushTarget) => (d.provider === 'apns' ? !!push.apns : !!push.fcm)

  /** The bus handler: resolves once the events' deliveries exist (then the bus may forget the events). */
  async function accept(events: BusEvent[]) {
    await room()
    const wsIds = [...new Set(events.map((e) => e.workspaceId))]
    const byWs = new Map(await Promise.all(wsIds.map(async (ws) => [ws, await routers.get(ws)] as const)))
    const channels = [...new Set(events.map((e) => `${e.workspaceId}/${e.view.channel}`))]
    const targets = new Map(await Promise.all(channels.map(async (k) => {
      const [ws, channel] = [Number(k.slice(0, k.indexOf('/'))), k.slice(k.indexOf('/') + 1)]
      return [k, (await devices.get(ws, channel)).filter(pushable)] as const
    })))
    let matched: string[][] = events.map(() => [])
    if ([...byWs.values()].some((r) => r.length)) {
      const patterns: Record<string, [string, string][]> = {}
      for (const [ws, list] of byWs) patterns[ws] = list.map((r) => [r.id, r.pattern])
      matched = await pool.match({ routers: patterns, events: events.map((e) => [e.workspaceId, e.view.event]) })
    }
    const rows = events.flatMap((e, i) => [
      ...matched[i]!.map((target) => ({ eventId: e.view.eventId, workspaceId: e.workspaceId, kind: 'router' as const, target })),
      ...targets.get(`${e.workspaceId}/${e.view.channel}`)!.map((d) => ({ eventId: e.view.eventId, workspaceId: e.workspaceId, kind: 'push' as const, target: d.id })),
    ])
    if (!rows.length) return
    const claimed = await createDeliveries(sql, rows, opts.leaseMs)
    const views = new Map(events.map((e) => [e.view.eventId, e]))
    const routerById = new Map([...byWs.values()].flat().map((r) => [r.id, r]))
    for (const c of claimed) {
      const e = views.get(c.eventId)!
      if (c.kind === 'router') queue.push({ claimed: c, event: e.view, kind: 'router', router: routerById.get(c.target)! })
      else queue.push({ claimed: c, event: e.view, kind: 'push', device: targets.get(`${e.workspaceId}/${e.view.channel}`)!.find((d) => d.id === c.target)! })
    }
    pump()
  }

  /** Takes due deliveries (retries, and those of dead workers) while there is room. */
  async function sweep() {
    const free = limit * 2 - running - queue.length
    if (free <= 0) return
    const due = await claimDueDeliveries(sql, Math.min(free, 500), opts.leaseMs)
    for (const d of due) {
      const fail = (reason: string) =>
        recorder.add({ deliveryId: d.id, attempt: d.attempts + 1, startedAt: new Date(), durationMs: 0, ok: false, error: reason, next: 'failed', delayMs: 0 })
      if (!d.event) {
        fail('the event no longer exists')
      } else if (d.kind === 'router') {
        const router = (await routers.get(d.workspaceId)).find((r) => r.id === d.target)
        if (router) queue.push({ claimed: d, event: d.event, kind: 'router', router })
        else fail('the router was deleted or disabled')
      } else {
        const device = await findDevice(sql, d.target)
        if (device && pushable(device)) queue.push({ claimed: d, event: d.event, kind: 'push', device })
        else fail(device ? `${device.provider} is not configured` : 'the device was removed')
      }
    }
    pump()
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
    /** Looks for due deliveries now (after a replay) rather than at the next interval. */
    wake: () => wakeSweeper?.(),
    routersChanged: (ws: number) => bus.announceRoutersChanged(ws),
    /** Waits for running attempts (up to `ms`) and writes their outcomes. */
    async stop(ms: number) {
      stopped = true
      wakeSweeper?.()
      queue.length = 0 // still leased: another worker takes them when the lease runs out
      await Promise.race([new Promise<void>((res) => (running ? idle.add(res) : res())), Bun.sleep(ms)])
      await sweeper
      await Promise.race([recorder.flush(), Bun.sleep(Math.max(ms, 1000))])
    },
  }
}
export type Fanout = ReturnType<typeof createFanout>
