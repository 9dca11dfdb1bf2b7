// Devices: what a mobile app or a browser registers (a browser's endpoint
// checked first), and the devices of a channel's members who have not muted
// it (a receipt's escalation). Who the fan-out pushes for an event, with each
// member's preferences, is read by audience.ts.
import { isIP } from 'node:net'
import type { Sql, Tx } from '../../core/db'
import { allowHint, checkAddress } from '../outbound'
import type { PushTarget } from './job'

export interface DeviceInput {
  platform: 'ios' | 'android' | 'web'
  provider: 'apns' | 'fcm' | 'webpush'
  token: string // Web Push: the subscription's endpoint
  environment?: 'sandbox' | 'production'
  topic?: string
  keys?: { p256dh: string; auth: string } // Web Push only
}

export interface DeviceView {
  id: string
  platform: string
  provider: string
  environment: string
  topic: string | null
  tokenPrefix: string
  endpoint: string | null // Web Push only
  lastSeenAt: string
  createdAt: string
}

export type { PushTarget } from './job'

/**
 * Devices one person may have. Each event pushes every one of them, so
 * without a bound a signed-in account could turn one event into thousands
 * of requests at someone else's endpoints.
 */
export const MAX_DEVICES_PER_USER = 100

/**
 * Why a browser's endpoint cannot be pushed to, or null: the end of a
 * sentence that starts with the field's name ("subscription.endpoint must be
 * https"). What DNS says is checked when pushing (src/delivery/outbound.ts); an address
 * written in the URL is refused at registration already, with the same rules
 * and the same HERALD_OUTBOUND_ALLOW.
 */
export function endpointProblem(endpoint: string, allow: readonly string[]): string | null {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    return 'is not a URL'
  }
  if (url.protocol !== 'https:') return 'must be https'
  if (url.username || url.password) return 'must not carry a user name or password'
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host)) {
    const refusal = checkAddress(host, allow)
    if (refusal) return `is refused: ${refusal}; ${allowHint(host)} in Herald's environment`
  } else if (!host.includes('.') || /(^|\.)localhost$/i.test(host)) {
    return `is refused: ${host} is not a public host name; a push service of your own is given by its IP address (allowed by HERALD_OUTBOUND_ALLOW) or a full domain name`
  }
  return null
}

/**
 * Registers a device, or refreshes it when this user already has its token.
 * 'taken' when another person has that token: a push token or a browser's
 * endpoint is a capability, and whoever sends it again with keys of their own
 * must not take over someone else's notifications. Ownership is decided by
 * the upsert itself (its WHERE on the conflicting row), so two people
 * registering one new token at once leave it with exactly one of them.
 * 'full' when the user already has MAX_DEVICES_PER_USER others; the user's
 * row is locked meanwhile, so two registrations at once cannot both take the
 * last place.
 */
export function upsertDevice(sql: Sql, userId: string, d: DeviceInput): Promise<{ id: string; created: boolean } | 'full' | 'taken'> {
  return sql.begin(async (tx) => {
    await tx`SELECT 1 FROM users WHERE id = ${userId} FOR UPDATE`
    const [{ others } = { others: 0 }] = await tx<{ others: number }[]>`
      SELECT count(*)::int AS others FROM devices WHERE user_id = ${userId} AND NOT (provider = ${d.provider} AND token = ${d.token})`
    if (others >= MAX_DEVICES_PER_USER) return 'full' as const
    const [row] = await tx<{ id: string; created: boolean }[]>`
      INSERT INTO devices (id, user_id, platform, provider, token, environment, topic, p256dh, auth)
      VALUES (${Bun.randomUUIDv7()}, ${userId}, ${d.platform}, ${d.provider}, ${d.token}, ${d.environment ?? 'production'}, ${d.topic ?? null},
        ${d.keys?.p256dh ?? null}, ${d.keys?.auth ?? null})
      ON CONFLICT (provider, token) DO UPDATE SET platform = excluded.platform,
        environment = excluded.environment, topic = excluded.topic, p256dh = excluded.p256dh, auth = excluded.auth, last_seen_at = now()
      WHERE devices.user_id = excluded.user_id
      RETURNING id, (xmax = 0) AS created`
    return row ?? ('taken' as const)
  })
}

export const listDevices = (sql: Tx, userId: string) => sql<DeviceView[]>`
  SELECT id, platform, provider, environment, topic, left(token, 8) AS "tokenPrefix",
    CASE WHEN provider = 'webpush' THEN token END AS endpoint,
    iso_time(last_seen_at) AS "lastSeenAt", iso_time(created_at) AS "createdAt"
  FROM devices WHERE user_id = ${userId} ORDER BY created_at`

export async function deleteDevice(sql: Tx, userId: string, id: string): Promise<boolean> {
  return (await sql`DELETE FROM devices WHERE id = ${id} AND user_id = ${userId} RETURNING id`).length > 0
}

/** Removes devices whose tokens APNs, FCM or a Web Push service reported as unregistered. */
export async function deleteDevicesById(sql: Tx, ids: string[]) {
  if (ids.length) await sql`DELETE FROM devices WHERE id = ANY(${ids}::uuid[])`
}

/** The devices of the members of `workspaceId` who have not muted `channel` (a receipt's escalation; the fan-out reads findAudience). */
export const findPushTargets = (sql: Tx, workspaceId: number, channel: string) => sql<PushTarget[]>`
  SELECT DISTINCT d.id, d.provider, d.token, d.environment, d.topic, d.p256dh, d.auth
  FROM memberships m JOIN devices d ON d.user_id = m.user_id
  WHERE m.workspace_id = ${workspaceId}
    AND coalesce((SELECT c.level FROM channel_mutes c WHERE c.workspace_id = m.workspace_id AND c.user_id = m.user_id AND c.channel = ${channel}),
      (SELECT p.default_level FROM member_preferences p WHERE p.workspace_id = m.workspace_id AND p.user_id = m.user_id), 'all') <> 'none'`

/** Devices by id, those that still exist. */
export const findDevices = (sql: Tx, ids: string[]) =>
  sql<PushTarget[]>`SELECT id, provider, token, environment, topic, p256dh, auth FROM devices WHERE id = ANY(${ids}::uuid[])`
