// nats-server killed with SIGKILL under load and started again on the same
// JetStream store and port, with separate API and worker processes. POST
// /event keeps answering 200 (the events wait in the outbox), and every
// acknowledged event is delivered once NATS is back. A private nats-server, so
// the shared one on :4222 is never touched.
import { expect, test } from 'bun:test'
import { describePg } from '../harness'
import { eventually } from '../receiver'
import { caseProcesses, caseSetup, cleanups, figures, query, workspaces } from './fixture'
import { expectDurableAndDelivered, startLoad, statuses } from './load'

describePg('fault: NATS killed under load', () => {
  const c = cleanups()

  test('SIGKILL and restart on the same store: every request is a 200, every acknowledged event is delivered', async () => {
    try {
      const setup = await caseSetup(c, { nats: 'private', stream: 'HERALD_FAULTS', env: { JETSTREAM_ACK_WAIT_MS: '2000' } })
      const { db, rx, env } = setup
      const nats = setup.nats!
      const { api } = await caseProcesses(c, env)
      const ws = await workspaces(api.url, 4, [{ name: 'all', url: `${rx.url}/nats` }])

      const load = startLoad({ targets: () => [api.url], keys: ws.map((w) => w.apiKey), perSecond: 300 })
      c.add(() => load.stop())
      await rx.waitFor(100)
      await nats.kill('SIGKILL')
      const downAt = Date.now()
      // While NATS is away the events wait in the outbox.
      const waiting = await eventually(async () => {
        const n = (await query<{ n: number }>(db.url, 'SELECT coalesce(sum(cardinality(event_ids)), 0)::int AS n FROM outbox'))[0]!.n
        return n >= 100 && n
      }, 15_000, 'events to wait in the outbox')
      await Bun.sleep(1000)
      await nats.start()
      const upAt = Date.now()
      await Bun.sleep(2000)
      const report = await load.stop()

      expect(statuses(report.samples)).toEqual({ 200: report.samples.length }) // NATS down or not, every event is committed
      const checked = await expectDurableAndDelivered(db.url, report, rx, { path: '/nats', ms: 45_000 })
      const deliveredAt = Date.now()
      await eventually(async () => (await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM outbox'))[0]!.n === 0, 15_000, 'the outbox to drain')
      const rows = await query<{ n: number; events: number }>(db.url, "SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS events FROM deliveries WHERE status = 'succeeded'")
      expect(rows[0]).toEqual({ n: checked.acked, events: checked.acked }) // one delivery row per event
      figures('nats kill', { requests: report.samples.length, ...checked, outboxAtPeak: waiting, downMs: upAt - downAt, allDeliveredAfterUpMs: deliveredAt - upAt })
    } finally {
      await c.run()
    }
  }, 120_000)
})
