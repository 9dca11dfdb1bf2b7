// The loop of a timer kept as rows (STYLE 23: receipts' repeats, digest
// windows): look for due rows, then sleep until the next is due, or look again
// at once when the look took all it may. setTimeout only wakes the loop; the
// rows are the record, so a process that dies loses nothing.
import type { Logger } from '../core/log'

/** What a look found: whether it took as many rows as it may (more are due), and in how long the next row is due (null: none). */
export interface Look {
  full: boolean
  nextInMs: number | null
}

export interface TimerLoopOptions {
  /** The longest wait between looks: rows made by another process are seen within it. */
  intervalMs: number
  /** The shortest wait: rows falling due one after the other are claimed together, at the cost of this much lateness. */
  gatherMs: number
  log: Logger
  /** The warning said when a look fails (the rows are still there, for the next one). */
  failure: string
}

/** Runs `look` until stop(); wake() looks now. */
export function startTimerLoop(opts: TimerLoopOptions, look: () => Promise<Look>) {
  let stopped = false
  let wake: (() => void) | null = null
  const loop = (async () => {
    while (!stopped) {
      let waitMs = opts.intervalMs
      try {
        const r = await look()
        if (r.full) continue // more are due: at once
        if (r.nextInMs !== null) waitMs = Math.max(opts.gatherMs, Math.min(opts.intervalMs, r.nextInMs + 5))
      } catch (err) {
        opts.log.warn({ err }, opts.failure)
      }
      if (stopped) break
      await new Promise<void>((res) => {
        const t = setTimeout(res, waitMs)
        wake = () => (clearTimeout(t), res())
      })
      wake = null
    }
  })()
  return {
    wake: () => wake?.(),
    /** Claims no more; resolves once the look under way has committed. */
    stop(): Promise<void> {
      stopped = true
      wake?.()
      return loop
    },
  }
}
