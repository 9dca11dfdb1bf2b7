// Per-destination protection, so that one slow or dead receiver cannot hold
// the sends of every other: a bound on the sends under way to one
// destination, and a circuit breaker. After `failures` consecutive failures
// that smell of the receiver (no answer, time-outs, 5xx) the circuit opens and
// its deliveries are held back, without a request, for `cooldownMs`; then one
// trial goes through (half-open): success closes the circuit, failure opens it
// again for twice as long, up to `maxCooldownMs`. The cap is what bounds how
// long a destination that is back waits for its first delivery: an open
// period that kept doubling (30 s … 4 min) left a receiver that had recovered
// unsent to for minutes. State lives per worker thread, like the connections
// it protects; the main thread keeps what the threads report of it (circuitBoard),
// for the metrics.

export interface CircuitOptions {
  maxInFlight: number // sends under way to one destination at once
  failures: number // consecutive failures that open the circuit
  cooldownMs: number // first open period
  maxCooldownMs?: number // longest open period, however many trials failed (unset, or below cooldownMs: cooldownMs)
  waitMs: number // how long a send may wait for a place before it is deferred
}

// While the one trial is under way, the others come back this soon: a trial
// that succeeds closes the circuit for them.
const TRIAL_WAIT_MS = 1000
// A send that found no place among the destination's sends tries again after this.
const BUSY_WAIT_MS = 1000

/**
 * What a circuit is, from the time it stays open until (0: closed): open
 * until then, half-open after it (the next send is its trial; a trial that
 * fails opens it again, one that succeeds closes it).
 */
export type CircuitState = 'closed' | 'open' | 'half-open'
export const circuitState = (openUntil: number, now: number): CircuitState => (openUntil <= 0 ? 'closed' : now < openUntil ? 'open' : 'half-open')

/** The longest an open circuit of `o` stays open. */
export const cooldownCap = (o: CircuitOptions) => Math.max(o.cooldownMs, o.maxCooldownMs ?? 0)

/**
 * A place to send (release it with the outcome), or a send held back: not
 * made, so not an attempt of the delivery, which is due again after
 * `retryAfterMs` (when the circuit lets a trial through, or a place may be free).
 */
export type Gate =
  | { ok: true; release(outcome: 'success' | 'failure' | 'neutral'): void }
  | { ok: false; held: 'circuit_open' | 'busy'; reason: string; retryAfterMs: number }

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
        if (wasTrial) s.cooldownMs = Math.min(cooldownCap(o), s.cooldownMs * 2)
        s.openUntil = now() + s.cooldownMs
      }
    }
    s.waiting.shift()?.()
  }

  /** Why a send to `s` may not go now, its circuit being open (or its trial under way), or null. */
  function heldBack(s: State): Extract<Gate, { ok: false }> | null {
    if (s.openUntil <= 0) return null
    const left = s.openUntil - now()
    if (left <= 0 && !s.trial) return null // half-open: the send that asks is the trial
    // Due again when the trial may go, not a moment later: that trial is
    // what finds out that the destination is back.
    return { ok: false, held: 'circuit_open', reason: `circuit open: ${s.consecutive} failures in a row; not sent`, retryAfterMs: left > 0 ? left : TRIAL_WAIT_MS }
  }

  /** Asks to send to `key`: a place (release it with the outcome), or why not now. */
  async function enter(key: string, o: CircuitOptions): Promise<Gate> {
    const s = stateOf(key, o)
    let no = heldBack(s)
    if (no) return no
    let trial = false
    if (s.openUntil > 0) trial = s.trial = true // half-open: this one send tests the destination
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
        return { ok: false, held: 'busy', reason: `destination busy: ${s.inFlight} sends to it already under way; not sent`, retryAfterMs: BUSY_WAIT_MS }
      }
      // The sends ahead of this one may have opened the circuit: then it is
      // held back too, and passes the place on, rather than each waiting send
      // going to a destination that just failed them all.
      if (!trial && (no = heldBack(s))) {
        s.waiting.shift()?.()
        return no
      }
      if (!trial && s.openUntil > 0) trial = s.trial = true
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

/**
 * A router's circuit in one worker thread (createCircuits), as a
 * send left it, for the metrics: closed (openUntil 0) or open until then.
 */
export interface CircuitReport {
  thread: number // the pool thread whose circuit it is: each thread keeps its own
  seq: number // the thread's count of reports: tasks come back out of order, the latest report wins
  host: string // where the destination's sends go (destinationHost)
  openUntil: number // epoch ms; 0: closed
}

// ------------------------------------------------------------- the board

// A destination's circuit lives in each pool thread (createCircuits, above);
// a send reports it when it is not closed, or has just closed. A fan-out
// keeps the reports of its pool per thread and router: open until their
// time, half-open after it (the next send is the trial). A circuit closed,
// or not heard of for this long once its open time is over (its router
// deleted, nothing left to send), is forgotten; a closed one shows as 0
// until then.
const CIRCUIT_FORGET_MS = 2 * 60_000
const STATE_VALUE = { closed: 0, open: 1, 'half-open': 2 } as const

/** Per host, the worst circuit of its routers (0 closed, 1 open, 2 half-open) and when one first opened; routers by state. */
export interface CircuitSummary {
  hosts: Map<string, { value: number; openedAt: number }>
  open: number
  halfOpen: number
}

/** The circuits a fan-out's pool reported. */
export function circuitBoard() {
  const seen = new Map<string, { router: string; host: string; seq: number; openUntil: number; openedAt: number; seenAt: number }>()
  return {
    /** A send's report of its router's circuit (workers/send.ts): kept when it is not closed, or was not, and is newer than the one kept. */
    report(router: string, r: CircuitReport, now = Date.now()) {
      const key = `${r.thread}/${router}`
      const was = seen.get(key)
      if (was ? r.seq < was.seq : r.openUntil <= 0) return
      seen.set(key, { router, host: r.host, seq: r.seq, openUntil: r.openUntil, openedAt: was?.openedAt ?? now, seenAt: now })
    },
    summary(now = Date.now()): CircuitSummary {
      const hosts: CircuitSummary['hosts'] = new Map()
      const routers = new Map<string, number>()
      for (const [key, c] of seen) {
        if (now > c.openUntil && now - c.seenAt > CIRCUIT_FORGET_MS) {
          seen.delete(key)
          continue
        }
        const value = STATE_VALUE[circuitState(c.openUntil, now)]
        const h = hosts.get(c.host)
        hosts.set(c.host, { value: Math.max(h?.value ?? 0, value), openedAt: Math.min(h?.openedAt ?? Infinity, c.openedAt) })
        routers.set(c.router, Math.max(routers.get(c.router) ?? 0, value))
      }
      const count = (v: number) => [...routers.values()].filter((x) => x === v).length
      return { hosts, open: count(STATE_VALUE.open), halfOpen: count(STATE_VALUE['half-open']) }
    },
  }
}
