// One event of a workspace with its delivery log, for any member (the
// dashboard's event page): every push and router delivery with every
// attempt. The same event read with an API key is routes/event_read.ts.
import { Type } from '@sinclair/typebox'
import type { AccessCheck } from '../../accounts/access'
import { userSecurity, type UserAuth } from '../../accounts/session'
import type { EventReads } from '../../ingest/event_reads'
import { EventWithDeliveries } from './event_read'
import { routeGroup } from './group'
import { checkUuidv7Time, UuidV7, WorkspaceParam } from './input'
import { problem, problems } from '../openapi'

export const workspaceEventRoute = ({ reads, users, check }: { reads: EventReads; users: UserAuth; check: AccessCheck }) =>
  routeGroup({ name: 'route.workspace-event', prefix: '/v1', guard: users.authenticate }).get(
    '/workspaces/:workspace/events/:eventId',
    async ({ request, params }) => {
      const { session, access } = await check(request, params.workspace)
      checkUuidv7Time('eventId', params.eventId)
      return reads.event(access.workspaceId, params.eventId, { userId: session.userId, workspaceId: access.workspaceId })
    },
    {
      params: Type.Object({ workspace: WorkspaceParam, eventId: UuidV7('eventId', 'The event\'s id.') }),
      response: { 200: EventWithDeliveries },
      detail: {
        summary: 'An event with its delivery log',
        description: 'Every push and router delivery with every attempt, and the recipients of an event sent `to` people. The dashboard shows it at /w/{workspace}/events/{eventId}.',
        // With the feed in the reference: the page of the feed's events.
        tags: ['Feed'],
        security: userSecurity,
        responses: {
          ...problems(400, 401, 404, 503),
          404: problem(404, 'No such workspace (of mine), or no event of this id in it that I may see (an event sent `to` people is seen by its recipients and the workspace\'s owners and admins only).'),
        },
      },
    },
  )
