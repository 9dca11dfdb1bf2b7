// The JetStream pipeline under failure: NATS down while events are posted,
// and a worker killed with SIGKILL in the middle of its deliveries. Both run
// against real PostgreSQL and a real nats-server.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import postgres from 'postgres'
import { NATS_URL, describeJs, createTestDatabase, deleteStream, startTestHerald, testStream } from '../harness'
import { adminPost, spawnHerald, spawnServeAndWorker, type HeraldProcess } from '../processes'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { privateNats } from '../faults/private_nats'

const eventIdOf = (body: string) => (JSON.parse(body) as { data: { eventId: string } }).data.eventId

describeJs('JetStream pipeline under failure', () => {
  let rx: Receiver
  beforeAll(() => {
    rx = startReceiver()
  })
  afterAll(() => rx?.stop())

  test('NATS stopped while events are posted, then started again: every event is delivered', async () => {
    const nats = await privateNats()
    const herald = await startTestHerald('postgres', { NATS_URL: nats.url, NATS_STREAM: testStream(), HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', JETSTREAM_ACK_WAIT_MS: '3000' })
    try {
      const ws = await herald.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      expect((await herald.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'all', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/nats` } })).status).toBe(201)
      rx.received.length = 0
      const ids: string[] = []
      const post = async (i: number) => {
        const res = await herald.post(ws.apiKey, { event: 'nats.test', message: `event ${i}` })
        expect(res.status).toBe(200) // NATS down or not, the event is committed
        ids.push(((await res.json()) as { eventId: string }).eventId)
      }
      for (let i = 0; i < 5; i++) await post(i)
      await rx.waitFor(5)
      await nats.kill('SIGTERM')
      for (let i = 5; i < 25; i++) await post(i)
      const sql = postgres(herald.databaseUrl!, { max: 1, onnotice: () => {} })
      const n = (await sql<{ n: number }[]>`SELECT coalesce(sum(cardinality(event_ids)), 0)::int AS n FROM outbox`)[0]!.n
      await sql.end()
      expect(n).toBeGreaterThan(0) // waiting in PostgreSQL, not lost
      await nats.start()
      await eventually(async () => new Set(rx.received.map((r) => eventIdOf(r.body))).size >= 25, 30_000, 'all 25 events to arrive').catch(async (e) => {
        const sql = postgres(herald.databaseUrl!, { max: 1, onnotice: () => {} })
        console.log('got', new Set(rx.received.map((r) => eventIdOf(r.body))).size, await sql`SELECT count(*) FROM outbox`, await sql`SELECT status, count(*) FROM deliveries GROUP BY 1`)
        const missing = ids.filter((i) => !rx.received.some((r) => eventIdOf(r.body) === i))
        console.log('missing', missing, ids.indexOf(missing[0]!))
        await sql.end()
        throw e
      })
      expect(new Set(rx.received.map((r) => eventIdOf(r.body)))).toEqual(new Set(ids))
    } finally {
      await herald.close()
      await nats.close()
    }
  }, 60_000)

  test('a worker killed with SIGKILL mid-batch: every delivery still happens, duplicates share the webhook-id', async () => {
    const db = await createTestDatabase()
    const stream = testStream()
    const env = {
      DATABASE_URL: db.url, NATS_URL: NATS_URL!, NATS_STREAM: stream, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
      DELIVERY_LEASE_MS: '2000', JETSTREAM_ACK_WAIT_MS: '2000', WORKER_CONCURRENCY: '4',
    }
    const procs: HeraldProcess[] = []
    try {
      const { api, worker } = await spawnServeAndWorker(env, procs)
      const admin = adminPost(api)
      const created = (await (await admin('/admin/workspaces', { name: 'killed', rateLimit: { perSecond: 1000, burst: 1000 } })).json()) as { apiKey: string }
      expect((await admin('/admin/workspaces/killed/routers', { name: 'slow', pattern: 'job.*', destination: { type: 'webhook', url: `${rx.url}/slow` } })).status).toBe(201)
      rx.received.length = 0
      rx.fallback = { status: 200, delayMs: 150 }
      const ids: string[] = []
      for (let i = 0; i < 30; i++) {
        const res = await fetch(api.url + '/event', {
          method: 'POST',
          headers: { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ event: 'job.done', message: `job ${i}` }),
        })
        expect(res.status).toBe(200)
        ids.push(((await res.json()) as { eventId: string }).eventId)
      }
      await rx.waitFor(3)
      await worker.kill('SIGKILL')
      const receivedAtKill = rx.received.length
      expect(receivedAtKill).toBeLessThan(30) // killed in the middle, not after
      procs.push(await spawnHerald(env, 'worker'))
      await eventually(async () => new Set(rx.received.map((r) => eventIdOf(r.body))).size >= 30, 45_000, 'all 30 events to arrive')
      expect(new Set(rx.received.map((r) => eventIdOf(r.body)))).toEqual(new Set(ids))
      // One delivery per event: every copy of an event carries one webhook-id.
      const idsPerEvent = new Map<string, Set<string>>()
      for (const r of rx.received) {
        const e = eventIdOf(r.body)
        idsPerEvent.set(e, (idsPerEvent.get(e) ?? new Set()).add(r.headers['webhook-id']!))
      }
      for (const set of idsPerEvent.values()) expect(set.size).toBe(1)
      const sql = postgres(db.url, { max: 1, onnotice: () => {} })
      await eventually(async () => {
        const n = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded'`)[0]!.n
        return n === 30
      }, 15_000, 'all 30 deliveries recorded as succeeded')
      await sql.end()
    } finally {
      rx.fallback = { status: 200, body: 'ok' }
      for (const p of procs) await p.kill('SIGKILL').catch(() => {})
      await deleteStream(stream)
      await db.drop()
    }
  }, 90_000)

  test('two API processes and two workers on one database and stream: every event delivered exactly once', async () => {
    const db = await createTestDatabase()
    const stream = testStream()
    const env = { DATABASE_URL: db.url, NATS_URL: NATS_URL!, NATS_STREAM: stream, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' }
    const procs: HeraldProcess[] = []
    try {
      const [api1, api2] = [await spawnHerald(env, 'serve'), await spawnHerald(env, 'serve')]
      procs.push(api1!, api2!, await spawnHerald(env, 'worker'), await spawnHerald(env, 'worker'))
      const admin = adminPost(api1!)
      const { apiKey } = (await (await admin('/admin/workspaces', { name: 'scaled', rateLimit: { perSecond: 10000, burst: 10000 } })).json()) as { apiKey: string }
      expect((await admin('/admin/workspaces/scaled/routers', { name: 'all', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/scaled` } })).status).toBe(201)
      rx.received.length = 0
      const ids = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const res = await fetch((i % 2 ? api1! : api2!).url + '/event', {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ event: 'scale.test', message: `event ${i}` }),
          })
          expect(res.status).toBe(200)
          return ((await res.json()) as { eventId: string }).eventId
        }),
      )
      await rx.waitFor(100, 30_000)
      await Bun.sleep(1000) // room for a duplicate to show up
      expect(rx.received.map((r) => eventIdOf(r.body)).sort()).toEqual([...ids].sort())
      expect(new Set(rx.received.map((r) => r.headers['webhook-id'])).size).toBe(100)
    } finally {
      for (const p of procs) await p.kill('SIGTERM').catch(() => {})
      await deleteStream(stream)
      await db.drop()
    }
  }, 90_000)
})
