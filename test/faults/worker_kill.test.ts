// A delivery worker killed with SIGKILL under load while deliveries to a slow
// receiver (150 ms each) are in flight. A new worker takes over: JetStream
// redelivers the unacknowledged events, every acknowledged event is delivered,
// and a delivery made twice carries the same webhook-id.
import { expect, test } from 'bun:test'
import { NATS_URL, describeJs } from '../harness'
import { eventually } from '../receiver'
import { caseDatabase, caseReceiver, cleanups, figures, query, sharedNatsStream, spawn, workspaces } from './fixture'
import { eventIdOf, expectDurableAndDelivered, startLoad, statuses } from './load'

const RECEIVER_MS = 150

describeJs('fault: worker killed under load', () => {
  const c = cleanups()

  test('SIGKILL mid-delivery: a new worker takes over, duplicates share the webhook-id', async () => {
    try {
      const db = await caseDatabase(c)
      const rx = caseReceiver(c)
      rx.fallback = { status: 200, delayMs: RECEIVER_MS }
      const env = { DATABASE_URL: db.url, NATS_URL: NATS_URL!, NATS_STREAM: sharedNatsStream(c), JETSTREAM_ACK_WAIT_MS: '2000', DELIVERY_LEASE_MS: '2000' }
      const api = await spawn(c, env, 'serve')
      const worker = await spawn(c, env, 'worker')
      const ws = await workspaces(api.url, 4, [{ name: 'slow', url: `${rx.url}/slow` }])

      const load = startLoad({ targets: () => [api.url], keys: ws.map((w) => w.apiKey), perSecond: 250 })
      c.add(() => load.stop())
      await rx.waitFor(200)
      await worker.kill('SIGKILL')
      const killedAt = Date.now()
      // Requests the receiver was still answering when the worker died.
      const inFlight = rx.received.filter((r) => r.at > killedAt - RECEIVER_MS).length
      await Bun.sleep(500)
      await spawn(c, env, 'worker')
      const takeoverAt = Date.now()
      await Bun.sleep(2000)
      const report = await load.stop()

      expect(inFlight).toBeGreaterThan(0) // killed mid-delivery
      expect(statuses(report.samples)).toEqual({ 200: report.samples.length })
      const checked = await expectDurableAndDelivered(db.url, report, rx, { path: '/slow', ms: 45_000 })
      // When the last event acknowledged before the kill first reached the receiver.
      const firstSeen = new Map<string, number>()
      for (const r of rx.received) firstSeen.set(eventIdOf(r), Math.min(firstSeen.get(eventIdOf(r)) ?? Infinity, r.at))
      const caughtUpAt = Math.max(...[...report.acked].filter(([, sentAt]) => sentAt < killedAt).map(([id]) => firstSeen.get(id)!))
      await eventually(async () => {
        const [row] = await query<{ n: number; events: number }>(db.url, "SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS events FROM deliveries WHERE status = 'succeeded'")
        return row!.n === checked.acked && row!.events === checked.acked
      }, 15_000, 'one succeeded delivery row per event')
      figures('worker kill', {
        requests: report.samples.length, ...checked, inFlightAtKill: inFlight, newWorkerAfterKillMs: takeoverAt - killedAt,
        ackedBeforeKillAllDeliveredAfterKillMs: caughtUpAt - killedAt,
      })
    } finally {
      await c.run()
    }
  }, 120_000)
})
