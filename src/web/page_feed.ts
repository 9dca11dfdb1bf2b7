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

function eventItem(e: FeedEvent, fresh = false) {
  const id = `ev-${e.eventId}`
  return html`<li class="event${fresh ? ' fresh' : ''}" data-event-id="${e.eventId}">
    <article aria-labelledby="${id}">
      <div class="event-head">
        <h3><a id="${id}" href="${eventHref(e)}">${e.title ?? e.message}</a></h3>
        <span class="event-when">${priorityBadge(e.priority)} ${stateBadge(e.deliveryCounts, e.createdAt)} ${time(e.createdAt)}</span>
      </div>
      ${e.title ? html`<p class="message">${e.message}</p>` : ''}
      <p class="meta">${eventMeta(e)}</p>
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
  // The stream opens before the first page is read, so that nothing posted meanwhile is missed.
  const stream = follow(ctx, feed.streamUrl, (e) => feed.live(e) && show(e))
  const first = await feed.first()
  render(
    ctx.root,
    html`<div class="page-head"><h1 tabindex="-1">Feed</h1><span class="live" data-live="connecting">Connecting…</span></div>
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
  insert(list, 'beforeend', html`${first.events.map((e) => eventItem(e))}`)
  first.events.forEach(shown)
  feed.drawn().forEach(show)

  ctx.root.querySelector('form.filters')!.addEventListener('submit', (e) => {
    e.preventDefault()
    navigate(feedHref(ws, new FormData(e.target as HTMLFormElement)))
  })
  olderPages(ctx, list, feed, shown)
}
