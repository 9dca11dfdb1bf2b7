// GET /events?status=scheduled and DELETE /events/{eventId}: a producer's
// scheduled events, with its API key (docs/events.md, "Scheduled events").
// The operations are src/ingest/schedule_ops.ts's; the dashboard's twins are
// routes/scheduled.ts.
import { Type } from '@sinclair/typebox'
import type { ApiKeyAuth } from '../../ingest/auth'
import { apiKeyRequired, eventsListStatus } from '../../core/errors'
import { SCHEDULED_PAGE, type ProducerSchedule } from '../../ingest/schedule_ops'
import { routeGroup } from './group'
import { checkUuidv7Time, Limit, NextCursor, UuidV7 } from './input'
import { StoredEvent } from './event_read'
import { problem, problems } from '../openapi'

export const ScheduledEvent = Type.Composite([StoredEvent, Type.Object({
  scheduledFor: Type.String({ format: 'date-time', description: 'When it goes out: shown in the feed, pushed and routed then.' }),
  status: Type.Literal('scheduled'),
})], { $id: 'ScheduledEvent' })

export const ScheduledPage = Type.Object({ events: Type.Array(ScheduledEvent), nextCursor: NextCursor }, { $id: 'ScheduledPage' })

export const Cancelled = Type.Object({
  eventId: Type.String({ format: 'uuid' }),
  status: Type.Literal('cancelled'),
  scheduledFor: Type.String({ format: 'date-time', description: 'When it would have gone out.' }),
}, { $id: 'CancelledEvent' })

export const ScheduledQuery = Type.Object({
  status: Type.Optional(Type.Literal('scheduled', { description: 'The events to list: `scheduled`, those that have not gone out (required).', error: 'status must be scheduled' })),
  cursor: Type.Optional(UuidV7('cursor', 'The nextCursor of the page before.')),
  limit: Type.Optional(Limit(SCHEDULED_PAGE.max, SCHEDULED_PAGE.default, `Events per page, 1 to ${SCHEDULED_PAGE.max} (default ${SCHEDULED_PAGE.default}).`)),
})

export const eventsScheduledRoute = ({ auth, schedule }: { auth: ApiKeyAuth; schedule: ProducerSchedule }) => {
  const producer = async (request: Request) => {
    const principal = await auth.verify(request.headers.get('authorization'))
    if (!principal) throw apiKeyRequired()
    return { id: principal.workspaceId, name: principal.workspace }
  }
  return routeGroup({
    name: 'route.events-scheduled',
    guard: async (request) => {
      if (!(await auth.verify(request.headers.get('authorization')))) throw apiKeyRequired()
    },
  })
    .get(
      '/events',
      async ({ request, query }) => {
        if (query.status !== 'scheduled') throw eventsListStatus()
        return schedule.page(await producer(request), query.cursor, query.limit)
      },
      {
        query: ScheduledQuery,
        response: { 200: ScheduledPage },
        detail: {
          summary: 'List scheduled events',
          description: 'The events of the workspace that are scheduled (`deliverAt` / `delay`) and have not gone out, soonest first, a page at a time. `status=scheduled` is required: sent events are read one by one (GET /events/{eventId}) or in the dashboard\'s feed.',
          tags: ['Events'],
          security: [{ apiKey: [] }],
          responses: problems(400, 401, 503),
        },
      },
    )
    .delete(
      '/events/:eventId',
      async ({ request, params }) => {
        checkUuidv7Time('eventId', params.eventId)
        return schedule.cancel(await producer(request), params.eventId)
      },
      {
        params: Type.Object({ eventId: UuidV7('eventId', 'The eventId POST /event returned.') }),
        response: { 200: Cancelled },
        detail: {
          summary: 'Cancel a scheduled event',
          description: 'Cancels a scheduled event that has not gone out: it is never shown, pushed or routed, and its receipt (with `ack`) is cancelled. A cancel racing the release ends in exactly one of 200 (cancelled) or 409 (went out). Cancelling again answers 200 again (for 7 days after its time). The quota it took is not refunded.',
          tags: ['Events'],
          security: [{ apiKey: [] }],
          responses: { ...problems(400, 401, 503), 404: problem(404, 'No scheduled event of this id in the workspace of this key.'), 409: problem(409, 'The event already went out (`event-sent`, saying when).') },
        },
      },
    )
}
