// The feed a member reads (the dashboard and the mobile app): a workspace's
// events newest first with filters and a cursor, and the same as a live
// stream of Server-Sent Events. Each event of a page comes with its
// deliveries counted by state (the stream's events have none yet: they are
// fanned out after). One event with its delivery log is
// routes/workspace_events.ts; replaying a delivery, routes/deliveries.ts.
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import type { AccessCheck } from '../../accounts/access'
import type { EventReads } from '../../ingest/event_reads'
import type { EventBus } from '../../delivery/bus'
import type { Changes } from '../../core/changes'
import type { EventView } from '../../delivery/event_view'
import { userSecurity } from '../../accounts/session'
import { tooManyStreams } from '../../core/errors'
import { FEED_PAGE_MAX, matchesFilter, type FeedFilter } from '../../ingest/feed'
import { StoredEvent } from './event_read'
import { DeliveryCountsSchema } from './deliveries'
import type { UserAuth } from '../../accounts/session'
import { routeGroup } from './group'
import { checkUuidv7Time, Limit, Text, UuidV7, WorkspaceParam } from './input'
import { problem, problems, type Responses } from '../openapi'
import { COUNT_CAP, type ReadStatus } from '../../ingest/read_state'

const detail = (summary: string, description: string, responses: Responses) => ({ summary, description, tags: ['Feed'], security: userSecurity, responses })
// A workspace named in the path or the query: not found unless I am a member of it.
const READ = problems(400, 401, 404, 503)
// A comment line this often keeps proxies (and Bun's idle timeout) from
// closing a quiet stream.
const HEARTBEAT_MS = 8_000
// Each stream re-checks its session every beat: one person's thousand tabs
// (or a script) would make a thousand queries every few seconds. A dashboard
// and a phone or two need far fewer.
export const STREAMS_PER_PERSON = 10

const FilterQuery = {
  workspace: WorkspaceParam,
  channel: Type.Optional(Text('channel', 64, 'Only this channel.')),
  tag: Type.Optional(Text('tag', 50, 'Only events with this tag.')),
  event: Type.Optional(Text('event', 129, 'Only this event key, or keys starting with a prefix given as "user.*".')),
  q: Type.Optional(Text('q', 200, 'Words that must each begin a word of the title or the message.')),
  minPriority: Type.Optional(t.Integer({ 'x-parameter': 'minPriority', minimum: 1, maximum: 5, description: 'Only events at or above this priority (1-5).', error: 'minPriority must be an integer from 1 to 5' })),
}
const StatusSchema = Type.Union([Type.Literal('unread'), Type.Literal('read'), Type.Literal('archived')], {
  description: 'The event\'s read state for you: `archived` (archived implies read), `read`, or `unread`. Yours alone: another member has their own.',
})
const StatusQuery = Type.Optional(Type.Union([Type.Literal('unread'), Type.Literal('read'), Type.Literal('archived')], {
  'x-parameter': 'status',
  description: 'Only events in this read state for you; none: every event.',
  error: 'status must be unread, read or archived',
}))
export const UnreadCountsSchema = Type.Object({
  unread: Type.Integer({ minimum: 0, maximum: COUNT_CAP, description: `Your unread events in the workspace's channels, counted up to ${COUNT_CAP}: ${COUNT_CAP} means at least ${COUNT_CAP}.` }),
  byChannel: Type.Record(Type.String(), Type.Integer({ minimum: 1, maximum: COUNT_CAP }), { description: `Unread events per channel (channels with none are left out), each counted up to ${COUNT_CAP}.` }),
}, { $id: 'UnreadCounts', description: `Your unread counts, whatever the feed's filters. Each count stops at ${COUNT_CAP} (a count is a walk of an index above your watermark); events of deleted channels are not counted.` })

const FeedEvent = Type.Composite([StoredEvent, Type.Object({ status: StatusSchema, deliveryCounts: DeliveryCountsSchema })], { $id: 'FeedEvent' })

const filterOf = (q: { channel?: string; tag?: string; event?: string; q?: string; minPriority?: number; status?: ReadStatus }): FeedFilter => ({
  ...(q.status ? { status: q.status } : {}),
  ...(q.minPriority && q.minPriority > 1 ? { minPriority: q.minPriority } : {}),
  ...(q.channel ? { channel: q.channel.toLowerCase() } : {}),
  ...(q.tag ? { tag: q.tag } : {}),
  ...(q.event ? { event: q.event } : {}),
  ...(q.q?.trim() ? { q: q.q } : {}),
})

/** A live stream as the instance holding it knows it: whose session, which workspace, and how to end it. */
interface LiveStream {
  tokenId: number
  workspaceId: number
  end(): void
  /** Says an SSE message on the stream. */
  say(event: string, data: unknown): void
}

/**
 * The live streams open on this instance, by person: how many each has, and
 * the end of those whose session or membership ended, as soon as any
 * instance announces it (POST /v1/auth/signout, a password reset, a member
 * removed: changes.onChange).
 */
function liveStreams(changes: Pick<Changes, 'onChange'>) {
  const byUser = new Map<string, Set<LiveStream>>()
  changes.onChange((c) => {
    if (c.kind === 'read') {
      // The member's read state moved on (here or on another instance): each of their streams of that workspace hears it.
      const { eventIds, status, before, channel } = c
      for (const s of byUser.get(c.userId) ?? []) if (s.workspaceId === c.workspaceId) s.say('read', { eventIds, status, ...(before ? { before } : {}), ...(channel ? { channel } : {}) })
      return
    }
    if (c.kind !== 'session-ended' && c.kind !== 'member-removed') return
    for (const s of byUser.get(c.userId) ?? []) {
      if (c.kind === 'session-ended' ? c.tokenId === undefined || c.tokenId === s.tokenId : c.workspaceId === s.workspaceId) s.end()
    }
  })
  return {
    count: (userId: string) => byUser.get(userId)?.size ?? 0,
    /** Registers a stream; the function returned forgets it. */
    add(userId: string, stream: LiveStream) {
      let set = byUser.get(userId)
      if (!set) byUser.set(userId, (set = new Set()))
      set.add(stream)
      return () => {
        set!.delete(stream)
        if (!set!.size && byUser.get(userId) === set) byUser.delete(userId)
      }
    },
  }
}

export const feedRoute = ({ reads, users, check, bus, changes }: { reads: EventReads; users: UserAuth; check: AccessCheck; bus: Pick<EventBus, 'watch'>; changes: Pick<Changes, 'onChange'> }) => {
  const streams = liveStreams(changes)
  return routeGroup({ name: 'route.feed', prefix: '/v1', guard: users.authenticate })
    .get(
      '/feed',
      async ({ request, query }) => {
        const { session, access } = await check(request, query.workspace)
        checkUuidv7Time('before', query.before)
        return reads.feedPage({ userId: session.userId, workspaceId: access.workspaceId }, filterOf(query), query.before ?? null, query.limit ?? 50)
      },
      {
        query: Type.Object({
          ...FilterQuery,
          status: StatusQuery,
          before: Type.Optional(UuidV7('before', 'The nextCursor of the previous page.')),
          limit: Type.Optional(Limit(FEED_PAGE_MAX, 50, `Events per page, at most ${FEED_PAGE_MAX}.`)),
        }),
        response: { 200: Type.Object({ events: Type.Array(FeedEvent), nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `before` for the next (older) page; null at the end.' }), counts: UnreadCountsSchema }, { $id: 'FeedPage' }) },
        detail: detail('Read the feed', `A workspace's events, newest first, with optional filters, each with its deliveries counted by state and its read state for you (\`status\`); every member may read it. An event sent \`to\` people is in the feed of its recipients and of the workspace's owners and admins only. \`counts\` holds your unread counts, whatever the filters, each counted up to ${COUNT_CAP} (${COUNT_CAP} means at least ${COUNT_CAP}).`, READ),
      },
    )
    .get(
      '/feed/stream',
      async ({ request, query, server }) => {
        const { session, access } = await check(request, query.workspace)
        if (streams.count(session.userId) >= STREAMS_PER_PERSON) {
          throw tooManyStreams(STREAMS_PER_PERSON)
        }
        const token = users.tokenOf(request)!
        const filter = filterOf(query)
        // Whether the stream may still run: its session live, its person still a member.
        const allowed = async () =>
          (await users.stillValid(token).catch(() => true)) && (await reads.stillMember(session.userId, access.workspace).catch(() => true))
        server?.timeout(request, 0)
        const encoder = new TextEncoder()
        let stop = () => {}
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            let stopped = false
            const send = (text: string) => {
              try {
                controller.enqueue(encoder.encode(text))
              } catch {
                stop()
              }
            }
            const close = () => {
              stop()
              try {
                controller.close()
              } catch {}
            }
            const end = () => {
              if (stopped) return
              send('event: ended\ndata: {"reason":"signed out or no longer a member"}\n\n')
              close()
            }
            // An event sent `to` others is checked against the role the
            // person has now (src/ingest/event_reads.ts), in a chain that
            // keeps the events in the order they came.
            const viewer = { userId: session.userId, workspaceId: access.workspaceId }
            let order: Promise<unknown> = Promise.resolve()
            const out = (view: EventView) => send(`id: ${view.eventId}\nevent: event\ndata: ${JSON.stringify(view)}\n\n`)
            const unwatch = bus.watch(access.workspaceId, (view: EventView) => {
              if (!matchesFilter(view, filter)) return
              order = order.then(() => reads.streamSees(viewer, view)).then((ok) => ok && !stopped && out(view), () => {})
            })
            // A sign-out, a password reset or the member's removal ends the
            // stream at once, on whichever instance it happened (announced
            // over the bus); each beat checks again, as an announcement
            // between instances may be lost.
            const say = (event: string, data: unknown) => send(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
            const forget = streams.add(session.userId, { tokenId: session.tokenId, workspaceId: access.workspaceId, end, say })
            const beat = setInterval(async () => {
              if (!(await allowed())) return end()
              send(': keep-alive\n\n')
            }, HEARTBEAT_MS)
            stop = () => {
              if (stopped) return
              stopped = true
              clearInterval(beat)
              unwatch()
              forget()
            }
            request.signal.addEventListener('abort', close)
            send(`retry: 3000\n: watching ${access.workspace}\n\n`)
            // Ended after the check above but before the stream was
            // registered: its announcement has come and gone.
            void allowed().then((ok) => ok || end())
          },
          cancel: () => stop(),
        })
        return new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' } })
      },
      {
        query: Type.Object(FilterQuery),
        detail: detail('Follow the feed live (Server-Sent Events)', `Each new event that passes the filters and that I may see (one sent \`to\` people: its recipients, owners and admins) as an SSE "event" message whose data is the event; a \`read\` message when your read state changes (on any of your devices): \`{"eventIds": [...], "status": "read"|"archived"}\`, with \`before\` (and \`channel\`) when everything up to an event was marked, whatever the stream's filters; a comment every few seconds keeps the connection open. The stream ends (an "ended" message, then the end of the response) as soon as its session is signed out or ended by a password reset, or its person is removed from the workspace. Best effort: after a reconnect, read the feed to fill any gap. At most ${STREAMS_PER_PERSON} open at once per person (429 past that).`, {
          200: { description: 'The stream: `event` messages, each an event as JSON, and an `ended` message last.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...READ,
          429: problem(429, `You have ${STREAMS_PER_PERSON} live streams open: close one, or retry after Retry-After seconds.`),
        }),
      },
    )
}
