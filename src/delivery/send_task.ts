// The deliveries of a batch of events, first attempts or retries: what a
// pool thread runs (workers/send.ts is its entry point), or, with
// WORKER_THREADS=0, the worker's own thread (pool.ts).
// One task per batch rather than per delivery: a hop between threads costs
// about as much as a webhook to a fast receiver, so the main thread sends a
// batch of events with the routers and devices they may go to, and this
// thread matches the patterns (compiled once per thread), renders, sends
// everything concurrently and returns one outcome per delivery. The job and
// the result are plain data; an expected failure is a result, never a throw.
import { createHash } from 'node:crypto'
import { threadId } from 'node:worker_threads'
import { compilePattern } from './pattern'
import { createCircuits } from './circuit'
import { deliver, destinationHost } from './destinations'
import { sendApns } from './push/apns'
import { sendFcm } from './push/fcm'
import { sendWebPush } from './push/webpush'
import type { CircuitReport } from './circuit'
import type { DeliveryKind, Planned, SendConfig, SendTask, Sent, RouterSpec } from './job'
import type { EventView } from './event_view'
import { channelKey } from '../core/channel_key'
import { expiredError, isExpired } from './expiry'
import { noticeAsEvent } from './receipt_notice'

/**
 * The id of the delivery of `eventId` to a target: a UUID (version 8) made
 * from the three, so that every attempt and every duplicate of the same
 * delivery, on any worker, carries the same id (the `webhook-id`) before any
 * row exists. Its first 48 bits are the event's UUIDv7 timestamp, so ids
 * still sort by time and new rows land at the end of the primary-key index
 * rather than on random pages; the rest is a SHA-256 of the three.
 */
export function deliveryId(eventId: string, kind: DeliveryKind, target: string): string {
  const h = createHash('sha256').update(`${eventId}/${kind}/${target}`).digest()
  Buffer.from(eventId.replace(/-/g, '').slice(0, 12), 'hex').copy(h, 0)
  h[6] = (h[6]! & 0x0f) | 0x80
  h[8] = (h[8]! & 0x3f) | 0x80
  const x = h.toString('hex', 0, 16)
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`
}

/** The first attempts a batch of events calls for. */
export function plan(task: Omit<SendTask, 'events'> & { events: EventView[] }): Planned[] {
  const m = task.match
  if (!m) return task.planned ?? []
  const skip = new Set(m.skip)
  const out: Planned[] = []
  const add = (p: Omit<Planned, 'id' | 'attempt'>, eventId: string) => {
    const id = deliveryId(eventId, p.kind, p.target)
    if (!skip.has(id)) out.push({ ...p, id, attempt: 1 })
  }
  task.events.forEach((e, i) => {
    const ws = m.workspace[i]!
    for (const router of m.routers[ws] ?? []) {
      // A router forwards only events at or above its minPriority (an event without a priority is 3).
      // A throttle's or a digest's events are admitted or gathered by the worker's main thread (windowed()).
      if (compilePattern(router.pattern)(e.event) && (router.minPriority ?? 1) <= (e.priority ?? 3) && !windowed(router, e)) add({ event: i, kind: 'router', target: router.id, router }, e.eventId)
    }
    for (const device of m.only?.[i] ?? m.devices[channelKey(ws, e.channel)] ?? []) add({ event: i, kind: 'push', target: device.id, device }, e.eventId)
  })
  return out
}

/**
 * Whether a router's delivery of an event is not a first attempt of the
 * pool: a throttled router's deliveries are admitted, and a digest's events
 * gathered, by the worker's main thread in PostgreSQL (throttle.ts,
 * digest.ts). An event at or above a digest's bypassPriority goes at once,
 * as an ordinary delivery.
 */
export function windowed(router: Pick<RouterSpec, 'throttle' | 'digest'>, e: Pick<EventView, 'priority'>): boolean {
  if (router.throttle) return true
  if (!router.digest) return false
  const bypass = router.digest.bypassPriority
  return bypass === undefined || (e.priority ?? 3) < bypass
}

// Per router, in this thread: a bound on its sends under way and a circuit
// breaker (src/delivery/circuit.ts), so that a receiver that hangs or fails holds only
// its own deliveries. Pushes go to APNs, FCM and the browsers' push services
// (a few large services, each answering for millions of subscriptions).
const circuits = createCircuits()
let reports = 0 // CircuitReport.seq

/** What a delivery whose event outlived its ttl comes to: not sent, ended `expired`. */
const expired = (event: EventView): Sent['result'] => ({ ok: false, retryable: false, durationMs: 0, error: expiredError(event), expired: true })

async function sendToRouter(p: Planned, router: RouterSpec, event: EventView, config: SendConfig): Promise<Pick<Sent, 'result' | 'circuit'>> {
  const key = `router:${router.id}`
  const wasOpen = (circuits.state(key)?.openUntil ?? 0) > 0
  const report = (): CircuitReport | undefined => {
    const openUntil = circuits.state(key)?.openUntil ?? 0
    return openUntil > 0 || wasOpen ? { thread: threadId, seq: ++reports, host: destinationHost(router.destination, config.endpoints), openUntil } : undefined
  }
  const gate = await circuits.enter(key, config.circuit)
  if (!gate.ok) return { result: { ok: false, retryable: true, durationMs: 0, error: gate.reason, retryAfterMs: gate.retryAfterMs, held: gate.held }, circuit: report() }
  // A place among the thread's sends is taken only once the destination let
  // this one through: deliveries waiting on a hanging destination must not
  // fill the thread's places and hold up every other destination.
  // The ttl is looked at again once a place is had: the wait for one may have outlived it.
  const result = await inPlace<Sent['result']>(config.maxInFlight, () =>
    !p.receipt && !p.digest && isExpired(event) ? Promise.resolve(expired(event)) : deliver(receiptAware(p, router, event, config)))
  if (result.expired) {
    gate.release('neutral')
    return { result, circuit: report() }
  }
  // A receiver that answered with a refusal (4xx) is up: that is our
  // request's fault, not a reason to stop sending to it.
  gate.release(result.ok ? 'success' : result.retryable ? 'failure' : 'neutral')
  return { result, circuit: report() }
}

/** The job of a router attempt; a receipt's notice goes to a webhook as is, to others as a line in place of the event, with no template. */
function receiptAware(p: Planned, router: RouterSpec, event: EventView, config: SendConfig) {
  const base = { deliveryId: p.id, attempt: p.attempt, outbound: config.outbound, endpoints: config.endpoints }
  if (p.digest) return { ...base, event, router, digest: p.digest }
  if (!p.receipt) return { ...base, event, router }
  if (router.destination.type === 'webhook') return { ...base, event, router, receipt: p.receipt }
  const { template: _template, ...plain } = router
  return { ...base, event: noticeAsEvent(p.receipt, event), router: plain }
}

async function attempt(p: Planned, event: EventView, config: SendConfig): Promise<Pick<Sent, 'result' | 'circuit'>> {
  // Not sent once the event is older than its ttl, first attempts and retries
  // alike; a receipt's notice is news about the receipt, whatever the ttl.
  // A digest is news about events gathered over its window: their ttls do not hold it back.
  if (!p.receipt && !p.digest && isExpired(event)) return { result: expired(event) }
  if (p.router) return sendToRouter(p, p.router, event, config)
  return { result: await push(p, event, config) }
}

async function push(p: Planned, event: EventView, config: SendConfig): Promise<Sent['result']> {
  const device = p.device!
  const job = { deliveryId: p.id, attempt: p.attempt, event, device, apns: config.apns, fcm: config.fcm, webpush: config.webpush, timeoutMs: config.outbound.timeoutMs, ca: config.outbound.ca }
  const send = device.provider === 'apns' ? sendApns
    : device.provider === 'fcm' ? sendFcm
    : device.provider === 'webpush' ? (j: typeof job) => sendWebPush(j, config.outbound)
    : null
  if (!send) return { ok: false, retryable: false, durationMs: 0, error: `unknown push provider ${JSON.stringify(device.provider)}` }
  try {
    return await inPlace(config.maxInFlight, () => (isExpired(event) ? Promise.resolve(expired(event)) : send(job)))
  } catch (err) {
    return { ok: false, retryable: true, durationMs: 0, error: `unexpected error: ${err instanceof Error ? err.message : String(err)}` }
  }
}

// Sends under way in this thread, across tasks; beyond config.maxInFlight
// the next waits for a free place.
let active = 0
const queue: (() => void)[] = []
async function take(max: number) {
  if (active >= max) await new Promise<void>((res) => queue.push(res))
  else active++
}
function give() {
  const next = queue.shift()
  if (next) next() // the place passes on; `active` stays
  else active--
}
async function inPlace<T>(max: number, f: () => Promise<T>): Promise<T> {
  await take(max)
  try {
    return await f()
  } finally {
    give()
  }
}

const parse = (e: EventView | string): EventView => (typeof e === 'string' ? JSON.parse(e) : e)

export default async function send(input: SendTask): Promise<Sent[]> {
  const task = { ...input, events: input.events.map(parse) }
  return Promise.all(
    plan(task).map(async (p) => {
      const startedAt = Date.now()
      const { result, circuit } = await attempt(p, task.events[p.event]!, task.config)
      const destination = p.router ? p.router.destination.type : p.device!.provider
      const sent: Sent = { id: p.id, event: p.event, kind: p.kind, target: p.target, destination, attempt: p.attempt, startedAt, result }
      if (circuit) sent.circuit = circuit
      return sent
    }),
  )
}
