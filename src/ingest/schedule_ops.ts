// The operations on a workspace's scheduled events, once for every API: the
// producer (its API key: GET /events?status=scheduled, DELETE
// /events/{eventId}) and the workspace's owners and admins (the dashboard's
// Scheduled page, /v1/workspaces/{workspace}/scheduled). The routes are
// adapters; the queries are src/ingest/schedule.ts's.
import type { Sql } from '../core/db'
import { requireRight, type Actor } from '../core/operation'
import { eventSent, scheduledEventNotFound } from '../core/errors'
import { cancelScheduledEvent, listScheduledEvents } from './schedule'

/** Who acts on which workspace's scheduled events: a person (owner or admin), or the producer (`actor` absent: its API key may). */
export interface ScheduleCtx {
  sql: Sql
  workspace: { id: number; name: string }
  actor?: Actor
}

export const SCHEDULED_PAGE = { default: 50, max: 100 } as const

const allowed = (ctx: ScheduleCtx) => {
  if (ctx.actor) requireRight({ actor: ctx.actor, workspace: { ...ctx.workspace, defaultChannel: '' } }, 'manage')
}

/** A page of the scheduled events that have not gone out, soonest first. */
export async function scheduledPage(ctx: ScheduleCtx, cursor: string | undefined, limit: number | undefined) {
  allowed(ctx)
  return listScheduledEvents(ctx.sql, ctx.workspace.id, cursor ?? null, Math.min(limit ?? SCHEDULED_PAGE.default, SCHEDULED_PAGE.max))
}

/** Cancels a scheduled event that has not gone out (again: the same answer); 409 once it went out, 404 when there is none. */
export async function cancelScheduled(ctx: ScheduleCtx, eventId: string) {
  allowed(ctx)
  const r = await cancelScheduledEvent(ctx.sql, ctx.workspace.id, eventId)
  if (!r) throw scheduledEventNotFound()
  if (r.status === 'sent') throw eventSent(r.sentAt)
  return { eventId, status: 'cancelled' as const, scheduledFor: r.scheduledFor }
}

/** The producer's operations bound to the database: the API key's routes are given these, never SQL. */
export const producerSchedule = (sql: Sql) => ({
  page: (workspace: ScheduleCtx['workspace'], cursor: string | undefined, limit: number | undefined) => scheduledPage({ sql, workspace }, cursor, limit),
  cancel: (workspace: ScheduleCtx['workspace'], eventId: string) => cancelScheduled({ sql, workspace }, eventId),
})
export type ProducerSchedule = ReturnType<typeof producerSchedule>
