// Priority and receipts on the dashboard: an event's priority as a badge (4
// and 5 stand out, 1 and 2 are muted, 3 shows nothing in the feed), and the
// receipt's part: its state, who acknowledged it and how, and the
// Acknowledge button while it is pending. The feed's cards and the event
// page both use them; what they read is in state/receipt.ts.
import { api } from './api'
import { html, type Html } from './html'
import { act, announce, on, time } from './ui'
import { acknowledge, PRIORITY_NAMES, VIA, type Receipt } from './state/receipt'

/** The badge of a priority; nothing for 3 unless `always` (the event page says it). */
export function priorityBadge(priority: number, always = false): Html | '' {
  if (priority === 3 && !always) return ''
  const name = PRIORITY_NAMES[priority] ?? String(priority)
  return html`<span class="priority" data-priority="${priority}" title="Priority ${priority} of 5"><span class="visually-hidden">Priority: </span>${name}</span>`
}

function ackedBy(r: Receipt): Html {
  const who = r.acknowledgedBy ? html` by <strong>${r.acknowledgedBy.email}</strong>` : html``
  return html`Acknowledged${who}${r.acknowledgedVia ? ` ${VIA[r.acknowledgedVia] ?? r.acknowledgedVia}` : ''}${r.acknowledgedAt ? html`, ${time(r.acknowledgedAt)}` : ''}.`
}

/** The receipt's state in words. */
function stateText(r: Receipt): Html {
  switch (r.status) {
    case 'pending':
      return html`It repeats until someone acknowledges it, at the latest until ${time(r.expiresAt)}.`
    case 'acknowledged':
      return ackedBy(r)
    case 'expired':
      return html`Expired unacknowledged, ${time(r.expiresAt)}.`
    case 'cancelled':
      return html`Cancelled by its sender.`
  }
}

const STATUS_LABEL: Record<Receipt['status'], string> = { pending: 'Awaiting acknowledgement', acknowledged: 'Acknowledged', expired: 'Expired', cancelled: 'Cancelled' }

/** The receipt's part of an event: `compact` in a feed card (the badge and the button), whole on the event page. */
export function receiptPart(r: Receipt, compact = false): Html {
  const button = r.status === 'pending' ? html`<button type="button" class="ack" data-ack="${r.receipt}">Acknowledge</button>` : ''
  return html`<div class="receipt" data-receipt="${r.receipt}" data-receipt-status="${r.status}">
    <span class="badge receipt-state ${r.status}">${STATUS_LABEL[r.status]}</span>
    ${compact ? (r.status === 'acknowledged' ? html`<span class="muted">${r.acknowledgedBy?.email ?? ''}</span>` : '') : html`<span class="receipt-text">${stateText(r)}</span>`}
    ${button}
    ${compact ? '' : html`<p class="muted">${r.pushes.toLocaleString()} ${r.pushes === 1 ? 'push' : 'pushes'} so far${r.lastPushAt ? html`, the last ${time(r.lastPushAt)}` : ''}${r.escalated.length ? `; escalated to ${r.escalated.map((c) => `#${c}`).join(', ')}` : ''}.</p>`}
    <span role="status" class="receipt-status"></span>
  </div>`
}

/**
 * Makes the Acknowledge buttons under `root` acknowledge, and their part
 * show the outcome (`compact` as drawn). `onChange` gets the receipt as it
 * now is.
 */
export function ackButtons(root: Element, workspace: string, compact: boolean, onChange: (r: Receipt) => void = () => {}) {
  on(root, 'click', 'button[data-ack]', (button) => {
    const part = button.closest('.receipt')!
    return act(button as HTMLButtonElement, part.querySelector('.receipt-status'), async () => {
      const { won, receipt } = await acknowledge(api, workspace, button.dataset.ack!)
      const fresh = receiptPart(receipt, compact)
      part.outerHTML = fresh.text
      onChange(receipt)
      announce(won ? 'Acknowledged: it stops repeating for everyone.' : receipt.status === 'acknowledged' ? `Already acknowledged${receipt.acknowledgedBy ? ` by ${receipt.acknowledgedBy.email}` : ''}.` : `No longer pending: ${receipt.status}.`)
    })
  })
}
