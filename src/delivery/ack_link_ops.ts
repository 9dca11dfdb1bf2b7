// What the /ack/<token> page reads and does: the receipt a token names (by
// its id alone: the token is the credential, nobody signs in), the event it
// is for, and the acknowledgement, made by the receipts engine with
// `via: 'link'` and no user. A token this server did not sign, or one whose
// receipt is gone, is `null`: the page's 404.
import type { Sql } from '../core/db'
import { findEvent } from '../ingest/feed'
import { visibleTo } from '../ingest/event_reads'
import { ackTokenReceipt } from './ack_link'
import { acknowledgeReceipt, anyReceipt, findReceiptWorkspace, readReceipt, type ReceiptView } from './receipts'

/** What the page shows. */
export interface AckLinkView {
  receipt: ReceiptView
  /** The event's words; null once the event is past retention. */
  event: { title: string | null; message: string; channel: string; workspace: string } | null
}

/**
 * `key`: the link key (send_config.ts, endpoints.ackLink.key); without one, every token
 * is unknown. `wake`: the scheduler of this process, which sends the receipt
 * deliveries of routers an acknowledgement queued at once.
 */
export function ackLinkOps(sql: Sql, key: string | undefined, wake: () => void = () => {}) {
  async function locate(token: string): Promise<{ receipt: string; workspaceId: number } | null> {
    const receipt = key ? ackTokenReceipt(key, token) : null
    if (!receipt) return null
    const workspaceId = await findReceiptWorkspace(sql, receipt)
    return workspaceId === null ? null : { receipt, workspaceId }
  }
  async function view(workspaceId: number, receipt: ReceiptView): Promise<AckLinkView> {
    // The token is the credential (it was pushed to those the event reached): whoever holds it sees the event.
    const e = await findEvent(sql, workspaceId, receipt.eventId, visibleTo(sql, null))
    return { receipt, event: e && { title: e.title, message: e.message, channel: e.channel, workspace: e.workspace } }
  }
  return {
    /** The receipt and its event, changing nothing (a link previewer's GET). */
    async read(token: string): Promise<AckLinkView | null> {
      const at = await locate(token)
      if (!at) return null
      const receipt = await readReceipt(sql, at.workspaceId, at.receipt, anyReceipt)
      return receipt && view(at.workspaceId, receipt)
    },
    /** Acknowledges: `won` false when it was no longer pending (the view says who or what ended it). */
    async acknowledge(token: string): Promise<(AckLinkView & { won: boolean }) | null> {
      const at = await locate(token)
      if (!at) return null
      const done = await acknowledgeReceipt(sql, at.workspaceId, at.receipt, { userId: null, via: 'link' }, anyReceipt)
      if (done?.won) wake()
      return done && { won: done.won, ...(await view(at.workspaceId, done.receipt)) }
    },
  }
}
export type AckLinkOps = ReturnType<typeof ackLinkOps>
