// Queries on devices: what a mobile app registers, and who is pushed for an
// event (every device of every member of the workspace who has not muted the
// event's channel; a device counts once however many ways it qualifies).
import { uuidv7 } from 'uuidv7'
import type { Sql, Tx } from '../../core/db'
import type { PushTarget } from './job'

export interface DeviceInput {
  platform: 'ios' | 'android'
  provider: 'apns' | 'fcm'
  token: string
  environment?: 'sandbox' | 'production'
  topic?: string
}

export interface DeviceView {
  id: string
  platform: string
  provider: string
  environment: string
  topic: string | null
  tokenPrefix: string
  lastSeenAt: string
  createdAt: string
}

export type { PushTarget } from './job'

/**
 * Registers a device, or refreshes it when its token is known (then it also
 * moves to this user: the app was signed in by someone else on that phone).
 */
export async function upsertDevice(sql: Tx, userId: string, d: DeviceInput): Promise<{ id: string; created: boolean }> {
  const [row] = await sql<{ id: string; created: boolean }[]>`
    INSERT INTO devices (id, user_id, platform, provider, token, environment, topic)
    VALUES (${uuidv7()}, ${userId}, ${d.platform}, ${d.provider}, ${d.token}, ${d.environment ?? 'production'}, ${d.topic ?? null})
    ON CONFLICT (provider, token) DO UPDATE SET user_id = excluded.user_id, platform = excluded.platform,
      environment = excluded.environment, topic = excluded.topic, last_seen_at = now()
    RETURNING id, (xmax = 0) AS created`
  return row!
}

export const listDevices = (sql: Tx, userId: string) => sql<DeviceView[]>`
  SELECT id, platform, provider, environment, topic, left(token, 8) AS "tokenPrefix",
    to_json(last_seen_at)#>>'{}' AS "lastSeenAt", to_json(created_at)#>>'{}' AS "createdAt"
  FROM devices WHERE user_id = ${userId} ORDER BY created_at`

export async function deleteDevice(sql: Tx, userId: string, id: string): Promise<boolean> {
  return (await sql`DELETE FROM devices WHERE id = ${id} AND user_id = ${userId} RETURNING id`).length > 0
}

/** Removes devices whose tokens APNs or FCM reported as unregistered. */
export async function deleteDevicesById(sql: Tx, ids: string[]) {
  if (ids.length) await sql`DELETE FROM devices WHERE id = ANY(${ids}::uuid[])`
}

/** The devices to push for an event of `workspaceId` on `channel`. */
export const findPushTargets = (sql: Tx, workspaceId: number, channel: string) => sql<PushTarget[]>`
  SELECT DISTINCT d.id, d.provider, d.token, d.environment, d.topic
  FROM memberships m JOIN devices d ON d.user_id = m.user_id
  WHERE m.workspace_id = ${workspaceId}
    AND NOT EXISTS (SELECT 1 FROM channel_mutes c WHERE c.workspace_id = m.workspace_id AND c.user_id = m.user_id AND c.channel = ${channel})`

export const findDevice = async (sql: Tx, id: string) => (await sql<PushTarget[]>`SELECT id, provider, token, environment, topic FROM devices WHERE id = ${id}`)[0] ?? null
