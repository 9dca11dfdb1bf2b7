// The delivery counters the pipeline increments as it goes: attempts by
// destination, deliveries held back, deliveries expired. A leaf: it reads
// nothing; the scrape side (metrics_scrape.ts) reads the database, the bus,
// the pool and the circuits when Prometheus asks.
import { Counter, Histogram } from 'prom-client'
import { registers } from '../core/metrics'

const attempts = new Counter({
  name: 'herald_delivery_attempts_total',
  help: 'Delivery attempts by destination type (webhook, slack, …, apns, fcm, webpush) and outcome: succeeded, retry (failed, another attempt is scheduled) or failed (for good).',
  labelNames: ['type', 'outcome'] as const,
  registers,
})
const attemptSeconds = new Histogram({
  name: 'herald_delivery_attempt_duration_seconds',
  help: 'Duration of a delivery attempt, by destination type.',
  labelNames: ['type'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
})
const OUTCOMES = { succeeded: 'succeeded', pending: 'retry', failed: 'failed', expired: 'expired' } as const

/** An attempt's result: `next` is what it left its delivery in (src/delivery/retry.ts). */
export function deliveryAttempted(type: string, next: keyof typeof OUTCOMES, durationMs: number) {
  attempts.inc({ type, outcome: OUTCOMES[next] })
  attemptSeconds.observe({ type }, durationMs / 1000)
}

const held = new Counter({
  name: 'herald_deliveries_held_total',
  help: 'Deliveries held back without a request, by destination type and reason: circuit_open (the destination failed and its circuit is open) or busy (its sends under way are at DESTINATION_CONCURRENCY). Not attempts: each is only due again later.',
  labelNames: ['type', 'reason'] as const,
  registers,
})

/** A delivery its destination's circuit held back (src/delivery/circuit.ts): rescheduled, not attempted. */
export function deliveryHeld(type: string, reason: 'circuit_open' | 'busy') {
  held.inc({ type, reason })
}

const expired = new Counter({
  name: 'herald_deliveries_expired_total',
  help: 'Deliveries failed for good because their retry schedule ran out (their event older than the schedule\'s span plus DELIVERY_EXPIRY_GRACE_MS) while their destination\'s circuit held them, by kind (router, push). Also in herald_deliveries_failed_last_hour.',
  labelNames: ['kind'] as const,
  registers,
})

const ttlExpired = new Counter({
  name: 'herald_deliveries_ttl_expired_total',
  help: 'Deliveries (router deliveries and pushes) not sent because their event was older than its ttl when their turn came, first attempts and retries alike, by destination type (webhook, slack, …, apns, fcm, webpush). Each ends with status expired, not failed.',
  labelNames: ['type'] as const,
  registers,
})

/** A delivery not sent because its event outlived its ttl (src/delivery/expiry.ts): it ends `expired`. */
export function deliveryTtlExpired(type: string, n = 1) {
  ttlExpired.inc({ type }, n)
}

/** Deliveries the expiry sweep failed (src/delivery/health.ts expireDeliveries). */
export function deliveriesExpired(kind: string, n: number) {
  expired.inc({ kind }, n)
}

const suppressed = new Counter({
  name: 'herald_pushes_suppressed_total',
  help: "Pushes not sent because of the member's preferences, by reason: muted (the channel's level, or the member's default, is none), level (the event's priority is below the channel's level: high or urgent) or quiet_hours (inside the member's quiet hours, below their except). Each is a delivery with status suppressed, no attempt.",
  labelNames: ['reason'] as const,
  registers,
})

/** Pushes a preference held back (src/delivery/audience.ts): each a `suppressed` delivery. */
export function pushesSuppressed(reason: 'muted' | 'level' | 'quiet_hours', n = 1) {
  suppressed.inc({ reason }, n)
}

const throttled = new Counter({
  name: 'herald_deliveries_throttled_total',
  help: "Router deliveries not sent because their router's throttle was reached for their key (limit per window). Each is a delivery with status throttled, no attempt.",
  registers,
})

/** Router deliveries a throttle held back (src/delivery/throttle.ts): each a `throttled` delivery. */
export function deliveriesThrottled(n: number) {
  if (n > 0) throttled.inc(n)
}

const digests = new Counter({
  name: 'herald_digests_sent_total',
  help: "Digests made: a router's gathered events of one key and window, queued as one delivery (kind digest) when the window ended or held `max` events. Its attempts count in herald_delivery_attempts_total.",
  registers,
})
const gathered = new Counter({
  name: 'herald_digest_events_total',
  help: 'Events gathered into digests: each a router delivery with status digested, sent inside its digest.',
  registers,
})

/** Digests made (src/delivery/digest.ts). */
export function digestsMade(n: number) {
  if (n > 0) digests.inc(n)
}

/** Events gathered into digest windows. */
export function digestEventsGathered(n: number) {
  if (n > 0) gathered.inc(n)
}
