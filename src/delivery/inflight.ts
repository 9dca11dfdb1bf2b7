// Events being fanned out in this process. A second copy of one (the relay
// found the outbox row of an event still in flight here, or JetStream
// redelivered it to a worker that was frozen with the first) waits for the
// first rather than delivering it again.
import type { Incoming } from './bus'

export function createInFlight(fanOut: (batch: Incoming[]) => Promise<void>) {
  const inFlight = new Map<string, Promise<void>>()
  return {
    /** Fans out the events of `batch` not already under way, once each, and resolves when those under way are done too. */
    async accept(batch: Incoming[]): Promise<void> {
      const earlier: Promise<void>[] = []
      const fresh: Incoming[] = []
      const taken = new Set<string>()
      for (const e of batch) {
        const p = inFlight.get(e.eventId)
        if (p) earlier.push(p)
        // Two copies in one batch: the first is fanned out, once.
        else if (!taken.has(e.eventId)) {
          taken.add(e.eventId)
          fresh.push(e)
        }
      }
      if (fresh.length) {
        const p = fanOut(fresh)
        for (const e of fresh) inFlight.set(e.eventId, p)
        try {
          await p
        } finally {
          for (const e of fresh) if (inFlight.get(e.eventId) === p) inFlight.delete(e.eventId)
        }
      }
      await Promise.all(earlier)
    },
    /** The fan-outs under way. */
    underWay: (): Promise<void>[] => [...inFlight.values()],
  }
}
