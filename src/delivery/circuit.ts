// Per-destination protection, so that one slow or dead receiver cannot hold
// the sends of every other: a bound on the sends under way to one
// destination, and a circuit breaker. After `failures` consecutive failures
// that smell of the receiver (no answer, time-outs, 5xx) the circuit opens and
// attempts fail at once, without a request, for `cooldownMs`; then one trial
// goes through (half-open): success closes the circuit, failure opens it
// again for twice as long, up to MAX_COOLDOWN_MS. State lives per worker
// thread, like the connections it protects.

export interface CircuitOptions {
  maxInFlight: number // sends under way to one destination at once
  failures: number // consecutive failures that open the circuit
  cooldownMs: number // first open period
  waitMs: number // how long a send may wait for a place before it is deferred
}

const MAX_COOLDOWN_MS = 10 * 60_000

export type Gate =
  | { ok: true; release(outcome: 'success' | 'failure' | 'neutral'): void }
  | { ok: false; reason: string; retryAfterMs: number }

interface State {
  inFlight: number
  waiting: (() => void)[]
  consecutive: number
  openUntil: number
  cooldownMs: number
  trial: boolean // a half-open trial is under way
}

export function createCircuits(now: () => number = Date.now) {
  const states = new Map<string, State>()
  const stateOf = (key: string, o: CircuitOptions) => {
    let s = states.get(key)
    if (!s) states.set(key, (s = { inFlight: 0, waiting: [], consecutive: 0, openUntil: 0, cooldownMs: o.cooldownMs, trial: false }))
    return s
  }

  function settle(s: State, o: CircuitOptions, outcome: 'success' | 'failure' | 'neutral', wasTrial: boolean) {
    s.inFlight--
    if (wasTrial) s.trial = false
    if (outcome === 'success') {
      s.consecutive = 0
      s.openUntil = 0
      s.cooldownMs = o.cooldownMs
    } else if (outcome === 'failure') {
      s.consecutive++
      if (wasTrial || s.consecutive >= o.failures) {
        // A failed trial doubles the wait; a fresh opening starts at cooldownMs.
        if (wasTrial) s.cooldownMs = Math.min(MAX_COOLDOWN_MS, s.cooldownMs * 2)
        s.openUntil = now() + s.cooldownMs
      }
    }
    s.waiting.shift()?.()
  }

  /** Asks to send to `key`: a place (release it with the outcome), or why not now. */
  async function enter(key: string, o: CircuitOptions): Promise<Gate> {
    const s = stateOf(key, o)
    let trial = false
    if (s.openUntil > 0) {
      const left = s.openUntil - now()
      if (left > 0 || s.trial) {
        return { ok: false, reason: `circuit open: ${s.consecutive} failures in a row; not sent`, retryAfterMs: Math.max(left, 1000) }
      }
      trial = s.trial = true // half-open: this one send tests the destination
    }
    if (s.inFlight >= o.maxInFlight) {
      const got = await new Promise<boolean>((res) => {
        const t = setTimeout(() => {
          s.waiting.splice(s.waiting.indexOf(wake), 1)
          res(false)
        }, o.waitMs)
        const wake = () => (clearTimeout(t), res(true))
        s.waiting.push(wake)
      })
      if (!got) {
        if (trial) s.trial = false
        return { ok: false, reason: `destination busy: ${s.inFlight} sends to it already under way; not sent`, retryAfterMs: 1000 }
      }
    }
    s.inFlight++
    let done = false
    return {
      ok: true,
      release(outcome) {
        if (done) return
        done = true
        settle(s, o, outcome, trial)
      },
    }
  }

  return { enter, state: (key: string) => states.get(key) }
}
export type Circuits = ReturnType<typeof createCircuits>
