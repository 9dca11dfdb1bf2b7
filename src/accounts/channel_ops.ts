// What a person or the operator can do with a workspace's channels: each
// operation checks the actor's right, keeps its rule, throws its named error
// and announces its own change (src/core/operation.ts). The queries are in
// channels.ts.
import type { Ctx } from '../core/operation'
import { requireRight } from '../core/operation'
import { channelExists as channelTaken, channelIsDefault, channelLimit, channelNotFound, notAMember, userNotAMember } from '../core/errors'
import { createChannel, deleteChannel, listChannels, pageOfChannels, renameChannel, setDefaultChannel, type ChannelPage, type ChannelView } from './channels'
import { listMembers, setMuted } from './members'

// listChannels answers whether the person asking muted each channel; the
// operator is no person, and no user has the nil UUID.
const NOBODY = '00000000-0000-0000-0000-000000000000'

/** A page of the workspace's channels, with whether the person acting muted each. */
export async function channelsPage(ctx: Ctx, page: ChannelPage): Promise<{ channels: ChannelView[]; nextCursor: string | null }> {
  const me = ctx.actor.kind === 'person' ? ctx.actor.userId : NOBODY
  return pageOfChannels(await listChannels(ctx.sql, ctx.workspace.id, me, page), page.limit)
}

/** For the operator: the e-mail addresses of the members who muted each of `slugs`. */
export async function mutedBy(ctx: Ctx, slugs: string[]): Promise<Map<string, string[]>> {
  requireRight(ctx, 'manage')
  const members = await listMembers(ctx.sql, ctx.workspace.id)
  return new Map(slugs.map((slug) => [slug, members.filter((m) => m.mutedChannels.includes(slug)).map((m) => m.email)]))
}

/** Creates a channel; 409 when it exists or the workspace has its most channels. */
export async function addChannel(ctx: Ctx, slug: string): Promise<void> {
  requireRight(ctx, 'manage')
  const max = ctx.limits.HERALD_MAX_CHANNELS_PER_WORKSPACE
  const made = await createChannel(ctx.sql, ctx.workspace.id, slug, max)
  if (made === 'exists') throw channelTaken(slug)
  if (made === 'limit') throw channelLimit(max)
}

/**
 * Renames a channel (its events and mutes move with it), makes it the
 * default, or both; answers its slug. Verified API keys carry their
 * workspace's default channel, which may be the one renamed or made default:
 * every process drops the workspace's keys, and forgets which of its channels
 * exist once one is renamed (the old slug is gone).
 */
export async function updateChannel(ctx: Ctx, slug: string, change: { slug?: string; default?: true }): Promise<string> {
  requireRight(ctx, 'manage')
  const { sql, announce, workspace } = ctx
  if (change.slug !== undefined && change.slug !== slug) {
    const result = await renameChannel(sql, workspace.id, slug, change.slug)
    if (result === 'not-found') throw channelNotFound(slug)
    if (result === 'taken') throw channelTaken(change.slug)
    slug = change.slug
    announce({ kind: 'audience' })
    announce({ kind: 'channels', workspaceId: workspace.id })
  }
  if (change.default === true && !(await setDefaultChannel(sql, workspace.id, slug))) throw channelNotFound(slug)
  announce({ kind: 'keys', workspaceId: workspace.id })
  return slug
}

/** Deletes a channel (its events stay); never the default one. Its next event makes it again: no API process may take it for existing. */
export async function removeChannel(ctx: Ctx, slug: string): Promise<void> {
  requireRight(ctx, 'manage')
  const result = await deleteChannel(ctx.sql, ctx.workspace.id, slug)
  if (result === 'not-found') throw channelNotFound(slug)
  if (result === 'default') throw channelIsDefault(slug)
  ctx.announce({ kind: 'audience' })
  ctx.announce({ kind: 'channels', workspaceId: ctx.workspace.id })
}

/**
 * Mutes a channel (no pushes to the member's devices for its events) or
 * unmutes it, for the person acting or, for the operator, the member named.
 * Muting twice or unmuting what is not muted is no error; muting a channel
 * that does not exist is a 404.
 */
export async function setChannelMuted(ctx: Ctx, slug: string, muted: boolean, memberId?: string): Promise<void> {
  const { actor, workspace } = ctx
  const userId = actor.kind === 'person' ? actor.userId : memberId
  if (!userId) throw userNotAMember()
  const result = await setMuted(ctx.sql, workspace.name, userId, slug, muted)
  if (result === 'no-channel') throw channelNotFound(slug)
  if (result === 'not-member') throw actor.kind === 'person' ? notAMember(workspace.name) : userNotAMember()
  ctx.announce({ kind: 'audience' })
}
