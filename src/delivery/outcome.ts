// What an attempt leaves its delivery in, per the retry schedule (retry.ts),
// as the row to write; counted in the metrics, and logged, when it failed,
// under the delivery's own logger.
import type { Logger } from '../core/log'
import type { AttemptRecord } from './attempts'
import type { DeliveryKind, Sent } from './job'
import { nextStep } from './retry'
import { deliveryAttempted, deliveryHeld, deliveryTtlExpired } from './metrics'
import type { circuitBoard } from './circuit'
import type { routerHealthWriter } from './health'

/** Which delivery a log line is about. */
export interface DeliveryRef {
  id: string
  attempt: number
  kind: DeliveryKind
  target: string // router id or device id
  eventId: string
}

/**
 * The logger of one delivery's attempt: every line carries its deliveryId
 * and attempt, the router or device it goes to, and its event. Made only for
 * a line to write (a child logger per delivery would cost on the hot path).
 */
export const deliveryLog = (log: Logger, d: DeliveryRef): Logger =>
  log.child({ deliveryId: d.id, attempt: d.attempt, [d.kind === 'router' ? 'routerId' : 'deviceId']: d.target, eventId: d.eventId })

type Circuits = Pick<ReturnType<typeof circuitBoard>, 'report'>
type Health = Pick<ReturnType<typeof routerHealthWriter>, 'report'>

/**
 * `outcome(s, eventId, retry)`: the record of attempt `s` of a delivery of
 * event `eventId`. A router's circuit goes to the shared health (health.ts)
 * when it is open or was; so does a retry that succeeded, which may be the
 * trial of a router parked by another thread's circuit.
 */
export function attemptOutcomes(schedule: number[], circuits: Circuits, health: Health, log: Logger) {
  /** Not sent (its event outlived its ttl): no attempt, no health report, a count and a line. */
  function expiredOutcome(s: Sent, eventId: string): AttemptRecord {
    deliveryTtlExpired(s.destination)
    if (s.circuit) circuits.report(s.target, s.circuit)
    const error = s.result.error
    deliveryLog(log, { ...s, eventId }).info({ kind: s.kind, destination: s.destination, error, next: 'expired' }, 'delivery expired')
    return { deliveryId: s.id, attempt: s.attempt, startedAt: new Date(s.startedAt), durationMs: 0, ok: false, error, next: 'expired', delayMs: 0 }
  }

  return function outcome(s: Sent, eventId: string, retry = false): AttemptRecord {
    const r = s.result
    if (r.expired) return expiredOutcome(s, eventId)
    const next = nextStep(schedule, s.attempt, r)
    if (r.held) deliveryHeld(s.destination, r.held) // not sent: not an attempt, no row (see holdDeliveries)
    else deliveryAttempted(s.destination, next.status, r.durationMs)
    if (s.circuit) circuits.report(s.target, s.circuit)
    const error = r.error ?? r.reason
    if (s.kind === 'router' && (s.circuit || (retry && r.ok))) health.report(s.target, r.ok, s.circuit, r.held ? undefined : error, retry)
    if (!r.ok && !r.held) {
      deliveryLog(log, { ...s, eventId }).info({ kind: s.kind, destination: s.destination, status: r.status, error, durationMs: r.durationMs, next: next.status }, 'delivery attempt failed')
    }
    return {
      deliveryId: s.id, attempt: s.attempt, startedAt: new Date(s.startedAt), durationMs: r.durationMs, ok: r.ok,
      status: r.status, error, response: r.response, next: next.status, delayMs: next.status === 'pending' ? next.delayMs : 0,
      unregisteredDevice: s.kind === 'push' && r.unregistered ? s.target : undefined, held: !!r.held,
    }
  }
}
export type AttemptOutcome = ReturnType<typeof attemptOutcomes>
