// A workspace's deliveries, on both APIs (src/http/routes/side.ts). People
// read the list every member may read (filtered by state, router, device and
// time, newest event first, a page at a time), the state counts of a few
// events (the feed's live refresh), and replay one delivery (from its event's
// log) or the failed ones in bulk, which is for owners and admins. The
// operator reads the failed deliveries (or those of one state) and replays
// one. The operations, and the scheduler's wake-up after a replay, are in
// src/delivery/delivery_ops.ts.
import { Type, type Static } from '@sinclair/typebox'
import { REPLAY_MAX } from '../../delivery/deliveries'
import { countDeliveriesOf, listDeliveriesIn, pageOfDeliveries, replayFailedInBulk, replayOneDelivery, type Wake } from '../../delivery/delivery_ops'
import type { Handled, Side } from './side'
import { Limit, Uuid, WorkspaceParam, WorkspaceParams } from './input'
import { BODY_PROBLEMS, done, problem, problems } from '../openapi'

/** What a digest's delivery carried (kind digest). */
export const DigestInfo = Type.Object({
  key: Type.String({ description: 'The rendered key its events were gathered under ("" for one key).' }),
  count: Type.Integer({ description: 'Events in it.' }),
  eventIds: Type.Array(Type.String({ format: 'uuid' }), { description: 'Its events, oldest first.' }),
}, { $id: 'DigestInfo', description: 'A digest (kind digest): its key and its events.' })

export const DeliverySummary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  eventId: Type.String({ format: 'uuid' }),
  kind: Type.String({ description: 'router, push (to a device), receipt, or digest (a router\'s gathered events, as one delivery).' }),
  routerId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  deviceId: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'The device of a push; absent from the failed list.' })),
  lastStatus: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt; absent from the failed list.' })),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('cancelled'), Type.Literal('expired'), Type.Literal('suppressed'), Type.Literal('throttled'), Type.Literal('digested')]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  attemptCount: Type.Integer(),
  nextAttemptAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When a pending delivery is tried next; absent from the failed list.' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time', description: 'When it last changed: for a failed one, when it failed.' }),
  digestId: Type.Optional(Type.String({ format: 'uuid', description: 'A digested delivery: the id of the digest delivery that carried its event.' })),
  digestEventId: Type.Optional(Type.String({ format: 'uuid', description: "A digested delivery: the id of the digest's first event, whose page (`GET /events/{eventId}`) lists the digest's delivery." })),
  digest: Type.Optional(DigestInfo),
  event: Type.Optional(
    Type.Union(
      [Type.Object({ title: Type.Union([Type.String(), Type.Null()]), message: Type.String({ description: 'Its first 200 characters.' }), event: Type.Union([Type.String(), Type.Null()]), channel: Type.String(), createdAt: Type.String({ format: 'date-time' }) }), Type.Null()],
      { description: 'What the list shows of its event (null once the event is gone); absent from the failed list.' },
    ),
  ),
}, { $id: 'DeliverySummary' })

export type DeliverySummary = Static<typeof DeliverySummary>

const OperatorState = Type.Union([Type.Literal('failed'), Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('cancelled'), Type.Literal('expired'), Type.Literal('suppressed'), Type.Literal('throttled'), Type.Literal('digested'), Type.Literal('all')], {
  default: 'failed',
  description: 'failed (the default): failed for good, newest failure first. pending, succeeded, cancelled (ended by an owner), expired (not sent: the event outlived its ttl), suppressed (pushes a member\'s preferences held back: muted, channel level, quiet hours), throttled (a router\'s throttle held it back: never sent), digested (its event went out inside a digest) or all: newest event first.',
  error: 'state must be failed, pending, succeeded, cancelled, expired, suppressed, throttled, digested or all',
})

const PAGE_MAX = 100
const COUNTS_MAX = 100

const UUIDV7 = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}'
// A date (midnight UTC) or a date and time with its offset: what a browser's
// toISOString writes, and what a person types. Four-digit years only, so
// that every value is a time a UUIDv7 can carry.
const TIME = '^\\d{4}-\\d{2}-\\d{2}(?:T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:Z|[+-]\\d{2}:\\d{2}))?$'
const Time = (name: string, description: string) =>
  Type.String({ pattern: TIME, maxLength: 40, description, examples: ['2025-06-01T00:00:00Z'], error: `${name} must be a date (2025-06-01) or a date and time with its zone (2025-06-01T12:00:00Z)` })

export const DeliveryCountsSchema = Type.Object(
  {
    pending: Type.Integer({ description: 'Deliveries still to be made: a first attempt or a retry is due.' }),
    succeeded: Type.Integer(),
    failed: Type.Integer({ description: 'Deliveries that failed for good; owners and admins can replay them.' }),
    expired: Type.Optional(Type.Integer({ description: 'Deliveries not sent because the event was older than its `ttl` when their turn came; present only when some expired.' })),
    suppressed: Type.Optional(Type.Integer({ description: "Pushes not sent because of members' preferences (a muted channel, a channel level above the event's priority, quiet hours); present only when some were." })),
    throttled: Type.Optional(Type.Integer({ description: "Router deliveries not sent because the router's throttle was reached for their key; present only when some were." })),
    digested: Type.Optional(Type.Integer({ description: 'Router deliveries whose event went out inside a digest; present only when some were.' })),
  },
  { $id: 'DeliveryCounts', description: 'The event\'s deliveries (one per matching router and pushed device) by state; all zero when nothing was delivered, or not yet.' },
)

const State = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('cancelled'), Type.Literal('expired'), Type.Literal('suppressed'), Type.Literal('throttled'), Type.Literal('digested')], {
  description: 'Only deliveries in this state. pending: due, or waiting for a retry; failed: failed for good (replayable); cancelled: ended by an owner; expired: not sent, the event being older than its ttl when its turn came; suppressed: a push not sent because of the member\'s preferences (last error says which); throttled: not sent, its router\'s throttle was reached for its key; digested: its event went out inside a digest (the digest\'s own delivery has kind digest).',
  error: 'state must be pending, succeeded, failed, cancelled, expired, suppressed, throttled or digested',
})

const FilterFields = {
  state: Type.Optional(State),
  router: Type.Optional(Uuid('router', 'Only the deliveries of this router (its id).')),
  device: Type.Optional(Uuid('device', 'Only the pushes to this device (its id).')),
  since: Type.Optional(Time('since', 'Only deliveries of events created at or after this time.')),
  until: Type.Optional(Time('until', 'Only deliveries of events created at or before this time.')),
}

export const DeliveryListItemSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Stable across attempts and replays; sent to webhooks as `webhook-id`.' }),
  eventId: Type.String({ format: 'uuid' }),
  kind: Type.Union([Type.Literal('router'), Type.Literal('push'), Type.Literal('receipt'), Type.Literal('digest')], { description: 'A router delivery, a push to one device (a receipt\'s repeats too), or a router told that a receipt ended.' }),
  routerId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'For a router delivery.' }),
  deviceId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'For a push: the device.' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('cancelled'), Type.Literal('expired'), Type.Literal('suppressed'), Type.Literal('throttled'), Type.Literal('digested')]),
  attemptCount: Type.Integer({ description: 'Attempts made, those before a replay included; attempts are numbered on across replays.' }),
  lastStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status (or SMTP reply code) of the last attempt, if one came back.' }),
  lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed; for a suppressed push, which preference held it back.' }),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When a pending delivery is tried next.' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  digestId: Type.Optional(Type.String({ format: 'uuid', description: 'A digested delivery: the id of the digest delivery that carried its event.' })),
  digestEventId: Type.Optional(Type.String({ format: 'uuid', description: "A digested delivery: the id of the digest's first event, whose page (`GET /events/{eventId}`) lists the digest's delivery." })),
  digest: Type.Optional(DigestInfo),
  event: Type.Union(
    [Type.Object({ title: Type.Union([Type.String(), Type.Null()]), message: Type.String({ description: 'The first 200 characters.' }), event: Type.Union([Type.String(), Type.Null()]), channel: Type.String(), createdAt: Type.String({ format: 'date-time' }) }), Type.Null()],
    { description: 'What the event was; null once it is past retention.' },
  ),
}, { $id: 'DeliveryListItem' })

const BulkReplayBody = Type.Object(
  { ...FilterFields, dryRun: Type.Optional(Type.Boolean({ description: 'Only count the failed deliveries that would be replayed.', error: 'dryRun must be true or false' })) },
  { $id: 'BulkReplayBody', additionalProperties: false },
)

type Filter = Static<typeof BulkReplayBody>

export function deliveriesRoute({ side, wake }: { side: Side; wake: Wake }) {
  const detail = side.documents({ tag: 'Deliveries', common: problems(401, 404, 503) })
  const routes = side.group({ name: 'route.deliveries', prefix: `${side.root}/deliveries` })
  // Replaying one delivery: a person does it from the event's delivery log
  // (tagged with the feed in the reference, beside that log) and is answered
  // an empty object; the operator, from the failed list, and is answered the
  // delivery's id and state.
  const replayOne = async ({ request, params, set }: Handled<{ workspace: string; id: string }>) => {
    await replayOneDelivery(await side.ctx(request, params.workspace), params.id, wake)
    set.status = 202
    return side.says({ person: {}, operator: { id: params.id, status: 'pending' as const } })
  }
  if (side.kind === 'operator') {
    return routes
      .get(
        '',
        async ({ request, params, query }) => listDeliveriesIn(await side.ctx(request, params.workspace), query.state ?? 'failed', query.limit ?? 100),
        {
          params: WorkspaceParams,
          query: Type.Object({ state: Type.Optional(OperatorState), limit: Type.Optional(Limit(1000, 100, 'Most deliveries returned, newest first.')) }),
          response: { 200: Type.Array(DeliverySummary) },
          detail: detail(
            'List deliveries',
            'By default the deliveries that failed for good (a permanent error, or every attempt of the retry schedule used), newest failure first; with `state`, those of another state or of all. Each attempt is visible in GET /events/{eventId}.',
            problems(400),
          ),
        },
      )
      .post('/:id/replay', replayOne, {
        params: Type.Object({ workspace: WorkspaceParam, id: Uuid('id', 'Delivery id, from GET /events/{eventId} or the failed list.') }),
        response: { 202: Type.Object({ id: Type.String(), status: Type.Literal('pending') }, { $id: 'ReplayedDelivery' }) },
        detail: detail('Replay a delivery', 'Schedules a failed (or succeeded) delivery again with a fresh retry schedule, under the same id, so receivers can still drop duplicates.', {
          ...problems(400),
          404: problem(404, 'No such workspace, or no finished delivery of this id in it (a pending one is already scheduled).'),
        }),
      })
  }
  const feed = side.documents({ tag: 'Feed', common: problems(401, 404, 503) })
  return routes
    .post('/:id/replay', replayOne, {
      params: Type.Object({ workspace: WorkspaceParam, id: Uuid('id', 'Delivery id, from the event\'s delivery log.') }),
      detail: feed('Replay a delivery', 'Sends a failed (or succeeded) delivery again, under the same id, with a fresh retry schedule. Owners and admins.', {
        202: done('Scheduled: the delivery is pending again. The body is an empty object.'),
        ...problems(400, 403),
        404: problem(404, 'No such workspace (of mine), or no finished delivery of this id in it.'),
      }),
    })
    .get(
      '',
      async ({ request, params, query }) => pageOfDeliveries(await side.ctx(request, params.workspace), { ...query, limit: query.limit ?? 50 }),
      {
        params: WorkspaceParams,
        query: Type.Object({
          ...FilterFields,
          cursor: Type.Optional(Uuid('cursor', 'The nextCursor of the previous page.')),
          limit: Type.Optional(Limit(PAGE_MAX, 50, `Deliveries per page, at most ${PAGE_MAX}.`)),
        }),
        response: {
          200: Type.Object({
            deliveries: Type.Array(DeliveryListItemSchema),
            nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next (older) page; null at the end.' }),
          }, { $id: 'DeliveryPage' }),
        },
        detail: detail(
          'List deliveries',
          'A workspace\'s deliveries to routers and devices across its events, newest event first, with optional filters; every member may read them, except those of an event sent `to` people, which only its recipients and the workspace\'s owners and admins see. Each attempt of a delivery is in its event\'s log (GET /v1/workspaces/{workspace}/events/{eventId}).',
          problems(400),
        ),
      },
    )
    .get('/counts', async ({ request, params, query }) => countDeliveriesOf(await side.ctx(request, params.workspace), query.events.split(',')), {
      params: WorkspaceParams,
      query: Type.Object({
        events: Type.String({
          pattern: `^${UUIDV7}(?:,${UUIDV7}){0,${COUNTS_MAX - 1}}$`,
          maxLength: COUNTS_MAX * 37,
          description: `Event ids, separated by commas; at most ${COUNTS_MAX}.`,
          error: `events must be 1 to ${COUNTS_MAX} event ids (UUIDv7), separated by commas`,
        }),
      }),
      response: { 200: Type.Record(Type.String({ format: 'uuid' }), DeliveryCountsSchema, { $id: 'DeliveryCountsByEvent', description: 'By event id; an event of another workspace, or one sent `to` people that I may not see, counts zeros.' }) },
      detail: detail('Count the deliveries of events by state', 'What the feed shows of each event\'s deliveries, for refreshing it: the same counts as `deliveryCounts` in GET /v1/feed.', problems(400)),
    })
    .post('/replay', async ({ request, params, body }) => replayFailedInBulk(await side.ctx(request, params.workspace), body as Filter, wake), {
      params: WorkspaceParams,
      body: BulkReplayBody,
      response: {
        200: Type.Object({
          matched: Type.Integer({ description: `Failed deliveries that match the filter, counted up to ${REPLAY_MAX}.` }),
          replayed: Type.Integer({ description: 'Of them, those sent again now: 0 on a dry run, and fewer than matched when a replay at the same time took some.' }),
          more: Type.Boolean({ description: `More than ${REPLAY_MAX} matched: call again to replay the rest.` }),
        }, { $id: 'BulkReplayResult' }),
      },
      detail: detail(
        'Replay failed deliveries',
        `Sends again the failed deliveries that match the filter (the query of GET …/deliveries, as a body), newest event first, at most ${REPLAY_MAX} a call: each under its own id, with a fresh retry schedule, like the replay of one delivery. Two calls at once replay each delivery once. With "dryRun": true, only counts them. Owners and admins.`,
        problems(...BODY_PROBLEMS, 403),
      ),
    })
}
