// The receipt operations the routes adapt (src/http/routes/receipts.ts):
// each reads or ends one receipt of one workspace and says, with a named
// error, why it cannot. Made once per process with the database and the
// scheduler's wake-up, so that a router's receipt delivery goes out at once.
import type { Sql } from '../core/db'
import { receiptEnded, receiptNotFound } from '../core/errors'
import { acknowledgeReceipt, anyReceipt, cancelReceipt, readReceipt, type AckVia, type ReceiptView, type Transition } from './receipts'
import { eventVisibleTo, type Viewer } from '../ingest/event_reads'

export interface ReceiptOps {
  /** The receipt, or 404 (none of this id in the workspace, another workspace's included, or of an event the viewer may not see; null: the API key). */
  read(workspaceId: number, receiptId: string, viewer: Viewer | null): Promise<ReceiptView>
  /** Cancels it: the receipt, or 409 once it is no longer pending. */
  cancel(workspaceId: number, receiptId: string): Promise<ReceiptView>
  /** A member acknowledges it: the receipt, or 409 naming who acknowledged it first. */
  acknowledge(workspaceId: number, receiptId: string, by: { userId: string; via: AckVia }, viewer: Viewer): Promise<ReceiptView>
}

/** The view of a transition this call won; the 409 of one it lost; the 404 of none. */
function settled(t: Transition | null): ReceiptView {
  if (!t) throw receiptNotFound()
  if (!t.won) throw receiptEnded(t.receipt.status, t.receipt.acknowledgedBy, t.receipt.acknowledgedAt)
  return t.receipt
}

/** A receipt's event seen by `viewer`, checked in the statement that reads or ends the receipt. */
const seenBy = (viewer: Viewer | null) => (viewer ? (tx: Parameters<typeof eventVisibleTo>[0]) => eventVisibleTo(tx, viewer, 'r') : anyReceipt)

export function receiptOps(sql: Sql, wake: () => void = () => {}): ReceiptOps {
  return {
    async read(workspaceId, receiptId, viewer) {
      const r = await readReceipt(sql, workspaceId, receiptId, seenBy(viewer))
      if (!r) throw receiptNotFound()
      return r
    },
    async cancel(workspaceId, receiptId) {
      const r = settled(await cancelReceipt(sql, workspaceId, receiptId))
      wake()
      return r
    },
    async acknowledge(workspaceId, receiptId, by, viewer) {
      const r = settled(await acknowledgeReceipt(sql, workspaceId, receiptId, by, seenBy(viewer)))
      wake()
      return r
    },
  }
}
