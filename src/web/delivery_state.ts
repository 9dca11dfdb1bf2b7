// What became of an event's deliveries, at a glance: all delivered, some
// pending, some failed (how many), nothing to deliver, or not fanned out
// yet. The feed shows it on every event and keeps it current: events whose
// deliveries are still under way are counted again every few seconds, all of
// them when the tab comes back into view.
import { api, type Schemas } from './api'
import { html } from './html'
import type { PageContext } from './router'

export type DeliveryCounts = Schemas['DeliveryCounts']

export type DeliveryState = 'failed' | 'pending' | 'delivered' | 'none' | 'waiting'

// A new event has no deliveries until the worker fans it out: until then it
// is "waiting", not "nothing to deliver" (the event page waits as long).
export const FANOUT_GRACE_MS = 30_000
const POLL_MS = 3000
// What GET …/deliveries/counts takes at once.
const COUNTS_MAX = 100

const ZERO: DeliveryCounts = { pending: 0, succeeded: 0, failed: 0 }

export function stateOf(c: DeliveryCounts, createdAt: string, now = Date.now()): DeliveryState {
  if (c.failed > 0) return 'failed'
  if (c.pending > 0) return 'pending'
  if (c.succeeded > 0) return 'delivered'
  return now - Date.parse(createdAt) < FANOUT_GRACE_MS ? 'waiting' : 'none'
}

/** The state in words: the counts that matter, the total beside them. */
export function stateLabel(c: DeliveryCounts, state: DeliveryState): string {
  const total = c.pending + c.succeeded + c.failed
  switch (state) {
    case 'failed':
      return `${c.failed.toLocaleString()} of ${total.toLocaleString()} failed${c.pending ? `, ${c.pending.toLocaleString()} pending` : ''}`
    case 'pending':
      return `${c.pending.toLocaleString()} of ${total.toLocaleString()} pending`
    case 'delivered':
      return total === 1 ? 'Delivered' : `All ${total.toLocaleString()} delivered`
    case 'none':
      return 'Nothing to deliver'
    case 'waiting':
      return 'Delivering…'
  }
}

/** The badge of an event in the feed; `watchDeliveryStates` updates it in place. */
export function stateBadge(c: DeliveryCounts | undefined, createdAt: string) {
  const counts = c ?? ZERO
  const state = stateOf(counts, createdAt)
  return html`<span class="delivery-state" data-delivery-state="${state}" data-created-at="${createdAt}"><span class="visually-hidden">Deliveries: </span><span data-state-text>${stateLabel(counts, state)}</span></span>`
}

/**
 * Keeps the badges of the events in `list` current. `track` an event when it
 * is shown (with the counts it came with, if any); those still under way are
 * counted again until they settle.
 */
export function watchDeliveryStates(ctx: PageContext, list: Element) {
  const ws = ctx.workspace.workspace
  const shown = new Map<string, { counts: DeliveryCounts; createdAt: string }>()
  let timer: ReturnType<typeof setTimeout> | undefined
  let busy = false

  const paint = (id: string) => {
    const e = shown.get(id)!
    const badge = list.querySelector<HTMLElement>(`li[data-event-id="${CSS.escape(id)}"] .delivery-state`)
    if (!badge) return
    const state = stateOf(e.counts, e.createdAt)
    badge.dataset.deliveryState = state
    badge.querySelector('[data-state-text]')!.textContent = stateLabel(e.counts, state)
  }
  const unsettled = () =>
    [...shown].filter(([, e]) => ['pending', 'waiting'].includes(stateOf(e.counts, e.createdAt))).map(([id]) => id)

  async function refresh(ids: string[]) {
    if (busy || !ids.length || ctx.signal.aborted) return
    busy = true
    try {
      const counts = await api.get('/v1/workspaces/{workspace}/deliveries/counts', { path: { workspace: ws }, query: { events: ids.slice(0, COUNTS_MAX).join(',') } })
      for (const [id, c] of Object.entries(counts)) {
        const e = shown.get(id)
        if (e) (e.counts = c), paint(id)
      }
    } catch {
      // Offline or signed out: the badges keep their last state, and the next round tries again.
    } finally {
      busy = false
    }
  }
  // Newest first (event ids are UUIDv7s, which sort by time): one round counts at most COUNTS_MAX.
  const newest = (ids: string[]) => ids.sort().reverse()
  let dueAt = Infinity
  /** Counts the unsettled events in `ms`, unless a round is due sooner. */
  const schedule = (ms = POLL_MS) => {
    const at = Date.now() + ms
    if (ctx.signal.aborted || (timer !== undefined && dueAt <= at)) return
    clearTimeout(timer)
    dueAt = at
    timer = setTimeout(async () => {
      timer = undefined
      dueAt = Infinity
      const ids = newest(unsettled())
      await refresh(ids)
      // Those past the grace period with no deliveries become "nothing to deliver".
      for (const id of ids) if (shown.has(id)) paint(id)
      if (unsettled().length && document.visibilityState === 'visible') schedule()
    }, ms)
  }
  const visible = () => {
    if (document.visibilityState !== 'visible') return
    // Back in view: replays and retries may have changed any of them.
    void refresh(newest([...shown.keys()])).then(() => unsettled().length && schedule())
  }
  document.addEventListener('visibilitychange', visible)
  ctx.signal.addEventListener('abort', () => {
    clearTimeout(timer)
    document.removeEventListener('visibilitychange', visible)
  })

  return {
    /** Follows an event shown in the list; a live one (no counts yet) is counted soon. */
    track(id: string, createdAt: string, counts?: DeliveryCounts) {
      shown.set(id, { counts: counts ?? ZERO, createdAt })
      if (!counts) schedule(1000)
      else if (['pending', 'waiting'].includes(stateOf(counts, createdAt))) schedule()
    },
  }
}
