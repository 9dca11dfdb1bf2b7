// The deliveries of a workspace across its events: every send to a router
// and every push to a device, newest event first, filtered by state, router,
// device and time (all in the URL), older pages on demand. Owners and admins
// replay a failed one, or every failed one of the filter after a dialog that
// says how many. Its state (filters, pages, replays, polling) is in
// state/deliveries.ts.
import { api, ApiError } from './api'
import { html, insert, path, render } from './html'
import { navigate, type PageContext } from './router'
import { act, announce, confirmDialog, on, plural, time } from './ui'
import {
  canReplayAll, createDeliveries, deliveriesHref, deliveryFilters, filteredHref, isFiltered, localValue, POLL_MS, replayedMessage, replayQuestion, routerNames,
  type DeliveryFilters as Filters, type DeliveryItem as Item,
} from './state/deliveries'
import { digestText, pacedText, DELIVERY_STATE_LABELS, type DigestFields } from './state/digest'

const STATES = DELIVERY_STATE_LABELS

function filterForm(ctx: PageContext, f: Filters, routers: Map<string, string>) {
  const unknownRouter = f.router && !routers.has(f.router) ? f.router : null
  return html`<form class="filters" role="search" aria-label="Filter deliveries" novalidate>
    <div class="field"><label for="d-state">State</label>
      <select id="d-state" name="state"><option value="">All states</option>
        ${STATES.map(([v, label]) => html`<option value="${v}" ${f.state === v ? html`selected` : ''}>${label}</option>`)}
      </select></div>
    <div class="field"><label for="d-router">Router</label>
      <select id="d-router" name="router"><option value="">All routers</option>
        ${[...routers].map(([id, name]) => html`<option value="${id}" ${f.router === id ? html`selected` : ''}>${name}</option>`)}
        ${unknownRouter ? html`<option value="${unknownRouter}" selected>Deleted router ${unknownRouter.slice(0, 8)}</option>` : ''}
      </select></div>
    <div class="field"><label for="d-device">Device id</label><input id="d-device" name="device" value="${f.device ?? ''}" autocomplete="off" spellcheck="false"></div>
    <div class="field date"><label for="d-since">From</label><input id="d-since" name="since" type="datetime-local" value="${localValue(f.since)}"></div>
    <div class="field date"><label for="d-until">Until</label><input id="d-until" name="until" type="datetime-local" value="${localValue(f.until)}"></div>
    <div class="filter-actions"><button type="submit">Apply</button>${isFiltered(f) ? html`<a class="button secondary" href="${path('w', ctx.workspace.workspace, 'deliveries')}">Clear</a>` : ''}</div>
  </form>`
}

/** What a throttled, digested or digest delivery says in place of an answer. */
const pacedNote = (d: Item) => {
  const x = d as Item & Partial<DigestFields>
  return digestText(x) ?? pacedText(x)
}

function row(d: Item, ctx: PageContext, f: Filters, routers: Map<string, string>) {
  const ws = ctx.workspace.workspace
  const here = (more: Filters) => filteredHref(ws, f, more)
  const title = d.event ? (d.event.title ?? d.event.message) : 'Event past retention'
  const target =
    d.kind === 'router' || (d.kind as string) === 'digest'
      ? html`${(d.kind as string) === 'digest' ? 'Digest through ' : ''}<a href="${here({ router: d.routerId ?? undefined })}" title="Only this router's deliveries">${(d.routerId && routers.get(d.routerId)) ?? `Deleted router ${d.routerId?.slice(0, 8) ?? ''}`}</a>`
      : html`Push to <a href="${here({ device: d.deviceId ?? undefined })}" title="Only this device's pushes"><code>${d.deviceId?.slice(0, 8) ?? ''}</code></a>`
  // The error often names the status already ("receiver answered HTTP 500").
  const answer =
    d.lastStatus !== null && !d.lastError?.includes(String(d.lastStatus))
      ? html`HTTP ${d.lastStatus}${d.lastError ? html`: ${d.lastError}` : ''}`
      : (d.lastError ?? pacedNote(d) ?? html`<span class="muted">none</span>`)
  return html`<tr data-delivery-id="${d.id}" data-status="${d.status}">
    <th scope="row" class="wrap"><a href="${path('w', ws, 'events', d.eventId)}">${title}</a>
      ${d.event ? html`<span class="sub"><span class="chip channel">#${d.event.channel}</span>${d.event.event ? html`<code class="chip key">${d.event.event}</code>` : ''}</span>` : ''}</th>
    <td data-label="Destination" class="wrap">${target}</td>
    <td data-label="State"><span class="badge ${d.status}">${d.status}</span>${d.status === 'pending' && d.nextAttemptAt ? html` <span class="muted">next ${time(d.nextAttemptAt)}</span>` : ''}</td>
    <td data-label="Attempts" class="num">${d.attemptCount}</td>
    <td data-label="Last answer" class="wrap answer">${answer}</td>
    <td data-label="Updated">${time(d.updatedAt)}</td>
    <td class="actions">${d.status === 'failed' && ctx.canManage ? html`<button type="button" class="secondary" data-replay="${d.id}" aria-label="Replay the delivery of ${title}">Replay</button>` : ''}</td>
  </tr>`
}

const table = (rows: ReturnType<typeof row>[]) => html`<div class="table-wrap"><table class="responsive deliveries-table">
  <caption class="visually-hidden">Deliveries, newest event first</caption>
  <thead><tr><th scope="col">Event</th><th scope="col">Destination</th><th scope="col">State</th><th scope="col" class="num">Attempts</th><th scope="col">Last answer</th><th scope="col">Updated</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${rows}</tbody></table></div>`

export async function deliveriesPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Deliveries')
  const f = deliveryFilters(ctx.query)
  const routers = await routerNames(api, ws)
  const deliveries = createDeliveries(api, ws, f)
  render(
    ctx.root,
    html`<div class="page-head"><h1 tabindex="-1">Deliveries</h1>
      <div class="actions"><button type="button" class="secondary" data-refresh>Refresh</button>${canReplayAll(ctx.canManage, f) ? html`<button type="button" data-replay-all>Replay failed…</button>` : ''}</div></div>
    <p class="lead">Every send of this workspace's events to its routers, and every push to a device, newest event first. A failed delivery can be sent again under its own id, with a fresh retry schedule.</p>
    ${filterForm(ctx, f, routers)}
    <div role="status" data-status tabindex="-1"></div>
    <div data-results><p class="loading">Loading…</p></div>
    <div class="more"><button type="button" class="secondary" data-older hidden>Load older deliveries</button><p role="status" class="muted" data-older-status></p></div>`,
  )
  const status = ctx.root.querySelector<HTMLElement>('[data-status]')!
  const results = ctx.root.querySelector('[data-results]')!
  const older = ctx.root.querySelector<HTMLButtonElement>('[data-older]')!
  let timer: ReturnType<typeof setTimeout> | undefined
  ctx.signal.addEventListener('abort', () => clearTimeout(timer))

  /** Reads the first page again, drawn only when it changed; after a replay, keeps reading it for a while. */
  async function load() {
    clearTimeout(timer)
    let first: Awaited<ReturnType<typeof deliveries.first>>
    try {
      first = await deliveries.first()
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 401) throw err
      render(results, html`<p class="error" role="alert">${err.detail}</p>`)
      return
    }
    if (ctx.signal.aborted) return
    if (first.changed) {
      older.hidden = !deliveries.more
      render(
        results,
        first.deliveries.length
          ? table(first.deliveries.map((d) => row(d, ctx, f, routers)))
          : html`<p class="empty">${isFiltered(f) ? 'No deliveries match these filters.' : 'No deliveries yet: one is made when an event matches a router, or is pushed to a device.'}</p>`,
      )
    }
    if (deliveries.polling()) timer = setTimeout(load, POLL_MS)
  }
  const replayed = async (message: string) => {
    status.textContent = message
    announce(message)
    await load()
  }
  await load()

  ctx.root.querySelector('form.filters')!.addEventListener('submit', (e) => {
    e.preventDefault()
    navigate(deliveriesHref(ws, new FormData(e.target as HTMLFormElement)))
  })
  on(ctx.root, 'click', '[data-refresh]', (b) => act(b as HTMLButtonElement, status, load))
  on(ctx.root, 'click', '[data-older]', (b) =>
    act(b as HTMLButtonElement, ctx.root.querySelector('[data-older-status]'), async () => {
      const page = await deliveries.older()
      insert(results.querySelector('tbody')!, 'beforeend', html`${page.map((d) => row(d, ctx, f, routers))}`)
      older.hidden = !deliveries.more
      ctx.root.querySelector('[data-older-status]')!.textContent = `${plural(page.length, 'older delivery', 'older deliveries')} loaded${deliveries.more ? '' : '; that is all of them'}.`
    }),
  )
  on(ctx.root, 'click', '[data-replay]', (b) =>
    act(b as HTMLButtonElement, status, async () => {
      await deliveries.replay(b.dataset.replay!)
      await replayed('Replay scheduled; the list updates as it runs.')
    }),
  )
  on(ctx.root, 'click', '[data-replay-all]', (b) => void replayAll(b as HTMLButtonElement))

  /** Counts the failed deliveries of the filter, asks, then replays them. */
  async function replayAll(button: HTMLButtonElement) {
    let question: string | null | undefined
    let count = 0
    await act(button, status, async () => {
      const dry = await deliveries.countFailed()
      count = dry.matched
      question = replayQuestion(dry)
    })
    if (question === undefined) return
    if (question === null) {
      status.textContent = 'No failed delivery matches these filters: there is nothing to replay.'
      announce(status.textContent)
      return
    }
    if (!(await confirmDialog(question, `Replay ${plural(count, 'delivery', 'deliveries')}`))) return
    await act(button, status, async () => replayed(replayedMessage(await deliveries.replayFailed())))
  }
}
