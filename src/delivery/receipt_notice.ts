// What a router with `receipts: true` is sent when a receipt of an event it
// forwarded ends: webhooks a JSON body of their own, chat destinations one
// line. Plain data, made by the scheduler and rendered in the pool's threads.
import type { EventView } from './event_view'

/** The receipt's new state, as the delivery carries it to its thread. */
export interface ReceiptNotice {
  type: 'receipt.acknowledged' | 'receipt.expired' | 'receipt.cancelled'
  data: {
    receipt: string
    eventId: string
    status: string
    acknowledgedAt: string | null
    acknowledgedBy: { userId: string; email: string } | null
    acknowledgedVia: string | null
    [k: string]: unknown
  }
}

/** The webhook body: `{"type", "timestamp", "data": <the receipt>}`. */
export const receiptWebhookBody = (n: ReceiptNotice, now: Date) => JSON.stringify({ type: n.type, timestamp: now.toISOString(), data: n.data })

/** The one line a chat destination (or an e-mail, or a text) shows. */
export function receiptLine(n: ReceiptNotice, event: EventView): string {
  const what = event.title ?? event.message
  const short = what.length > 80 ? `${what.slice(0, 79)}…` : what
  const d = n.data
  if (n.type === 'receipt.acknowledged') return `✅ "${short}" was acknowledged${d.acknowledgedBy ? ` by ${d.acknowledgedBy.email}` : ''}${d.acknowledgedVia ? ` (${d.acknowledgedVia})` : ''}.`
  if (n.type === 'receipt.expired') return `⌛ "${short}" expired without acknowledgement.`
  return `✖ "${short}" was cancelled by its sender.`
}

const TITLES: Record<ReceiptNotice['type'], string> = {
  'receipt.acknowledged': 'Acknowledged',
  'receipt.expired': 'Expired unacknowledged',
  'receipt.cancelled': 'Cancelled',
}

/**
 * The attempt a destination other than a webhook sends for a notice: the
 * event with the line as its message under a one-word title, without its
 * tags, and without the router's template (written for events, not for this
 * line).
 */
export function noticeAsEvent(n: ReceiptNotice, event: EventView): EventView {
  return { ...event, title: TITLES[n.type], message: receiptLine(n, event), tags: [] }
}
