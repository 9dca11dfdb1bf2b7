// The ends of digest windows. Every worker process runs this timer; the
// timers are the windows' rows (digest_windows.due_at, sql/0024), never this
// process's memory: a look claims the windows past their end FOR UPDATE SKIP
// LOCKED and, in the same statement, deletes each and makes its digest's
// delivery (digest.ts fireDueDigests), which the scheduler then sends. So a
// window is fired once whichever instance looks first, and one whose worker
// died, or whose end passed during a restart or a NATS outage, is fired by
// the next look of any. The setTimeout below only wakes the look early.
// It also deletes the throttles' counters whose window ended, a bounded
// number per look.
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import { fireDueDigests } from './digest'
import { deleteEndedThrottles } from './throttle'
import { digestsMade } from './metrics'
import { startTimerLoop } from './timer_loop'

export interface DigestTimerDeps {
  sql: Sql
  log: Logger
  /** Digests were made: their deliveries are due now (the scheduler's wake). */
  fired: () => void
  /** The longest wait between looks (a window opened by another process is seen within it). */
  intervalMs: number
  /** Windows fired per statement. */
  batch?: number
}

// Windows ending one after the other are fired together, at the cost of this much lateness.
const GATHER_MS = 50
const THROTTLE_CLEANUP = 1000

/** Runs until stop(); wake() looks now. */
export function startDigestTimer(deps: DigestTimerDeps) {
  const batch = deps.batch ?? 200
  return startTimerLoop({ intervalMs: deps.intervalMs, gatherMs: GATHER_MS, log: deps.log, failure: 'digest timer: could not fire due digests' }, async () => {
    const r = await fireDueDigests(deps.sql, batch)
    if (r.fired) {
      digestsMade(r.fired)
      deps.fired()
    }
    if (r.claimed === batch) return { full: true, nextInMs: null }
    await deleteEndedThrottles(deps.sql, THROTTLE_CLEANUP)
    return { full: false, nextInMs: r.nextMs === null ? null : r.nextMs - r.nowMs }
  })
}
