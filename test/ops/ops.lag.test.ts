// Consumer lag with every worker down, seen in /metrics: a real `herald serve`
// (DATABASE_URL and NATS_URL, no worker running) exports the workers'
// consumer, whose pending events grow while nothing consumes and whose
// delivered sequence stands still, and the retries that come due with nobody
// to take them; a worker that starts again drains both.
import { expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { NATS_URL, PG_URL, createTestDatabase, deleteStream, testStream } from '../harness'
import { adminPost, spawnHerald, type HeraldProcess } from '../processes'
import { eventually, startReceiver } from '../receiver'
import { scrapeMetrics } from '../exposition'

const testJs = PG_URL && NATS_URL ? test : test.skip

testJs('herald serve with every worker down: the consumer\'s pending events grow, its delivered sequence stands still, due retries wait', async () => {
  const db = await createTestDatabase()
  const stream = testStream()
  const rx = startReceiver()
  const env = {
    DATABASE_URL: db.url, NATS_URL: NATS_URL!, NATS_STREAM: stream, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
    HERALD_SECRET_KEY: randomBytes(32).toString('base64'), METRICS_PORT: '0', LOG_LEVEL: 'info',
  }
  const procs: HeraldProcess[] = []
  const sql = postgres(db.url, { max: 1, onnotice: () => {} })
  try {
    const api = await spawnHerald(env, 'serve')
    procs.push(api)
    const admin = adminPost(api)
    const { apiKey } = (await (await admin('/admin/workspaces', { name: 'lag', rateLimit: { perSecond: 1000, burst: 1000 } })).json()) as { apiKey: string }
    expect((await admin('/admin/workspaces/lag/routers', { name: 'hook', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/w` } })).status).toBe(201)
    const post = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await fetch(api.url + '/event', { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: `m${i}` }) })
        expect(res.status).toBe(200)
      }
    }

    // A worker makes the consumer and delivers two events, then stops.
    const worker = await spawnHerald(env, 'worker')
    procs.push(worker)
    await post(2)
    await rx.waitFor(2)
    const settled = await eventually(async () => {
      const m = await scrapeMetrics(api.url)
      return m.get('herald_jetstream_consumer_ack_pending_messages') === 0 && m.get('herald_jetstream_consumer_pending_messages') === 0 && m
    }, 15_000, 'the API to see the consumer with the two events acknowledged')
    const delivered = settled.get('herald_jetstream_consumer_delivered_sequence')!
    expect(delivered).toBeGreaterThanOrEqual(2)
    expect(await worker.kill('SIGTERM')).toBe(0)

    // Every worker down: the API's scrape shows the events waiting.
    await post(5)
    const waiting = await eventually(async () => {
      const m = await scrapeMetrics(api.url)
      return m.get('herald_jetstream_consumer_pending_messages') === 5 && m
    }, 15_000, 'the API to see 5 events pending')
    expect(waiting.get('herald_jetstream_consumer_ack_pending_messages')).toBe(0)
    expect(waiting.get('herald_jetstream_stream_messages')).toBe(5)
    await post(3)
    const more = await eventually(async () => {
      const m = await scrapeMetrics(api.url)
      return m.get('herald_jetstream_consumer_pending_messages') === 8 && m
    }, 15_000, 'the pending events to grow to 8')
    expect(more.get('herald_jetstream_consumer_delivered_sequence')).toBe(delivered) // nothing consumes
    expect(rx.received.length).toBe(2)

    // A retry due 10 minutes ago, of an event 20 minutes old: nobody takes it (serve never retries beside workers).
    const [ws] = await sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = 'lag'`
    await sql`
      INSERT INTO deliveries (id, event_id, event_at, workspace_id, target, status, attempts, next_attempt_at)
      VALUES (gen_random_uuid(), gen_random_uuid(), now() - interval '20 minutes', ${ws!.id}, 'gone', 'pending', 1, now() - interval '10 minutes')`
    const overdue = await scrapeMetrics(api.url)
    expect(overdue.get('herald_deliveries_pending')).toBe(1)
    expect(overdue.get('herald_deliveries_overdue_seconds')).toBeGreaterThanOrEqual(600)
    expect(overdue.get('herald_deliveries_pending_oldest_age_seconds')).toBeGreaterThanOrEqual(1200)

    // A worker again: it drains the consumer and takes the retry (whose event does not exist: it fails).
    procs.push(await spawnHerald(env, 'worker'))
    await rx.waitFor(10)
    const drained = await eventually(async () => {
      const m = await scrapeMetrics(api.url)
      return m.get('herald_jetstream_consumer_pending_messages') === 0 && m.get('herald_deliveries_pending') === 0 && m
    }, 15_000, 'a new worker to drain the consumer and take the retry')
    expect(drained.get('herald_jetstream_consumer_delivered_sequence')).toBeGreaterThanOrEqual(delivered + 8)
    expect(drained.get('herald_deliveries_overdue_seconds')).toBe(0)
    expect(drained.get('herald_deliveries_failed_last_hour')).toBe(1)
  } finally {
    for (const p of procs) await p.kill('SIGKILL').catch(() => {})
    rx.stop()
    await sql.end()
    await deleteStream(stream)
    await db.drop()
  }
}, 90_000)
