// The feed a member reads (the dashboard and the mobile app): a workspace's
// events newest first with filters and a cursor, the same as a live stream of
// Server-Sent Events, and one event with its delivery log. Replaying a
// delivery is for owners and admins.
import { Elysia, t } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Sql } from '../db'
import type { AccessCheck } from '../access'
import type { EventBus } from '../bus'
import type { EventView } from '../../workers/job'
import { userSecurity } from '../session'
import { HeraldError } from '../problems'
import { FEED_PAGE_MAX, matchesFilter, readFeed, type FeedFilter } from '../feed'
import { findEvent, StoredEvent, EventWithDeliveries } from './event_read'
import { listEventDeliveries, replayDelivery } from '../deliveries'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const detail = (summary: string, description?: string) => ({ summary, description, tags: ['Feed'], security: userSecurity })
// A comment line this often keeps proxies (and Bun's idle timeout) from
// closing a quiet stream.
const HEARTBEAT_MS = 8_000

const FilterQuery = {
  workspace: Type.String({ description: 'Workspace name.' }),
  channel: Type.Optional(Type.String({ maxLength: 64, description: 'Only this channel.' })),
  tag: Type.Optional(Type.String({ maxLength: 50, description: 'Only events with this tag.' })),
  event: Type.Optional(Type.String({ maxLength: 129, description: 'Only this event key, or keys starting with a prefix given as "user.*".' })),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Words that must each begin a word of the title or the message.' })),
}

const filterOf = (q: { channel?: string; tag?: string; event?: string; q?: string }): FeedFilter => ({
  ...(q.channel ? { channel: q.channel.toLowerCase() } : {}),
  ...(q.tag ? { tag: q.tag } : {}),
  ...(q.event ? { event: q.event } : {}),
  ...(q.q?.trim() ? { q: q.q } : {}),
})

export const feedRoute = (sql: Sql, check: AccessCheck, bus: EventBus, wakeScheduler: () => void) =>
  new Elysia({ name: 'route.feed', prefix: '/v1' })
    .onTransform({ as: 'local' }, check.signedIn)
    .get(
      '/feed',
      async ({ request, query }) => {
        const { access } = await check(request, query.workspace)
        if (query.before !== undefined && !UUID.test(query.before)) {
          throw new HeraldError('validation-failed', 'before must be the nextCursor of an earlier page.', [{ pointer: '/before', detail: 'not a cursor' }])
        }
        return readFeed(sql, access.workspaceId, filterOf(query), query.before ?? null, query.limit ?? 50)
      },
      {
        query: Type.Object({
          ...FilterQuery,
          before: Type.Optional(Type.String({ description: 'The nextCursor of the previous page.' })),
          limit: Type.Optional(t.Numeric({ minimum: 1, maximum: FEED_PAGE_MAX, default: 50, description: `Events per page, at most ${FEED_PAGE_MAX}.` })),
        }),
        response: { 200: Type.Object({ events: Type.Array(StoredEvent), nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `before` for the next (older) page; null at the end.' }) }) },
        detail: detail('Read the feed', 'A workspace\'s events, newest first, with optional filters; every member may read it.'),
      },
    )
    .get(
      '/feed/stream',
      async ({ request, query, server }) => {
        const { access } = await check(request, query.workspace)
        const filter = filterOf(query)
        server?.timeout(request, 0)
        const encoder = new TextEncoder()
        let stop = () => {}
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            const send = (text: string) => {
              try {
                controller.enqueue(encoder.encode(text))
              } catch {
                stop()
              }
            }
            const unwatch = bus.watch(access.workspaceId, (view: EventView) => {
              if (matchesFilter(view, filter)) send(`id: ${view.eventId}\nevent: event\ndata: ${JSON.stringify(view)}\n\n`)
            })
            const beat = setInterval(() => send(': keep-alive\n\n'), HEARTBEAT_MS)
            stop = () => {
              clearInterval(beat)
              unwatch()
            }
            request.signal.addEventListener('abort', () => {
              stop()
              try {
                controller.close()
              } catch {}
            })
            send(`retry: 3000\n: watching ${access.workspace}\n\n`)
          },
          cancel: () => stop(),
        })
        return new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' } })
      },
      {
        query: Type.Object(FilterQuery),
        detail: detail('Follow the feed live (Server-Sent Events)', 'Each new event that passes the filters as an SSE `event` message whose data is the event; a comment every few seconds keeps the connection open. Best effort: after a reconnect, read the feed to fill any gap.'),
      },
    )
    .get(
      '/workspaces/:workspace/events/:eventId',
      async ({ request, params }) => {
        const { access } = await check(request, params.workspace)
        const event = await findEvent(sql, access.workspaceId, params.eventId)
        if (!event) throw new HeraldError('not-found', 'There is no event with this id in this workspace.')
        return { ...event, deliveries: await listEventDeliveries(sql, access.workspaceId, event.eventId) }
      },
      {
        params: Type.Object({ workspace: Type.String(), eventId: Type.String() }),
        response: { 200: EventWithDeliveries },
        detail: detail('An event with its delivery log', 'Every push and router delivery with every attempt. The dashboard shows it at /w/{workspace}/events/{eventId}.'),
      },
    )
    .post(
      '/workspaces/:workspace/deliveries/:id/replay',
      async ({ request, params, set }) => {
        const { access } = await check(request, params.workspace, 'manage')
        if (!UUID.test(params.id) || !(await replayDelivery(sql, access.workspaceId, params.id))) {
          throw new HeraldError('not-found', 'There is no finished delivery with this id in this workspace.')
        }
        wakeScheduler()
        set.status = 202
        return {}
      },
      {
        params: Type.Object({ workspace: Type.String(), id: Type.String() }),
        detail: detail('Replay a delivery', 'Sends a failed (or succeeded) delivery again, under the same id, with a fresh retry schedule.'),
      },
    )
