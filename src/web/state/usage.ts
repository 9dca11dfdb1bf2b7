// Usage: this month's events against the quota, in the numbers the meter and
// its text show, and events per day over the last 30 days.
import type { Api, Schemas } from '../api'

export type Usage = Schemas['Usage']

export const loadUsage = (api: Api, workspace: string) => api.get('/v1/workspaces/{workspace}/usage', { path: { workspace } })

/** The share of the quota used, in percent (100 for a quota of zero), at most 100. */
export const percent = (used: number, limit: number) => (limit > 0 ? Math.min(100, (used / limit) * 100) : 100)

/** What the quota meter shows: the percentage in words ("<1" rather than a 0 that is not), its bounds, and whether events are refused. */
export function quotaMeter(u: Pick<Usage, 'used' | 'limit' | 'remaining'>) {
  const pct = percent(u.used, u.limit)
  return {
    pct,
    shown: pct < 1 && u.used > 0 ? '<1' : String(Math.round(pct)),
    max: Math.max(u.limit, 1),
    low: Math.round(u.limit * 0.75),
    high: Math.round(u.limit * 0.9),
    /** Events are refused (429) until the quota starts again. */
    refused: u.remaining === 0,
  }
}
