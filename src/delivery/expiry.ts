// An event's ttl on the send path: what is left of it when a delivery or a
// push goes out (sent to APNs, FCM and the push services, so that a retry
// does not give the event a longer life than it asked for), and whether it
// is over (then the delivery is not sent and ends `expired`). Ages count in
// whole seconds, as the ttl does: a ttl of 0 is "now or never", sent while
// its event is less than a second old. A leaf: it imports nothing.

/** The part of an event the ttl needs: its creation time and its ttl (seconds, or null). */
export interface Expiring {
  createdAt: string // ISO 8601
  ttl?: number | null
}

/** Whole seconds left of the event's ttl at `now`: null without a ttl, negative once the event is older than its ttl. */
export function ttlLeft(event: Expiring, now: number = Date.now()): number | null {
  if (event.ttl === null || event.ttl === undefined) return null
  const created = Date.parse(event.createdAt)
  if (!Number.isFinite(created)) return event.ttl
  return event.ttl - Math.floor(Math.max(0, now - created) / 1000)
}

/** True once the event is older than its ttl: its deliveries not yet sent are not sent. */
export function isExpired(event: Expiring, now: number = Date.now()): boolean {
  const left = ttlLeft(event, now)
  return left !== null && left < 0
}

/** Why an expired delivery was not sent, as its delivery log shows it. */
export const expiredError = (event: Expiring) => `expired: the event is older than its ttl of ${event.ttl} s; not sent`
