// Queries on workspaces and their API keys, shared by the operator API, the
// CLI and embedded mode's first start.
import type { Sql, Tx } from '../core/db'
import { generateApiKey, hashSecret, keyPrefix } from '../core/keys'

export interface WorkspaceLimits {
  monthlyQuota: number
  rateLimit: { perSecond: number; burst: number }
}

export interface WorkspaceView extends WorkspaceLimits {
  workspace: string
  defaultChannel: string
  usage: { period: string; used: number; remaining: number }
  createdAt: string
}

export interface ApiKeyView {
  id: number
  name: string
  prefix: string
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
}

const workspaceColumns = (sql: Tx) => sql`
  name AS workspace, default_channel AS "defaultChannel", monthly_quota AS "monthlyQuota",
  json_build_object('perSecond', rate_per_second, 'burst', rate_burst) AS "rateLimit",
  json_build_object(
    'period', to_char(date_trunc('month', now() AT TIME ZONE 'UTC'), 'YYYY-MM'),
    'used', CASE WHEN quota_period < date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN 0 ELSE quota_used END,
    'remaining', GREATEST(0, monthly_quota - CASE WHEN quota_period < date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN 0 ELSE quota_used END)
  ) AS usage, iso_time(created_at) AS "createdAt"`

/** Creates a workspace, its default channel and a first API key (and, for the demo, marks it as awaiting its first owner). Returns null when the name is taken. */
export async function insertWorkspace(sql: Sql, name: string, limits: WorkspaceLimits, opts: { awaitsFirstOwner?: boolean } = {}) {
  return sql.begin(async (tx) => {
    const ws = await createWorkspaceRow(tx, name, limits)
    if (!ws) return null
    if (opts.awaitsFirstOwner) await tx`UPDATE workspaces SET awaits_first_owner = true WHERE id = ${ws.id}`
    const key = await insertApiKey(tx, ws.id, 'default')
    return { workspace: name, defaultChannel: ws.defaultChannel, apiKey: key.apiKey, keyId: key.id }
  })
}

/** A workspace and its default channel, in the caller's transaction; null when the name is taken. */
export async function createWorkspaceRow(tx: Tx, name: string, limits: WorkspaceLimits) {
  const [ws] = await tx<{ id: number; defaultChannel: string }[]>`
    INSERT INTO workspaces (name, monthly_quota, rate_per_second, rate_burst, tokens)
    VALUES (${name}, ${limits.monthlyQuota}, ${limits.rateLimit.perSecond}, ${limits.rateLimit.burst}, ${limits.rateLimit.burst})
    ON CONFLICT (name) DO NOTHING
    RETURNING id, default_channel AS "defaultChannel"`
  if (!ws) return null
  await tx`INSERT INTO channels (workspace_id, slug) VALUES (${ws.id}, ${ws.defaultChannel})`
  return ws
}

/** A workspace owned by `ownerId`, in the caller's transaction; null when the name is taken. */
export async function createOwnedWorkspace(tx: Tx, name: string, limits: WorkspaceLimits, ownerId: string) {
  const ws = await createWorkspaceRow(tx, name, limits)
  if (ws) await tx`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${ws.id}, ${ownerId}, 'owner')`
  return ws
}

export type OwnedWorkspace = { kind: 'created'; defaultChannel: string } | { kind: 'taken' } | { kind: 'limit' }

/**
 * A person's new workspace, unless the name is taken or they own `max`
 * workspaces already. The person's row is locked before the count, in a
 * transaction whose next statement starts after the lock is held, so two
 * creations at once cannot both take the last place.
 */
export function createWorkspaceFor(sql: Sql, name: string, limits: WorkspaceLimits, ownerId: string, max: number): Promise<OwnedWorkspace> {
  return sql.begin(async (tx): Promise<OwnedWorkspace> => {
    await tx`SELECT 1 FROM users WHERE id = ${ownerId} FOR UPDATE`
    const [row] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM memberships WHERE user_id = ${ownerId} AND role = 'owner'`
    if (row!.n >= max) return { kind: 'limit' }
    const ws = await createOwnedWorkspace(tx, name, limits, ownerId)
    return ws ? { kind: 'created', defaultChannel: ws.defaultChannel } : { kind: 'taken' }
  })
}

/**
 * The workspace made at first start that awaits its first owner, taken by
 * `ownerId` in the caller's transaction; null when none awaits (any more).
 */
export async function claimWaitingWorkspace(tx: Tx, ownerId: string): Promise<string | null> {
  const [ws] = await tx<{ id: number; name: string }[]>`
    UPDATE workspaces SET awaits_first_owner = false WHERE awaits_first_owner RETURNING id, name`
  if (!ws) return null
  await tx`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${ws.id}, ${ownerId}, 'owner') ON CONFLICT DO NOTHING`
  return ws.name
}

/** The name of the workspace that awaits its first owner, if one does. */
export const waitingWorkspace = async (sql: Sql) =>
  (await sql<{ name: string }[]>`SELECT name FROM workspaces WHERE awaits_first_owner LIMIT 1`)[0]?.name ?? null

/** Events per UTC day over the last 30 days, oldest first, days without events included. */
export const usageByDay = (sql: Sql, workspaceId: number) => sql<{ day: string; events: number }[]>`
  SELECT to_char(d, 'YYYY-MM-DD') AS day, coalesce(u.events, 0)::int AS events
  FROM generate_series((now() AT TIME ZONE 'UTC')::date - 29, (now() AT TIME ZONE 'UTC')::date, interval '1 day') AS d
  LEFT JOIN usage_daily u ON u.workspace_id = ${workspaceId} AND u.day = d::date
  ORDER BY d`

/** A workspace's first key, in the transaction that makes the workspace (no cap to check: it has none yet). */
export async function insertApiKey(sql: Tx, workspaceId: number, name: string) {
  const apiKey = generateApiKey()
  const [row] = await sql<{ id: number }[]>`
    INSERT INTO api_keys (workspace_id, name, prefix, hash)
    VALUES (${workspaceId}, ${name}, ${keyPrefix(apiKey)}, ${hashSecret(apiKey)}) RETURNING id`
  return { id: row!.id, apiKey, prefix: keyPrefix(apiKey) }
}

/**
 * A new API key, or null when the workspace has `max` live (unrevoked) keys
 * already (accounts/key_ops.ts says the 409). The count and the insert are
 * one statement that runs under the workspace's key lock, taken first, so two
 * creations at once on any instances cannot both take the last place (a
 * statement sees only what committed before it began).
 */
export async function createApiKey(sql: Sql, workspaceId: number, name: string, max: number) {
  const apiKey = generateApiKey()
  const row = await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtextextended('herald.api_keys', ${workspaceId}))`
    const [made] = await tx<{ id: number }[]>`
      INSERT INTO api_keys (workspace_id, name, prefix, hash)
      SELECT ${workspaceId}, ${name}, ${keyPrefix(apiKey)}, ${hashSecret(apiKey)}
      WHERE (SELECT count(*) FROM api_keys WHERE workspace_id = ${workspaceId} AND revoked_at IS NULL) < ${max}
      RETURNING id`
    return made
  })
  if (!row) return null
  return { id: row.id, apiKey, prefix: keyPrefix(apiKey) }
}

export const workspaceNameTaken = async (sql: Tx, name: string) => (await findWorkspaceId(sql, name)) !== null

/** A workspace by name: its id and default channel, or null. */
export async function findWorkspaceRef(sql: Tx, name: string): Promise<{ id: number; name: string; defaultChannel: string } | null> {
  const [row] = await sql<{ id: number; name: string; defaultChannel: string }[]>`SELECT id, name, default_channel AS "defaultChannel" FROM workspaces WHERE name = ${name}`
  return row ?? null
}

export async function findWorkspaceId(sql: Tx, name: string): Promise<number | null> {
  const [row] = await sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${name}`
  return row?.id ?? null
}

export async function getWorkspace(sql: Tx, name: string): Promise<WorkspaceView | null> {
  const [row] = await sql<WorkspaceView[]>`SELECT ${workspaceColumns(sql)} FROM workspaces WHERE name = ${name}`
  return row ?? null
}

export const listWorkspaces = (sql: Tx) => sql<WorkspaceView[]>`SELECT ${workspaceColumns(sql)} FROM workspaces ORDER BY name`

/** Changes quota and rate limit; the bucket keeps its tokens, capped by a smaller burst. */
export async function updateWorkspaceLimits(sql: Tx, name: string, patch: Partial<{ monthlyQuota: number; perSecond: number; burst: number }>) {
  const [row] = await sql<WorkspaceView[]>`
    UPDATE workspaces SET
      monthly_quota = COALESCE(${patch.monthlyQuota ?? null}::bigint, monthly_quota),
      rate_per_second = COALESCE(${patch.perSecond ?? null}::float8, rate_per_second),
      rate_burst = COALESCE(${patch.burst ?? null}::int, rate_burst),
      tokens = LEAST(tokens, COALESCE(${patch.burst ?? null}::int, rate_burst))
    WHERE name = ${name}
    RETURNING ${workspaceColumns(sql)}`
  return row ?? null
}

/** Renames a workspace; 'taken' when another has the name. */
export async function renameWorkspaceRow(sql: Sql, id: number, name: string): Promise<'renamed' | 'taken'> {
  try {
    await sql`UPDATE workspaces SET name = ${name} WHERE id = ${id}`
    return 'renamed'
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return 'taken'
    throw err
  }
}

export const listApiKeys = (sql: Tx, workspaceId: number) => sql<ApiKeyView[]>`
  SELECT id, name, prefix, iso_time(created_at) AS "createdAt",
    iso_time(last_used_at) AS "lastUsedAt", iso_time(revoked_at) AS "revokedAt"
  FROM api_keys WHERE workspace_id = ${workspaceId} ORDER BY id`

/** Revokes a key; true when it existed and was live. */
export async function revokeApiKey(sql: Tx, workspaceId: number, keyId: number): Promise<boolean> {
  const rows = await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId} AND workspace_id = ${workspaceId} AND revoked_at IS NULL RETURNING id`
  return rows.length > 0
}

export const countWorkspaces = async (sql: Sql) => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM workspaces`)[0]!.n
