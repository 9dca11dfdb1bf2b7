// PostgreSQL crashes (immediate stop) under load and comes back on the same
// data directory and port. While it is down POST /event answers 503 with
// Retry-After, never a 200; once it is back Herald recovers by itself (no
// restart): requests succeed again and the outbox drains. A private cluster,
// so the shared server on :5432 is never touched; the API and the worker are
// separate processes on the shared NATS (a stream of the test's own).
// The outage is said in the API's log a line per few seconds, not an ERROR
// with a stack per 503 (4,500 lines in 45 s before), and Retry-After follows
// the outage's age: 1 s while it is young, where it was always 5.
import { describe, expect, test } from 'bun:test'
import { NATS_URL } from '../harness'
import { eventually } from '../receiver'
import { caseProcesses, caseSetup, cleanups, figures, query, workspaces } from './fixture'
import { expectDurableAndDelivered, percentile, startLoad, statuses } from './load'

const describeNats = NATS_URL ? describe : describe.skip

describeNats('fault: PostgreSQL restarted under load', () => {
  const c = cleanups()

  test('503 with Retry-After while it is down, then requests succeed and the outbox drains without a Herald restart', async () => {
    try {
      const setup = await caseSetup(c, { store: 'private', nats: 'shared', env: { JETSTREAM_ACK_WAIT_MS: '2000' } })
      const { rx, env } = setup
      const pg = setup.pg!
      const { api } = await caseProcesses(c, env)
      const ws = await workspaces(api.url, 4, [{ name: 'all', url: `${rx.url}/pg` }])

      const load = startLoad({ targets: () => [api.url], keys: ws.map((w) => w.apiKey), perSecond: 300 })
      c.add(() => load.stop())
      await Bun.sleep(1500)
      const linesBefore = api.output.length
      await pg.kill()
      const downAt = Date.now() // from here on no request can be committed
      await eventually(async () => load.report.count(503, downAt) >= 50, 15_000, '503s while PostgreSQL is down').catch((err) => {
        throw new Error(`${err.message}; answers since: ${JSON.stringify(statuses(load.report.samples.filter((s) => s.at >= downAt)))}`)
      })
      await Bun.sleep(1500)
      const restartAt = Date.now()
      await pg.start()
      const upAt = Date.now()
      const firstOk = await eventually(async () => load.report.samples.find((s) => s.status === 200 && s.at >= upAt), 20_000, 'a 200 after PostgreSQL is back')
      await Bun.sleep(2000)
      const report = await load.stop()
      const outageLines = api.output.slice(linesBefore).filter((l) => /"level":(40|50|60)/.test(l))

      const during = report.samples.filter((s) => s.at >= downAt && s.at < restartAt)
      const after = report.samples.filter((s) => s.at >= firstOk.at + 1000)
      expect(report.samples.filter((s) => s.status !== 200 && s.status !== 503).map((s) => s.status)).toEqual([]) // no 500, no dropped connection
      // Never a 200 answered while nothing could commit (one sent during the
      // outage may wait in its batch and commit once PostgreSQL is back).
      expect(during.filter((s) => s.status === 200 && s.at + s.ms < restartAt)).toEqual([])
      expect(report.samples.filter((s) => s.status === 503 && !/^\d+$/.test(s.retryAfter ?? ''))).toEqual([])
      // A young outage: come back in a second (it grows with the outage's age, src/core/outage.ts).
      const retryAfters = [...new Set(report.samples.filter((s) => s.status === 503).map((s) => Number(s.retryAfter)))].sort()
      figures('postgres restart, the outage in the log', { status503: report.count(503), retryAfters, warnOrErrorLines: outageLines.length, errorLines: outageLines.filter((l) => /"level":(50|60)/.test(l)).length })
      expect(retryAfters.every((r) => r <= 2)).toBe(true)
      // No ERROR per 503: warnings, a few per outage (each kind of failure said at most once per 5 s; the
      // release of scheduled events, src/delivery/release.ts, says its own once per outage).
      expect(outageLines.filter((l) => /"level":(50|60)/.test(l))).toEqual([])
      expect(outageLines.length).toBeLessThanOrEqual(3 + 2 * Math.ceil((upAt - downAt) / 5000))
      expect(after.length).toBeGreaterThan(100)
      expect(after.filter((s) => s.status !== 200)).toEqual([]) // fully recovered

      const drainStart = Date.now()
      await eventually(async () => (await query<{ n: number }>(pg.url, 'SELECT count(*)::int AS n FROM outbox'))[0]!.n === 0, 30_000, 'the outbox to drain')
      const outboxDrainedMs = Date.now() - drainStart
      const checked = await expectDurableAndDelivered(pg.url, report, rx, { path: '/pg', ms: 45_000 })
      figures('postgres restart', {
        requests: report.samples.length, ...checked, status503: report.count(503), sentDuringOutage: during.length,
        ms503: { p50: percentile(report.samples.filter((s) => s.status === 503).map((s) => s.ms), 50), max: Math.max(...report.samples.filter((s) => s.status === 503).map((s) => s.ms)) },
        downMs: upAt - downAt, firstOkAfterUpMs: firstOk.at + firstOk.ms - upAt, outboxDrainedMs,
      })
    } finally {
      await c.run()
    }
  }, 120_000)
})
