// An event at its deep link (/w/{workspace}/events/{eventId}): what was
// posted with its priority, the receipt of one that must be acknowledged
// (its state, who acknowledged it, an Acknowledge button), and its delivery log, every attempt of every delivery, with a
// Replay button for failed ones (owners and admins). While deliveries are
// due, the log refreshes itself. What it reads, and when, is in state/event.ts.
import { api, query } from './api'
import { html, path, render, safeHref } from './html'
import type { PageContext } from './router'
import { act, announce, on, plural, time } from './ui'
import { awaited, loadEvent, POLL_MS, readEvent, replayDelivery, type Delivery, type EventWithDeliveries } from './state/event'
import type { RouterInfo } from './state/deliveries'
import { routerState } from './page_routers'
import { ackButtons, priorityBadge, receiptPart } from './receipt'
import { readReceipt } from './state/receipt'
import { digestHref, digestText, pacedText, type DigestFields } from './state/digest'

const EXCERPT = 300

const statusBadge = (s: Delivery['status']) => html`<span class="badge ${s}">${s}</span>`

function attemptsTable(d: Delivery, router?: RouterInfo) {
  if (!d.attempts.length) {
    // A pending delivery of a router whose destination fails is held back (its circuit), not forgotten: say so, not "no attempt".
    if (d.status === 'pending' && router?.health) return html`<p class="muted" data-held>No attempt yet: held back while the router's destination fails; it is tried when its circuit lets a trial through.</p>`
    return html`<p class="muted">No attempt yet.</p>`
  }
  return html`<div class="table-wrap"><table class="responsive attempts">
    <caption class="visually-hidden">Attempts of this delivery</caption>
    <thead><tr><th scope="col">#</th><th scope="col">Time</th><th scope="col">Duration</th><th scope="col">HTTP status</th><th scope="col">Error</th><th scope="col">Response</th></tr></thead>
    <tbody>${d.attempts.map(
      (a) => html`<tr class="${a.ok ? 'ok' : 'failed'}">
        <td data-label="Attempt">${a.attempt}</td><td data-label="Time">${time(a.at)}</td><td data-label="Duration">${a.durationMs.toLocaleString()} ms</td>
        <td data-label="HTTP status">${a.status ?? html`<span class="muted">none</span>`}</td>
        <td data-label="Error">${a.error ?? html`<span class="muted">none</span>`}</td>
        <td data-label="Response">${a.response ? html`<code class="excerpt">${a.response.length > EXCERPT ? `${a.response.slice(0, EXCERPT)}…` : a.response}</code>` : html`<span class="muted">empty</span>`}</td>
      </tr>`,
    )}</tbody></table></div>`
}

const routerOf = (d: Delivery, routers: Map<string, RouterInfo>) => (d.routerId ? routers.get(d.routerId) : undefined)
const routerName = (d: Delivery, routers: Map<string, RouterInfo>) => routerOf(d, routers)?.name ?? 'deleted router'

/** A throttled delivery's reason; a digested one's link to its digest; a digest's key and events. */
function pacedPart(e: EventWithDeliveries, d: Delivery & Partial<DigestFields>) {
  const ws = e.workspace
  const status: string = d.status // throttled and digested come with the digest engine
  if (status === 'digested') {
    const href = digestHref(ws, d, e.deliveries)
    return html`<p data-digested>${pacedText(d)}${href ? html`: <a href="${href}">delivery <code>${d.digestId!.slice(0, 8)}…</code></a>` : ''}.</p>`
  }
  if (status === 'throttled') return html`<p data-throttled>${pacedText(d)}</p>`
  const text = digestText(d)
  if (!text) return ''
  const ids = d.digest!.eventIds
  return html`<p data-digest>${text}:</p>
    <ul class="digest-events" aria-label="Events in this digest">${ids.slice(0, 20).map((id) => html`<li><a href="${path('w', ws, 'events', id)}"><code>${id}</code></a>${id === e.eventId ? ' (this event)' : ''}</li>`)}</ul>
    ${ids.length > 20 ? html`<p class="muted">and ${plural(ids.length - 20, 'more event')}</p>` : ''}`
}

function deliveryItem(e: EventWithDeliveries, d: Delivery, routers: Map<string, RouterInfo>, canManage: boolean) {
  const kind = d.kind as string // digest comes with the digest engine
  const target = d.kind === 'router' ? `Router ${routerName(d, routers)}` : kind === 'digest' ? `Digest through router ${routerName(d, routers)}` : `Push to device ${d.deviceId?.slice(0, 8) ?? ''}`
  const router = d.kind === 'push' ? undefined : routerOf(d, routers)
  return html`<li class="delivery" id="delivery-${d.id}" data-delivery-id="${d.id}" data-status="${d.status}" data-kind="${d.kind}">
    <div class="delivery-head">
      <h3>${target}</h3>
      ${statusBadge(d.status)}
      ${d.status === 'failed' && canManage ? html`<button type="button" class="secondary" data-replay="${d.id}">Replay</button>` : ''}
    </div>
    ${d.status === 'suppressed' ? html`<p data-suppressed>Not sent: ${d.reason ?? "the member's preferences"}.</p>` : ''}
    ${pacedPart(e, d)}
    ${router?.health ? html`<p data-router-health>The router: ${routerState(router)}</p>` : ''}
    <p class="muted">${plural(d.attempts.length, 'attempt')}${d.status === 'pending' && d.nextAttemptAt ? html`; next ${time(d.nextAttemptAt)}` : ''}. Delivery id <code>${d.id}</code>.</p>
    ${attemptsTable(d, router)}
  </li>`
}

/**
 * Who the event was sent to: the channel's audience, or its recipients by
 * e-mail address (only they, owners and admins see it; a recipient deleted
 * since is counted, not named).
 */
function recipientsOf(e: EventWithDeliveries) {
  if (!e.recipients) return html`<span class="muted">everyone in #${e.channel}</span>`
  const gone = (e.to?.length ?? 0) - e.recipients.length
  return html`<ul class="recipients" aria-label="Recipients">${e.recipients.map((r) => html`<li>${r.email}</li>`)}</ul>
    ${gone > 0 ? html`<span class="muted">and ${plural(gone, 'deleted user')}</span>` : ''}
    <span class="muted">Only they, and the workspace's owners and admins, see this event.</span>`
}

function eventDetails(e: EventWithDeliveries) {
  const ws = e.workspace
  const feed = (params: Record<string, string>) => path('w', ws, 'feed') + query(params)
  const link = safeHref(e.link)
  return html`<dl class="details">
    <dt>Channel</dt><dd><a href="${feed({ channel: e.channel })}">#${e.channel}</a></dd>
    <dt>Sent to</dt><dd>${recipientsOf(e)}</dd>
    <dt>Priority</dt><dd>${priorityBadge(e.priority, true)} <span class="muted">${e.priority} of 5</span></dd>
    <dt>Event key</dt><dd>${e.event ? html`<a href="${feed({ event: e.event })}"><code>${e.event}</code></a>` : html`<span class="muted">none</span>`}</dd>
    <dt>Tags</dt><dd>${e.tags.length ? e.tags.map((t) => html`<a class="chip tag" href="${feed({ tag: t })}">${t}</a> `) : html`<span class="muted">none</span>`}</dd>
    <dt>Link</dt><dd>${link ? html`<a href="${link}" rel="noopener noreferrer nofollow" target="_blank">${e.link}<span class="visually-hidden"> (opens in a new tab)</span></a>` : e.link ?? html`<span class="muted">none</span>`}</dd>
    <dt>Created</dt><dd>${time(e.createdAt)}</dd>
    <dt>Event id</dt><dd><code>${e.eventId}</code></dd>
  </dl>
  <h2>Data</h2>
  ${e.data ? html`<pre class="data" tabindex="0" aria-label="Data, as JSON"><code>${JSON.stringify(e.data, null, 2)}</code></pre>` : html`<p class="muted">No data.</p>`}`
}

/** The receipt's state, who acknowledged it and how, and the Acknowledge button while it is pending. */
async function showReceipt(ctx: PageContext, ws: string, id: string) {
  const slot = ctx.root.querySelector('[data-receipt-slot]')!
  try {
    render(slot, receiptPart(await readReceipt(api, ws, id)))
  } catch {
    render(slot, html`<p class="muted">The receipt could not be read; refresh the page to try again.</p>`)
  }
  ackButtons(slot, ws, false)
}

export async function eventPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  const id = ctx.params.eventId!
  const { event, routers } = await loadEvent(api, ws, id)
  const heading = event.title ?? event.event ?? 'Event'
  ctx.title(heading)
  render(
    ctx.root,
    html`<p class="crumbs"><a href="${path('w', ws, 'feed')}">← Feed</a></p>
    <article class="event-detail">
      <h1 tabindex="-1">${heading}</h1>
      <p class="message lead">${event.message}</p>
      ${event.receipt ? html`<section aria-labelledby="receipt-h" class="receipt-section"><h2 id="receipt-h">Acknowledgement</h2><div data-receipt-slot><p class="muted">Reading the receipt…</p></div></section>` : ''}
      ${eventDetails(event)}
    </article>
    <section aria-labelledby="deliveries-h" class="deliveries">
      <div class="page-head"><h2 id="deliveries-h">Deliveries</h2><button type="button" class="secondary" data-refresh>Refresh</button></div>
      <p role="status" data-deliveries-status class="muted"></p>
      <ul class="delivery-list" data-deliveries></ul>
    </section>`,
  )
  if (event.receipt) await showReceipt(ctx, ws, event.receipt)
  const list = ctx.root.querySelector('[data-deliveries]')!
  const status = ctx.root.querySelector('[data-deliveries-status]')!
  let timer: ReturnType<typeof setTimeout> | undefined
  ctx.signal.addEventListener('abort', () => clearTimeout(timer))

  const show = (deliveries: Delivery[]) => {
    render(list, html`${deliveries.map((d) => deliveryItem({ ...event, deliveries }, d, routers, ctx.canManage))}`)
    const waiting = awaited(deliveries, event.createdAt)
    if (!deliveries.length) status.textContent = waiting ? 'No deliveries yet; waiting for the fan-out…' : 'No deliveries: no router matched this event and no device was pushed.'
    else status.textContent = ''
    clearTimeout(timer)
    if (waiting && !ctx.signal.aborted) timer = setTimeout(refresh, POLL_MS)
  }
  const refresh = async () => {
    const fresh = await readEvent(api, ws, id)
    if (!ctx.signal.aborted) show(fresh.deliveries)
  }
  show(event.deliveries)

  on(ctx.root, 'click', '[data-refresh]', (b) => act(b as HTMLButtonElement, status, refresh))
  on(ctx.root, 'click', '[data-replay]', (b) =>
    act(b as HTMLButtonElement, status, async () => {
      await replayDelivery(api, ws, b.dataset.replay!)
      await refresh()
      announce('Replay scheduled.')
      status.textContent = 'Replay scheduled; the log updates as it runs.'
      clearTimeout(timer)
      timer = setTimeout(refresh, POLL_MS) // the replayed delivery shows as pending once the worker takes it
    }),
  )
}
