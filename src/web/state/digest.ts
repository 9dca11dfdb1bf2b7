// What the dashboard says of the deliveries a router's throttle or digest
// makes: a `throttled` one (held back, never sent), a `digested` one (its
// event went out inside a digest: `digestId` names the digest's delivery,
// `digestEventId` the event whose page lists it)
// and a digest's own delivery (kind `digest`: its key and events). The
// fields come with the digest engine; a delivery without them still reads.
import { query } from '../api'
import { path } from '../html'

/** The digest fields a delivery may carry (API: Delivery, DeliveryListItem). */
export interface DigestFields {
  id: string
  kind: string
  status: string
  routerId: string | null
  digestId?: string | null
  digestEventId?: string | null
  digest?: { key: string; count: number; eventIds: string[] } | null
}

/** The time a delivery id (or an event id) starts with, as ISO: a delivery's id begins with its event's UUIDv7 time (send_task.ts deliveryId). */
export function idTime(id: string): string | null {
  const hex = id.replace(/-/g, '').slice(0, 12)
  if (!/^[0-9a-f]{12}$/i.test(hex)) return null
  const ms = parseInt(hex, 16)
  return Number.isSafeInteger(ms) ? new Date(ms).toISOString() : null
}

/**
 * Where a digested delivery's digest is shown: its delivery's anchor on the
 * page of the digest's first event (`digestEventId`), which lists it; on
 * this page when that event is this one (the digest's delivery is among
 * `here`). Null while the digest has no known event (an API without it).
 */
export function digestHref(workspace: string, d: DigestFields, here: readonly { id: string }[]): string | null {
  if (!d.digestId) return null
  if (here.some((x) => x.id === d.digestId)) return `#delivery-${d.digestId}`
  if (!d.digestEventId) return null
  return path('w', workspace, 'events', d.digestEventId) + `#delivery-${d.digestId}`
}

/** A digest's delivery in words: "A digest of 6 events, key “acme”". */
export function digestText(d: Pick<DigestFields, 'digest'>): string | null {
  if (!d.digest) return null
  const n = d.digest.count
  return `A digest of ${n.toLocaleString('en')} event${n === 1 ? '' : 's'}${d.digest.key ? `, key “${d.digest.key}”` : ''}`
}

/** What a throttled or digested delivery says on its own, or null for the other states. */
export function pacedText(d: Pick<DigestFields, 'status' | 'digestId'>): string | null {
  if (d.status === 'throttled') return "Not sent: the router's throttle was reached for this event's key."
  if (d.status === 'digested') return 'Sent in a digest'
  return null
}

/** The deliveries page's state filter, the two states a throttle or digest gives included. */
export const DELIVERY_STATE_LABELS: [string, string][] = [
  ['pending', 'Pending'], ['succeeded', 'Succeeded'], ['failed', 'Failed'], ['cancelled', 'Cancelled'], ['expired', 'Expired'],
  ['suppressed', 'Suppressed (preferences)'], ['throttled', 'Throttled (router throttle)'], ['digested', 'Sent in a digest'],
]
