// Who is pushed for an event of a channel: the devices of the channel's
// members (recipients only when the event has `to`), each member's level for
// the channel (all, high, urgent, none) and their quiet hours. A device whose
// member's preference holds the push back is not pushed: its delivery ends
// `suppressed`, with the reason, so the member sees why. Its one query reads
// a channel's audience; the rest is plain data and pure functions. The fan-out
// caches an Audience per channel (worker_state.ts) and calls `decide` per
// event only when some member's preference can hold a push back, or the event
// names recipients.
import type { Tx } from '../core/db'
import type { PushTarget } from './push/job'
import { hhmmOf, quietHoursHold, type QuietHours } from './quiet_hours'

export const LEVELS = ['all', 'high', 'urgent', 'none'] as const
export type Level = (typeof LEVELS)[number]

/** The lowest priority a level lets through (none: nothing). */
export const LEVEL_MIN_PRIORITY: Record<Level, number> = { all: 1, high: 4, urgent: 5, none: 6 }

/** A member as the push decision needs them, for one channel. */
export interface AudienceMember {
  userId: string
  level: Level // for this channel: its own level, else the member's default
  ownLevel: boolean // the channel's own level (false: the default)
  quiet: QuietHours | null
}

/** The devices of a channel's members, each with its member. */
export interface Audience {
  devices: PushTarget[]
  members: AudienceMember[] // members[i] is devices[i]'s
  /** No member has a preference that can hold a push back: every device is pushed for every event (recipients aside). */
  plain: boolean
}

export const audienceOf = (devices: PushTarget[], members: AudienceMember[]): Audience => ({
  devices, members, plain: members.every((m) => m.level === 'all' && !m.quiet),
})

/** Only the devices this process can push (and their members). */
export function pushableOnly(a: Audience, pushable: (d: PushTarget) => boolean): Audience {
  if (a.devices.every(pushable)) return a
  const keep = a.devices.flatMap((d, i) => (pushable(d) ? [i] : []))
  return { devices: keep.map((i) => a.devices[i]!), members: keep.map((i) => a.members[i]!), plain: a.plain }
}

export type SuppressReason = 'muted' | 'level' | 'quiet_hours'

export interface Suppressed {
  device: PushTarget
  reason: SuppressReason // the metric's label
  why: string // the delivery's last_error, as the member reads it
}

/** What the event needs for the decision. */
export interface Deciding {
  channel: string
  priority: number
  to: string[] | null
}

/** Why a member's preference holds back a push of `e`, or null when it does not. */
export function holdBack(m: AudienceMember, e: Deciding, at: number): Omit<Suppressed, 'device'> | null {
  const whose = m.ownLevel ? '' : ' (your default)'
  if (m.level === 'none') return { reason: 'muted', why: `channel ${e.channel}: muted${whose}` }
  const min = LEVEL_MIN_PRIORITY[m.level]
  if (e.priority < min) return { reason: 'level', why: `channel ${e.channel}: ${m.level} only${whose}; priority ${e.priority} is below ${min}` }
  const q = m.quiet
  if (q && quietHoursHold(q, e.priority, at)) {
    return { reason: 'quiet_hours', why: `quiet hours ${hhmmOf(q.from)}–${hhmmOf(q.to)} ${q.timezone}; priority ${e.priority} is below ${q.except}` }
  }
  return null
}

/**
 * The devices to push for an event and those held back by a preference.
 * Members who are not recipients of an event with `to` are neither: the
 * event is not theirs to be pushed.
 */
export function decide(a: Audience, e: Deciding, at: number): { push: PushTarget[]; suppressed: Suppressed[] } {
  const to = e.to ? new Set(e.to) : null
  const push: PushTarget[] = []
  const suppressed: Suppressed[] = []
  const held = new Map<AudienceMember, Omit<Suppressed, 'device'> | null>()
  a.devices.forEach((device, i) => {
    const m = a.members[i]!
    if (to && !to.has(m.userId)) return
    let h = held.get(m)
    if (h === undefined) held.set(m, (h = a.plain ? null : holdBack(m, e, at)))
    if (h) suppressed.push({ device, ...h })
    else push.push(device)
  })
  return { push, suppressed }
}

/**
 * Every device of every member of `workspaceId`, each with its member's
 * preference for `channel` (the channel's own level, else the default; their
 * quiet hours): the fan-out decides per event who is pushed (audience.ts).
 */
export async function findAudience(sql: Tx, workspaceId: number, channel: string): Promise<Audience> {
  const rows = await sql<(PushTarget & { userId: string; level: Level | null; defaultLevel: Level | null; tz: string | null; qf: number | null; qt: number | null; qe: number | null })[]>`
    SELECT d.id, d.provider, d.token, d.environment, d.topic, d.p256dh, d.auth, m.user_id AS "userId",
      c.level, p.default_level AS "defaultLevel", p.quiet_timezone AS tz, p.quiet_from AS qf, p.quiet_to AS qt, p.quiet_except AS qe
    FROM memberships m JOIN devices d ON d.user_id = m.user_id
    LEFT JOIN channel_mutes c ON c.workspace_id = m.workspace_id AND c.user_id = m.user_id AND c.channel = ${channel}
    LEFT JOIN member_preferences p ON p.workspace_id = m.workspace_id AND p.user_id = m.user_id
    WHERE m.workspace_id = ${workspaceId}`
  const byUser = new Map<string, AudienceMember>()
  const members = rows.map((r) => {
    let m = byUser.get(r.userId)
    if (!m) {
      const quiet = r.tz !== null ? { timezone: r.tz, from: r.qf!, to: r.qt!, except: r.qe! } : null
      byUser.set(r.userId, (m = { userId: r.userId, level: r.level ?? r.defaultLevel ?? 'all', ownLevel: r.level !== null, quiet }))
    }
    return m
  })
  const devices = rows.map(({ id, provider, token, environment, topic, p256dh, auth }) => ({ id, provider, token, environment, topic, p256dh, auth }))
  return audienceOf(devices, members)
}
