// The delivery worker: turns events from the bus into deliveries and runs
// them. For a batch of events it matches routers (on the pool), creates the
// deliveries in PostgreSQL already leased to itself, and only then lets the
// bus acknowledge the events; the attempts run afterwards, bounded by
// WORKER_CONCURRENCY, and their outcomes are written in batches. A scheduler
// takes due retries, and deliveries whose worker died, from PostgreSQL.
import type { Sql } from './db'
import type { Logger } from './log'
import type { Config } from './config'
import type { SecretBox } from './secrets'
import type { BusEvent, EventBus } from './bus'
import type { Pool } from './pool'
import type { DeliveryJob, EventView } from '../workers/job'
import { claimDueDeliveries, createDeliveries, recordAttempts, type AttemptRecord, type Claimed } from './deliveries'
import { loadRouters, type RouterRecord } from './routers'
import { nextStep, parseSchedule } from './retry'

export interface FanoutOptions {
  leaseMs: number // a claimed delivery whose worker died is retried after this
  schedulerIntervalMs: number
  routerCacheMs: number
}

interface Work {
  claimed: Claimed
  event: EventView
  router: RouterRecord
}

export function createFanout(sql: Sql, bus: EventBus, pool: Pool, secrets: SecretBox, config: Config, log: Logger, opts: FanoutOptions) {
  const schedule = parseSchedule(config.HERALD_RETRY_SCHEDULE)
  const allow = config.HERALD_OUTBOUND_ALLOW.split(',').map((s) => s.trim()).filter(Boolean)
  const routers = routerCache(sql, secrets, opts.routerCacheMs)
  bus.onRoutersChanged((ws) => routers.forget(ws))
  const recorder = attemptRecorder(sql, log)
  const limit = config.WORKER_CONCURRENCY
  const queue: Work[] = []
  let running = 0
  let stopped = false
  const idle = new Set<() => void>()

  const job = (w: Work): DeliveryJob => ({
    deliveryId: w.claimed.id,
    attempt: w.claimed.attempts + 1,
    event: w.event,
    router: { id: w.router.id, name: w.router.name, destination: w.router.destination, template: w.router.template, signingSecret: w.router.signingSecret },
    outbound: { allow, timeoutMs: config.DELIVERY_TIMEOUT_MS, maxResponseBytes: 64 * 1024 },
    endpoints: { telegram: config.TELEGRAM_API_URL, twilio: config.TWILIO_API_URL, smtpUrl: config.SMTP_URL, smtpFrom: config.SMTP_FROM },
  })

  async function attempt(w: Work) {
    const startedAt = new Date()
    const j = job(w)
    const result = await pool.deliver(j).catch((err: Error) => ({ ok: false, retryable: true, durationMs: Date.now() - startedAt.getTime(), error: `worker error: ${err.message}` }))
    const next = nextStep(schedule, j.attempt, result)
    const l = log.child({ deliveryId: j.deliveryId, attempt: j.attempt })
    if (result.ok) l.debug({ status: (result as { status?: number }).status }, 'delivered')
    else l.info({ status: (result as { status?: number }).status, error: result.error, durationMs: result.durationMs, next: next.status }, 'delivery attempt failed')
    recorder.add({
      deliveryId: j.deliveryId, attempt: j.attempt, startedAt, durationMs: result.durationMs, ok: result.ok,
      status: (result as { status?: number }).status, error: result.error, response: (result as { response?: string }).response,
      next: next.status, delayMs: next.status === 'pending' ? next.delayMs : 0,
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

  /** The bus handler: resolves once the events' deliveries exist (then the bus may forget the events). */
  async function accept(events: BusEvent[]) {
    await room()
    const wsIds = [...new Set(events.map((e) => e.workspaceId))]
    const byWs = new Map(await Promise.all(wsIds.map(async (ws) => [ws, await routers.get(ws)] as const)))
    if (![...byWs.values()].some((r) => r.length)) return
    const patterns: Record<string, [string, string][]> = {}
    for (const [ws, list] of byWs) patterns[ws] = list.map((r) => [r.id, r.pattern])
    const matched = await pool.match({ routers: patterns, events: events.map((e) => [e.workspaceId, e.view.event]) })
    const rows = events.flatMap((e, i) => matched[i]!.map((routerId) => ({ eventId: e.view.eventId, workspaceId: e.workspaceId, routerId })))
    const claimed = await createDeliveries(sql, rows, opts.leaseMs)
    const views = new Map(events.map((e) => [e.view.eventId, e.view]))
    const routerById = new Map([...byWs.values()].flat().map((r) => [r.id, r]))
    for (const c of claimed) queue.push({ claimed: c, event: views.get(c.eventId)!, router: routerById.get(c.routerId!)! })
    pump()
  }

  /** Takes due deliveries (retries, and those of dead workers) while there is room. */
  async function sweep() {
    const free = limit * 2 - running - queue.length
    if (free <= 0) return
    const due = await claimDueDeliveries(sql, Math.min(free, 500), opts.leaseMs)
    for (const d of due) {
      const router = d.routerId ? (await routers.get(d.workspaceId)).find((r) => r.id === d.routerId) : undefined
      const reason = !d.event ? 'the event no longer exists' : !router ? 'the router was deleted or disabled' : null
      if (reason) {
        recorder.add({ deliveryId: d.id, attempt: d.attempts + 1, startedAt: new Date(), durationMs: 0, ok: false, error: reason, next: 'failed', delayMs: 0 })
        continue
      }
      queue.push({ claimed: d, event: d.event!, router: router! })
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
      await Promise.race([
        new Promise<void>((res) => (running ? idle.add(res) : res())),
        Bun.sleep(ms),
      ])
      await sweeper
      await Promise.race([recorder.flush(), Bun.sleep(Math.max(ms, 1000))])
    },
  }
}
export type Fanout = ReturnType<typeof createFanout>

/** Enabled routers per workspace, decrypted, for `ttlMs` or until a change is announced. */
function routerCache(sql: Sql, secrets: SecretBox, ttlMs: number) {
  const cache = new Map<number, { at: number; routers: Promise<RouterRecord[]> }>()
  return {
    get(ws: number): Promise<RouterRecord[]> {
      const hit = cache.get(ws)
      if (hit && Date.now() - hit.at < ttlMs) return hit.routers
      const routers = loadRouters(sql, secrets, ws)
      cache.set(ws, { at: Date.now(), routers })
      routers.catch(() => cache.delete(ws))
      return routers
    },
    forget: (ws: number) => cache.delete(ws),
  }
}

/** Gathers attempt outcomes and writes them in one transaction every few milliseconds. */
function attemptRecorder(sql: Sql, log: Logger) {
  let buffer: AttemptRecord[] = []
  let writing: Promise<void> | null = null
  let timer: ReturnType<typeof setTimeout> | null = null

  async function write() {
    while (buffer.length) {
      const records = buffer.splice(0, 1000)
      try {
        await recordAttempts(sql, records)
      } catch (err) {
        // The deliveries stay leased and pending: after the lease they are
        // attempted again, under the same id. Keep the outcomes and retry.
        log.warn({ err, records: records.length }, 'could not record delivery attempts; retrying')
        buffer.unshift(...records)
        await Bun.sleep(1000)
      }
    }
  }

  // One writer at a time; it drains whatever arrives while it writes.
  const flush = (): Promise<void> => (writing ??= write().finally(() => (writing = null)))
  return {
    add(r: AttemptRecord) {
      buffer.push(r)
      timer ??= setTimeout(() => {
        timer = null
        void flush().then(() => {
          if (buffer.length) return flush() // arrived after the writer's last look
        })
      }, 5)
    },
    async flush() {
      if (timer) clearTimeout(timer)
      timer = null
      await flush()
      if (buffer.length) await flush()
    },
  }
}
