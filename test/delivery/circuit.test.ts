// The per-destination bound and circuit breaker (src/delivery/circuit.ts), on a clock
// the test moves.
import { describe, expect, test } from 'bun:test'
import { createCircuits, type CircuitOptions } from '../../src/delivery/circuit'
import { nextStep } from '../../src/delivery/retry'

const o: CircuitOptions = { maxInFlight: 2, failures: 3, cooldownMs: 1000, maxCooldownMs: 8000, waitMs: 50 }

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
    expect(await c.enter('d', o)).toMatchObject({ ok: false, held: 'circuit_open', retryAfterMs: 1 }) // due again when the trial may go
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

  test('the open period doubles after each failed trial but never exceeds maxCooldownMs', async () => {
    const capped: CircuitOptions = { ...o, cooldownMs: 1000, maxCooldownMs: 3000 }
    let t = 0
    const c = createCircuits(() => t)
    for (let i = 0; i < 3; i++) {
      const g = await c.enter('d', capped)
      if (g.ok) g.release('failure')
    }
    const periods: number[] = []
    for (let i = 0; i < 12; i++) {
      const held = await c.enter('d', capped)
      if (held.ok) throw new Error('an open circuit expected')
      expect(held.retryAfterMs).toBeLessThanOrEqual(3000)
      periods.push(held.retryAfterMs)
      t += held.retryAfterMs // exactly when the circuit lets a trial through
      const trial = await c.enter('d', capped)
      expect(trial.ok).toBe(true)
      if (trial.ok) trial.release('failure') // the destination is still down
      expect(c.state('d')!.openUntil - t).toBeLessThanOrEqual(3000)
    }
    expect(periods).toEqual([1000, 2000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000])
    // Once the destination is back, the next trial closes the circuit, and the period starts over.
    t += 3000
    const trial = await c.enter('d', capped)
    if (trial.ok) trial.release('success')
    expect(c.state('d')!.cooldownMs).toBe(1000)
    expect((await c.enter('d', capped)).ok).toBe(true)
  })

  test('a cap below cooldownMs, or none, keeps every open period at cooldownMs', async () => {
    for (const opts of [{ ...o, maxCooldownMs: 10 }, { ...o, maxCooldownMs: undefined }]) {
      let t = 0
      const c = createCircuits(() => t)
      await fail(c, 3)
      for (let i = 0; i < 4; i++) {
        const held = await c.enter('d', opts)
        expect(held).toMatchObject({ ok: false, retryAfterMs: 1000 })
        t += 1000
        const trial = await c.enter('d', opts)
        if (trial.ok) trial.release('failure')
      }
    }
  })

  test('a held send is due again when the circuit lets a trial through, or a second after while the trial is under way', async () => {
    let t = 0
    const c = createCircuits(() => t)
    await fail(c, 3)
    t += 900
    expect(await c.enter('d', o)).toMatchObject({ ok: false, held: 'circuit_open', retryAfterMs: 100 })
    t += 100
    const trial = await c.enter('d', o)
    expect(trial.ok).toBe(true)
    expect(await c.enter('d', o)).toMatchObject({ ok: false, held: 'circuit_open', retryAfterMs: 1000 })
    if (trial.ok) trial.release('success')
    expect((await c.enter('d', o)).ok).toBe(true)
  })

  test('sends waiting for a place when the circuit opens are held back, not sent one after the other', async () => {
    const small: CircuitOptions = { ...o, maxInFlight: 2, failures: 2, waitMs: 1000 }
    const c = createCircuits(() => 0)
    const a = await c.enter('d', small)
    const b = await c.enter('d', small)
    const waiting = [c.enter('d', small), c.enter('d', small), c.enter('d', small)]
    if (a.ok) a.release('failure') // 1 in a row: the first waiting send takes its place
    const first = await waiting[0]!
    expect(first.ok).toBe(true)
    if (b.ok) b.release('failure') // 2 in a row: open
    expect(await waiting[1]!).toMatchObject({ ok: false, held: 'circuit_open' })
    expect(await waiting[2]!).toMatchObject({ ok: false, held: 'circuit_open' })
    if (first.ok) first.release('failure')
    expect(c.state('d')!.inFlight).toBe(0)
  })

  test('a held send is not an attempt: it is due when the gate says, even after the last attempt of the schedule', () => {
    const schedule = [0, 60_000, 300_000]
    const held = { ok: false, retryable: true, retryAfterMs: 250, held: 'circuit_open' }
    expect(nextStep(schedule, 2, held)).toEqual({ status: 'pending', delayMs: 250 }) // not the schedule's 5 minutes
    expect(nextStep(schedule, 3, held)).toEqual({ status: 'pending', delayMs: 250 }) // not failed: no attempt was used
    expect(nextStep(schedule, 3, { ok: false, retryable: true })).toEqual({ status: 'failed' })
  })
})
