// A receipt as a member reads and acknowledges it (the event page and the
// feed's cards): GET and POST …/receipts/{receipt}[/ack]. A receipt that is
// no longer pending answers the acknowledgement with 409; it is read again,
// so the page shows who or what ended it.
import { ApiError, type Api, type Schemas } from '../api'

export type Receipt = Schemas['Receipt']

export const readReceipt = (api: Api, workspace: string, receipt: string) =>
  api.get('/v1/workspaces/{workspace}/receipts/{receipt}', { path: { workspace, receipt } })

/** Acknowledges; `won` false when someone (or its expiry, or its sender) ended it first. */
export async function acknowledge(api: Api, workspace: string, receipt: string): Promise<{ won: boolean; receipt: Receipt }> {
  try {
    return { won: true, receipt: await api.post('/v1/workspaces/{workspace}/receipts/{receipt}/ack', { path: { workspace, receipt } }) }
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 409) throw err
    return { won: false, receipt: await readReceipt(api, workspace, receipt) }
  }
}

/** The receipts of `ids`, read at once (a page of the feed has few); one that cannot be read is left out. */
export async function readReceipts(api: Api, workspace: string, ids: string[]): Promise<Map<string, Receipt>> {
  const read = await Promise.all(ids.map((id) => readReceipt(api, workspace, id).then((r) => [id, r] as const, () => null)))
  return new Map(read.filter((r) => r !== null))
}

export const PRIORITY_NAMES: Record<number, string> = { 1: 'min', 2: 'low', 3: 'default', 4: 'high', 5: 'urgent' }

/** How a receipt was acknowledged, in words. */
export const VIA: Record<string, string> = { web: 'on the dashboard', push: 'from a notification', link: 'through a link in a message', api: 'through the API' }
