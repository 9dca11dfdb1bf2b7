// The feed's state: the filters (channel, tag, event key, words, least priority) as the
// address holds them, the first page with the channels to filter on, older
// pages from the cursor, and live events from the stream, each shown once
// (the stream may repeat an event, or send one before the first page is
// drawn). Rendering and the stream itself are in page_feed.ts.
import { query, urlOf, type Api, type Schemas } from '../api'
import { path } from '../html'
import { channelPages } from './channels'

/** An event as the feed lists it; a live one comes without its deliveries counted, and unread. */
export type FeedEvent = Omit<Schemas['FeedEvent'], 'deliveryCounts' | 'status'> & { deliveryCounts?: Schemas['DeliveryCounts']; status?: Schemas['FeedEvent']['status'] }
export type UnreadCounts = Schemas['UnreadCounts']
export const READ_STATUSES = ['unread', 'read', 'archived'] as const
type ReadStatus = (typeof READ_STATUSES)[number]

export const FEED_FILTERS = ['channel', 'tag', 'event', 'q', 'minPriority', 'status'] as const
export type FeedFilter = (typeof FEED_FILTERS)[number]
export type FeedFilters = Partial<Record<FeedFilter, string>>

export const FEED_PAGE = 50
// The channel filter offers the first page of channels (a workspace may hold
// HERALD_MAX_CHANNELS_PER_WORKSPACE), the one filtered on, and those first
// seen live; the channels page links to the feed of any channel.
const CHANNEL_CHOICES = 100

/** The filters of a feed address; an empty one is no filter. */
export function feedFilters(params: { get(name: string): string | null }): FeedFilters {
  return Object.fromEntries(FEED_FILTERS.flatMap((f) => (params.get(f) ? [[f, params.get(f)!]] : [])))
}

export const isFiltered = (f: FeedFilters) => FEED_FILTERS.some((k) => f[k])

/** Where the filter form goes: the feed with the form's values, trimmed, in the address. */
export function feedHref(workspace: string, form: { get(name: string): unknown }): string {
  return path('w', workspace, 'feed') + query(Object.fromEntries(FEED_FILTERS.map((f) => [f, String(form.get(f) ?? '').trim()])))
}

/** The channels to filter on: those given and the one filtered on, once each, in order. */
export const channelChoices = (slugs: string[], filtered?: string) => [...new Set([...slugs, ...(filtered ? [filtered] : [])])].sort()

/**
 * Where a channel first seen live goes among the choices shown (in order):
 * the index of the choice it goes before, `choices.length` at the end, or
 * null when it is there already.
 */
export function choiceIndex(choices: string[], channel: string): number | null {
  if (choices.includes(channel)) return null
  const after = choices.findIndex((c) => c.localeCompare(channel) > 0)
  return after < 0 ? choices.length : after
}

/** Announces new events through `say`: a burst within `ms` is announced once, not event by event. */
export function newEventsAnnouncer(say: (text: string) => void, ms = 500) {
  let count = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  return (e: Pick<FeedEvent, 'title' | 'message'>) => {
    count++
    clearTimeout(timer)
    timer = setTimeout(() => {
      say(count === 1 ? `New event: ${e.title ?? e.message}` : `${count} new events`)
      count = 0
    }, ms)
  }
}

/** The feed of `workspace` under `filters`. */
export function createFeed(api: Api, workspace: string, filters: FeedFilters, pageSize = FEED_PAGE) {
  const seen = new Set<string>()
  const early: FeedEvent[] = []
  let drawn = false
  let cursor: string | null = null
  const unseen = <E extends FeedEvent>(events: E[]) => events.filter((e) => !seen.has(e.eventId) && seen.add(e.eventId))
  const { minPriority: least, status: wanted, ...others } = filters
  // The priority filter, as a number (1 to 5); anything else filters nothing.
  const minPriority = least && /^[1-5]$/.test(least) ? Number(least) : undefined
  // The status filter (the stream has none: a new event is unread).
  const status = READ_STATUSES.find((s) => s === wanted) as ReadStatus | undefined
  let counts: UnreadCounts = { unread: 0, byChannel: {} }
  const read = async (before?: string) => {
    const page = await api.get('/v1/feed', { query: { workspace, ...others, minPriority, status, before, limit: pageSize } })
    cursor = page.nextCursor
    counts = page.counts
    return unseen(page.events)
  }
  return {
    /** The live stream of this feed (opened before the first page is read, so that nothing posted meanwhile is missed). */
    streamUrl: urlOf('/v1/feed/stream', { query: { workspace, ...others, minPriority } }),
    /** The member's unread counts, as the last page read said them. */
    get counts() {
      return counts
    },
    /** Reads the unread counts again (after a change on another device). */
    async recount(): Promise<UnreadCounts> {
      counts = (await api.get('/v1/feed', { query: { workspace, limit: 1 } })).counts
      return counts
    },
    /** Whether there are older events than those read. */
    get more() {
      return cursor !== null
    },
    /** The newest page, and the channels to filter on. */
    async first() {
      const [events, channels] = await Promise.all([read(), channelPages(api, workspace, '', CHANNEL_CHOICES).first()])
      return { events, channels: channelChoices(channels.map((c) => c.slug), filters.channel) }
    },
    /** The next older page, without the events shown already. */
    older: () => (cursor === null ? Promise.resolve([]) : read(cursor)),
    /** The first page is drawn: the live events that came meanwhile and are new, oldest first. */
    drawn(): FeedEvent[] {
      drawn = true
      return unseen(early.splice(0))
    },
    /** Whether to show a live event now: not before the first page is drawn (it is kept until then), nor twice. */
    live(e: FeedEvent): boolean {
      // The stream filters by priority too; this holds should an event below it come.
      if (minPriority !== undefined && e.priority < minPriority) return false
      if (status !== undefined && status !== 'unread') return false
      if (drawn) return unseen([e]).length > 0
      early.push(e)
      return false
    },
  }
}

export type Feed = ReturnType<typeof createFeed>
