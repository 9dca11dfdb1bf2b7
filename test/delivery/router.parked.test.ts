// A router whose circuit is open is parked as a whole, in a real Herald on
// the embedded default and on PostgreSQL: while its destination is down, its
// pending deliveries are left alone (one trial per open period, no row
// rewritten by each claim), and another workspace's retry still goes out on
// time.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald, type TestHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'

const env = {
  HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
  HERALD_RETRY_SCHEDULE: '0s,1s,1s,1s,1s,1s,1s,1s,1s,1s',
  WORKER_THREADS: '1',
  CIRCUIT_FAILURES: '2',
  CIRCUIT_COOLDOWN_MS: '1000',
  CIRCUIT_COOLDOWN_MAX_MS: '1000',
}

const snapshot = (h: TestHerald, router: string) =>
  h.db.sql<{ id: string; v: string }[]>`
    SELECT id, concat_ws('|', status, attempts, next_attempt_at, updated_at) AS v FROM deliveries WHERE target = ${router} ORDER BY id`

for (const backend of backends) {
  describe(`a parked router (${backend})`, () => {
    let dead: Receiver
    let healthy: Receiver
    beforeAll(() => {
      dead = startReceiver()
      dead.fallback = { status: 503, body: 'down' }
      healthy = startReceiver()
    })
    afterAll(() => (dead.stop(), healthy.stop()))
    const h = useTestHerald(backend, env)

    test("its deliveries are left alone while its circuit is open, and another workspace's retry goes out on time", async () => {
      const a = await h.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      const b = await h.workspace()
      const made = await h.admin('POST', `/admin/workspaces/${a.name}/routers`, { name: 'dead', pattern: '*', destination: { type: 'webhook', url: dead.url } })
      const router = ((await made.json()) as { id: string }).id
      expect((await h.admin('POST', `/admin/workspaces/${b.name}/routers`, { name: 'ok', pattern: '*', destination: { type: 'webhook', url: healthy.url } })).status).toBe(201)
      for (let i = 0; i < 40; i++) expect((await h.post(a.apiKey, { message: `a${i}` })).status).toBe(200)
      await eventually(async () => (await snapshot(h, router)).length === 40, 10_000, "A's deliveries recorded")
      await Bun.sleep(1500) // its circuit opened (CIRCUIT_FAILURES), and the writes of the sends under way settled

      const before = new Map((await snapshot(h, router)).map((r) => [r.id, r.v]))
      // B's delivery is refused once: its retry is due 1 s later.
      healthy.script.push({ status: 503, body: 'once' })
      const sent = Date.now()
      expect((await h.post(b.apiKey, { message: 'b' })).status).toBe(200)
      const [first, retry] = await healthy.waitFor(2, 10_000)
      expect(retry!.at - first!.at).toBeLessThan(1000 + 2500) // due after 1 s; the scheduler looks every second
      expect(first!.at - sent).toBeLessThan(3000)

      await Bun.sleep(3000)
      const after = await snapshot(h, router)
      const changed = after.filter((r) => before.get(r.id) !== r.v).length
      // One trial per open period (1 s): a few rows, not every row at every claim.
      expect(changed).toBeLessThanOrEqual(6)
    }, 60_000)

    test('parked by another thread or process, whose circuit this one never saw open: its trial succeeds, the router is unparked, and the rest go at once', async () => {
      // The state another worker leaves: router_health says open, while this
      // worker's own circuit for the router is closed. Its trial succeeding
      // must end the parking, or the router gets one delivery per trial period.
      const c = await h.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      const made = await h.admin('POST', `/admin/workspaces/${c.name}/routers`, { name: 'back', pattern: '*', destination: { type: 'webhook', url: `${healthy.url}/back` } })
      const router = ((await made.json()) as { id: string }).id
      await h.db.sql`INSERT INTO router_health (router_id, open_until, last_error) VALUES (${router}, now() + interval '1500 ms', 'timed out after 2000 ms')`
      await Bun.sleep(600) // the fan-out's list of parked routers is fresh for 500 ms
      for (let i = 0; i < 20; i++) expect((await h.post(c.apiKey, { message: `c${i}` })).status).toBe(200)
      await eventually(async () => (await snapshot(h, router)).length === 20, 10_000, "C's deliveries recorded")
      const back = () => healthy.received.filter((r) => r.path === '/back')
      expect(back().length).toBe(0) // held while parked
      // Open until 1.5 s; a trial period is 1 s here: one delivery per trial would take 20 s.
      await eventually(async () => back().length === 20, 6000, 'every delivery once the trial succeeded')
      await eventually(async () => (await h.db.sql`SELECT 1 FROM router_health WHERE router_id = ${router}`).length === 0, 3000, 'the router unparked')
    }, 60_000)
  })
}
