// A workspace's channels, on both APIs (src/http/routes/side.ts): list,
// create, rename or make default, delete; a person mutes and unmutes a
// channel for themselves, the operator for a member it names. The operator's
// list also says who muted each channel: a mute belongs to a person, and the
// operator is nobody.
import { Type } from '@sinclair/typebox'
import { LIMITS, SLUG } from '../../ingest/event'
import { addChannel, channelsPage, mutedBy, removeChannel, setChannelMuted, updateChannel } from '../../accounts/channel_ops'
import type { Handled, Side } from './side'
import { ChannelListQuery, ChannelParam, channelPageOf, NextCursor, Uuid, WorkspaceParam, WorkspaceParams } from './input'
import { BODY_PROBLEMS, done, problem, problems } from '../openapi'

const Slug = (example: string) => Type.String({ maxLength: LIMITS.channel, pattern: SLUG.source, description: 'Lower-case slug, as events name it.', error: `slug must be a channel slug: 1 to ${LIMITS.channel} lower-case letters, digits, "-" and "_", starting with a letter or digit`, examples: [example] })
const ChannelParams = Type.Object({ workspace: WorkspaceParam, channel: ChannelParam })
const MuteParams = Type.Object({ workspace: WorkspaceParam, channel: ChannelParam, userId: Uuid('userId', "The member's user id, from the member list.") })

export const ChannelSchema = Type.Object({
  slug: Type.String(),
  isDefault: Type.Boolean({ description: 'Events that name no channel go here.' }),
  muted: Type.Boolean({ description: 'Whether you muted it: no pushes to your devices for its events.' }),
  createdAt: Type.String({ format: 'date-time' }),
}, { $id: 'Channel' })

export const OperatorChannelSchema = Type.Object({
  slug: Type.String(),
  isDefault: Type.Boolean({ description: 'Events that name no channel go here.' }),
  mutedBy: Type.Array(Type.String(), { description: 'E-mail addresses of the members who muted it: their devices get no pushes for its events.' }),
  createdAt: Type.String({ format: 'date-time' }),
}, { $id: 'OperatorChannel' })

/** The answer of creating or renaming a channel, on both APIs. */
export const ChannelSlug = Type.Object({ slug: Type.String() }, { $id: 'ChannelSlug' })

export function channelsRoute(side: Side) {
  const person = side.kind === 'person'
  const detail = side.documents({ tag: 'Channels', common: problems(400, 401, 404, 503) })
  // What a person's change may also answer: a role too low, or a web session's CSRF token missing.
  const changing = side.says({ person: problems(403), operator: {} })
  const noChannel = problem(404, side.says({ person: 'No such workspace (of mine), or no such channel in it.', operator: 'No such workspace, or no such channel in it.' }))
  const slug = Slug(side.says({ person: 'signups', operator: 'deploys' }))
  const listed = side.says({
    person: { 200: Type.Object({ channels: Type.Array(ChannelSchema), nextCursor: NextCursor }, { $id: 'ChannelPage' }) },
    operator: { 200: Type.Object({ channels: Type.Array(OperatorChannelSchema), nextCursor: NextCursor }, { $id: 'OperatorChannelPage' }) },
  })
  const routes = side.group({ name: 'route.channels', prefix: `${side.root}/channels` })
    .get(
      '',
      async ({ request, params, query }) => {
        const ctx = await side.ctx(request, params.workspace)
        const page = await channelsPage(ctx, channelPageOf(query))
        if (person) return page
        const muted = await mutedBy(ctx, page.channels.map((c) => c.slug))
        return { channels: page.channels.map((c) => ({ slug: c.slug, isDefault: c.isDefault, mutedBy: muted.get(c.slug)!, createdAt: c.createdAt })), nextCursor: page.nextCursor }
      },
      {
        params: WorkspaceParams,
        query: ChannelListQuery,
        response: listed,
        detail: detail('List channels', side.says({ person: '', operator: 'Each with the members who muted it, ' }) + `${person ? 'In' : 'in'} slug order, a page at a time; \`q\` finds the channels whose slug contains it.`, problems(400)),
      },
    )
    .post(
      '',
      async ({ request, params, body, set }) => {
        await addChannel(await side.ctx(request, params.workspace), body.slug)
        set.status = 201
        return { slug: body.slug }
      },
      {
        params: WorkspaceParams,
        body: Type.Object({ slug }, { $id: side.id('CreateChannelBody'), additionalProperties: false }),
        response: { 201: ChannelSlug },
        detail: detail('Create a channel', `A channel is also created by the first event that names it. 409 ${side.says({ person: 'when', operator: 'if' })} it exists, or when the workspace has HERALD_MAX_CHANNELS_PER_WORKSPACE channels.`, {
          ...problems(...BODY_PROBLEMS),
          ...changing,
          409: problem(409, 'The channel exists, or the workspace has HERALD_MAX_CHANNELS_PER_WORKSPACE channels.'),
        }),
      },
    )
    .patch(
      '/:channel',
      async ({ request, params, body }) => ({ slug: await updateChannel(await side.ctx(request, params.workspace), params.channel, body) }),
      {
        params: ChannelParams,
        body: Type.Object({
          slug: Type.Optional({ ...slug, description: 'A new slug: its past events and mutes move with it; events must use the new one.' }),
          default: Type.Optional(Type.Literal(true, { description: 'Make it the default channel.' })),
        }, { $id: side.id('UpdateChannelBody'), additionalProperties: false, minProperties: 1, error: 'the body must be an object naming slug, default or both' }),
        response: { 200: ChannelSlug },
        detail: detail('Rename a channel, or make it the default', side.says({
          person: 'Events without a channel go to the new default at once on every instance that hears it over NATS (and on the embedded default); an instance that does not (no NATS, or NATS away) within API_KEY_CACHE_TTL_MS (at most 5 s).',
          operator: 'Its events, its mutes and, if it is the default, the default move to the new slug. 409 if the new slug is taken.',
        }), {
          ...problems(...BODY_PROBLEMS),
          ...changing,
          404: noChannel,
          409: problem(409, 'The new slug is taken.'),
        }),
      },
    )
    .delete(
      '/:channel',
      async ({ request, params, set }) => {
        await removeChannel(await side.ctx(request, params.workspace), params.channel)
        set.status = 204
      },
      {
        params: ChannelParams,
        detail: detail('Delete a channel', 'Its events stay in the feed. Not the default channel (409).', {
          204: done('Deleted.'),
          ...problems(400),
          ...changing,
          404: noChannel,
          409: problem(409, 'This is the default channel: make another one the default first.'),
        }),
      },
    )
  if (person) {
    const mute = (muted: boolean) => async ({ request, params, set }: Handled<{ workspace: string; channel: string }>) => {
      await setChannelMuted(await side.ctx(request, params.workspace), params.channel, muted)
      set.status = 204
    }
    return routes
      .put('/:channel/mute', mute(true), { params: ChannelParams, detail: detail('Mute a channel for myself', 'No pushes to my devices for its events. 404 for a channel that does not exist.', { 204: done('Muted.'), ...changing, 404: noChannel }) })
      .delete('/:channel/mute', mute(false), { params: ChannelParams, detail: detail('Unmute a channel for myself', 'Pushes for its events reach my devices again. Unmuting a channel that is not muted is no error.', { 204: done('Unmuted.'), ...changing }) })
  }
  const noMute = problem(404, 'No such workspace or channel, or the user is not a member of the workspace.')
  const mute = (muted: boolean) => async ({ request, params, set }: Handled<{ workspace: string; channel: string; userId: string }>) => {
    await setChannelMuted(await side.ctx(request, params.workspace), params.channel, muted, params.userId)
    set.status = 204
  }
  return routes
    .put('/:channel/mutes/:userId', mute(true), { params: MuteParams, detail: detail('Mute a channel for a member', 'No pushes to their devices for its events. Muting twice is no error.', { 204: done('Muted.'), ...problems(400), 404: noMute }) })
    .delete('/:channel/mutes/:userId', mute(false), { params: MuteParams, detail: detail('Unmute a channel for a member', 'Pushes for its events reach their devices again. Unmuting twice is no error.', { 204: done('Unmuted.'), ...problems(400), 404: noMute }) })
}
