// Scheduled (/w/{workspace}/scheduled), for owners and admins: the events sent
// with `deliverAt` or `delay` that have not gone out, soonest first, a page at
// a time, each with how long until it goes out and a Cancel button that
// confirms. A cancel that loses the race to the release says so and links the
// event, which went out. Members do not see the page in the navigation, and
// are told so if they come to it. What it reads and changes is in
// state/scheduled.ts.
import { api } from './api'
import { html, insert, path, render } from './html'
import type { PageContext } from './router'
import { act, announce, confirmDialog, on, plural, time } from './ui'
import { cancelScheduled, goesOutIn, mayScheduled, scheduledPages, summaryOf, type ScheduledEvent } from './state/scheduled'

function row(e: ScheduledEvent) {
  return html`<tr data-event-id="${e.eventId}">
    <td data-label="Goes out">${time(e.scheduledFor)} <span class="muted" data-in>${goesOutIn(e.scheduledFor)}</span></td>
    <td data-label="Channel">#${e.channel}</td>
    <th scope="row" data-label="Event">${summaryOf(e)}${e.event ? html` <code class="muted">${e.event}</code>` : ''}</th>
    <td data-label="Recipients">${e.to?.length ? plural(e.to.length, 'recipient') : html`<span class="muted">channel</span>`}</td>
    <td class="actions"><button type="button" class="danger" data-cancel aria-label="Cancel the scheduled event ${summaryOf(e)}">Cancel</button></td>
  </tr>`
}

const empty = html`<div class="empty" data-empty><p>No scheduled events. Send an event with <code>deliverAt</code> (an RFC 3339 time) or <code>delay</code> (seconds, or <code>30m</code>) and it waits here until its time:</p>
  <pre><code>curl -X POST $HERALD_URL/event -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
  -d '{"message":"Maintenance starts","delay":"30m"}'
herald send "Maintenance starts" --in 30m</code></pre></div>`

export async function scheduledPage(ctx: PageContext) {
  const ws = ctx.workspace.workspace
  ctx.title('Scheduled')
  if (!mayScheduled(ctx.workspace.role)) {
    render(ctx.root, html`<h1 tabindex="-1">Scheduled</h1><p class="notice" data-members-only>Only owners and admins see the workspace's scheduled events.</p>`)
    return
  }
  const pages = scheduledPages(api, ws)
  const first = await pages.first()
  render(
    ctx.root,
    html`<h1 tabindex="-1">Scheduled</h1>
    <p class="lead">Events sent with <code>deliverAt</code> or <code>delay</code> that have not gone out, soonest first. At its time each is shown in the feed, pushed and routed; cancelled, it never is.</p>
    <p role="status" data-status tabindex="-1"></p>
    <div data-list>${first.length ? '' : empty}</div>
    <div class="table-wrap" ${first.length ? '' : html`hidden`}><table class="responsive">
      <caption class="visually-hidden">Scheduled events</caption>
      <thead><tr><th scope="col">Goes out</th><th scope="col">Channel</th><th scope="col">Event</th><th scope="col">Recipients</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody data-rows>${first.map(row)}</tbody>
    </table></div>
    <div class="more"><button type="button" class="secondary" data-more ${pages.more ? '' : html`hidden`}>Show more</button></div>`,
  )
  const status = () => ctx.root.querySelector<HTMLElement>('[data-status]')!
  const more = ctx.root.querySelector<HTMLButtonElement>('[data-more]')!
  more.addEventListener('click', () =>
    act(more, status(), async () => {
      const next = await pages.next()
      insert(ctx.root.querySelector('[data-rows]')!, 'beforeend', html`${next.map(row)}`)
      more.hidden = !pages.more
    }),
  )
  // The "in 5m" of each row, kept current while the page is open.
  const tick = setInterval(() => {
    for (const el of ctx.root.querySelectorAll<HTMLElement>('tr[data-event-id]')) {
      const at = el.querySelector('time')?.getAttribute('datetime')
      if (at) el.querySelector('[data-in]')!.textContent = goesOutIn(at)
    }
  }, 1000)
  ctx.signal.addEventListener('abort', () => clearInterval(tick))
  on(ctx.root, 'click', '[data-cancel]', async (b) => {
    const tr = b.closest('tr')!
    const eventId = tr.dataset.eventId!
    const what = tr.querySelector('th')!.textContent!.trim()
    if (!(await confirmDialog(`Cancel “${what}”? It will never be shown, pushed or routed.`, 'Cancel event'))) return
    await act(b as HTMLButtonElement, status(), async () => {
      const outcome = await cancelScheduled(api, ws, eventId)
      tr.remove()
      if (!ctx.root.querySelector('tr[data-event-id]') && !pages.more) {
        ctx.root.querySelector<HTMLElement>('.table-wrap')!.hidden = true
        render(ctx.root.querySelector('[data-list]')!, empty)
      }
      if (outcome.cancelled) {
        render(status(), html`Cancelled “${what}”: it will never go out.`)
        announce(`Cancelled ${what}.`)
      } else {
        render(status(), html`<span class="error" data-sent>${outcome.detail} <a href="${path('w', ws, 'events', eventId)}">See the event</a>.</span>`)
        announce(outcome.detail)
      }
      status().focus()
    })
  })
}
