// The per-destination bound and circuit breaker (src/delivery/circuit.ts), on a clock
// the test moves.
import { describe, expect, test } from 'bun:test'
import { createCircuits, type CircuitOptions } from '../../src/delivery/circuit'

const o: CircuitOptions = { maxInFlight: 2, failures: 3, cooldownMs: 1000, waitMs: 50 }

function setup() {
  let t = 0
  const c = createCircuits(() => t)
  return { c, advance: (ms: number) => (t += ms) }
}

async function fail(c: ReturnType<typeof createCircuits>, n: number, key = 'd') {
  for (let i = 0; i < n; i++) {
    const g = await c.enter(key, o)
    if (!g.ok) throw new Error('closed circuit expected')
    g.release('failure')
  }
}

describe('circuit breaker', () => {
  test('opens after the configured consecutive failures, and fails fast while open', async () => {
    const { c, advance } = setup()
    await fail(c, 2)
    expect((await c.enter('d', o)).ok).toBe(true) // 2 failures: still closed (this gate is leaked on purpose below)
    const { c: c2 } = setup()
    await fail(c2, 3)
    const g = await c2.enter('d', o)
    expect(g).toMatchObject({ ok: false, retryAfterMs: 1000 })
    if (!g.ok) expect(g.reason).toBe('circuit open: 3 failures in a row; not sent')
    advance(0)
    expect((await c2.enter('other', o)).ok).toBe(true) // other destinations are untouched
  })

  test('success resets the count: failures must be consecutive', async () => {
    const { c } = setup()
    await fail(c, 2)
    const ok = await c.enter('d', o)
    if (ok.ok) ok.release('success')
    await fail(c, 2)
    expect((await c.enter('d', o)).ok).toBe(true)
  })

  test('a 4xx-style neutral outcome neither opens nor closes', async () => {
    const { c } = setup()
    await fail(c, 2)
    for (let i = 0; i < 5; i++) {
      const g = await c.enter('d', o)
      if (g.ok) g.release('neutral')
    }
    await fail(c, 1)
    expect((await c.enter('d', o)).ok).toBe(false)
  })

  test('after the cooldown one trial goes through: success closes, failure reopens for twice as long', async () => {
    let t = 0
    const c = createCircuits(() => t)
    await fail(c, 3)
    t += 999
    expect((await c.enter('d', o)).ok).toBe(false)
    t += 1
    const trial = await c.enter('d', o)
    expect(trial.ok).toBe(true)
    expect((await c.enter('d', o)).ok).toBe(false) // only one trial at a time
    if (trial.ok) trial.release('failure')
    t += 1999
    expect(await c.enter('d', o)).toMatchObject({ ok: false, retryAfterMs: 1000 })
    t += 1
    const second = await c.enter('d', o)
    expect(second.ok).toBe(true)
    if (second.ok) second.release('success')
    expect((await c.enter('d', o)).ok).toBe(true)
    expect(c.state('d')!.cooldownMs).toBe(1000) // back to the first period
  })

  test('at most maxInFlight sends at once; the next waits for a place, or is deferred after waitMs', async () => {
    const { c } = setup()
    const a = await c.enter('d', o)
    const b = await c.enter('d', o)
    expect(a.ok && b.ok).toBe(true)
    const started = performance.now()
    const deferred = await c.enter('d', o)
    expect(performance.now() - started).toBeGreaterThanOrEqual(45)
    expect(deferred).toMatchObject({ ok: false })
    if (!deferred.ok) expect(deferred.reason).toBe('destination busy: 2 sends to it already under way; not sent')
    const waiting = c.enter('d', o)
    if (a.ok) a.release('success')
    expect((await waiting).ok).toBe(true)
  })
})
