// Read state, as a member: POST /v1/workspaces/{ws}/feed/read and
// …/feed/archive mark events (by ids, or everything up to an event, of one
// channel or all) for the member calling, on all their devices.
import { Type, type Static } from '@sinclair/typebox'
import type { AccessCheck } from '../../accounts/access'
import { userSecurity, type UserAuth } from '../../accounts/session'
import type { ReadOps } from '../../ingest/read_ops'
import { MARK_IDS_MAX, lostMembership, type Mark } from '../../ingest/read_state'
import { noLongerAMember, readBodyInvalid } from '../../core/errors'
import { routeGroup } from './group'
import { Text, UuidV7, WorkspaceParam } from './input'
import { UnreadCountsSchema } from './feed'
import { BODY_PROBLEMS, problem, problems } from '../openapi'

const MarkBody = Type.Object({
  eventIds: Type.Optional(Type.Array(UuidV7('eventIds', 'An event id.'), { minItems: 1, maxItems: MARK_IDS_MAX, description: `The events to mark, 1 to ${MARK_IDS_MAX}.`, error: `eventIds must be a list of 1 to ${MARK_IDS_MAX} event ids` })),
  before: Type.Optional(UuidV7('before', 'Marks every event up to this one, this one included (pass the newest id to mark everything).')),
  channel: Type.Optional(Text('channel', 64, 'With `before`: only this channel\'s events.')),
}, { $id: 'MarkEventsBody', additionalProperties: false, description: 'Either `eventIds`, or `before` with an optional `channel`.' })

const MarkResult = Type.Object({
  status: Type.Union([Type.Literal('read'), Type.Literal('archived')], { description: 'What the events were marked.' }),
  eventIds: Type.Array(Type.String({ format: 'uuid' }), { description: 'Of the `eventIds` sent, those whose state moved on (an event already read, or archived, is left out; marking read never unarchives).' }),
  before: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'The `before` sent, or null.' }),
  channel: Type.Union([Type.String(), Type.Null()], { description: 'The `channel` sent with `before`, or null (all channels).' }),
  moved: Type.Boolean({ description: 'With `before`: whether it marked anything new (false when everything up to it already was).' }),
  counts: UnreadCountsSchema,
}, { $id: 'MarkResult' })

const options = (state: Mark) => ({
  params: Type.Object({ workspace: WorkspaceParam }),
  body: MarkBody,
  response: { 200: MarkResult },
  detail: {
    summary: state === 'read' ? 'Mark events read' : 'Archive events',
    description: `Marks events ${state} for you (every member has their own read state), on all your devices: your other live streams get a \`read\` message within a second, and the installed app closes the notifications of these events on your other devices. Send \`{"eventIds": [...]}\` (at most ${MARK_IDS_MAX}), or \`{"before": "<eventId>", "channel": "<slug>"}\` for every event up to that one, that one included (\`channel\` optional: all channels); "mark all ${state}" passes the newest event's id.${state === 'archived' ? ' Archived implies read.' : ''} The answer says what changed and your unread counts after it.`,
    tags: ['Feed'],
    security: userSecurity,
    responses: {
      ...problems(...BODY_PROBLEMS, 401, 403, 503),
      400: problem(400, 'A body that is not exactly one of the two forms, more than 100 ids, an id that is not an event of this workspace (`errors[].pointer` names it), or a channel that does not exist.'),
      404: problem(404, 'No such workspace (of mine).'),
    },
  },
})

/** POST /v1/workspaces/{ws}/feed/read and …/feed/archive (a session or an app token). */
export const feedReadRoute = ({ users, check, mark }: { users: UserAuth; check: AccessCheck; mark: ReadOps }) => {
  const handler = (state: Mark) => async ({ request, params, body }: { request: Request; params: { workspace: string }; body: Static<typeof MarkBody> }) => {
    const { session, access } = await check(request, params.workspace)
    const reader = { workspaceId: access.workspaceId, userId: session.userId }
    if ((body.eventIds === undefined) === (body.before === undefined) || (body.eventIds && body.channel !== undefined)) throw readBodyInvalid()
    try {
      return await mark(reader, body.eventIds ? { eventIds: body.eventIds } : { before: body.before!, ...(body.channel ? { channel: body.channel } : {}) }, state)
    } catch (err) {
      if (lostMembership(err)) throw noLongerAMember()
      throw err
    }
  }
  return routeGroup({ name: 'route.feed-read', prefix: '/v1', guard: users.authenticate })
    .post('/workspaces/:workspace/feed/read', handler('read'), options('read'))
    .post('/workspaces/:workspace/feed/archive', handler('archived'), options('archived'))
}
