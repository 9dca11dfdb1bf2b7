// A workspace's scheduled events for its owners and admins (the dashboard's
// Scheduled page): list and cancel, with their session. The same operations
// as the producer's GET /events?status=scheduled and DELETE /events/{eventId}
// (routes/events_scheduled.ts), from src/ingest/schedule_ops.ts.
import { Type } from '@sinclair/typebox'
import { cancelScheduled, scheduledPage } from '../../ingest/schedule_ops'
import type { Side } from './side'
import { checkUuidv7Time, UuidV7, WorkspaceParam, WorkspaceParams } from './input'
import { Cancelled, ScheduledPage, ScheduledQuery } from './events_scheduled'
import { problem, problems } from '../openapi'

export function scheduledRoute(side: Side) {
  const detail = side.documents({ tag: 'Events', common: problems(400, 401, 403, 404, 503) })
  return side.group({ name: 'route.scheduled', prefix: `${side.root}/scheduled` })
    .get(
      '',
      async ({ request, params, query }) => scheduledPage(await side.ctx(request, params.workspace), query.cursor, query.limit),
      {
        params: WorkspaceParams,
        query: Type.Omit(ScheduledQuery, ['status']),
        response: { 200: ScheduledPage },
        detail: detail('List the workspace\'s scheduled events', 'Owners and admins: the events scheduled (`deliverAt` / `delay`) that have not gone out, soonest first, a page at a time.'),
      },
    )
    .delete(
      '/:eventId',
      async ({ request, params }) => {
        checkUuidv7Time('eventId', params.eventId)
        return cancelScheduled(await side.ctx(request, params.workspace), params.eventId)
      },
      {
        params: Type.Object({ workspace: WorkspaceParam, eventId: UuidV7('eventId', 'The scheduled event\'s id.') }),
        response: { 200: Cancelled },
        detail: detail('Cancel a scheduled event', 'Owners and admins: as DELETE /events/{eventId} with the API key; 409 once it went out.', { 409: problem(409, 'The event already went out (`event-sent`).') }),
      },
    )
}
