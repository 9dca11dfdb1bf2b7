// The feed: a workspace's events newest first, filtered by channel, tag,
// event key and words (all in the URL), older pages on demand, and new
// events live over Server-Sent Events, announced politely. Each event links
// to its page, shows its link, and says what became of its deliveries; a
// channel first seen live joins the channel filter.
import type { FeedEvent as StoredEvent } from '../ingest/feed'
import { api, paths, query, type ChannelPage } from './api'
import { html, httpHref, insert, path, render } from './html'
import { navigate, type PageContext } from './router'
import { announce, act, on, plural, time } from './ui'
import { stateBadge, watchDeliveryStates, type DeliveryCounts } from './delivery_state'

/** An event as the feed lists it: the server's type (src/ingest/feed.ts), with its deliveries counted by state (none on a live event). */
export type FeedEvent = StoredEvent & { deliveryCounts?: DeliveryCounts }

interface FeedPage {
  events: FeedEvent[]
  nextCursor: string | null
}

const FILTERS = ['channel', 'tag', 'event', 'q'] as const
const PAGE_SIZE = 50

export const eventHref = (e: Pick<FeedEvent, 'workspace' | 'eventId'>) => path('w', e.workspace, 'events', e.eventId)

/** The event's own link, when it is a web address: shown as host and path, opened in a new tab without a referrer. */
function eventLink(e: FeedEvent) {
  const href = httpHref(e.link)
  if (!href) return ''
  const url = new URL(href)
  const shown = url.host + (url.pathname === '/' ? '' : url.pathname) + url.search
  return html`<a class="event-link" href="${href}" rel="noopener noreferrer" target="_blank" title="${href}">${shown}<span class="visually-hidden"> (opens in a new tab)</span></a>`
}

/** The chips under an event in the feed: channel, key and tags; then its link. */
const eventMeta = (e: FeedEvent) => html`<span class="chip channel" title="Channel">#${e.channel}</span>
  ${e.event ? html`<code class="chip key" title="Event key">${e.event}</code>` : ''}
  ${e.tags.map((t) => html`<span class="chip tag" title="Tag">${t}</span>`)}
  ${eventLink(e)}`

function eventItem(e: FeedEvent, fresh = false) {
  const id = `ev-${e.eventId}`
  return html`<li class="event${fresh ? ' fresh' : ''}" data-event-id="${e.eventId}">
    <article aria-labelledby="${id}">
      <div class="event-head">
        <h3><a id="${id}" href="${eventHref(e)}">${e.title ?? e.message}</a></h3>
        <span class="event-when">${stateBadge(e.deliveryCounts, e.createdAt)} ${time(e.createdAt)}</span>
      </div>
      ${e.title ? html`<p class="message">${e.message}</p>` : ''}
      <p class="meta">${eventMeta(e)}</p>
    </article>
  </li>`
}

function filterForm(ctx: PageContext, channels: string[]) {
  const q = ctx.query
  const active = FILTERS.some((f) => q.get(f))
  return html`<form class="filters" role="search" aria-label="Filter events" novalidate>
    <div class="field"><label for="f-channel">Channel</label>
      <select id="f-channel" name="channel"><option value="">All channels</option>
        ${channels.map((c) => html`<option value="${c}" ${q.get('channel') === c ? html`selected` : ''}>${c}</option>`)}
      </select></div>
    <div class="field"><label for="f-tag">Tag</label><input id="f-tag" name="tag" value="${q.get('tag') ?? ''}" autocomplete="off"></div>
    <div class="field"><label for="f-event">Event key</label><input id="f-event" name="event" value="${q.get('event') ?? ''}" placeholder="user.*" autocomplete="off"></div>
    <div class="field grow"><label for="f-q">Search</label><input id="f-q" name="q" type="search" value="${q.get('q') ?? ''}" autocomplete="off"></div>
    <div class="filter-actions"><button type="submit">Apply</button>${active ? html`<a class="button secondary" href="${path('w', ctx.workspace.workspace, 'feed')}">Clear</a>` : ''}</div>
  </form>`
}

function emptyState(ctx: PageContext, filtered: boolean) {
  if (filtered) return html`<p class="empty">No events match these filters.</p>`
  return html`<div class="empty"><p>No events yet. Post one with an <a href="${path('w', ctx.workspace.workspace, 'keys')}">API key</a>; it appears here at once:</p>
    <pre><code>curl -X POST ${location.origin}/event \\
  -H "Authorization: Bearer $HERALD_KEY" -H 'Content-Type: application/json' \\
  -d '{"message":"Jane signed up","event":"user.signup","channel":"${ctx.workspace.defaultChannel}"}'</code></pre></div>`
}

/** Opens the live stream, closed when the visitor leaves; `show()` puts its state in the page's .live badge. */
function follow(ctx: PageContext, url: string, onEvent: (e: FeedEvent) => void) {
  const source = new EventSource(url)
  ctx.signal.addEventListener('abort', () => source.close())
  const show = () => {
    const badge = ctx.root.querySelector<HTMLElement>('.live')
    if (!badge) return
    const state = source.readyState === EventSource.OPEN ? 'open' : source.readyState === EventSource.CLOSED ? 'closed' : 'connecting'
    if (state === 'closed' && badge.dataset.live !== 'closed') announce('Live updates stopped: reload the page to see new events.')
    badge.dataset.live = state
    badge.textContent = state === 'open' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Live updates stopped: reload the page'
  }
  source.addEventListener('event', (m) => {
    try {
      onEvent(JSON.parse((m as MessageEvent<string>).data))
    } catch {}
  })
  source.addEventListener('open', show)
  source.addEventListener('error', show)
  return { show }
}

/** Announces new events politely; a burst is announced once, not event by event. */
function newEventsAnnouncer() {
  let count = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  return (e: FeedEvent) => {
    count++
    clearTimeout(timer)
    timer = setTimeout(() => {
      announce(count === 1 ? `New event: ${e.title ?? e.message}` : `${count} new events`)
      count = 0
    }, 500)
  }
}

/** Adds a channel first seen live to the channel filter, in order, without a reload. */
function addChannel(ctx: PageContext, channel: string) {
  const select = ctx.root.querySelector<HTMLSelectElement>('#f-channel')
  if (!select || [...select.options].some((o) => o.value === channel)) return
  const option = new Option(channel, channel)
  const after = [...select.options].slice(1).find((o) => o.value.localeCompare(channel) > 0)
  select.add(option, after ?? null)
}

/** The "Load older events" button: the next page from the cursor, appended. */
function olderPages(ctx: PageContext, list: Element, url: (cursor: string) => string, cursor: string | null, seen: Set<string>, shown: (e: FeedEvent) => void) {
  on(ctx.root, 'click', '[data-older]', (button) =>
    act(button as HTMLButtonElement, ctx.root.querySelector('[data-older-status]'), async () => {
      const older = await api<FeedPage>('GET', url(cursor!))
      const fresh = older.events.filter((e) => !seen.has(e.eventId))
      fresh.forEach((e) => seen.add(e.eventId))
      insert(list, 'beforeend', html`${fresh.map((e) => eventItem(e))}`)
      fresh.forEach(shown)
      cursor = older.nextCursor
      button.hidden = !cursor
      ctx.root.querySelector('[data-older-status]')!.textContent = `${plural(fresh.length, 'older event')} loaded${cursor ? '' : '; that is all of them'}.`
    }),
  )
}

export async function feedPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Feed')
  const filters = Object.fromEntries(FILTERS.map((f) => [f, ctx.query.get(f) ?? undefined]))
  const seen = new Set<string>() // the stream may repeat an event
  const early: FeedEvent[] = []
  let list: Element | null = null
  let states: ReturnType<typeof watchDeliveryStates> | null = null
  const shown = (e: FeedEvent) => states!.track(e.eventId, e.createdAt, e.deliveryCounts)
  const announceNew = newEventsAnnouncer()
  const arrived = (e: FeedEvent) => {
    if (!list) return void early.push(e)
    if (seen.has(e.eventId)) return
    seen.add(e.eventId)
    ctx.root.querySelector('.empty')?.remove()
    insert(list, 'afterbegin', eventItem(e, true))
    shown(e)
    addChannel(ctx, e.channel)
    announceNew(e)
  }
  // The stream opens before the first page is read, so that nothing posted meanwhile is missed.
  const stream = follow(ctx, `/v1/feed/stream${query({ workspace: ws, ...filters })}`, arrived)
  const [page, channels] = await Promise.all([
    api<FeedPage>('GET', `/v1/feed${query({ workspace: ws, ...filters, limit: PAGE_SIZE })}`),
    // The channel filter offers the first page of channels (a workspace may
    // hold HERALD_MAX_CHANNELS_PER_WORKSPACE), the one filtered on, and those
    // first seen live; the channels page links to the feed of any channel.
    api<ChannelPage>('GET', paths.channels(ws, { limit: 100 })).then((p) => p.channels),
  ])
  render(
    ctx.root,
    html`<div class="page-head"><h1 tabindex="-1">Feed</h1><span class="live" data-live="connecting">Connecting…</span></div>
      ${filterForm(ctx, [...new Set([...channels.map((c) => c.slug), ...(filters.channel ? [filters.channel] : [])])].sort())}
      <h2 class="visually-hidden">Events</h2>
      <ol class="events" aria-label="Events, newest first"></ol>
      ${page.events.length ? '' : emptyState(ctx, FILTERS.some((f) => filters[f]))}
      <div class="more"><button type="button" class="secondary" data-older ${page.nextCursor ? '' : html`hidden`}>Load older events</button><p role="status" class="muted" data-older-status></p></div>`,
  )
  stream.show()
  list = ctx.root.querySelector('ol.events')!
  states = watchDeliveryStates(ctx, list)
  page.events.forEach((e) => seen.add(e.eventId))
  insert(list, 'beforeend', html`${page.events.map((e) => eventItem(e))}`)
  page.events.forEach(shown)
  early.forEach(arrived)

  ctx.root.querySelector('form.filters')!.addEventListener('submit', (e) => {
    e.preventDefault()
    const data = new FormData(e.target as HTMLFormElement)
    navigate(path('w', ws, 'feed') + query(Object.fromEntries(FILTERS.map((f) => [f, String(data.get(f) ?? '').trim()]))))
  })
  olderPages(ctx, list, (before) => `/v1/feed${query({ workspace: ws, ...filters, before, limit: PAGE_SIZE })}`, page.nextCursor, seen, shown)
}
