// A workspace's scheduled events, for the Scheduled page (owners and admins):
// read soonest first a page at a time (GET /v1/workspaces/{ws}/scheduled),
// cancelled one by one (DELETE …/scheduled/{eventId}), where a 409 means the
// event already went out: an answer of its own, not an error.
import { ApiError, type Api, type Role, type Schemas } from '../api'
import { pager, type Pager } from './pager'

export type ScheduledEvent = Schemas['ScheduledEvent']

export const SCHEDULED_PAGE = 50

/** Only owners and admins see the workspace's scheduled events (members get a 403). */
export const mayScheduled = (role: Role) => role === 'owner' || role === 'admin'

/** The events of `workspace` waiting to go out, soonest first. */
export function scheduledPages(api: Api, workspace: string, limit = SCHEDULED_PAGE): Pager<ScheduledEvent> {
  return pager(async (cursor) => {
    const page = await api.get('/v1/workspaces/{workspace}/scheduled', { path: { workspace }, query: { cursor, limit } })
    return { items: page.events, nextCursor: page.nextCursor }
  })
}

/** What a cancel came to: cancelled (it never goes out), or sent already (Herald's words say when). */
export type CancelOutcome = { cancelled: true } | { cancelled: false; sent: true; detail: string }

export async function cancelScheduled(api: Api, workspace: string, eventId: string): Promise<CancelOutcome> {
  try {
    await api.delete('/v1/workspaces/{workspace}/scheduled/{eventId}', { path: { workspace, eventId } })
    return { cancelled: true }
  } catch (err) {
    if (err instanceof ApiError && err.status === 409 && err.code === 'event-sent') return { cancelled: false, sent: true, detail: err.detail }
    throw err
  }
}

/** How long until `iso`, in at most two units: `in 29m 59s`, `in 2h 5m`, `in 3d 4h`; `any moment now` once due. */
export function goesOutIn(iso: string, now = Date.now()): string {
  let s = Math.round((Date.parse(iso) - now) / 1000)
  if (s <= 0) return 'any moment now'
  const parts: string[] = []
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (s >= size || (unit === 's' && parts.length === 0)) parts.push(`${Math.floor(s / size)}${unit}`)
    s %= size
  }
  return `in ${parts.slice(0, 2).join(' ')}`
}

/** The line a row shows: the title and the message, or the message alone. */
export const summaryOf = (e: Pick<ScheduledEvent, 'title' | 'message'>) => (e.title ? `${e.title}: ${e.message}` : e.message)
