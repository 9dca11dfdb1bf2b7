// The deliveries of a workspace across its events: every send to a router
// and every push to a device, newest event first, filtered by state, router,
// device and time (all in the URL), older pages on demand. Owners and admins
// replay a failed one, or every failed one of the filter after a dialog that
// says how many.
import { api, ApiError, paths, query } from './api'
import { html, insert, path, render } from './html'
import { navigate, type PageContext } from './router'
import { act, announce, confirmDialog, on, plural, time } from './ui'
import type { BulkReplay, DeliveryListItem, DeliveryState } from '../delivery/deliveries'

type State = DeliveryState
type Item = DeliveryListItem

interface DeliveryPage {
  deliveries: Item[]
  nextCursor: string | null
}

const FILTERS = ['state', 'router', 'device', 'since', 'until'] as const
type Filters = Partial<Record<(typeof FILTERS)[number], string>>
const STATES: [State, string][] = [['pending', 'Pending'], ['succeeded', 'Succeeded'], ['failed', 'Failed']]
const PAGE_SIZE = 50
// After a replay, the list is read again this often, for this long.
const POLL_MS = 2000
const POLL_FOR_MS = 30_000

const pad = (n: number) => String(n).padStart(2, '0')
/** An ISO time as the value of a datetime-local field, in the visitor's zone. */
function localValue(iso: string | undefined): string {
  const d = iso ? new Date(iso) : null
  if (!d || Number.isNaN(d.getTime())) return ''
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}
/** A datetime-local value (the visitor's zone) as an ISO time; `end` takes the last millisecond of its minute, so "until 12:30" includes 12:30. */
function isoOf(value: string, end: boolean): string {
  const d = value ? new Date(value) : null
  if (!d || Number.isNaN(d.getTime())) return ''
  return new Date(d.getTime() + (end ? 59_999 : 0)).toISOString()
}

function filterForm(ctx: PageContext, f: Filters, routers: Map<string, string>) {
  const active = FILTERS.some((k) => f[k])
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
    <div class="filter-actions"><button type="submit">Apply</button>${active ? html`<a class="button secondary" href="${path('w', ctx.workspace.workspace, 'deliveries')}">Clear</a>` : ''}</div>
  </form>`
}

function row(d: Item, ctx: PageContext, f: Filters, routers: Map<string, string>) {
  const ws = ctx.workspace.workspace
  const here = (more: Filters) => path('w', ws, 'deliveries') + query({ ...f, ...more })
  const title = d.event ? (d.event.title ?? d.event.message) : 'Event past retention'
  const target =
    d.kind === 'router'
      ? html`<a href="${here({ router: d.routerId ?? undefined })}" title="Only this router's deliveries">${(d.routerId && routers.get(d.routerId)) ?? `Deleted router ${d.routerId?.slice(0, 8) ?? ''}`}</a>`
      : html`Push to <a href="${here({ device: d.deviceId ?? undefined })}" title="Only this device's pushes"><code>${d.deviceId?.slice(0, 8) ?? ''}</code></a>`
  // The error often names the status already ("receiver answered HTTP 500").
  const answer =
    d.lastStatus !== null && !d.lastError?.includes(String(d.lastStatus))
      ? html`HTTP ${d.lastStatus}${d.lastError ? html`: ${d.lastError}` : ''}`
      : (d.lastError ?? html`<span class="muted">none</span>`)
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
  const f: Filters = Object.fromEntries(FILTERS.flatMap((k) => (ctx.query.get(k) ? [[k, ctx.query.get(k)!]] : [])))
  const routerList = await api<{ id: string; name: string }[]>('GET', paths.routers(ws)).catch(() => [])
  const routers = new Map(routerList.map((r) => [r.id, r.name]))
  const bulk = ctx.canManage && (!f.state || f.state === 'failed')
  render(
    ctx.root,
    html`<div class="page-head"><h1 tabindex="-1">Deliveries</h1>
      <div class="actions"><button type="button" class="secondary" data-refresh>Refresh</button>${bulk ? html`<button type="button" data-replay-all>Replay failed…</button>` : ''}</div></div>
    <p class="lead">Every send of this workspace's events to its routers, and every push to a device, newest event first. A failed delivery can be sent again under its own id, with a fresh retry schedule.</p>
    ${filterForm(ctx, f, routers)}
    <div role="status" data-status tabindex="-1"></div>
    <div data-results><p class="loading">Loading…</p></div>
    <div class="more"><button type="button" class="secondary" data-older hidden>Load older deliveries</button><p role="status" class="muted" data-older-status></p></div>`,
  )
  const status = ctx.root.querySelector<HTMLElement>('[data-status]')!
  const results = ctx.root.querySelector('[data-results]')!
  const older = ctx.root.querySelector<HTMLButtonElement>('[data-older]')!
  const url = (cursor?: string) => paths.deliveries(ws) + query({ ...f, cursor, limit: PAGE_SIZE })
  let cursor: string | null = null
  let pages = 0
  let shown = ''
  let pollUntil = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  ctx.signal.addEventListener('abort', () => clearTimeout(timer))

  /** Reads the first page again; after a replay, keeps reading it for a while. */
  async function load() {
    clearTimeout(timer)
    let page: DeliveryPage
    try {
      page = await api<DeliveryPage>('GET', url())
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 401) throw err
      render(results, html`<p class="error" role="alert">${err.detail}</p>`)
      return
    }
    if (ctx.signal.aborted) return
    // The list is drawn again only when it changed, so that a read after a
    // replay does not take away the focus of someone moving through it.
    const json = JSON.stringify(page)
    if (json !== shown || pages !== 1) {
      shown = json
      pages = 1
      cursor = page.nextCursor
      older.hidden = !cursor
      const filtered = FILTERS.some((k) => f[k])
      render(
        results,
        page.deliveries.length
          ? table(page.deliveries.map((d) => row(d, ctx, f, routers)))
          : html`<p class="empty">${filtered ? 'No deliveries match these filters.' : 'No deliveries yet: one is made when an event matches a router, or is pushed to a device.'}</p>`,
      )
    }
    // Replayed deliveries may have left the filter (failed ones are pending
    // for a while), so the list is read for a while after a replay, whatever it shows.
    if (Date.now() < pollUntil && pages === 1) timer = setTimeout(load, POLL_MS)
  }
  const replayed = async (message: string) => {
    status.textContent = message
    announce(message)
    pollUntil = Date.now() + POLL_FOR_MS
    await load()
  }
  await load()

  ctx.root.querySelector('form.filters')!.addEventListener('submit', (e) => {
    e.preventDefault()
    const data = new FormData(e.target as HTMLFormElement)
    const text = (k: string) => String(data.get(k) ?? '').trim()
    navigate(path('w', ws, 'deliveries') + query({ state: text('state'), router: text('router'), device: text('device'), since: isoOf(text('since'), false), until: isoOf(text('until'), true) }))
  })
  on(ctx.root, 'click', '[data-refresh]', (b) => act(b as HTMLButtonElement, status, load))
  on(ctx.root, 'click', '[data-older]', (b) =>
    act(b as HTMLButtonElement, ctx.root.querySelector('[data-older-status]'), async () => {
      const page = await api<DeliveryPage>('GET', url(cursor!))
      insert(results.querySelector('tbody')!, 'beforeend', html`${page.deliveries.map((d) => row(d, ctx, f, routers))}`)
      pages++
      cursor = page.nextCursor
      older.hidden = !cursor
      ctx.root.querySelector('[data-older-status]')!.textContent = `${plural(page.deliveries.length, 'older delivery', 'older deliveries')} loaded${cursor ? '' : '; that is all of them'}.`
    }),
  )
  on(ctx.root, 'click', '[data-replay]', (b) =>
    act(b as HTMLButtonElement, status, async () => {
      await api('POST', paths.replay(ws, b.dataset.replay!))
      await replayed('Replay scheduled; the list updates as it runs.')
    }),
  )
  on(ctx.root, 'click', '[data-replay-all]', (b) => void replayAll(b as HTMLButtonElement))

  /** Counts the failed deliveries of the filter, asks, then replays them. */
  async function replayAll(button: HTMLButtonElement) {
    const filter = Object.fromEntries(FILTERS.flatMap((k) => (f[k] ? [[k, f[k]]] : [])))
    let count: BulkReplay | undefined
    await act(button, status, async () => {
      count = await api<BulkReplay>('POST', paths.replayFailed(ws), { ...filter, dryRun: true })
    })
    if (!count) return
    if (count.matched === 0) {
      status.textContent = 'No failed delivery matches these filters: there is nothing to replay.'
      announce(status.textContent)
      return
    }
    const what = plural(count.matched, 'failed delivery', 'failed deliveries')
    const message = count.more
      ? `Replay the newest ${what} that match these filters? More match: replay again afterwards for the rest.`
      : `Replay ${count.matched === 1 ? 'the' : 'all'} ${what} that match${count.matched === 1 ? 'es' : ''} these filters?`
    if (!(await confirmDialog(`${message} Each is sent again under its own id, with a fresh retry schedule.`, `Replay ${plural(count.matched, 'delivery', 'deliveries')}`))) return
    await act(button, status, async () => {
      const done = await api<BulkReplay>('POST', paths.replayFailed(ws), filter)
      const taken = done.replayed < done.matched ? ' Some were being replayed already.' : ''
      await replayed(`${plural(done.replayed, 'delivery', 'deliveries')} replayed.${taken}${done.more ? ' More failed deliveries match: replay again for the rest.' : ''}`)
    })
  }
}
