// What a person or the operator can do with workspaces. The operator creates
// any workspace (with its limits and a first API key), lists them all and
// changes their limits; a person creates workspaces they own (at most
// HERALD_MAX_WORKSPACES_PER_USER), lists theirs and reads a workspace's usage.
// Both read one workspace; an owner renames one. Each operation checks the
// actor's right and throws its named error (src/core/operation.ts); only a
// rename changes what processes cache (the name on API keys' workspace).
// The queries are in workspaces.ts and members.ts.
import type { AccountCtx, Ctx, Role } from '../core/operation'
import { requireRight } from '../core/operation'
import { noWorkspace, operatorOnly, workspaceExists, workspaceLimit, workspaceNameInvalid, workspaceNameTaken } from '../core/errors'
import { SLUG } from '../ingest/event'
import { createWorkspaceFor, getWorkspace, insertWorkspace, listWorkspaces, renameWorkspaceRow, updateWorkspaceLimits, usageByDay, type WorkspaceView } from './workspaces'
import { listMyWorkspaces } from './members'

/** A workspace's name: lower-cased, a slug of at most 64 characters, or a 400. */
export function workspaceName(raw: string): string {
  const name = raw.toLowerCase()
  if (name.length > 64 || !SLUG.test(name)) throw workspaceNameInvalid()
  return name
}

/** When the monthly quota starts again: 00:00 UTC on the first of next month. */
const resetsAt = () => {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString()
}

export type ListedWorkspaces = { kind: 'operator'; workspaces: WorkspaceView[] } | { kind: 'person'; workspaces: { workspace: string; role: Role; defaultChannel: string }[] }

/** For the operator, every workspace with its limits and usage; for a person, theirs with their role in each. */
export async function listWorkspacesOf(ctx: AccountCtx): Promise<ListedWorkspaces> {
  const { actor } = ctx
  if (actor.kind === 'operator') return { kind: 'operator', workspaces: await listWorkspaces(ctx.sql) }
  return { kind: 'person', workspaces: await listMyWorkspaces(ctx.sql, actor.userId) }
}

export interface NewWorkspace {
  name: string
  /** The operator's; a person's workspace has the HERALD_DEFAULT_* limits. */
  monthlyQuota?: number
  rateLimit?: { perSecond?: number; burst?: number }
}

/**
 * A new workspace with its default channel. The operator's has a first API
 * key (in the answer, `apiKey`) and no owner; a person's is owned by them,
 * unless they own HERALD_MAX_WORKSPACES_PER_USER workspaces (409). 409 when
 * the name is taken, as each API words it.
 */
export async function createWorkspace(ctx: AccountCtx, input: NewWorkspace): Promise<{ workspace: string; defaultChannel: string; apiKey?: string }> {
  const { actor, limits: config } = ctx
  const name = workspaceName(input.name)
  const limits = {
    monthlyQuota: input.monthlyQuota ?? config.HERALD_DEFAULT_MONTHLY_QUOTA,
    rateLimit: { perSecond: input.rateLimit?.perSecond ?? config.HERALD_DEFAULT_RATE_PER_SECOND, burst: input.rateLimit?.burst ?? config.HERALD_DEFAULT_RATE_BURST },
  }
  if (actor.kind === 'operator') {
    const created = await insertWorkspace(ctx.sql, name, limits)
    if (!created) throw workspaceExists(name)
    return { workspace: created.workspace, defaultChannel: created.defaultChannel, apiKey: created.apiKey }
  }
  const max = config.HERALD_MAX_WORKSPACES_PER_USER
  const created = await createWorkspaceFor(ctx.sql, name, limits, actor.userId, max)
  if (created.kind === 'taken') throw workspaceNameTaken(name)
  if (created.kind === 'limit') throw workspaceLimit(max)
  return { workspace: name, defaultChannel: created.defaultChannel }
}

/** The workspace: its limits and this month's usage (with when the quota starts again); every member may read it. */
export async function readWorkspace(ctx: Ctx): Promise<WorkspaceView & { resetsAt: string }> {
  requireRight(ctx, 'read')
  const ws = await getWorkspace(ctx.sql, ctx.workspace.name)
  if (!ws) throw noWorkspace(ctx.workspace.name)
  return { ...ws, resetsAt: resetsAt() }
}

/** This month's usage against the quota, and the events of each of the last 30 days; every member may read it. */
export async function workspaceUsage(ctx: Ctx) {
  const ws = await readWorkspace(ctx)
  const days = await usageByDay(ctx.sql, ctx.workspace.id)
  return { period: ws.usage.period, used: ws.usage.used, limit: ws.monthlyQuota, remaining: ws.usage.remaining, resetsAt: ws.resetsAt, days }
}

/** The operator's alone: a new monthly quota, rate or burst (fields left out are kept, and so is this month's usage). */
export async function setWorkspaceLimits(ctx: Ctx, patch: { monthlyQuota?: number; perSecond?: number; burst?: number }): Promise<WorkspaceView> {
  if (ctx.actor.kind !== 'operator') throw operatorOnly()
  const ws = await updateWorkspaceLimits(ctx.sql, ctx.workspace.name, patch)
  if (!ws) throw noWorkspace(ctx.workspace.name)
  return ws
}

/**
 * Renames a workspace (its owners): its id, members, keys, channels, routers
 * and events stay; links and API paths take the new name, and the old one is
 * free at once. Every process forgets what it cached under the old name (the
 * workspace of each API key, its routers and channels). 409 when taken.
 */
export async function renameWorkspace(ctx: Ctx, raw: string): Promise<{ workspace: string; defaultChannel: string }> {
  requireRight(ctx, 'own')
  const name = workspaceName(raw)
  if (name !== ctx.workspace.name) {
    if ((await renameWorkspaceRow(ctx.sql, ctx.workspace.id, name)) === 'taken') throw workspaceNameTaken(name)
    for (const kind of ['keys', 'routers', 'channels'] as const) ctx.announce({ kind, workspaceId: ctx.workspace.id })
  }
  return { workspace: name, defaultChannel: ctx.workspace.defaultChannel }
}
