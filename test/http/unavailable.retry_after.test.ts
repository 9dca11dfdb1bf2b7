// A database outage as the API answers it (src/core/outage.ts): Retry-After
// follows the outage's age (1 s while it is young, a tenth of its age later,
// at most 10 s), and its 503s are said a line per 5 s, not one per request.
// test/faults/postgres_restart.test.ts checks the same on a real outage.
import { describe, expect, test } from 'bun:test'
import pino from 'pino'
import { Writable } from 'node:stream'
import { createOutage, retryAfterSeconds } from '../../src/core/outage'

/** An outage account on a clock the test moves, and the lines it logged. */
function outageOnClock() {
  const lines: { level: number; msg: string; requests?: number }[] = []
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done() } })
  const clock = { t: 1_000_000 }
  const outage = createOutage(pino({ level: 'info' }, sink), () => clock.t)
  return { outage, lines, clock }
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
const flush = () => new Promise((r) => setImmediate(r))

describe('a database outage as the API answers it', () => {
  test('Retry-After is 1 s while the outage is young, grows with its age, and stops at 10 s', () => {
    expect([0, 5_000, 10_000, 15_000, 45_000, 100_000, 3_600_000].map(retryAfterSeconds)).toEqual([1, 1, 1, 2, 5, 10, 10])
    const { outage, clock } = outageOnClock()
    const at = (ms: number) => {
      clock.t = 1_000_000 + ms
      return Number(outage.unavailable(1, refused, 'down').headers!['retry-after'])
    }
    // A refusal a second, for 45 s.
    const seen = Array.from({ length: 46 }, (_, s) => at(s * 1000))
    expect([0, 1, 4, 8, 12, 16, 20, 45].map((s) => seen[s])).toEqual([1, 1, 1, 1, 2, 2, 2, 5])
  })

  test('4,500 refusals in 45 s are said in one warning per 5 s, with their count; the recovery in one line', async () => {
    const { outage, lines, clock } = outageOnClock()
    for (let i = 0; i < 4500; i++) {
      clock.t = 1_000_000 + i * 10
      const answer = outage.unavailable(1, refused, 'down')
      expect(answer.status).toBe(503)
      expect(outage.reported(answer)).toBe(true)
    }
    outage.recovered()
    await flush()
    const warnings = lines.filter((l) => l.level === 40)
    expect(warnings.length).toBe(9)
    expect(lines.filter((l) => l.level >= 50)).toEqual([])
    expect(warnings.reduce((n, l) => n + l.requests!, 0)).toBeGreaterThan(4000) // the last lines' are in the recovery's total
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: 'database reachable again', requests: 4500 })
  })

  test('after 5 s without a refusal, the next outage starts young again', () => {
    const { outage, clock } = outageOnClock()
    clock.t = 1_000_000
    outage.unavailable(1, refused, 'down')
    clock.t += 50_000
    expect(outage.unavailable(1, refused, 'down').headers!['retry-after']).toBe('1') // none for 50 s: a new outage
    for (let i = 0; i < 30; i++) {
      clock.t += 1_000
      outage.unavailable(1, refused, 'down')
    }
    expect(outage.unavailable(1, refused, 'down').headers!['retry-after']).toBe('3')
  })
})
