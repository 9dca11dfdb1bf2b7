// What an event's priority (1-5) becomes on each transport: one row per
// priority, read by the APNs, FCM and Web Push senders, the e-mail
// destination and the chat destinations (docs/push.md has the table as
// sent). A leaf: it imports nothing, so every subfolder of delivery may read it.

export type Priority = 1 | 2 | 3 | 4 | 5
export type InterruptionLevel = 'passive' | 'active' | 'time-sensitive' | 'critical'

export interface PriorityMapping {
  name: 'min' | 'low' | 'default' | 'high' | 'urgent'
  /** APNs `apns-priority`: 10 delivers now, 5 when convenient for the device's battery. */
  apnsPriority: '5' | '10'
  /** APNs `aps.interruption-level` (iOS 15+): passive makes no sound; time-sensitive breaks through Focus. */
  interruptionLevel: InterruptionLevel
  /** FCM HTTP v1 `android.priority` (AndroidMessagePriority). */
  fcmPriority: 'NORMAL' | 'HIGH'
  /** FCM HTTP v1 `android.notification.notification_priority`. */
  notificationPriority: 'PRIORITY_MIN' | 'PRIORITY_LOW' | 'PRIORITY_DEFAULT' | 'PRIORITY_HIGH' | 'PRIORITY_MAX'
  /** Web Push `Urgency` (RFC 8030 §5.3): a push service may hold back low urgencies on a battery. */
  urgency: 'very-low' | 'low' | 'normal' | 'high'
  /** E-mail `X-Priority` and `Importance`; none for the default. */
  email: { 'X-Priority': string; Importance: 'low' | 'high' } | null
  /** What chat messages show before the title; none below high. */
  marker: string | null
}

const LOW_MAIL = { 'X-Priority': '5', Importance: 'low' } as const

export const PRIORITIES: Record<Priority, PriorityMapping> = {
  1: { name: 'min', apnsPriority: '5', interruptionLevel: 'passive', fcmPriority: 'NORMAL', notificationPriority: 'PRIORITY_MIN', urgency: 'very-low', email: LOW_MAIL, marker: null },
  2: { name: 'low', apnsPriority: '5', interruptionLevel: 'passive', fcmPriority: 'NORMAL', notificationPriority: 'PRIORITY_LOW', urgency: 'low', email: LOW_MAIL, marker: null },
  3: { name: 'default', apnsPriority: '10', interruptionLevel: 'active', fcmPriority: 'HIGH', notificationPriority: 'PRIORITY_DEFAULT', urgency: 'normal', email: null, marker: null },
  4: { name: 'high', apnsPriority: '10', interruptionLevel: 'active', fcmPriority: 'HIGH', notificationPriority: 'PRIORITY_HIGH', urgency: 'high', email: { 'X-Priority': '2', Importance: 'high' }, marker: '⚠️ HIGH' },
  5: { name: 'urgent', apnsPriority: '10', interruptionLevel: 'time-sensitive', fcmPriority: 'HIGH', notificationPriority: 'PRIORITY_MAX', urgency: 'high', email: { 'X-Priority': '1', Importance: 'high' }, marker: '🚨 URGENT' },
}

/**
 * The row of a priority. An event without one (or a view from before
 * priorities existed) is 3; anything out of range is clamped, never a throw
 * on the send path.
 */
export function priorityOf(event: { priority?: number | null }): PriorityMapping {
  const p = event.priority
  if (typeof p !== 'number' || !Number.isFinite(p)) return PRIORITIES[3]
  return PRIORITIES[Math.min(5, Math.max(1, Math.round(p))) as Priority]
}

/** The chat marker and a separator before a title, or '' below high. */
export const markedTitle = (event: { priority?: number | null }, title: string): string => {
  const marker = priorityOf(event).marker
  return marker ? `${marker}: ${title}` : title
}
