// Operator API: a workspace's deliveries (failed ones by default, or those of
// any state), and replaying one.
import { Elysia } from 'elysia'
import { Type, type Static } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import { HeraldError } from '../../core/problems'
import { listDeliveries, listFailedDeliveries, replayDelivery } from '../../delivery/deliveries'
import { Limit, Uuid, WorkspaceParam, WorkspaceParams } from './input'
import { operatorDetail as detail, workspaceIdOf } from './admin_auth'
import { problem, problems } from '../openapi'

export const DeliverySummary = Type.Object({
  id: Type.String({ format: 'uuid' }),
  eventId: Type.String({ format: 'uuid' }),
  kind: Type.String({ description: 'router, or push (to a device).' }),
  routerId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  deviceId: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'The device of a push; absent from the failed list.' })),
  lastStatus: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt; absent from the failed list.' })),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('cancelled')]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  attemptCount: Type.Integer(),
  nextAttemptAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When a pending delivery is tried next; absent from the failed list.' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time', description: 'When it last changed: for a failed one, when it failed.' }),
  event: Type.Optional(
    Type.Union(
      [Type.Object({ title: Type.Union([Type.String(), Type.Null()]), message: Type.String({ description: 'Its first 200 characters.' }), event: Type.Union([Type.String(), Type.Null()]), channel: Type.String(), createdAt: Type.String({ format: 'date-time' }) }), Type.Null()],
      { description: 'What the list shows of its event (null once the event is gone); absent from the failed list.' },
    ),
  ),
}, { $id: 'DeliverySummary' })

export type DeliverySummary = Static<typeof DeliverySummary>

const State = Type.Union([Type.Literal('failed'), Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('cancelled'), Type.Literal('all')], {
  default: 'failed',
  description: 'failed (the default): failed for good, newest failure first. pending, succeeded, cancelled (ended by an owner) or all: newest event first.',
  error: 'state must be failed, pending, succeeded, cancelled or all',
})

export const adminDeliveriesRoute = (sql: Sql, wakeScheduler: () => void) => {
  const workspaceId = workspaceIdOf(sql)
  return new Elysia({ name: 'route.admin.deliveries', prefix: '/admin/workspaces/:workspace/deliveries' })
    .get(
      '',
      async ({ params, query }) => {
        const id = await workspaceId(params.workspace)
        const state = query.state ?? 'failed'
        const limit = query.limit ?? 100
        if (state === 'failed') return listFailedDeliveries(sql, id, limit)
        return (await listDeliveries(sql, id, state === 'all' ? {} : { state }, null, limit)).deliveries
      },
      {
        params: WorkspaceParams,
        query: Type.Object({ state: Type.Optional(State), limit: Type.Optional(Limit(1000, 100, 'Most deliveries returned, newest first.')) }),
        response: { 200: Type.Array(DeliverySummary) },
        detail: detail(
          'List deliveries',
          'By default the deliveries that failed for good (a permanent error, or every attempt of the retry schedule used), newest failure first; with `state`, those of another state or of all. Each attempt is visible in GET /events/{eventId}.',
          problems(400),
        ),
      },
    )
    .post(
      '/:id/replay',
      async ({ params, set }) => {
        const ok = await replayDelivery(sql, await workspaceId(params.workspace), params.id)
        if (!ok) throw new HeraldError('not-found', 'There is no finished delivery with this id in this workspace (a pending one is already scheduled).')
        wakeScheduler()
        set.status = 202
        return { id: params.id, status: 'pending' as const }
      },
      {
        params: Type.Object({ workspace: WorkspaceParam, id: Uuid('id', 'Delivery id, from GET /events/{eventId} or the failed list.') }),
        response: { 202: Type.Object({ id: Type.String(), status: Type.Literal('pending') }, { $id: 'ReplayedDelivery' }) },
        detail: detail('Replay a delivery', 'Schedules a failed (or succeeded) delivery again with a fresh retry schedule, under the same id, so receivers can still drop duplicates.', {
          ...problems(400),
          404: problem(404, 'No such workspace, or no finished delivery of this id in it (a pending one is already scheduled).'),
        }),
      },
    )
}
