// A router's throttle or digest in words, as the CLI and the dashboard show
// it ("at most 5 per 1h per {{data.host}}", "digest every 10m"). Pure and
// free of server code: the dashboard's bundle imports it.
import { formatDuration } from '../core/duration'

export interface ThrottleShown {
  limit: number
  per: number // seconds
  key?: string
}
export interface DigestShown {
  window: number // seconds
  key?: string
  max?: number
  bypassPriority?: number
}

const PRIORITY_NAMES = ['min', 'low', 'default', 'high', 'urgent']
/** "5 (urgent)". */
export const priorityName = (p: number) => `${p} (${PRIORITY_NAMES[p - 1] ?? '?'})`

/** "at most 5 per 1h per {{data.host}}". */
export const throttleWords = (t: ThrottleShown) => `at most ${t.limit.toLocaleString('en')} per ${formatDuration(t.per)}${t.key ? ` per ${t.key}` : ''}`

/** "digest every 10m per {{data.customer}}". */
export const digestWords = (d: DigestShown) => `digest every ${formatDuration(d.window)}${d.key ? ` per ${d.key}` : ''}`

/** The details a digest has beyond its window: "at most 100 events; priority 5 (urgent) and above go at once". */
export function digestDetails(d: DigestShown): string {
  const parts = [`at most ${(d.max ?? 100).toLocaleString('en')} events`]
  if (d.bypassPriority !== undefined) parts.push(d.bypassPriority === 5 ? `priority ${priorityName(5)} goes at once` : `priority ${priorityName(d.bypassPriority)} and above go at once`)
  return parts.join('; ')
}

/** A router's pacing in a few words, or null when it has neither (it forwards every event as it comes). */
export function pacingWords(r: { throttle?: ThrottleShown | null; digest?: DigestShown | null }): string | null {
  if (r.throttle) return throttleWords(r.throttle)
  if (r.digest) return digestWords(r.digest)
  return null
}
