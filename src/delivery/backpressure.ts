// Backpressure of the fan-out. Work is counted in units of one event plus one
// per device it pushes (routers are few, devices can be thousands); past the
// room, new work waits, and so does the bus: JetStream keeps its events
// unacknowledged, the in-process relay its rows. The pool's threads
// themselves send at most WORKER_CONCURRENCY at once (SendConfig.maxInFlight).
import { CHUNK } from './chunks'

/**
 * The units of work the fan-out hands the pool at most, for WORKER_CONCURRENCY
 * `concurrency`: twice that, and at least four full chunks, so that a large
 * channel keeps every thread busy.
 */
export const workRoom = (concurrency: number) => Math.max(concurrency * 2, CHUNK * 4)

export interface WorkRoom {
  /** Waits until `units` fit (or nothing is under way: a chunk larger than the room still goes), then takes them. */
  reserve(units: number): Promise<void>
  /** Takes `units` now, without waiting: the scheduler takes only what free() allows. */
  take(units: number): void
  /** Gives `units` back and wakes the waiting. */
  release(units: number): void
  /** Units not taken. */
  free(): number
  /** Units taken, for metrics. */
  busy(): number
}

export function createWorkRoom(room: number): WorkRoom {
  let busy = 0
  const waiting: (() => void)[] = []
  return {
    async reserve(units) {
      while (busy > 0 && busy + units > room) await new Promise<void>((res) => waiting.push(res))
      busy += units
    },
    take(units) {
      busy += units
    },
    release(units) {
      busy -= units
      for (const wake of waiting.splice(0)) wake()
    },
    free: () => room - busy,
    busy: () => busy,
  }
}
