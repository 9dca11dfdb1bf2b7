// Queries on the people of a workspace: users, memberships, their bearer
// tokens for the device API, and the channels they muted.
import type { Sql, Tx } from '../core/db'
import { generateSecret, hashSecret, keyPrefix } from '../core/keys'

export const USER_TOKEN_PREFIX = 'hrlu_'
export type Role = 'owner' | 'admin' | 'member'

export interface MemberView {
  userId: string
  email: string
  role: Role
  devices: number
  mutedChannels: string[]
  createdAt: string
}

/**
 * Adds a person to a workspace (creating the user on first sight of the
 * e-mail) and issues a new user token. Returns null when they are a member already.
 */
export async function addMember(sql: Sql, workspaceId: number, email: string, role: Role) {
  return sql.begin(async (tx) => {
    const [user] = await tx<{ id: string }[]>`
      WITH ins AS (INSERT INTO users (id, email) VALUES (${Bun.randomUUIDv7()}, ${email}) ON CONFLICT (lower(email)) DO NOTHING RETURNING id)
      SELECT id FROM ins UNION ALL SELECT id FROM users WHERE lower(email) = lower(${email}) LIMIT 1`
    const added = await tx`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${workspaceId}, ${user!.id}, ${role}) ON CONFLICT DO NOTHING RETURNING user_id`
    if (!added.length) return null
    return { userId: user!.id, userToken: await issueUserToken(tx, user!.id) }
  })
}

export async function issueUserToken(sql: Tx, userId: string): Promise<string> {
  const token = generateSecret(USER_TOKEN_PREFIX)
  await sql`INSERT INTO user_tokens (user_id, hash, prefix) VALUES (${userId}, ${hashSecret(token)}, ${keyPrefix(token)})`
  return token
}

export const listMembers = (sql: Tx, workspaceId: number) => sql<MemberView[]>`
  SELECT u.id AS "userId", u.email, m.role,
    (SELECT count(*)::int FROM devices d WHERE d.user_id = u.id) AS devices,
    coalesce((SELECT array_agg(c.channel ORDER BY c.channel) FROM channel_mutes c WHERE c.workspace_id = m.workspace_id AND c.user_id = u.id AND c.level = 'none'), '{}') AS "mutedChannels",
    iso_time(m.created_at) AS "createdAt"
  FROM memberships m JOIN users u ON u.id = m.user_id
  WHERE m.workspace_id = ${workspaceId} ORDER BY m.created_at, u.email`

export async function removeMember(sql: Tx, workspaceId: number, userId: string): Promise<boolean> {
  return (await sql`DELETE FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${userId} RETURNING user_id`).length > 0
}

/** What muting or unmuting came to: done, or why not. */
export type MuteResult = 'done' | 'not-member' | 'no-channel'

/**
 * Mutes or unmutes a channel for a member: its level (preferences) is
 * none, or no longer none. The membership is locked (KEY
 * SHARE) while the mute is written, so the member leaving at that moment
 * waits, or is seen gone: never a mute whose membership has just been
 * deleted. A mute is stored only for a channel that exists ('no-channel'
 * otherwise), decided by the statement that stores it, which also locks the
 * channel's row: a deletion or a rename at that moment waits and then takes
 * the new mute along (deleteChannel, renameChannel), or comes first, and
 * then nothing is stored.
 */
export async function setMuted(sql: Sql, workspace: string, userId: string, channel: string, muted: boolean): Promise<MuteResult> {
  return sql.begin(async (tx) => {
    const [m] = await tx<{ id: number }[]>`
      SELECT w.id FROM workspaces w JOIN memberships m ON m.workspace_id = w.id WHERE w.name = ${workspace} AND m.user_id = ${userId}
      FOR KEY SHARE OF m`
    if (!m) return 'not-member' as const
    if (!muted) {
      // The channel follows the member's default again; when that default is
      // none, unmuting gives it level all, as "pushes reach me again" says.
      await tx`DELETE FROM channel_mutes WHERE workspace_id = ${m.id} AND user_id = ${userId} AND channel = ${channel} AND level = 'none'`
      await tx`
        INSERT INTO channel_mutes (workspace_id, user_id, channel, level)
        SELECT ${m.id}, ${userId}, slug, 'all' FROM channels
        WHERE workspace_id = ${m.id} AND slug = ${channel}
          AND EXISTS (SELECT 1 FROM member_preferences p WHERE p.workspace_id = ${m.id} AND p.user_id = ${userId} AND p.default_level = 'none')
        ON CONFLICT DO NOTHING`
      return 'done' as const
    }
    const [found] = await tx<{ channels: number }[]>`
      WITH c AS (SELECT slug FROM channels WHERE workspace_id = ${m.id} AND slug = ${channel} FOR KEY SHARE),
      muted AS (INSERT INTO channel_mutes (workspace_id, user_id, channel, level) SELECT ${m.id}, ${userId}, slug, 'none' FROM c
        ON CONFLICT (workspace_id, user_id, channel) DO UPDATE SET level = 'none')
      SELECT count(*)::int AS channels FROM c`
    return found!.channels > 0 ? ('done' as const) : ('no-channel' as const)
  })
}

/** The workspaces a person belongs to, with their role. */
export const listMyWorkspaces = (sql: Tx, userId: string) => sql<{ workspace: string; role: Role; defaultChannel: string }[]>`
  SELECT w.name AS workspace, m.role, w.default_channel AS "defaultChannel"
  FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
  WHERE m.user_id = ${userId} ORDER BY w.name`

/** Changes a member's role; false when they are not a member. */
export async function setRole(sql: Tx, workspaceId: number, userId: string, role: Role): Promise<boolean> {
  return (await sql`UPDATE memberships SET role = ${role} WHERE workspace_id = ${workspaceId} AND user_id = ${userId} RETURNING user_id`).length > 0
}

// ------------------------------------------------- changes under the lock
// "A workspace that has an owner keeps one" holds only if the check and the
// change see the same memberships. Every change of roles or removal takes a
// transaction-scoped lock on the workspace's memberships first, then reads
// and writes under it: two owners demoting each other at once are served one
// after the other, and the second finds the last owner. The rules are the
// operations' (member_ops.ts).

/** The roles read under the lock: of the person acting (null: none, or the operator), of the member changed (null: no member), and how many owners there are. */
export interface RolesNow {
  actor: Role | null
  target: Role | null
  owners: number
}

const lockMemberships = (tx: Tx, workspaceId: number) => tx`SELECT pg_advisory_xact_lock(hashtextextended('herald.memberships', ${workspaceId}))`

/** Runs `change` in a transaction holding the workspace's memberships lock, with the roles as they are under it; what `change` throws rolls it back. */
export async function underMembershipsLock<T>(sql: Sql, workspaceId: number, actorId: string | null, targetId: string, change: (tx: Tx, roles: RolesNow) => Promise<T>): Promise<T> {
  // postgres.js types what begin() returns as an unwrapped T; it is T here.
  return (await sql.begin(async (tx): Promise<T> => {
    await lockMemberships(tx, workspaceId)
    const [row] = await tx<RolesNow[]>`
      SELECT (SELECT role FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${actorId}) AS actor,
        (SELECT role FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${targetId}) AS target,
        (SELECT count(*)::int FROM memberships WHERE workspace_id = ${workspaceId} AND role = 'owner') AS owners`
    return change(tx, row!)
  })) as T
}
