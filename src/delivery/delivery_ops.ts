// What a person or the operator can do with a workspace's deliveries: list
// them (a person pages through them with filters; the operator reads the
// failed ones, or those of one state), count an event's by state, and replay
// one or the failed ones in bulk. A replay makes deliveries pending again:
// the operation wakes this process's scheduler (`wake`), so that it sends them
// at once. Each operation checks the actor's right and throws its named error
// (src/core/operation.ts); the queries are in deliveries.ts.
import type { Ctx } from '../core/operation'
import { requireRight } from '../core/operation'
import { filterSinceAfterUntil, filterTimeInvalid, noFinishedDelivery } from '../core/errors'
import { eventVisibleTo, type Viewer } from '../ingest/event_reads'
import { countEventDeliveries, listDeliveries, listFailedDeliveries, replayDelivery, replayFailedDeliveries, type BulkReplay, type DeliveryFilter, type DeliveryState } from './deliveries'

/** Wakes the scheduler of this process after a replay, so that it picks the deliveries up at once. */
export type Wake = () => void

/** A filter as a query or a body gives it: times as text, ids in any case. */
export interface FilterInput {
  state?: DeliveryState
  router?: string
  device?: string
  since?: string
  until?: string
}

/** The filter of a query (`parameter`) or a body (`pointer`), its times parsed and checked; a 400 names the field. */
export function filterOf(q: FilterInput, where: 'parameter' | 'pointer'): DeliveryFilter {
  const time = (name: 'since' | 'until') => {
    const text = q[name]
    if (text === undefined) return undefined
    const ms = Date.parse(text)
    if (Number.isNaN(ms) || ms < 0) throw filterTimeInvalid(where, name)
    return new Date(ms)
  }
  const since = time('since')
  const until = time('until')
  if (since && until && since > until) throw filterSinceAfterUntil(where)
  return {
    ...(q.state ? { state: q.state } : {}),
    ...(q.router ? { routerId: q.router.toLowerCase() } : {}),
    ...(q.device ? { deviceId: q.device.toLowerCase() } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  }
}

/** Who reads: a person sees the deliveries of the events they may see only; the operator, every one. */
const viewerOf = (ctx: Ctx): Viewer | null => (ctx.actor.kind === 'person' ? { userId: ctx.actor.userId, workspaceId: ctx.workspace.id } : null)
const visible = (ctx: Ctx) => eventVisibleTo(ctx.sql, viewerOf(ctx), 'd')

/** A page of the workspace's deliveries that match the query's filter, newest event first, before `cursor`. */
export function pageOfDeliveries(ctx: Ctx, query: FilterInput & { cursor?: string; limit: number }) {
  requireRight(ctx, 'read')
  return listDeliveries(ctx.sql, ctx.workspace.id, filterOf(query, 'parameter'), query.cursor?.toLowerCase() ?? null, query.limit, visible(ctx))
}

/** The deliveries of one state (or all), at most `limit`: the failed ones newest failure first, the others newest event first. */
export async function listDeliveriesIn(ctx: Ctx, state: DeliveryState | 'all', limit: number) {
  requireRight(ctx, 'read')
  if (state === 'failed') return listFailedDeliveries(ctx.sql, ctx.workspace.id, limit)
  return (await listDeliveries(ctx.sql, ctx.workspace.id, state === 'all' ? {} : { state }, null, limit, visible(ctx))).deliveries
}

/** The deliveries of each of `eventIds` by state; an event of another workspace, or one the person may not see, counts zeros. */
export async function countDeliveriesOf(ctx: Ctx, eventIds: string[]) {
  requireRight(ctx, 'read')
  return Object.fromEntries(await countEventDeliveries(ctx.sql, ctx.workspace.id, [...new Set(eventIds.map((id) => id.toLowerCase()))], visible(ctx)))
}

/** Makes a finished delivery pending again, under the same id, with a fresh retry schedule; 404 when none of this id is finished. */
export async function replayOneDelivery(ctx: Ctx, id: string, wake: Wake): Promise<void> {
  requireRight(ctx, 'manage')
  if (!(await replayDelivery(ctx.sql, ctx.workspace.id, id, visible(ctx)))) throw noFinishedDelivery(ctx.actor.kind === 'operator')
  wake()
}

/** Replays the failed deliveries that match the body's filter (or, on a dry run, counts them). */
export async function replayFailedInBulk(ctx: Ctx, body: FilterInput & { dryRun?: boolean }, wake: Wake): Promise<BulkReplay> {
  requireRight(ctx, 'manage')
  const result = await replayFailedDeliveries(ctx.sql, ctx.workspace.id, filterOf(body, 'pointer'), visible(ctx), body.dryRun ?? false)
  if (result.replayed > 0) wake()
  return result
}
