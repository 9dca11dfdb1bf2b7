// What an attempt leaves its delivery in (src/delivery/outcome.ts
// attemptOutcomes): the row to write per the retry schedule, the circuit and
// health reports, the counters, and the log line of a failure, which names
// its delivery and attempt.
import { describe, expect, test } from 'bun:test'
import { createLogger } from '../../src/core/log'
import { registry } from '../../src/core/metrics'
import type { CircuitReport } from '../../src/delivery/circuit'
import type { Sent } from '../../src/delivery/job'
import { attemptOutcomes } from '../../src/delivery/outcome'

const SCHEDULE = [0, 1000, 5000]
const STARTED = Date.UTC(2026, 0, 1)

const sent = (over: Partial<Omit<Sent, 'result'>> & { result?: Partial<Sent['result']> } = {}): Sent => ({
  id: 'd-1', event: 0, kind: 'router', target: 'r-1', destination: 'webhook', attempt: 1, startedAt: STARTED,
  ...over,
  result: { ok: true, retryable: false, durationMs: 12, ...over.result },
})

/** An outcome with what it reports kept, and its log lines. */
function outcomes() {
  const circuits: { router: string; r: CircuitReport }[] = []
  const health: { router: string; ok: boolean; circuit?: CircuitReport; error?: string }[] = []
  const lines: Record<string, unknown>[] = []
  const log = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) }, 'json')
  const outcome = attemptOutcomes(
    SCHEDULE,
    { report: (router, r) => void circuits.push({ router, r }) },
    { report: (router, ok, circuit, error) => void health.push({ router, ok, circuit, error }) },
    log,
  )
  return { outcome, circuits, health, lines }
}

/** A counter's value for these labels (0 when never incremented). */
async function counted(name: string, labels: Record<string, string>) {
  const metric = registry.getSingleMetric(name)
  const values = (await metric!.get()).values
  return values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0
}

describe('attemptOutcomes', () => {
  test('a success: the row says succeeded, is counted, and logs nothing', async () => {
    const o = outcomes()
    const before = await counted('herald_delivery_attempts_total', { type: 'webhook', outcome: 'succeeded' })
    const row = o.outcome(sent({ result: { status: 200, response: 'ok' } }), 'ev-1')
    expect(row).toEqual({
      deliveryId: 'd-1', attempt: 1, startedAt: new Date(STARTED), durationMs: 12, ok: true, status: 200, error: undefined, response: 'ok',
      next: 'succeeded', delayMs: 0, unregisteredDevice: undefined, held: false,
    })
    expect(await counted('herald_delivery_attempts_total', { type: 'webhook', outcome: 'succeeded' })).toBe(before + 1)
    expect(o.lines).toEqual([])
    expect(o.health).toEqual([]) // a first attempt that succeeded, with a closed circuit: nothing to tell
  })

  test('a retryable failure is due again after the schedule\'s delay, or the receiver\'s Retry-After if longer, and is logged with its delivery', async () => {
    const o = outcomes()
    const before = await counted('herald_delivery_attempts_total', { type: 'webhook', outcome: 'retry' })
    expect(o.outcome(sent({ result: { ok: false, retryable: true, status: 503 } }), 'ev-1')).toMatchObject({ next: 'pending', delayMs: 1000, ok: false })
    expect(o.outcome(sent({ attempt: 2, result: { ok: false, retryable: true, status: 429, retryAfterMs: 9000 } }), 'ev-1')).toMatchObject({ next: 'pending', delayMs: 9000 })
    expect(await counted('herald_delivery_attempts_total', { type: 'webhook', outcome: 'retry' })).toBe(before + 2)
    expect(o.lines).toHaveLength(2)
    expect(o.lines[0]).toMatchObject({ msg: 'delivery attempt failed', deliveryId: 'd-1', attempt: 1, routerId: 'r-1', eventId: 'ev-1', status: 503, next: 'pending' })
  })

  test('the last attempt, or a failure that is not retryable, fails for good', () => {
    const o = outcomes()
    expect(o.outcome(sent({ attempt: SCHEDULE.length, result: { ok: false, retryable: true, status: 500 } }), 'ev-1').next).toBe('failed')
    expect(o.outcome(sent({ result: { ok: false, retryable: false, status: 400 } }), 'ev-1')).toMatchObject({ next: 'failed', delayMs: 0 })
  })

  test('a held delivery is no attempt: counted as held, not logged, due when its circuit says, marked held', async () => {
    const o = outcomes()
    const attempts = await counted('herald_delivery_attempts_total', { type: 'webhook', outcome: 'retry' })
    const held = await counted('herald_deliveries_held_total', { type: 'webhook', reason: 'circuit_open' })
    const row = o.outcome(sent({ attempt: SCHEDULE.length, result: { ok: false, retryable: true, held: 'circuit_open', retryAfterMs: 700, durationMs: 0 } }), 'ev-1')
    expect(row).toMatchObject({ next: 'pending', delayMs: 700, held: true })
    expect(await counted('herald_deliveries_held_total', { type: 'webhook', reason: 'circuit_open' })).toBe(held + 1)
    expect(await counted('herald_delivery_attempts_total', { type: 'webhook', outcome: 'retry' })).toBe(attempts)
    expect(o.lines).toEqual([])
  })

  test("a router's circuit goes to the board and to the shared health; a held send reports no error", () => {
    const o = outcomes()
    const circuit: CircuitReport = { thread: 1, seq: 4, host: 'example.com', openUntil: STARTED + 30_000 }
    o.outcome(sent({ circuit, result: { ok: false, retryable: true, error: 'connection refused' } }), 'ev-1')
    o.outcome(sent({ circuit, result: { ok: false, retryable: true, held: 'circuit_open', error: 'circuit open' } }), 'ev-2')
    expect(o.circuits).toEqual([{ router: 'r-1', r: circuit }, { router: 'r-1', r: circuit }])
    expect(o.health).toEqual([
      { router: 'r-1', ok: false, circuit, error: 'connection refused' },
      { router: 'r-1', ok: false, circuit, error: undefined },
    ])
  })

  test('a retry that succeeded tells the shared health (it may be the trial of a parked router); a first attempt does not', () => {
    const o = outcomes()
    o.outcome(sent(), 'ev-1')
    o.outcome(sent({ attempt: 2 }), 'ev-1', true)
    expect(o.health).toEqual([{ router: 'r-1', ok: true, circuit: undefined, error: undefined }])
  })

  test('a push the provider says is unregistered names its device, to be deleted with the row', () => {
    const o = outcomes()
    const push = sent({ kind: 'push', target: 'dev-1', destination: 'apns', result: { ok: false, retryable: false, status: 410, reason: 'Unregistered', unregistered: true } })
    const row = o.outcome(push, 'ev-1')
    expect(row).toMatchObject({ unregisteredDevice: 'dev-1', next: 'failed', error: 'Unregistered' })
    expect(o.lines[0]).toMatchObject({ deviceId: 'dev-1', deliveryId: 'd-1' })
    expect(o.health).toEqual([]) // devices have no router health
    // A router's delivery never names a device, whatever its result says.
    expect(o.outcome(sent({ result: { ok: false, retryable: false, unregistered: true } }), 'ev-1').unregisteredDevice).toBeUndefined()
  })
})
