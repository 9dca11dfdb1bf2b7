// A workspace's channels, for signed-in people: list (with whether I muted
// each), create, rename, make default, delete; and mute/unmute for myself.
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import type { AccessCheck } from '../../accounts/access'
import type { Change } from '../../core/changes'
import { userSecurity } from '../../accounts/session'
import { HeraldError } from '../../core/problems'
import { LIMITS, SLUG } from '../../ingest/event'
import { channelLimitDetail, createChannel, deleteChannel, listChannels, pageOfChannels, renameChannel, setDefaultChannel } from '../../accounts/channels'
import { setMuted } from '../../accounts/members'
import type { UserAuth } from '../../accounts/session'
import { routeGroup } from './group'
import { ChannelListQuery, ChannelParam, channelPageOf, NextCursor, WorkspaceParam, WorkspaceParams } from './input'
import { BODY_PROBLEMS, done, problem, problems, type Responses } from '../openapi'

const Slug = Type.String({ maxLength: LIMITS.channel, pattern: SLUG.source, description: 'Lower-case slug, as events name it.', error: `slug must be a channel slug: 1 to ${LIMITS.channel} lower-case letters, digits, "-" and "_", starting with a letter or digit`, examples: ['signups'] })
const Params = WorkspaceParams
const ChannelParams = Type.Object({ workspace: WorkspaceParam, channel: ChannelParam })
// What every route may answer; one that changes something, also a 403 (a role, or a web session's CSRF token).
const ALL = problems(400, 401, 404, 503)
const detail = (summary: string, description: string, responses: Responses = {}) => ({ summary, description, tags: ['Channels'], security: userSecurity, responses: { ...ALL, ...responses } })
const noChannel = problem(404, 'No such workspace (of mine), or no such channel in it.')

export const ChannelSchema = Type.Object({
  slug: Type.String(),
  isDefault: Type.Boolean({ description: 'Events that name no channel go here.' }),
  muted: Type.Boolean({ description: 'Whether you muted it: no pushes to your devices for its events.' }),
  createdAt: Type.String({ format: 'date-time' }),
}, { $id: 'Channel' })

/** The answer of creating or renaming a channel, here and in the operator API. */
export const ChannelSlug = Type.Object({ slug: Type.String() }, { $id: 'ChannelSlug' })

export const channelsRoute = (sql: Sql, users: UserAuth, check: AccessCheck, changed: (c: Change) => void, maxChannels: number) =>
  routeGroup({ name: 'route.channels', prefix: '/v1/workspaces/:workspace/channels', guard: users.authenticate })
    .get(
      '',
      async ({ request, params, query }) => {
        const { session, access } = await check(request, params.workspace)
        const page = channelPageOf(query)
        return pageOfChannels(await listChannels(sql, access.workspaceId, session.userId, page), page.limit)
      },
      {
        params: Params,
        query: ChannelListQuery,
        response: { 200: Type.Object({ channels: Type.Array(ChannelSchema), nextCursor: NextCursor }, { $id: 'ChannelPage' }) },
        detail: detail('List channels', 'In slug order, a page at a time; `q` finds the channels whose slug contains it.'),
      },
    )
    .post(
      '',
      async ({ request, params, body, set }) => {
        const { access } = await check(request, params.workspace, 'manage')
        const made = await createChannel(sql, access.workspaceId, body.slug, maxChannels)
        if (made === 'exists') throw new HeraldError('conflict', `The channel ${body.slug} exists.`)
        if (made === 'limit') throw new HeraldError('limit-reached', channelLimitDetail(maxChannels))
        set.status = 201
        return { slug: body.slug }
      },
      {
        params: Params,
        body: Type.Object({ slug: Slug }, { $id: 'CreateChannelBody', additionalProperties: false }),
        response: { 201: ChannelSlug },
        detail: detail('Create a channel', 'A channel is also created by the first event that names it. 409 when it exists, or when the workspace has HERALD_MAX_CHANNELS_PER_WORKSPACE channels.', {
          ...problems(...BODY_PROBLEMS, 403),
          409: problem(409, 'The channel exists, or the workspace has HERALD_MAX_CHANNELS_PER_WORKSPACE channels.'),
        }),
      },
    )
    .patch(
      '/:channel',
      async ({ request, params, body }) => {
        const { access } = await check(request, params.workspace, 'manage')
        let slug = params.channel
        if (body.slug !== undefined && body.slug !== slug) {
          const result = await renameChannel(sql, access.workspaceId, slug, body.slug)
          if (result === 'not-found') throw new HeraldError('not-found', `There is no channel ${slug}.`)
          if (result === 'taken') throw new HeraldError('conflict', `The channel ${body.slug} exists.`)
          slug = body.slug
          changed({ kind: 'audience' })
          changed({ kind: 'channels', workspaceId: access.workspaceId })
        }
        if (body.default === true && !(await setDefaultChannel(sql, access.workspaceId, slug))) throw new HeraldError('not-found', `There is no channel ${slug}.`)
        // Verified API keys carry their workspace's default channel: every
        // process drops the workspace's, this one at once.
        changed({ kind: 'keys', workspaceId: access.workspaceId })
        return { slug }
      },
      {
        params: ChannelParams,
        body: Type.Object({
          slug: Type.Optional({ ...Slug, description: 'A new slug: its past events and mutes move with it; events must use the new one.' }),
          default: Type.Optional(Type.Literal(true, { description: 'Make it the default channel.' })),
        }, { $id: 'UpdateChannelBody', additionalProperties: false, minProperties: 1, error: 'the body must be an object naming slug, default or both' }),
        response: { 200: ChannelSlug },
        detail: detail('Rename a channel, or make it the default', 'Events without a channel go to the new default at once on every instance that hears it over NATS (and on the embedded default); an instance that does not (no NATS, or NATS away) within API_KEY_CACHE_TTL_MS (at most 5 s).', {
          ...problems(...BODY_PROBLEMS, 403),
          404: noChannel,
          409: problem(409, 'The new slug is taken.'),
        }),
      },
    )
    .delete(
      '/:channel',
      async ({ request, params, set }) => {
        const { access } = await check(request, params.workspace, 'manage')
        const result = await deleteChannel(sql, access.workspaceId, params.channel)
        if (result === 'not-found') throw new HeraldError('not-found', `There is no channel ${params.channel}.`)
        if (result === 'default') throw new HeraldError('conflict', `${params.channel} is the default channel: make another one the default first.`)
        changed({ kind: 'audience' })
        // Its next event makes it again: no API process may take it for existing.
        changed({ kind: 'channels', workspaceId: access.workspaceId })
        set.status = 204
      },
      {
        params: ChannelParams,
        detail: detail('Delete a channel', 'Its events stay in the feed. Not the default channel (409).', {
          204: done('Deleted.'),
          ...problems(403),
          404: noChannel,
          409: problem(409, 'This is the default channel: make another one the default first.'),
        }),
      },
    )
    .put(
      '/:channel/mute',
      async ({ request, params, set }) => {
        const { session } = await check(request, params.workspace)
        const result = await setMuted(sql, params.workspace, session.userId, params.channel, true)
        if (result === 'no-channel') throw new HeraldError('not-found', `There is no channel ${params.channel}.`)
        if (result === 'not-member') throw new HeraldError('not-found', `You are not a member of a workspace named ${JSON.stringify(params.workspace)}.`)
        changed({ kind: 'audience' })
        set.status = 204
      },
      { params: ChannelParams, detail: detail('Mute a channel for myself', 'No pushes to my devices for its events. 404 for a channel that does not exist.', { 204: done('Muted.'), ...problems(403), 404: noChannel }) },
    )
    .delete(
      '/:channel/mute',
      async ({ request, params, set }) => {
        const { session } = await check(request, params.workspace)
        await setMuted(sql, params.workspace, session.userId, params.channel, false)
        changed({ kind: 'audience' })
        set.status = 204
      },
      { params: ChannelParams, detail: detail('Unmute a channel for myself', 'Pushes for its events reach my devices again. Unmuting a channel that is not muted is no error.', { 204: done('Unmuted.'), ...problems(403) }) },
    )
