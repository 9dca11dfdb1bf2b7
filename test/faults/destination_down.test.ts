// A destination that is down (it refuses connections) for many cool-downs,
// with events posted throughout, then comes back. Its circuit opens after
// CIRCUIT_FAILURES refusals; from then on its deliveries are held back
// without a request, an attempt row or an attempt used, and one trial goes
// per cool-down, which doubles up to CIRCUIT_COOLDOWN_MAX_MS. Once it is back,
// the first delivery comes within about that cap (a cool-down that kept
// doubling left a recovered receiver waiting for minutes), events made after
// its recovery are not held much longer, and every event is delivered.
import { describe, expect, test } from 'bun:test'
import { pipelines, startPipelineHerald, type TestHerald } from '../harness'
import { eventually } from '../receiver'
import { caseReceiver, cleanups, figures } from './fixture'
import { eventIdOf } from './load'

const THREADS = 2
const FAILURES = 3
const IN_FLIGHT = 2 // sends under way to the destination per thread (DESTINATION_CONCURRENCY ÷ WORKER_THREADS)
const COOLDOWN_MS = 250
const CAP_MS = 1000
const OUTAGE_MS = 8000 // 250, 500 and 1000 ms, then 1000 ms at a time: some ten cool-downs
const PER_SECOND = 25
// The scheduler looks for due deliveries every second (src/server.ts), and a
// delivery held while another's trial is under way comes back a second later.
const MARGIN_MS = 1500

/** herald_deliveries_held_total of webhooks held by an open circuit, as the API's /metrics reports it. */
async function heldByCircuit(h: TestHerald): Promise<number> {
  const text = await (await fetch(`${h.url}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith('herald_deliveries_held_total{') && l.includes('type="webhook"') && l.includes('reason="circuit_open"'))
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0
}

for (const pipeline of pipelines) {
  describe(`fault: a destination that is down (${pipeline})`, () => {
    // Herald closes last, after the receivers.
    const c = cleanups()

    test('its circuit holds deliveries back without attempt rows, and the first delivery after its recovery comes within the cap', async () => {
      const h = await startPipelineHerald(pipeline, {
        HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', WORKER_THREADS: String(THREADS), DESTINATION_CONCURRENCY: String(THREADS * IN_FLIGHT), CIRCUIT_FAILURES: String(FAILURES),
        CIRCUIT_COOLDOWN_MS: String(COOLDOWN_MS), CIRCUIT_COOLDOWN_MAX_MS: String(CAP_MS),
        // Ten attempts, 2 s apart: a delivery whose trial failed is retried on
        // its own schedule; a held one must not wait for it.
        HERALD_RETRY_SCHEDULE: '0s,2s,2s,2s,2s,2s,2s,2s,2s,2s',
      })
      c.add(() => h.close())
      const heldBefore = await heldByCircuit(h) // the counter is the process's: other suites may have counted
      let rx = caseReceiver(c)
      const port = Number(new URL(rx.url).port)
      const ws = await h.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      const res = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'down', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/down` } })
      expect(res.status).toBe(201)
      const routerId = ((await res.json()) as { id: string }).id
      const posted = new Map<string, number>() // event id → when it was accepted
      const post = async (i: number) => {
        const r = await h.post(ws.apiKey, { event: 'outage.tick', message: `event ${i}` })
        expect(r.status).toBe(200)
        posted.set(((await r.json()) as { eventId: string }).eventId, Date.now())
      }
      await post(0)
      await rx.waitFor(1) // the destination works, and the router is in the worker's cache

      // Down: connections are refused.
      rx.stop()
      const downAt = Date.now()
      let i = 1
      while (Date.now() - downAt < OUTAGE_MS) {
        await post(i++)
        await Bun.sleep(1000 / PER_SECOND)
      }
      const heldWhileDown = (await heldByCircuit(h)) - heldBefore
      const duringOutage = await h.db.sql<{ pending: number; neverAttempted: number; rows: number }[]>`
        SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
          count(*) FILTER (WHERE status = 'pending' AND attempts = 0)::int AS "neverAttempted",
          (SELECT count(*)::int FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.router_id = ${routerId}) AS rows
        FROM deliveries WHERE router_id = ${routerId}`

      // Back, on the same port; events keep coming for a while.
      rx = caseReceiver(c, port)
      const upAt = Date.now()
      const upTo = i
      while (Date.now() - upAt < CAP_MS + MARGIN_MS) {
        await post(i++)
        await Bun.sleep(1000 / PER_SECOND)
      }
      const back = rx
      const ids = [...posted.keys()]
      const owed = ids.slice(1) // the first was delivered before the outage
      await eventually(async () => {
        const got = new Set(back.received.map(eventIdOf))
        return owed.every((id) => got.has(id))
      }, 20_000, 'every event made during and after the outage to be delivered')
      const settled = await eventually(async () => {
        const rows = await h.db.sql<{ status: string; n: number }[]>`SELECT status, count(*)::int AS n FROM deliveries WHERE router_id = ${routerId} GROUP BY status`
        const by = Object.fromEntries(rows.map((r) => [r.status, r.n]))
        return by.succeeded === ids.length && by
      }, 20_000, 'every delivery to be recorded as succeeded')
      // A first attempt that succeeded is kept in its delivery's row (first_started_at), not in an attempt row.
      const [attempts] = await h.db.sql<{ failed: number; notSent: number; succeeded: number; mismatched: number }[]>`
        SELECT count(*) FILTER (WHERE NOT a.ok)::int AS failed, count(*) FILTER (WHERE a.error LIKE '%not sent%')::int AS "notSent",
          count(*) FILTER (WHERE a.ok)::int
            + (SELECT count(*)::int FROM deliveries d WHERE d.router_id = ${routerId} AND d.first_started_at IS NOT NULL) AS succeeded,
          (SELECT count(*)::int FROM deliveries d WHERE d.router_id = ${routerId}
            AND d.attempts <> (SELECT count(*) FROM delivery_attempts x WHERE x.delivery_id = d.id) + (d.first_started_at IS NOT NULL)::int) AS mismatched
        FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.router_id = ${routerId}`

      // When the first delivery after the recovery came, and how long events made after it waited.
      const firstSeen = new Map<string, number>()
      for (const r of back.received) if (!firstSeen.has(eventIdOf(r))) firstSeen.set(eventIdOf(r), r.at)
      const firstAfterRecoveryMs = Math.min(...firstSeen.values()) - upAt
      const allAfterRecoveryMs = Math.max(...firstSeen.values()) - upAt
      const madeAfter = ids.slice(upTo)
      const waitedAfterRecovery = madeAfter.map((id) => firstSeen.get(id)! - Math.max(posted.get(id)!, upAt))
      // Per thread: the refusals that opened its circuit (and the sends
      // under way with the last of them), then one trial per cool-down of the
      // outage (the first ones shorter than the cap), and one more at its end.
      const outageBound = THREADS * (FAILURES + IN_FLIGHT - 1 + Math.ceil(OUTAGE_MS / CAP_MS) + 3)
      figures(`destination down (${pipeline})`, {
        events: ids.length, outageMs: OUTAGE_MS, capMs: CAP_MS, heldWhileDown, duringOutage: duringOutage[0], attempts, settled,
        firstAfterRecoveryMs, allAfterRecoveryMs, maxWaitAfterRecoveryMs: Math.max(...waitedAfterRecovery), outageBound,
      })

      // While down: the deliveries were made, pending, most never attempted,
      // with a handful of attempt rows (the trials), not one per delivery.
      expect(duringOutage[0]!.pending).toBeGreaterThan((upTo - 1) / 2)
      expect(duringOutage[0]!.neverAttempted).toBeGreaterThan(duringOutage[0]!.pending / 2)
      expect(duringOutage[0]!.rows).toBeLessThanOrEqual(outageBound + 1)
      expect(duringOutage[0]!.rows).toBeLessThan(duringOutage[0]!.pending / 3)
      expect(heldWhileDown).toBeGreaterThan(0)
      // Every attempt is a real request: the refusals and failed trials of the outage, and one success per event.
      expect(attempts!.notSent).toBe(0)
      expect(attempts!.failed).toBeLessThanOrEqual(outageBound)
      expect(attempts!.succeeded).toBe(ids.length)
      expect(attempts!.mismatched).toBe(0) // a delivery's attempt count is its attempts (rows, and the first kept in its row): a hold used none
      // Back: the first delivery within the cap, and nothing made after the recovery held much longer.
      expect(firstAfterRecoveryMs).toBeLessThanOrEqual(CAP_MS + MARGIN_MS)
      expect(Math.max(...waitedAfterRecovery)).toBeLessThanOrEqual(CAP_MS + 2 * MARGIN_MS)
      // And every held one soon after: at most a trial's own 2 s retry later.
      expect(allAfterRecoveryMs).toBeLessThanOrEqual(CAP_MS + 2000 + 2 * MARGIN_MS)
    }, 60_000)
  })
}
