// GET /events/{eventId}: an event as stored, read with the workspace's API key.
import { Type, type Static } from '@sinclair/typebox'
import type { ApiKeyAuth } from '../../ingest/auth'
import { apiKeyRequired } from '../../core/errors'
import type { EventReads } from '../../ingest/event_reads'
import { routeGroup } from './group'
import { checkUuidv7Time, UuidV7 } from './input'
import { problem, problems } from '../openapi'
import { DigestInfo } from './deliveries'

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
  priority: Type.Integer({ minimum: 1, maximum: 5, description: 'How urgent the event is: 1 (min) to 5 (urgent); 3 when it was not given.' }),
  ttl: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Seconds the notification was worth sending, when given.' }),
  collapseKey: Type.Union([Type.String(), Type.Null()], { description: 'A newer event with the same key replaced it on devices.' }),
  receipt: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'Its receipt, when it must be acknowledged.' }),
  to: Type.Union([Type.Array(Type.String({ format: 'uuid' })), Type.Null()], { description: 'When it was sent `to` people: the user ids of its recipients (the members its `to` resolved to). Only they and the workspace\'s owners and admins see it. null: sent to the channel.' }),
  scheduledFor: Type.Optional(Type.String({ format: 'date-time', description: 'Only on a scheduled event (`deliverAt` / `delay`): the time it goes (or went) out, which is also its `createdAt`. Router templates read it as {{scheduledFor}}.' })),
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
}, { $id: 'DeliveryAttempt' })

export const Delivery = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Stable across attempts and duplicates; sent to webhooks as `webhook-id`.' }),
  kind: Type.Union([Type.Literal('router'), Type.Literal('push'), Type.Literal('receipt'), Type.Literal('digest')], { description: 'A router delivery, a push to one device (each repeat of an event with `ack` is a push of its own), or a router told that the event\'s receipt ended (`receipts: true`).' }),
  routerId: Nullable(Type.String({ format: 'uuid', description: 'For a router delivery.' })),
  deviceId: Nullable(Type.String({ format: 'uuid', description: 'For a push: the device (kept after the device is removed).' })),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('cancelled'), Type.Literal('expired'), Type.Literal('suppressed'), Type.Literal('throttled'), Type.Literal('digested')], { description: "expired: not sent, the event being older than its ttl when its turn came (first attempt or retry). suppressed: a push not sent because of the device's member's preferences (muted, channel level, quiet hours), with no attempt." }),
  reason: Nullable(Type.String({ description: "A suppressed push: which of its member's preferences held it back (muted, a channel level, quiet hours)." })),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time', description: 'When a pending delivery is next attempted.' })),
  digestId: Type.Optional(Type.String({ format: 'uuid', description: 'A digested delivery (its router gathers events into digests): the id of the digest delivery that carried this event.' })),
  digestEventId: Type.Optional(Type.String({ format: 'uuid', description: "A digested delivery: the id of the digest's first event, whose page (`GET /events/{eventId}`) lists the digest's delivery (this event's own, when it was the first)." })),
  digest: Type.Optional(DigestInfo),
  attempts: Type.Array(DeliveryAttempt),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}, { $id: 'Delivery' })

export const EventWithDeliveries = Type.Composite([StoredEvent, Type.Object({
  recipients: Type.Union([Type.Array(Type.Object({ userId: Type.String({ format: 'uuid' }), email: Type.String() })), Type.Null()], { description: 'The recipients of `to` with their e-mail addresses, by address (a user deleted since is left out); null when it was sent to the channel.' }),
  deliveries: Type.Array(Delivery, { description: 'One per matching router (and, with push, per device); empty until the event is fanned out.' }),
})], { $id: 'EventWithDeliveries' })


/** GET /events/{eventId}'s answer: the event, or one that has not gone out with its `status`. */
export const ProducerEvent = Type.Composite([EventWithDeliveries, Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('scheduled'), Type.Literal('cancelled')], { description: 'Only on a scheduled event that has not gone out: `scheduled`, or `cancelled` (DELETE /events/{eventId}); its `deliveries` are empty. Absent once it went out.' })),
})], { $id: 'ProducerEvent' })

export const eventReadRoute = ({ reads, auth }: { reads: EventReads; auth: ApiKeyAuth }) =>
  routeGroup({
    name: 'route.event.read',
    // 401 before the id is looked at: an anonymous caller learns nothing from a 400.
    guard: async (request) => {
      if (!(await auth.verify(request.headers.get('authorization')))) throw apiKeyRequired()
    },
  }).get(
    '/events/:eventId',
    async ({ params, request }) => {
      const principal = await auth.verify(request.headers.get('authorization'))
      if (!principal) throw apiKeyRequired()
      checkUuidv7Time('eventId', params.eventId)
      return reads.event(principal.workspaceId, params.eventId, null) // the producer sees every event of its workspace
    },
    {
      params: Type.Object({ eventId: UuidV7('eventId', 'The eventId returned by POST /event.') }),
      response: { 200: ProducerEvent },
      detail: {
        summary: 'Read an event as stored (after truncation), with its deliveries and their attempts',
        description: 'With the API key of the workspace the event was sent to.',
        tags: ['Events'],
        security: [{ apiKey: [] }],
        responses: { ...problems(400, 401, 503), 404: problem(404, 'No event of this id in the workspace of this key.') },
      },
    },
  )
