// One of two API processes killed with SIGKILL under load. Requests to it
// fail, the other keeps answering 200, and every event either of them
// acknowledged is stored once and delivered: the outbox rows the killed one
// had not relayed yet are taken by the survivor's outbox scan once they are
// older than its grace period (src/delivery/relay.ts GRACE_MS).
import { expect, test } from 'bun:test'
import { describeJs } from '../harness'
import type { HeraldProcess } from '../processes'
import { eventually } from '../receiver'
import { caseProcesses, caseSetup, cleanups, figures, query, workspaces } from './fixture'
import { expectDurableAndDelivered, startLoad, statuses } from './load'

describeJs('fault: API process killed under load', () => {
  const c = cleanups()

  test('SIGKILL one of two API processes: the survivor serves, every acknowledged event is stored once and delivered', async () => {
    try {
      const { db, rx, env } = await caseSetup(c, { nats: 'shared' })
      const [killed, survivor] = (await caseProcesses(c, env, { apis: 2 })).apis as [HeraldProcess, HeraldProcess]
      const ws = await workspaces(survivor.url, 4, [{ name: 'all', url: `${rx.url}/api` }])

      const load = startLoad({ targets: () => [killed.url, survivor.url], keys: ws.map((w) => w.apiKey), perSecond: 300 })
      c.add(() => load.stop())
      await rx.waitFor(200)
      await killed.kill('SIGKILL')
      const killedAt = Date.now()
      // What the killed process had committed and not yet handed to NATS.
      const [left] = await query<{ rows: number; events: number }>(db.url, 'SELECT count(*)::int AS rows, coalesce(sum(cardinality(event_ids)), 0)::int AS events FROM outbox')
      await Bun.sleep(2000)
      const report = await load.stop()

      const toKilled = report.samples.filter((s) => s.url === killed.url && s.at >= killedAt)
      const toSurvivor = report.samples.filter((s) => s.url === survivor.url)
      expect(toKilled.length).toBeGreaterThan(0)
      expect(statuses(toKilled)).toEqual({ error: toKilled.length }) // refused: nothing acknowledged
      expect(statuses(toSurvivor)).toEqual({ 200: toSurvivor.length })
      const ackedByKilled = report.samples.filter((s) => s.url === killed.url && s.status === 200).length
      expect(ackedByKilled).toBeGreaterThan(0)
      const checked = await expectDurableAndDelivered(db.url, report, rx, { path: '/api', ms: 45_000 })
      const deliveredAt = Date.now()
      // Rows the killed process published but had not deleted go once they are past the grace period.
      await eventually(async () => (await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM outbox'))[0]!.n === 0, 20_000, 'the outbox to drain')
      const drainedAt = Date.now()
      figures('api kill', {
        requests: report.samples.length, ...checked, ackedByKilled, failedToKilled: statuses(report.samples.filter((s) => s.url === killed.url && s.status !== 200)),
        outboxAtKill: left, allDeliveredAfterKillMs: deliveredAt - killedAt, outboxDrainedAfterKillMs: drainedAt - killedAt,
      })
    } finally {
      await c.run()
    }
  }, 120_000)
})
