// What became of an event's deliveries, at a glance: all delivered, some
// pending, some failed (how many), nothing to deliver, or not fanned out
// yet. The feed shows it on every event and keeps it current: events whose
// deliveries are still under way are counted again every few seconds, all of
// them when the tab comes back into view. The badges are drawn in page_feed.ts.
import type { Api, Schemas } from '../api'

// throttled (a router's throttle held it back) and digested (sent inside a digest) come with the digest engine; absent means none.
export type DeliveryCounts = Schemas['DeliveryCounts'] & { throttled?: number; digested?: number }

export type DeliveryState = 'failed' | 'pending' | 'expired' | 'delivered' | 'throttled' | 'suppressed' | 'none' | 'waiting'

// A new event has no deliveries until the worker fans it out: until then it
// is "waiting", not "nothing to deliver" (the event page waits as long).
export const FANOUT_GRACE_MS = 30_000
// Events under way are counted again this often; a live one (which comes
// without counts) this soon after it is shown.
const POLL_MS = 3000
const SOON_MS = 1000
// What GET …/deliveries/counts takes at once.
const COUNTS_MAX = 100

export const NO_DELIVERIES: DeliveryCounts = { pending: 0, succeeded: 0, failed: 0 }

export function stateOf(c: DeliveryCounts, createdAt: string, now = Date.now()): DeliveryState {
  if (c.failed > 0) return 'failed'
  if (c.pending > 0) return 'pending'
  if ((c.expired ?? 0) > 0) return 'expired' // not sent in time: the event's ttl ran out first
  // Sent on its own or inside a digest: delivered either way.
  if (c.succeeded > 0 || (c.digested ?? 0) > 0) return 'delivered'
  // Every router delivery held back by a throttle (pushes perhaps by preferences): nothing failed, nothing sent.
  if ((c.throttled ?? 0) > 0) return 'throttled'
  // Every push held back by members' preferences (and nothing else): nothing failed, nothing sent.
  if ((c.suppressed ?? 0) > 0) return 'suppressed'
  return now - Date.parse(createdAt) < FANOUT_GRACE_MS ? 'waiting' : 'none'
}

/** Whether a state is still due to change: deliveries pending, or a fan-out still to come. */
const underWay = (state: DeliveryState) => state === 'pending' || state === 'waiting'

/** The state in words: the counts that matter, the total beside them. */
export function stateLabel(c: DeliveryCounts, state: DeliveryState): string {
  const total = c.pending + c.succeeded + c.failed + (c.expired ?? 0) + (c.suppressed ?? 0) + (c.throttled ?? 0) + (c.digested ?? 0)
  const sent = c.succeeded + (c.digested ?? 0)
  const inDigest = c.digested ? ` (${c.digested.toLocaleString()} in a digest)` : ''
  const held = `${c.throttled ? `, ${c.throttled.toLocaleString()} throttled` : ''}${c.suppressed ? `, ${c.suppressed.toLocaleString()} suppressed` : ''}`
  switch (state) {
    case 'failed':
      return `${c.failed.toLocaleString()} of ${total.toLocaleString()} failed${c.pending ? `, ${c.pending.toLocaleString()} pending` : ''}`
    case 'pending':
      return `${c.pending.toLocaleString()} of ${total.toLocaleString()} pending`
    case 'expired':
      return `${(c.expired ?? 0).toLocaleString()} of ${total.toLocaleString()} expired`
    case 'delivered':
      if (held) return `${sent.toLocaleString()} of ${total.toLocaleString()} delivered${inDigest}${held}`
      if (c.digested && !c.succeeded) return total === 1 ? 'Sent in a digest' : `All ${total.toLocaleString()} sent in digests`
      return total === 1 ? 'Delivered' : `All ${total.toLocaleString()} delivered${inDigest}`
    case 'throttled':
      return `${(c.throttled ?? 0).toLocaleString()} of ${total.toLocaleString()} throttled${c.suppressed ? `, ${c.suppressed.toLocaleString()} suppressed` : ''}`
    case 'suppressed':
      return `${(c.suppressed ?? 0).toLocaleString()} suppressed by preferences`
    case 'none':
      return 'Nothing to deliver'
    case 'waiting':
      return 'Delivering…'
  }
}

export interface WatchOptions {
  /** Draws the state of an event shown (`label`: the state in words). */
  paint(id: string, state: DeliveryState, label: string): void
  /** Whether the page is in view: while it is not, nothing is counted until `inView`. */
  visible(): boolean
  /** Aborted when the page is left: no round runs after it. */
  signal: AbortSignal
  pollMs?: number
  soonMs?: number
}

/**
 * Keeps the delivery states of the events of `workspace` shown current.
 * `track` an event when it is shown (with the counts it came with, if any);
 * those still under way are counted again until they settle, and `paint`
 * draws each state that may have changed.
 */
export function watchDeliveryStates(api: Api, workspace: string, { paint, visible, signal, pollMs = POLL_MS, soonMs = SOON_MS }: WatchOptions) {
  // Each event shown, with the state last drawn.
  const shown = new Map<string, { counts: DeliveryCounts; createdAt: string; drawn: DeliveryState }>()
  let timer: ReturnType<typeof setTimeout> | undefined
  let busy = false

  const draw = (id: string) => {
    const e = shown.get(id)!
    e.drawn = stateOf(e.counts, e.createdAt)
    paint(id, e.drawn, stateLabel(e.counts, e.drawn))
  }
  // Under way as last drawn, not as of now: an event whose grace ended since
  // the last round is in the next one, to be drawn as "nothing to deliver"
  // rather than left "Delivering…".
  const unsettled = () => [...shown].filter(([, e]) => underWay(e.drawn)).map(([id]) => id)

  async function refresh(ids: string[]) {
    if (busy || !ids.length || signal.aborted) return
    busy = true
    try {
      const counts = await api.get('/v1/workspaces/{workspace}/deliveries/counts', { path: { workspace }, query: { events: ids.slice(0, COUNTS_MAX).join(',') } })
      for (const [id, c] of Object.entries(counts)) {
        const e = shown.get(id)
        if (e) (e.counts = c), draw(id)
      }
    } catch {
      // Offline or signed out: the states stay as they were, and the next round tries again.
    } finally {
      busy = false
    }
  }
  // Newest first (event ids are UUIDv7s, which sort by time): one round counts at most COUNTS_MAX.
  const newest = (ids: string[]) => ids.sort().reverse()
  let dueAt = Infinity
  /** Counts the unsettled events in `ms`, unless a round is due sooner. */
  const schedule = (ms = pollMs) => {
    const at = Date.now() + ms
    if (signal.aborted || (timer !== undefined && dueAt <= at)) return
    clearTimeout(timer)
    dueAt = at
    timer = setTimeout(async () => {
      timer = undefined
      dueAt = Infinity
      const ids = newest(unsettled())
      await refresh(ids)
      // Those past the grace period with no deliveries become "nothing to deliver".
      for (const id of ids) if (shown.has(id)) draw(id)
      if (unsettled().length && visible()) schedule()
    }, ms)
  }
  signal.addEventListener('abort', () => clearTimeout(timer))

  return {
    /** Follows an event shown; a live one (no counts yet) is counted soon. */
    track(id: string, createdAt: string, counts?: DeliveryCounts) {
      const e = { counts: counts ?? NO_DELIVERIES, createdAt, drawn: stateOf(counts ?? NO_DELIVERIES, createdAt) }
      shown.set(id, e)
      if (!counts) schedule(soonMs)
      else if (underWay(e.drawn)) schedule()
    },
    /** The page is back in view: replays and retries may have changed any of them, so all are counted again. */
    async inView() {
      await refresh(newest([...shown.keys()]))
      if (unsettled().length) schedule()
    },
  }
}
