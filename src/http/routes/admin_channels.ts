// Operator API: a workspace's channels. List, create and rename them, and
// mute or unmute one for a member. A mute belongs to a person (no pushes to
// their devices), and the operator is nobody: so the list shows who muted
// each channel rather than whether "I" did, and a mute names its member.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import type { Change } from '../../core/changes'
import { HeraldError } from '../../core/problems'
import { LIMITS, SLUG } from '../../ingest/event'
import { channelExists, channelLimitDetail, createChannel, listChannels, pageOfChannels, renameChannel } from '../../accounts/channels'
import { listMembers, setMuted } from '../../accounts/members'
import { operatorDetail as detail, workspaceIdOf } from './admin_auth'
import { ChannelListQuery, ChannelParam, channelPageOf, NextCursor, Uuid, WorkspaceParam, WorkspaceParams } from './input'
import { ChannelSlug } from './channels'
import { BODY_PROBLEMS, done, problem, problems } from '../openapi'

const Slug = Type.String({
  maxLength: LIMITS.channel,
  pattern: SLUG.source,
  description: 'Lower-case slug, as events name it.',
  error: `slug must be a channel slug: 1 to ${LIMITS.channel} lower-case letters, digits, "-" and "_", starting with a letter or digit`,
  examples: ['deploys'],
})
const ChannelParams = Type.Object({ workspace: WorkspaceParam, channel: ChannelParam })
const MuteParams = Type.Object({ workspace: WorkspaceParam, channel: ChannelParam, userId: Uuid('userId', "The member's user id, from the member list.") })

export const OperatorChannelSchema = Type.Object({
  slug: Type.String(),
  isDefault: Type.Boolean({ description: 'Events that name no channel go here.' }),
  mutedBy: Type.Array(Type.String(), { description: 'E-mail addresses of the members who muted it: their devices get no pushes for its events.' }),
  createdAt: Type.String({ format: 'date-time' }),
}, { $id: 'OperatorChannel' })

const noChannel = problem(404, 'No such workspace, or no such channel in it.')
const noMute = problem(404, 'No such workspace or channel, or the user is not a member of the workspace.')

// listChannels answers whether the person asking muted each channel; the
// operator is no person, and no user has the nil UUID.
const NOBODY = '00000000-0000-0000-0000-000000000000'

export const adminChannelsRoute = (sql: Sql, changed: (c: Change) => void, maxChannels: number) => {
  const audienceChanged = () => changed({ kind: 'audience' })
  const workspaceId = workspaceIdOf(sql)
  const mute = (muted: boolean) => async ({ params, set }: { params: { workspace: string; channel: string; userId: string }; set: { status?: number | string } }) => {
    const id = await workspaceId(params.workspace)
    // Muting checks the channel as it stores the mute; unmuting, here.
    if (!muted && !(await channelExists(sql, id, params.channel))) throw new HeraldError('not-found', `There is no channel ${params.channel}.`)
    const result = await setMuted(sql, params.workspace, params.userId, params.channel, muted)
    if (result === 'no-channel') throw new HeraldError('not-found', `There is no channel ${params.channel}.`)
    if (result === 'not-member') throw new HeraldError('not-found', 'This user is not a member of this workspace.')
    audienceChanged()
    set.status = 204
  }
  return new Elysia({ name: 'route.admin.channels', prefix: '/admin/workspaces/:workspace/channels' })
    .get(
      '',
      async ({ params, query }) => {
        const id = await workspaceId(params.workspace)
        const page = channelPageOf(query)
        const [rows, members] = await Promise.all([listChannels(sql, id, NOBODY, page), listMembers(sql, id)])
        const { channels, nextCursor } = pageOfChannels(rows, page.limit)
        return {
          channels: channels.map((c) => ({
            slug: c.slug,
            isDefault: c.isDefault,
            mutedBy: members.filter((m) => m.mutedChannels.includes(c.slug)).map((m) => m.email),
            createdAt: c.createdAt,
          })),
          nextCursor,
        }
      },
      {
        params: WorkspaceParams,
        query: ChannelListQuery,
        response: { 200: Type.Object({ channels: Type.Array(OperatorChannelSchema), nextCursor: NextCursor }, { $id: 'OperatorChannelPage' }) },
        detail: detail('List channels', 'Each with the members who muted it, in slug order, a page at a time; `q` finds the channels whose slug contains it.', problems(400)),
      },
    )
    .post(
      '',
      async ({ params, body, set }) => {
        const made = await createChannel(sql, await workspaceId(params.workspace), body.slug, maxChannels)
        if (made === 'exists') throw new HeraldError('conflict', `The channel ${body.slug} exists.`)
        if (made === 'limit') throw new HeraldError('limit-reached', channelLimitDetail(maxChannels))
        set.status = 201
        return { slug: body.slug }
      },
      {
        params: WorkspaceParams,
        body: Type.Object({ slug: Slug }, { $id: 'OperatorCreateChannelBody', additionalProperties: false }),
        response: { 201: ChannelSlug },
        detail: detail('Create a channel', 'A channel is also created by the first event that names it. 409 if it exists, or when the workspace has HERALD_MAX_CHANNELS_PER_WORKSPACE channels.', {
          ...problems(...BODY_PROBLEMS),
          409: problem(409, 'The channel exists, or the workspace has HERALD_MAX_CHANNELS_PER_WORKSPACE channels.'),
        }),
      },
    )
    .patch(
      '/:channel',
      async ({ params, body }) => {
        const id = await workspaceId(params.workspace)
        const result = await renameChannel(sql, id, params.channel, body.slug)
        if (result === 'not-found') throw new HeraldError('not-found', `There is no channel ${params.channel}.`)
        if (result === 'taken') throw new HeraldError('conflict', `The channel ${body.slug} exists.`)
        // Verified API keys carry their workspace's default channel, which may
        // be the one renamed: every process drops the workspace's, this one at
        // once, and forgets which of its channels exist (the old slug is gone).
        changed({ kind: 'keys', workspaceId: id })
        changed({ kind: 'channels', workspaceId: id })
        audienceChanged()
        return { slug: body.slug }
      },
      {
        params: ChannelParams,
        body: Type.Object({ slug: { ...Slug, description: 'The new slug: its past events and mutes move with it; events must use the new one.' } }, { $id: 'OperatorRenameChannelBody', additionalProperties: false }),
        response: { 200: ChannelSlug },
        detail: detail('Rename a channel', 'Its events, its mutes and, if it is the default, the default move to the new slug. 409 if the new slug is taken.', {
          ...problems(...BODY_PROBLEMS),
          404: noChannel,
          409: problem(409, 'The new slug is taken.'),
        }),
      },
    )
    .put('/:channel/mutes/:userId', mute(true), {
      params: MuteParams,
      detail: detail('Mute a channel for a member', 'No pushes to their devices for its events. Muting twice is no error.', { 204: done('Muted.'), ...problems(400), 404: noMute }),
    })
    .delete('/:channel/mutes/:userId', mute(false), {
      params: MuteParams,
      detail: detail('Unmute a channel for a member', 'Pushes for its events reach their devices again. Unmuting twice is no error.', { 204: done('Unmuted.'), ...problems(400), 404: noMute }),
    })
}
