// Scheduled events across processes, with separate API and worker processes
// on one PostgreSQL and a private nats-server: events scheduled through two
// API instances go out once each, within 1 s; events due while NATS is down
// go out once each when it is back (the release writes the outbox, which the
// relay's scan republishes).
import { expect, test } from 'bun:test'
import { describePg } from '../harness'
import { eventually } from '../receiver'
import { caseProcesses, caseSetup, cleanups, figures, query, workspaces } from './fixture'

describePg('fault: scheduled events on two API instances, and across a NATS outage', () => {
  const c = cleanups()

  test('each event goes out once, on time while NATS is up and once it is back after an outage', async () => {
    try {
      const setup = await caseSetup(c, { nats: 'private', stream: 'HERALD_FAULTS', env: { JETSTREAM_ACK_WAIT_MS: '2000' } })
      const { db, rx, env } = setup
      const nats = setup.nats!
      const { apis } = await caseProcesses(c, env, { apis: 2 })
      const [ws] = await workspaces(apis[0]!.url, 1, [{ name: 'all', url: `${rx.url}/s` }])
      const schedule = async (i: number, delay: number) => {
        const res = await fetch(`${apis[i % 2]!.url}/event`, {
          method: 'POST', headers: { authorization: `Bearer ${ws!.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: `s${i}`, delay }),
        })
        expect(res.status).toBe(200)
        return (await res.json()) as { eventId: string; scheduledFor: string }
      }
      const onTime = await Promise.all(Array.from({ length: 40 }, (_, i) => schedule(i, 10)))
      const outage = await Promise.all(Array.from({ length: 40 }, (_, i) => schedule(i, 14)))
      const hits = (id: string) => rx.received.filter((r) => r.body.includes(id))

      await eventually(async () => onTime.every((e) => hits(e.eventId).length > 0), 20_000, 'the on-time events')
      const late = onTime.map((e) => hits(e.eventId)[0]!.at - Date.parse(e.scheduledFor))
      expect(Math.max(...late)).toBeLessThan(1000)
      expect(Math.min(...late)).toBeGreaterThanOrEqual(0)

      // NATS goes down before the second group's time and comes back after it.
      const due = Date.parse(outage[0]!.scheduledFor)
      await Bun.sleep(Math.max(0, due - 1500 - Date.now()))
      await nats.kill('SIGKILL')
      await Bun.sleep(Math.max(0, due + 2000 - Date.now()))
      expect(outage.every((e) => hits(e.eventId).length === 0)).toBe(true)
      const [released] = await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM scheduled_events')
      expect(released!.n).toBe(0) // released into events and the outbox while the bus was down
      await nats.start()
      const upAt = Date.now()
      await eventually(async () => outage.every((e) => hits(e.eventId).length > 0), 45_000, 'the events due during the outage')
      const backAfterMs = Date.now() - upAt
      await Bun.sleep(2000)
      for (const e of [...onTime, ...outage]) expect(hits(e.eventId).length).toBe(1)
      const [rows] = await query<{ n: number; events: number }>(db.url, "SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS events FROM deliveries WHERE status = 'succeeded'")
      expect(rows).toEqual({ n: 80, events: 80 })
      figures('scheduled', { onTimeLateMsMax: Math.max(...late), onTimeLateMsMin: Math.min(...late), outageDeliveredAfterUpMs: backAfterMs })
    } finally {
      await c.run()
    }
  }, 120_000)
})
