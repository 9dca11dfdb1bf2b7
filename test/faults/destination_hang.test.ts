// A destination that hangs must not hold the others. Every workspace has a
// router to a receiver that never answers and one to a healthy receiver; under
// load the healthy one keeps getting its webhooks promptly, the hanging one's
// attempts time out (DELIVERY_TIMEOUT_MS), then its circuit opens
// (CIRCUIT_FAILURES) and its deliveries are held back without being sent: no
// attempt row, no attempt used, as their delivery rows say. Once it answers
// again, they are delivered.
import { expect, test } from 'bun:test'
import { describeJs } from '../harness'
import { eventually } from '../receiver'
import { caseProcesses, caseReceiver, caseSetup, cleanups, figures, query, workspaces } from './fixture'
import { eventIdOf, expectDurableAndDelivered, expectFannedOut, percentile, startLoad, statuses } from './load'

const TIMEOUT_MS = 2000

describeJs('fault: a destination that hangs', () => {
  const c = cleanups()

  test('the healthy destination keeps its latency; the hanging one times out, opens its circuit, and is delivered once it recovers', async () => {
    try {
      const { db, rx: healthy, env } = await caseSetup(c, {
        nats: 'shared',
        env: {
          DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS), CIRCUIT_FAILURES: '5', CIRCUIT_COOLDOWN_MS: '1000', DESTINATION_CONCURRENCY: '8',
          // Ten attempts over about 16 s: enough to outlast the hang and the circuit's cool-downs.
          HERALD_RETRY_SCHEDULE: '0s,500ms,1s,2s,2s,2s,2s,2s,2s,2s',
        },
      })
      const hanging = caseReceiver(c)
      hanging.fallback = { status: 200, delayMs: 60_000 } // accepts, never answers in time
      const { api, worker } = await caseProcesses(c, env)
      const ws = await workspaces(api.url, 2, [{ name: 'healthy', url: `${healthy.url}/healthy` }, { name: 'hanging', url: `${hanging.url}/hang` }])
      const hangingRouters = ws.map((w) => w.routers.hanging!)

      const load = startLoad({ targets: () => [api.url], keys: ws.map((w) => w.apiKey), perSecond: 200 })
      c.add(() => load.stop())
      await Bun.sleep(4000)
      const report = await load.stop()
      expect(statuses(report.samples)).toEqual({ 200: report.samples.length })
      const checked = await expectDurableAndDelivered(db.url, report, healthy, { path: '/healthy', ms: 15_000 })

      // Latency of the healthy destination while the other hung: POST sent → webhook received.
      const firstSeen = new Map<string, number>()
      for (const r of healthy.received) if (!firstSeen.has(eventIdOf(r))) firstSeen.set(eventIdOf(r), r.at)
      const latencies = [...report.acked].map(([id, sentAt]) => firstSeen.get(id)! - sentAt)
      const latency = { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies) }
      expect(latency.p99).toBeLessThan(TIMEOUT_MS / 2) // it was above TIMEOUT_MS when batches waited on the hanging one

      // The hanging destination: attempts that timed out, then deliveries the
      // open circuit held back, pending without an attempt (and without an
      // attempt row: every row is a request made); none failed for good.
      const attempts = await eventually(async () => {
        const [row] = await query<{ total: number; timeouts: number; notSent: number; held: number; failed: number }>(db.url, `
          SELECT count(*)::int AS total,
            count(*) FILTER (WHERE a.error LIKE 'timed out%')::int AS timeouts,
            count(*) FILTER (WHERE a.error LIKE '%not sent' AND a.duration_ms = 0)::int AS "notSent",
            (SELECT count(*)::int FROM deliveries WHERE router_id = ANY($1::uuid[]) AND status = 'pending' AND attempts = 0) AS held,
            (SELECT count(*)::int FROM deliveries WHERE router_id = ANY($1::uuid[]) AND status = 'failed') AS failed
          FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.router_id = ANY($1::uuid[])`, [hangingRouters])
        return row!.timeouts > 0 && row!.held > 0 && row
      }, 15_000, 'timed-out attempts to the hanging destination, and deliveries held back')
      expect(attempts.failed).toBe(0)
      expect(attempts.notSent).toBe(0)
      const sentWhileHanging = hanging.received.length
      expect(sentWhileHanging).toBeLessThan(report.acked.size / 2) // the open circuit kept most deliveries from being sent

      hanging.fallback = { status: 200 }
      const recoveredAt = Date.now()
      const ids = [...report.acked.keys()]
      await expectFannedOut(hanging, ids, { path: '/hang', since: recoveredAt, ms: 45_000 }).catch(async (err) => {
        // What held them: the deliveries' states, the routers' shared health, and what the processes logged above info.
        const states = await query(db.url, `
          SELECT router_id::text AS router, status, attempts, left(last_error, 80) AS error, count(*)::int AS n,
            min(extract(epoch FROM next_attempt_at - now()))::int AS "dueInMinS", max(extract(epoch FROM next_attempt_at - now()))::int AS "dueInMaxS"
          FROM deliveries WHERE router_id = ANY($1::uuid[]) GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3`, [hangingRouters])
        const health = await query(db.url, 'SELECT router_id::text AS router, extract(epoch FROM open_until - now())::int AS "openForS", last_error FROM router_health')
        const logged = [...api.output, ...worker.output].filter((l) => /"level":(40|50|60)/.test(l)).slice(-20)
        console.error('[faults] destination hang, not delivered:', JSON.stringify({ states, health, logged }, null, 1))
        throw err
      })
      await eventually(async () => {
        const [row] = await query<{ n: number }>(db.url, "SELECT count(*)::int AS n FROM deliveries WHERE router_id = ANY($1::uuid[]) AND status = 'succeeded'", [hangingRouters])
        return row!.n === ids.length
      }, 15_000, 'every delivery to the recovered destination to be recorded as succeeded')
      // Attempt rows by outcome, and the first attempts that succeeded, kept in their deliveries' rows.
      const hangingAttempts = await query<{ outcome: string; n: number }>(db.url, `
        SELECT CASE WHEN a.ok THEN 'succeeded' ELSE regexp_replace(a.error, '[:0-9].*', '') END AS outcome, count(*)::int AS n
        FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.router_id = ANY($1::uuid[]) GROUP BY 1
        UNION ALL SELECT 'succeeded at once', count(*)::int FROM deliveries WHERE router_id = ANY($1::uuid[]) AND first_started_at IS NOT NULL
        ORDER BY 2 DESC`, [hangingRouters])
      figures('destination hang', {
        requests: report.samples.length, ...checked, healthyLatencyMs: latency, sentWhileHanging,
        hangingAttempts: Object.fromEntries(hangingAttempts.map((r) => [r.outcome.trim(), r.n])),
        deliveredAfterRecoveryMs: Date.now() - recoveredAt,
      })
    } finally {
      await c.run()
    }
  }, 120_000)
})
