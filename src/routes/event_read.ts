// GET /events/{eventId}: an event as stored, read with the workspace's API key.
import { Type, type Static } from '@sinclair/typebox'
import type { Sql } from '../db'
import type { ApiKeyAuth } from '../auth'
import { HeraldError } from '../problems'
import { unauthorized } from './event'
import { routeGroup } from './group'
import { checkUuidv7Time, plausibleUuidv7, UuidV7, uuidv7Time } from './input'
import { listEventDeliveries } from '../deliveries'

export const StoredEvent = Type.Object({
  eventId: Type.String({ format: 'uuid' }),
  workspace: Type.String(),
  channel: Type.String(),
  event: Type.Union([Type.String(), Type.Null()]),
  title: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
  link: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  data: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
})

const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()])

export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: '1-based; starts again at 1 after a replay.' }),
  at: Type.String({ format: 'date-time' }),
  durationMs: Type.Integer(),
  ok: Type.Boolean(),
  status: Nullable(Type.Integer({ description: 'HTTP status (or SMTP reply code) received, if any.' })),
  error: Nullable(Type.String({ description: 'Why the attempt failed.' })),
  response: Nullable(Type.String({ description: 'The first KiB of the response body.' })),
})

export const Delivery = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Stable across attempts and duplicates; sent to webhooks as `webhook-id`.' }),
  kind: Type.Union([Type.Literal('router'), Type.Literal('push')], { description: 'A router delivery or a push to one device.' }),
  routerId: Nullable(Type.String({ format: 'uuid', description: 'For a router delivery.' })),
  deviceId: Nullable(Type.String({ format: 'uuid', description: 'For a push: the device (kept after the device is removed).' })),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time', description: 'When a pending delivery is next attempted.' })),
  attempts: Type.Array(DeliveryAttempt),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
})

export const EventWithDeliveries = Type.Composite([StoredEvent, Type.Object({
  deliveries: Type.Array(Delivery, { description: 'One per matching router (and, with push, per device); empty until the event is fanned out.' }),
})])

/** The event as stored, or null. The id carries the creation time, which picks the partition. */
export async function findEvent(sql: Sql, workspaceId: number, eventId: string): Promise<Static<typeof StoredEvent> | null> {
  if (!plausibleUuidv7(eventId)) return null // its time is past any partition (and any date PostgreSQL takes)
  const [row] = await sql<Static<typeof StoredEvent>[]>`
    SELECT e.id AS "eventId", w.name AS workspace, e.channel, e.event, e.title, e.message, e.link, e.tags, e.data, iso_time(e.created_at) AS "createdAt"
    FROM events e JOIN workspaces w ON w.id = e.workspace_id
    WHERE e.workspace_id = ${workspaceId} AND e.id = ${eventId} AND e.created_at = ${uuidv7Time(eventId)}`
  return row ?? null
}

export const eventReadRoute = (sql: Sql, auth: ApiKeyAuth) =>
  routeGroup({
    name: 'route.event.read',
    // 401 before the id is looked at: an anonymous caller learns nothing from a 400.
    guard: async (request) => {
      if (!(await auth.verify(request.headers.get('authorization')))) throw unauthorized()
    },
  }).get(
    '/events/:eventId',
    async ({ params, request }) => {
      const principal = await auth.verify(request.headers.get('authorization'))
      if (!principal) throw unauthorized()
      checkUuidv7Time('eventId', params.eventId)
      const event = await findEvent(sql, principal.workspaceId, params.eventId)
      if (!event) throw new HeraldError('not-found', 'There is no event with this id in this workspace.')
      return { ...event, deliveries: await listEventDeliveries(sql, principal.workspaceId, event.eventId) }
    },
    {
      params: Type.Object({ eventId: UuidV7('eventId', 'The eventId returned by POST /event.') }),
      response: { 200: EventWithDeliveries },
      detail: { summary: 'Read an event as stored (after truncation), with its deliveries and their attempts', tags: ['Events'], security: [{ apiKey: [] }] },
    },
  )
