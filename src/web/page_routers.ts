// A workspace's routers: each forwards the events whose key matches its
// pattern to a destination. Owners and admins create, edit (page_router_form),
// send a test event and delete; members read. What it reads and changes is in
// state/routers.ts.
import { api } from './api'
import { html, path, render } from './html'
import type { PageContext } from './router'
import { act, announce, confirmDialog, on } from './ui'
import { deleteRouter, destinationParts, listRouters, settleRouterDeliveries, shownUrl, testRouter, type RouterView, type TestResult } from './state/routers'
import { DESTINATIONS } from './router_fields'
import { digestDetails, pacingWords } from '../delivery/router_pacing'

export type { RouterView, TestResult } from './state/routers'

/** The destination types in words: "Webhook, Slack, … or SMS (Twilio)". */
const typeList = () => {
  const labels = DESTINATIONS.map((d) => d.label)
  return labels.length > 1 ? `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}` : (labels[0] ?? '')
}

/** A URL of a destination, saying when its path is hidden. */
function urlText(raw: string) {
  const { url, hidden } = shownUrl(raw)
  return html`<span class="url">${url}</span>${hidden ? html` <span class="muted">(path hidden)</span>` : ''}`
}

/** What the API shows of a destination: its type and whatever is not secret. */
export function destinationSummary(d: RouterView['destination']) {
  return html`<span class="chip">${d.type}</span> ${typeof d.url === 'string' ? urlText(d.url) : destinationParts(d).join(' · ')}`
}

/** The outcome of a test send, for a status region. */
export const testResult = (name: string, r: TestResult) => html`<div class="callout ${r.ok ? 'ok' : 'failed'}">
  <p><strong>${r.ok ? 'Delivered' : 'Not delivered'}</strong>: test event through ${name}${r.status !== null ? html`, HTTP ${r.status}` : ''}, in ${Math.round(r.durationMs).toLocaleString()} ms.</p>
  ${r.error ? html`<p class="error">${r.error}</p>` : ''}
  ${r.response ? html`<p>Response:</p><pre class="excerpt"><code>${r.response.slice(0, 500)}</code></pre>` : ''}
</div>`

/** Enabled or disabled, or how its destination fails: since when, and its last error (src/delivery/health.ts). */
export function routerState(r: Pick<RouterView, 'enabled' | 'health'>) {
  const h = r.health
  const plain = r.enabled ? html`<span class="badge succeeded">enabled</span>` : html`<span class="badge">disabled</span>`
  if (!h) return plain
  const label = h.state === 'failing' ? 'failing' : h.state === 'disabled' ? 'disabled: failing' : 'circuit open'
  return html`<span class="badge ${h.state === 'circuit-open' ? 'pending' : 'failed'}">${label}</span>
    <span class="muted">since <time datetime="${h.since}">${new Date(h.since).toLocaleString()}</time></span>
    ${h.lastError ? html`<br><span class="error">${h.lastError}</span>` : ''}`
}

/** A router's throttle or digest in a few words ("at most 5 per 1h per {{data.host}}", "digest every 10m"), or that it has neither. */
export function routerPacing(r: Pick<RouterView, 'throttle' | 'digest'>) {
  const words = pacingWords(r)
  if (!words) return html`<span class="muted">each event as it comes</span>`
  return html`<span class="pacing" ${r.digest ? html`title="${digestDetails(r.digest)}"` : ''}>${words}</span>`
}

function routerRow(r: RouterView, ws: string, canManage: boolean) {
  const edit = path('w', ws, 'routers', r.id)
  return html`<tr data-router-id="${r.id}" data-name="${r.name}">
    <th scope="row">${canManage ? html`<a href="${edit}">${r.name}</a>` : r.name}</th>
    <td data-label="Pattern"><code class="pattern" title="${r.pattern}">${r.pattern}</code></td>
    <td class="wrap" data-label="Destination">${destinationSummary(r.destination)}</td>
    <td class="wrap" data-label="Pacing">${routerPacing(r)}</td>
    <td data-label="State">${routerState(r)}</td>
    <td class="actions">${canManage
      ? html`<button type="button" class="secondary" data-test aria-label="Send a test event through ${r.name}">Send test event</button>
        <a class="button secondary" href="${edit}" aria-label="Edit ${r.name}">Edit</a>
        ${r.health ? html`<button type="button" class="secondary" data-settle="cancelled" aria-label="Cancel the pending deliveries of ${r.name}">Cancel pending</button>` : ''}
        <button type="button" class="danger" data-delete aria-label="Delete ${r.name}">Delete</button>`
      : ''}</td>
  </tr>`
}

export async function routersPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Routers')
  const status = () => ctx.root.querySelector('[data-status]')!
  const load = async (message?: string) => {
    const routers = await listRouters(api, ws)
    render(
      ctx.root,
      html`<div class="page-head"><h1 tabindex="-1">Routers</h1>${ctx.canManage ? html`<a class="button" href="${path('w', ws, 'routers', 'new')}">New router</a>` : ''}</div>
      <p class="lead">A router forwards every event whose key matches its pattern (<code>user.*</code>, <code>*</code>) to a destination: ${typeList()}.</p>
      <div role="status" data-status tabindex="-1">${message ?? ''}</div>
      ${routers.length
        ? html`<div class="table-wrap"><table class="responsive routers-table">
            <caption class="visually-hidden">Routers</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Pattern</th><th scope="col">Destination</th><th scope="col">Pacing</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>${routers.map((r) => routerRow(r, ws, ctx.canManage))}</tbody>
          </table></div>`
        : html`<p class="empty">No routers yet.${ctx.canManage ? html` <a href="${path('w', ws, 'routers', 'new')}">Create the first one</a>.` : ''}</p>`}`,
    )
    if (message) ctx.root.querySelector<HTMLElement>('[data-status]')!.focus()
  }
  await load()

  on(ctx.root, 'click', '[data-test]', (b) =>
    act(b as HTMLButtonElement, status(), async () => {
      const tr = b.closest('tr')!
      render(status(), html`<p class="muted">Sending a test event through ${tr.dataset.name}…</p>`)
      render(status(), testResult(tr.dataset.name!, await testRouter(api, ws, tr.dataset.routerId!)))
    }),
  )
  on(ctx.root, 'click', '[data-settle]', async (b) => {
    const tr = b.closest('tr')!
    if (!(await confirmDialog(`Cancel every pending delivery of “${tr.dataset.name}”? They will not be sent.`, 'Cancel pending deliveries'))) return
    await act(b as HTMLButtonElement, status(), async () => {
      const n = await settleRouterDeliveries(api, ws, tr.dataset.routerId!, 'cancelled')
      announce(`${n} pending deliveries of ${tr.dataset.name} cancelled.`)
      await load(`${n} pending ${n === 1 ? 'delivery' : 'deliveries'} of “${tr.dataset.name}” cancelled.`)
    })
  })
  on(ctx.root, 'click', '[data-delete]', async (b) => {
    const tr = b.closest('tr')!
    if (!(await confirmDialog(`Delete the router “${tr.dataset.name}”? Its past deliveries stay on their events.`, 'Delete router'))) return
    await act(b as HTMLButtonElement, status(), async () => {
      await deleteRouter(api, ws, tr.dataset.routerId!)
      announce(`Router ${tr.dataset.name} deleted.`)
      await load(`Router “${tr.dataset.name}” deleted.`)
    })
  })
}
