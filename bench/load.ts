// How the benchmarks that run Herald on JetStream send their events: one
// POST /event at a time, and open loop, where each event goes when the
// schedule says, whatever the answers do. A closed loop would slow down with
// Herald and hide a growing backlog.
import { now, type Harness } from './harness'

/** How often an open loop looks at its schedule. */
export const TICK_MS = 10

export interface Posted {
  eventId: string | null
  t: number // when fetch was called
  okAt: number
  status: number // 0: no answer
  error: string // '' on a 200, else the status and the start of the body, or why there was no answer
}

/** One POST /event; never throws. */
export async function postEvent(url: string, apiKey: string, body: string): Promise<Posted> {
  const t = now()
  try {
    const res = await fetch(url, {
      method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(10_000),
    })
    const text = await res.text()
    const okAt = now()
    if (res.status !== 200) return { eventId: null, t, okAt, status: res.status, error: `${res.status} ${text.slice(0, 200)}` }
    return { eventId: (JSON.parse(text) as { eventId: string }).eventId, t, okAt, status: 200, error: '' }
  } catch (err) {
    return { eventId: null, t, okAt: now(), status: 0, error: String((err as Error).message ?? err) }
  }
}

/**
 * Every TICK_MS, `send(slot)` for each of the `total` slots the schedule
 * (`rate` per second from `t0`, the first `lead` at once) says is due.
 * Resolves once every slot is due; stopped on cleanup at the latest.
 */
export function openLoop(h: Harness, t0: number, rate: number, total: number, send: (slot: number) => void, lead = 0) {
  return new Promise<void>((resolveDone) => {
    let slots = 0
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((now() - t0) * rate) / 1000) + lead)
      while (slots < due) send(slots++)
      if (slots >= total) {
        clearInterval(timer)
        resolveDone()
      }
    }, TICK_MS)
    h.cleanups.push(() => clearInterval(timer))
  })
}

export interface Send {
  t: number // when fetch was called
  okAt: number // when the 200 arrived; 0 otherwise
  measured: boolean
}

/**
 * `rate` events per second open loop for `warmupS` + `durationS` s, to `urls`
 * and with `keys` in turn, skipping a slot when `inflightLimit` requests are
 * already waiting. `sends` has every accepted event; `stats` counts the rest.
 */
export function generator(h: Harness, urls: string[], keys: string[], body: string, rate: number, warmupS: number, durationS: number, inflightLimit: number) {
  const total = Math.round(rate * (warmupS + durationS))
  const firstMeasured = Math.round(rate * warmupS)
  const sends = new Map<string, Send>() // eventId → send
  const s = {
    sent: 0, accepted: 0, maxInflight: 0,
    skipped: { warmup: 0, measured: 0 }, non2xx: {} as Record<string, number>, networkErrors: 0, errorSamples: [] as string[],
    ingestMs: [] as number[], // measured window only
    acceptedMeasured: 0, sentMeasured: 0,
  }
  const inflight = new Set<Promise<void>>()
  const send = (slot: number) => {
    const measured = slot >= firstMeasured
    if (inflight.size >= inflightLimit) {
      if (measured) s.skipped.measured++
      else s.skipped.warmup++
      return
    }
    s.sent++
    if (measured) s.sentMeasured++
    const task = postEvent(urls[slot % urls.length]!, keys[slot % keys.length]!, body).then((p) => {
      if (p.eventId) {
        sends.set(p.eventId, { t: p.t, okAt: p.okAt, measured })
        s.accepted++
        if (measured) {
          s.acceptedMeasured++
          s.ingestMs.push(p.okAt - p.t)
        }
        return
      }
      if (p.status) s.non2xx[p.status] = (s.non2xx[p.status] ?? 0) + 1
      else s.networkErrors++
      if (s.errorSamples.length < 5) s.errorSamples.push(p.error)
    })
    inflight.add(task)
    s.maxInflight = Math.max(s.maxInflight, inflight.size)
    task.finally(() => inflight.delete(task))
  }
  const t0 = now()
  // Done once every slot is due and every request has its answer.
  const done = openLoop(h, t0, rate, total, send).then(() => Promise.all(inflight))
  return { t0, stats: s, sends, done, measureStart: t0 + warmupS * 1000, measureEnd: t0 + (warmupS + durationS) * 1000 }
}
