// The feed: a workspace's events newest first, filtered by channel, tag,
// event key and words (all in the URL), older pages on demand, and new
// events live over Server-Sent Events, announced politely. Each event links
// to its page, shows its link and priority, says what became of its
// deliveries and, for one with a receipt, its state with an Acknowledge
// button while pending (receipt.ts); a
// channel first seen live joins the channel filter. Its state (filters,
// pages, live events shown once) is in state/feed.ts, and that of the
// delivery badges (what each says, when to count again) in state/delivery_state.ts.
import { api } from './api'
import { html, httpHref, insert, path, render } from './html'
import { navigate, type PageContext } from './router'
import { announce, act, on, plural, time } from './ui'
import { NO_DELIVERIES, stateLabel, stateOf, watchDeliveryStates, type DeliveryCounts, type DeliveryState } from './state/delivery_state'
import { choiceIndex, createFeed, feedFilters, feedHref, isFiltered, newEventsAnnouncer, type Feed, type FeedEvent, type FeedFilters } from './state/feed'
import { ackButtons, priorityBadge, receiptPart } from './receipt'
import { PRIORITY_NAMES, readReceipts } from './state/receipt'
import { READ_STATUSES, type UnreadCounts } from './state/feed'
import { showUnread } from './badge'

export type { FeedEvent } from './state/feed'

export const eventHref = (e: Pick<FeedEvent, 'workspace' | 'eventId'>) => path('w', e.workspace, 'events', e.eventId)

/** The event's own link, when it is a web address: shown as host and path, opened in a new tab without a referrer. */
function eventLink(e: FeedEvent) {
  const href = httpHref(e.link)
  if (!href) return ''
  const url = new URL(href)
  const shown = url.host + (url.pathname === '/' ? '' : url.pathname) + url.search
  return html`<a class="event-link" href="${href}" rel="noopener noreferrer" target="_blank" title="${href}">${shown}<span class="visually-hidden"> (opens in a new tab)</span></a>`
}

/** The chips under an event in the feed: channel, key, tags and, sent `to` people, how many; then its link. */
const eventMeta = (e: FeedEvent) => html`<span class="chip channel" title="Channel">#${e.channel}</span>
  ${e.event ? html`<code class="chip key" title="Event key">${e.event}</code>` : ''}
  ${e.tags.map((t) => html`<span class="chip tag" title="Tag">${t}</span>`)}
  ${e.to ? html`<span class="chip to" title="Sent to these people only: they, and the workspace's owners and admins, see it">to ${plural(e.to.length, 'person', 'people')}</span>` : ''}
  ${eventLink(e)}`

/** The badge of an event's deliveries; `watchBadges` updates it in place. */
function stateBadge(c: DeliveryCounts | undefined, createdAt: string) {
  const counts = c ?? NO_DELIVERIES
  const state = stateOf(counts, createdAt)
  return html`<span class="delivery-state" data-delivery-state="${state}" data-created-at="${createdAt}"><span class="visually-hidden">Deliveries: </span><span data-state-text>${stateLabel(counts, state)}</span></span>`
}

/** Keeps the delivery badges of the events in `list` current, and counts them all again when the tab comes back into view. */
function watchBadges(ctx: PageContext, list: Element) {
  const paint = (id: string, state: DeliveryState, label: string) => {
    const badge = list.querySelector<HTMLElement>(`li[data-event-id="${CSS.escape(id)}"] .delivery-state`)
    if (!badge) return
    badge.dataset.deliveryState = state
    badge.querySelector('[data-state-text]')!.textContent = label
  }
  const visible = () => document.visibilityState === 'visible'
  const states = watchDeliveryStates(api, ctx.workspace.workspace, { paint, visible, signal: ctx.signal })
  const back = () => void (visible() && states.inView())
  document.addEventListener('visibilitychange', back)
  ctx.signal.addEventListener('abort', () => document.removeEventListener('visibilitychange', back))
  return states
}

/** The read-state buttons of a card: shown as the card's data-status says (style.css). */
const markButtons = () => html`<span class="mark-actions">
    <button type="button" class="link-button" data-mark="read">Mark read</button>
    <button type="button" class="link-button" data-mark="archive">Archive</button></span>`

function eventItem(e: FeedEvent, fresh = false) {
  const id = `ev-${e.eventId}`
  const status = e.status ?? 'unread'
  return html`<li class="event${fresh ? ' fresh' : ''}" data-event-id="${e.eventId}" data-channel="${e.channel}" data-status="${status}">
    <article aria-labelledby="${id}">
      <div class="event-head">
        <h3><span class="visually-hidden" data-status-text>${status === 'unread' ? 'Unread: ' : ''}</span><a id="${id}" href="${eventHref(e)}">${e.title ?? e.message}</a></h3>
        <span class="event-when">${priorityBadge(e.priority)} ${stateBadge(e.deliveryCounts, e.createdAt)} ${time(e.createdAt)}</span>
      </div>
      ${e.title ? html`<p class="message">${e.message}</p>` : ''}
      <p class="meta">${eventMeta(e)} ${markButtons()}</p>
      ${e.receipt ? html`<div class="receipt-slot" data-receipt-slot="${e.receipt}"></div>` : ''}
    </article>
  </li>`
}

function filterForm(ctx: PageContext, f: FeedFilters, channels: string[]) {
  return html`<form class="filters" role="search" aria-label="Filter events" novalidate>
    <div class="field"><label for="f-channel">Channel</label>
      <select id="f-channel" name="channel"><option value="">All channels</option>
        ${channels.map((c) => html`<option value="${c}" ${f.channel === c ? html`selected` : ''}>${c}</option>`)}
      </select></div>
    <div class="field"><label for="f-tag">Tag</label><input id="f-tag" name="tag" value="${f.tag ?? ''}" autocomplete="off"></div>
    <div class="field"><label for="f-event">Event key</label><input id="f-event" name="event" value="${f.event ?? ''}" placeholder="user.*" autocomplete="off"></div>
    <div class="field"><label for="f-priority">Priority</label>
      <select id="f-priority" name="minPriority"><option value="">Any</option>
        ${[2, 3, 4, 5].map((p) => html`<option value="${p}" ${f.minPriority === String(p) ? html`selected` : ''}>${PRIORITY_NAMES[p]} and up</option>`)}
      </select></div>
    <div class="field"><label for="f-status">Status</label>
      <select id="f-status" name="status"><option value="">All</option>
        ${READ_STATUSES.map((st) => html`<option value="${st}" ${f.status === st ? html`selected` : ''}>${st[0]!.toUpperCase() + st.slice(1)}</option>`)}
      </select></div>
    <div class="field grow"><label for="f-q">Search</label><input id="f-q" name="q" type="search" value="${f.q ?? ''}" autocomplete="off"></div>
    <div class="filter-actions"><button type="submit">Apply</button>${isFiltered(f) ? html`<a class="button secondary" href="${path('w', ctx.workspace.workspace, 'feed')}">Clear</a>` : ''}</div>
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
function follow(ctx: PageContext, url: string, onEvent: (e: FeedEvent) => void, onRead: (r: ReadChange) => void) {
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
  source.addEventListener('read', (m) => {
    try {
      onRead(JSON.parse((m as MessageEvent<string>).data))
    } catch {}
  })
  source.addEventListener('open', show)
  source.addEventListener('error', show)
  return { show }
}

/** A read-state change, from this page or another device (the stream's `read` message). */
interface ReadChange {
  eventIds: string[]
  status: 'read' | 'archived'
  before?: string | null
  channel?: string | null
}

/** Paints a change on the cards it covers: archived stays archived, read never goes back to unread. */
function paintRead(list: Element, c: ReadChange) {
  for (const li of list.querySelectorAll<HTMLElement>('li.event')) {
    const id = li.dataset.eventId!
    const covered = c.eventIds.includes(id) || (c.before ? id <= c.before && (!c.channel || li.dataset.channel === c.channel) : false)
    if (!covered || li.dataset.status === 'archived') continue
    li.dataset.status = c.status
    li.querySelector('[data-status-text]')!.textContent = ''
  }
}

/** The unread counts line: total and per channel; the app's badge follows it. */
function paintCounts(ctx: PageContext, counts: UnreadCounts) {
  const slot = ctx.root.querySelector('[data-unread]')
  showUnread(navigator as never, counts.unread)
  if (!slot) return
  const more = (n: number) => (n >= 1000 ? '1000+' : String(n))
  const channels = Object.entries(counts.byChannel)
  render(slot, html`<strong>${more(counts.unread)} unread</strong>${channels.map(([c, n]) => html` · <a href="${path('w', ctx.workspace.workspace, 'feed')}?channel=${encodeURIComponent(c)}&amp;status=unread">#${c} ${more(n)}</a>`)}`)
  const all = ctx.root.querySelector<HTMLButtonElement>('[data-mark-all]')
  if (all) all.hidden = counts.unread === 0
}

/** Per-card "Mark read" and "Archive", and "Mark all read" (up to the newest event shown, in the channel filtered on). */
function markActions(ctx: PageContext, list: Element, feed: Feed, channel: string | undefined) {
  const ws = ctx.workspace.workspace
  const done = (r: ReadChange & { counts: UnreadCounts }) => {
    paintRead(list, r)
    paintCounts(ctx, r.counts)
  }
  on(ctx.root, 'click', '[data-mark]', (button) =>
    act(button as HTMLButtonElement, null, async () => {
      const id = button.closest<HTMLElement>('li.event')!.dataset.eventId!
      const what = button.dataset.mark === 'archive' ? 'archive' : 'read'
      done(await api.post(`/v1/workspaces/{workspace}/feed/${what}`, { path: { workspace: ws }, body: { eventIds: [id] } }))
    }),
  )
  on(ctx.root, 'click', '[data-mark-all]', (button) =>
    act(button as HTMLButtonElement, null, async () => {
      const newest = list.querySelector<HTMLElement>('li.event')?.dataset.eventId
      if (!newest) return
      done(await api.post('/v1/workspaces/{workspace}/feed/read', { path: { workspace: ws }, body: { before: newest, ...(channel ? { channel } : {}) } }))
      announce(channel ? `Everything in #${channel} marked read.` : 'Everything marked read.')
    }),
  )
  return async (c: ReadChange) => {
    paintRead(list, c)
    paintCounts(ctx, await feed.recount())
  }
}

/** Adds a channel first seen live to the channel filter, in order, without a reload. */
function addChannel(ctx: PageContext, channel: string) {
  const select = ctx.root.querySelector<HTMLSelectElement>('#f-channel')
  if (!select) return
  const choices = [...select.options].slice(1) // after "All channels"
  const at = choiceIndex(choices.map((o) => o.value), channel)
  if (at !== null) select.add(new Option(channel, channel), choices[at] ?? null)
}

/** Reads the receipts of the events shown (those that have one) and draws each in its card: its state, and the Acknowledge button while pending. */
async function showReceipts(ctx: PageContext, list: Element, events: FeedEvent[]) {
  const ids = events.flatMap((e) => (e.receipt ? [e.receipt] : []))
  if (!ids.length) return
  const receipts = await readReceipts(api, ctx.workspace.workspace, ids)
  if (ctx.signal.aborted) return
  for (const [id, r] of receipts) {
    const slot = list.querySelector(`[data-receipt-slot="${CSS.escape(id)}"]`)
    if (slot) render(slot, receiptPart(r, true))
  }
}

/** The "Load older events" button: the next page from the cursor, appended. */
function olderPages(ctx: PageContext, list: Element, feed: Feed, shown: (e: FeedEvent) => void) {
  on(ctx.root, 'click', '[data-older]', (button) =>
    act(button as HTMLButtonElement, ctx.root.querySelector('[data-older-status]'), async () => {
      const fresh = await feed.older()
      insert(list, 'beforeend', html`${fresh.map((e) => eventItem(e))}`)
      fresh.forEach(shown)
      button.hidden = !feed.more
      ctx.root.querySelector('[data-older-status]')!.textContent = `${plural(fresh.length, 'older event')} loaded${feed.more ? '' : '; that is all of them'}.`
    }),
  )
}

export async function feedPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Feed')
  const filters = feedFilters(ctx.query)
  const feed = createFeed(api, ws, filters)
  let list: Element | null = null
  let states: ReturnType<typeof watchBadges> | null = null
  const shown = (e: FeedEvent) => {
    states!.track(e.eventId, e.createdAt, e.deliveryCounts)
    if (e.receipt) void showReceipts(ctx, list!, [e])
  }
  const announceNew = newEventsAnnouncer(announce)
  const show = (e: FeedEvent) => {
    ctx.root.querySelector('.empty')?.remove()
    insert(list!, 'afterbegin', eventItem(e, true))
    shown(e)
    addChannel(ctx, e.channel)
    announceNew(e)
  }
  let onRead = (_c: ReadChange) => {}
  // The stream opens before the first page is read, so that nothing posted meanwhile is missed.
  const stream = follow(ctx, feed.streamUrl, (e) => {
    if (feed.live(e)) {
      show(e)
      paintCounts(ctx, { unread: feed.counts.unread + 1, byChannel: { ...feed.counts.byChannel, [e.channel]: (feed.counts.byChannel[e.channel] ?? 0) + 1 } })
      void feed.recount()
    }
  }, (c) => onRead(c))
  const first = await feed.first()
  render(
    ctx.root,
    html`<div class="page-head"><h1 tabindex="-1">Feed</h1><span class="live" data-live="connecting">Connecting…</span></div>
      <div class="unread-bar"><p class="unread-counts" data-unread aria-live="polite"></p><button type="button" class="secondary" data-mark-all>Mark all read</button></div>
      ${filterForm(ctx, filters, first.channels)}
      <h2 class="visually-hidden">Events</h2>
      <ol class="events" aria-label="Events, newest first"></ol>
      ${first.events.length ? '' : emptyState(ctx, isFiltered(filters))}
      <div class="more"><button type="button" class="secondary" data-older ${feed.more ? '' : html`hidden`}>Load older events</button><p role="status" class="muted" data-older-status></p></div>`,
  )
  stream.show()
  list = ctx.root.querySelector('ol.events')!
  states = watchBadges(ctx, list)
  ackButtons(list, ws, true)
  onRead = markActions(ctx, list, feed, filters.channel)
  paintCounts(ctx, feed.counts)
  insert(list, 'beforeend', html`${first.events.map((e) => eventItem(e))}`)
  first.events.forEach(shown)
  feed.drawn().forEach(show)

  ctx.root.querySelector('form.filters')!.addEventListener('submit', (e) => {
    e.preventDefault()
    navigate(feedHref(ws, new FormData(e.target as HTMLFormElement)))
  })
  olderPages(ctx, list, feed, shown)
}
