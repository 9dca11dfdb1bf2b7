// What a person or the operator can do with a workspace's API keys: list
// them (every member), create one (at most HERALD_MAX_API_KEYS_PER_WORKSPACE
// live ones) and revoke one (owners and admins, or the operator). Each
// operation checks the actor's right, throws its named error and announces
// its own change (src/core/operation.ts). The queries are in workspaces.ts.
import type { Ctx } from '../core/operation'
import { requireRight } from '../core/operation'
import { apiKeyLimit, apiKeyNotFound } from '../core/errors'
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyView } from './workspaces'

/** The workspace's keys by prefix, revoked ones included. */
export async function listKeys(ctx: Ctx): Promise<ApiKeyView[]> {
  requireRight(ctx, 'read')
  return listApiKeys(ctx.sql, ctx.workspace.id)
}

/** A new key (shown this once; only its hash is stored), or the 409 when the workspace has its most live keys. */
export async function createKey(ctx: Ctx, name: string): Promise<{ id: number; name: string; prefix: string; apiKey: string }> {
  requireRight(ctx, 'manage')
  const max = ctx.limits.HERALD_MAX_API_KEYS_PER_WORKSPACE
  const key = await createApiKey(ctx.sql, ctx.workspace.id, name, max)
  if (!key) throw apiKeyLimit(max)
  return { id: key.id, name, prefix: key.prefix, apiKey: key.apiKey }
}

/**
 * Revokes a live key of the workspace (a 404 when it has none of this id).
 * Every process drops the workspace's cached keys (the ApiKeyAuth of
 * src/ingest/auth.ts), this one at once: the key stops working here at once,
 * and on an instance that does not hear it within API_KEY_CACHE_TTL_MS.
 */
export async function revokeKey(ctx: Ctx, id: number): Promise<void> {
  requireRight(ctx, 'manage')
  if (!(await revokeApiKey(ctx.sql, ctx.workspace.id, id))) throw apiKeyNotFound(id)
  ctx.announce({ kind: 'keys', workspaceId: ctx.workspace.id })
}
