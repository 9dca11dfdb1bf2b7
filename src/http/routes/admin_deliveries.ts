// Operator API: a workspace's failed deliveries, and replaying one.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import { HeraldError } from '../../core/problems'
import { findWorkspaceId } from '../../accounts/workspaces'
import { listFailedDeliveries, replayDelivery } from '../../delivery/deliveries'
import { Limit, Uuid, WorkspaceParam, WorkspaceParams } from './input'

const detail = (summary: string, description?: string) => ({ summary, description, tags: ['Operator'], security: [{ adminToken: [] }] })

export const FailedDelivery = Type.Object({
  id: Type.String({ format: 'uuid' }),
  eventId: Type.String({ format: 'uuid' }),
  kind: Type.String(),
  routerId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  status: Type.Literal('failed'),
  lastError: Type.Union([Type.String(), Type.Null()]),
  attemptCount: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time', description: 'When it failed.' }),
})

export const adminDeliveriesRoute = (sql: Sql, wakeScheduler: () => void) => {
  const workspaceId = async (name: string) => {
    const id = await findWorkspaceId(sql, name)
    if (id === null) throw new HeraldError('not-found', `There is no workspace named ${JSON.stringify(name)}.`)
    return id
  }
  return new Elysia({ name: 'route.admin.deliveries', prefix: '/admin/workspaces/:workspace/deliveries' })
    .get('', async ({ params, query }) => listFailedDeliveries(sql, await workspaceId(params.workspace), query.limit ?? 100), {
      params: WorkspaceParams,
      query: Type.Object({ limit: Type.Optional(Limit(1000, 100, 'Most deliveries returned, newest first.')) }),
      response: { 200: Type.Array(FailedDelivery) },
      detail: detail('List failed deliveries', 'Deliveries that failed for good (a permanent error, or every attempt of the retry schedule used), newest first. Each attempt is visible in GET /events/{eventId}.'),
    })
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
        response: { 202: Type.Object({ id: Type.String(), status: Type.Literal('pending') }) },
        detail: detail('Replay a delivery', 'Schedules a failed (or succeeded) delivery again with a fresh retry schedule, under the same id, so receivers can still drop duplicates.'),
      },
    )
}
