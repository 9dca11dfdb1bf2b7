// Prometheus /metrics: the API's counters and histograms after real traffic
// (events accepted, refused by quota and by rate, delivered to a real
// receiver that fails some attempts), the scrape-time gauges (outbox,
// JetStream, pool), the optional token, a scrape that meets a database that
// hangs, and a real `herald worker` process serving METRICS_PORT.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, type Server } from 'node:net'
import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { ADMIN_TOKEN, NATS_URL, describeJs, createTestDatabase, deleteStream, pipelines, usePipelineHerald, testStream, useTestHerald } from '../harness'
import { adminPost, spawnServeAndWorker, type HeraldProcess } from '../processes'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { PROBE_TIMEOUT_MS, registry } from '../../src/core/metrics'
import { watchMetrics } from '../../src/delivery/metrics_scrape'
import type { Sql } from '../../src/core/db'
import { parseExposition, sample } from '../exposition'

async function scrape(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url + '/metrics', { headers })
  expect(res.status).toBe(200)
  return parseExposition(await res.text())
}

/** after − before of one sample (a sample absent before counts as 0). */
const delta = (before: Map<string, number>, after: Map<string, number>, name: string, labels: Record<string, string> = {}) =>
  (after.get(sample(name, labels)) ?? 0) - (before.get(sample(name, labels)) ?? 0)

describe.each(pipelines)('/metrics on the %s pipeline', (pipeline) => {
  // Retries 200 ms apart, so that the retried delivery completes within the test.
  const h = usePipelineHerald(pipeline, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,200ms,200ms' })
  let rx: Receiver
  beforeAll(() => {
    rx = startReceiver()
  })
  afterAll(() => rx?.stop())

  test('events accepted and refused, batches, requests by route and deliveries by outcome are counted exactly', async () => {
    const quotaWs = await h.workspace({ monthlyQuota: 3, rateLimit: { perSecond: 1000, burst: 1000 } })
    const rateWs = await h.workspace({ monthlyQuota: 1000, rateLimit: { perSecond: 0.001, burst: 2 } })
    const router = await h.admin('POST', `/admin/workspaces/${quotaWs.name}/routers`, { name: 'all', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/hook` } })
    expect(router.status).toBe(201)
    const before = await scrape(h.url)

    // Of the three deliveries, one meets a 500 (retried, then 200), one a 400 (failed for good), one a 200.
    rx.received.length = 0
    rx.script = [{ status: 500 }, { status: 400 }]
    const quotaStatuses = []
    for (let i = 0; i < 5; i++) quotaStatuses.push((await h.post(quotaWs.apiKey, { event: 'metric.test', message: `q${i}` })).status)
    expect(quotaStatuses).toEqual([200, 200, 200, 429, 429])
    const rateStatuses = []
    for (let i = 0; i < 4; i++) rateStatuses.push((await h.post(rateWs.apiKey, { message: `r${i}` })).status)
    expect(rateStatuses).toEqual([200, 200, 429, 429])
    expect((await h.admin('GET', `/admin/workspaces/${quotaWs.name}`)).status).toBe(200)
    await rx.waitFor(4)

    const attempt = (outcome: string) => ({ type: 'webhook', outcome })
    const after = await eventually(async () => {
      const m = await scrape(h.url)
      return delta(before, m, 'herald_delivery_attempts_total', attempt('succeeded')) >= 2 && delta(before, m, 'herald_delivery_attempts_total', attempt('failed')) >= 1 && m
    }, 15_000, 'the delivery attempts to be counted')

    expect(delta(before, after, 'herald_ingest_events_accepted_total')).toBe(5)
    expect(delta(before, after, 'herald_ingest_events_rejected_total', { reason: 'quota' })).toBe(2)
    expect(delta(before, after, 'herald_ingest_events_rejected_total', { reason: 'rate' })).toBe(2)
    // One request at a time: each event was a batch of its own.
    expect(delta(before, after, 'herald_ingest_batch_events_sum')).toBe(9)
    expect(delta(before, after, 'herald_ingest_batch_events_count')).toBe(9)
    expect(delta(before, after, 'herald_ingest_batch_events_bucket', { le: '1' })).toBe(9)
    expect(delta(before, after, 'herald_ingest_batch_commit_seconds_count')).toBe(9)
    expect(delta(before, after, 'herald_ingest_batch_commit_seconds_sum')).toBeGreaterThan(0)

    const event = { route: '/event', method: 'POST' }
    expect(delta(before, after, 'herald_http_requests_total', { ...event, status: '200' })).toBe(5)
    expect(delta(before, after, 'herald_http_requests_total', { ...event, status: '429' })).toBe(4)
    expect(delta(before, after, 'herald_http_request_duration_seconds_count', event)).toBe(9)
    expect(delta(before, after, 'herald_http_request_duration_seconds_bucket', { ...event, le: '+Inf' })).toBe(9)
    // The route's pattern, never the raw path: no workspace name in any label.
    expect(delta(before, after, 'herald_http_requests_total', { route: '/admin/workspaces/:workspace', method: 'GET', status: '200' })).toBe(1)
    expect([...after.keys()].some((k) => k.includes(quotaWs.name) || k.includes(rateWs.name))).toBe(false)

    expect(delta(before, after, 'herald_delivery_attempts_total', attempt('succeeded'))).toBe(2)
    expect(delta(before, after, 'herald_delivery_attempts_total', attempt('retry'))).toBe(1)
    expect(delta(before, after, 'herald_delivery_attempts_total', attempt('failed'))).toBe(1)
    expect(delta(before, after, 'herald_delivery_attempt_duration_seconds_count', { type: 'webhook' })).toBe(4)
    expect(delta(before, after, 'herald_delivery_attempt_duration_seconds_sum', { type: 'webhook' })).toBeGreaterThan(0)
  }, 30_000)

  test('the gauges read on scrape: outbox, pool, in-flight deliveries, JetStream, the process', async () => {
    const m = await scrape(h.url)
    for (const name of ['herald_outbox_rows', 'herald_outbox_events', 'herald_outbox_oldest_age_seconds', 'herald_deliveries_in_flight', 'herald_pool_queue_tasks', 'herald_pool_utilization_ratio']) {
      expect(m.get(name)).toBeGreaterThanOrEqual(0)
    }
    expect(m.get('herald_pool_threads')).toBeGreaterThanOrEqual(2)
    expect(m.get('herald_pool_utilization_ratio')).toBeLessThanOrEqual(1)
    expect(m.get('herald_process_resident_memory_bytes')).toBeGreaterThan(0)
    expect(m.get('herald_process_cpu_seconds_total')).toBeGreaterThan(0)
    const jetstream = ['herald_jetstream_stream_messages', 'herald_jetstream_stream_bytes', 'herald_jetstream_consumer_pending_messages',
      'herald_jetstream_consumer_ack_pending_messages', 'herald_jetstream_consumer_redelivered_messages', 'herald_jetstream_consumer_waiting_pulls']
    // This process consumes (herald start), so it reports the consumer too; the in-process bus has none of these.
    for (const name of jetstream) expect(m.has(name)).toBe(pipeline === 'jetstream')
    if (pipeline === 'jetstream') expect(await eventually(async () => (await scrape(h.url)).get('herald_jetstream_consumer_pending_messages') === 0, 10_000, 'the consumer to be drained')).toBe(true)
  })

  test('an outbox row the relay has not taken shows in the backlog gauges', async () => {
    await eventually(async () => (await scrape(h.url)).get('herald_outbox_rows') === 0, 10_000, 'the outbox to drain')
    // Leased for an hour, so that no relay takes it while the test looks.
    const [row] = await h.db.sql<{ id: number }[]>`
      INSERT INTO outbox (event_ids, workspace_ids, created_at, claimed_until)
      VALUES (${[crypto.randomUUID(), crypto.randomUUID()]}::uuid[], ${[0, 0]}::bigint[], now() - interval '10 minutes', now() + interval '1 hour')
      RETURNING id`
    try {
      const m = await scrape(h.url)
      expect(m.get('herald_outbox_rows')).toBe(1)
      expect(m.get('herald_outbox_events')).toBe(2)
      expect(m.get('herald_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(600)
      expect(m.get('herald_outbox_oldest_age_seconds')).toBeLessThan(700)
    } finally {
      await h.db.sql`DELETE FROM outbox WHERE id = ${row!.id}`
    }
  })
})

describe('/metrics on the API: access, and every request counted once', () => {
  const TOKEN = 'metrics-token-0123456789'
  const open = useTestHerald('embedded')
  const guarded = useTestHerald('embedded', { HERALD_METRICS_TOKEN: TOKEN })

  test('without HERALD_METRICS_TOKEN, /metrics is open and in the text exposition format', async () => {
    const res = await fetch(open.url + '/metrics')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const text = await res.text()
    expect(text).toContain('# TYPE herald_http_requests_total counter')
    expect(text).toContain('# HELP herald_ingest_batch_commit_seconds ')
  })

  test('a scrape reads no per-space heap statistics: under Bun they walk the heap on the main thread (100 ms and more under load)', async () => {
    const text = await (await fetch(open.url + '/metrics')).text()
    expect(text).not.toContain('herald_nodejs_heap_space_size')
    expect(text).toContain('herald_nodejs_heap_size_used_bytes')
  })

  test('with HERALD_METRICS_TOKEN, /metrics needs it as a bearer token', async () => {
    const none = await fetch(guarded.url + '/metrics')
    expect(none.status).toBe(401)
    expect(none.headers.get('content-type')).toBe('application/problem+json')
    expect(none.headers.get('www-authenticate')).toBe('Bearer')
    expect((await fetch(guarded.url + '/metrics', { headers: { authorization: 'Bearer not-the-token-at-all' } })).status).toBe(401)
    expect((await fetch(guarded.url + '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(401)
    const ok = await fetch(guarded.url + '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(ok.status).toBe(200)
    expect(await ok.text()).toContain('herald_http_requests_total')
  })

  test('every request is counted once, under its route pattern and the status it got', async () => {
    const ws = await open.workspace()
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }
    const requests: [string, RequestInit, string, number][] = [
      ['/healthz', {}, '/healthz', 200],
      ['/no/such/thing', {}, 'unmatched', 404],
      ['/admin/workspaces', {}, '/admin/workspaces', 401], // refused by the operator API's guard, once routed
      ['/event', { method: 'POST', body: '{}' }, '/event', 401],
      ['/event', { method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' }, body: '{"message":' }, '/event', 400],
      ['/admin/workspaces', { method: 'POST', headers: admin, body: '{"name":42}' }, '/admin/workspaces', 400],
      ['/admin/workspaces', { method: 'POST', headers: admin, body: '{"name":"counted"}' }, '/admin/workspaces', 201],
      ['/admin/workspaces/counted', { headers: admin }, '/admin/workspaces/:workspace', 200],
    ]
    const before = await scrape(open.url)
    for (const [path, init, , status] of requests) expect((await fetch(open.url + path, init)).status).toBe(status)
    const after = await scrape(open.url)
    const expected = new Map<string, number>()
    for (const [, init, route, status] of requests) {
      const key = sample('herald_http_requests_total', { route, method: init.method ?? 'GET', status: String(status) })
      expected.set(key, (expected.get(key) ?? 0) + 1)
    }
    expected.set(sample('herald_http_requests_total', { route: '/metrics', method: 'GET', status: '200' }), 1) // the first scrape, counted once it was answered
    const changed = [...after].filter(([k, v]) => k.startsWith('herald_http_requests_total{') && v !== (before.get(k) ?? 0))
    expect(new Map(changed.map(([k, v]) => [k, v - (before.get(k) ?? 0)]))).toEqual(expected)
    const timed = [...after].filter(([k]) => k.startsWith('herald_http_request_duration_seconds_count{')).reduce((n, [k, v]) => n + v - (before.get(k) ?? 0), 0)
    expect(timed).toBe(requests.length + 1)
  })

  test('/metrics is not in the OpenAPI document', async () => {
    const doc = (await (await fetch(open.url + '/openapi.json')).json()) as { paths: Record<string, unknown> }
    expect(Object.keys(doc.paths)).not.toContain('/metrics')
  })
})

describe('a scrape that meets a database that hangs', () => {
  let blackHole: Server
  let connections = 0
  let sql: Sql
  beforeAll(async () => {
    // Accepts connections and never answers: what a PostgreSQL behind a dead network path looks like.
    blackHole = createServer((socket) => {
      connections++
      socket.on('error', () => {})
    })
    await new Promise<void>((res) => blackHole.listen(0, '127.0.0.1', res))
    const { port } = blackHole.address() as { port: number }
    sql = postgres({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: 1, connect_timeout: 60, onnotice: () => {} }) as unknown as Sql
  })
  afterAll(async () => {
    await sql?.end({ timeout: 0 })
    blackHole?.close()
  })

  test('answers within the probe time-out, with every other metric, and without piling up reads', async () => {
    const before = parseExposition(await registry.metrics())
    const unwatch = watchMetrics({ sql, bus: { state: () => new Promise(() => {}) } })
    try {
      for (let i = 0; i < 2; i++) {
        const started = performance.now()
        const m = parseExposition(await registry.metrics())
        expect(performance.now() - started).toBeLessThan(PROBE_TIMEOUT_MS + 1000)
        expect(m.has('herald_outbox_rows')).toBe(false)
        expect(m.has('herald_jetstream_stream_messages')).toBe(false)
        expect(m.has('herald_ingest_events_accepted_total')).toBe(true)
        expect(m.get('herald_process_resident_memory_bytes')).toBeGreaterThan(0)
        expect(delta(before, m, 'herald_scrape_probe_errors_total', { probe: 'database' })).toBe(i + 1)
        expect(delta(before, m, 'herald_scrape_probe_errors_total', { probe: 'jetstream' })).toBe(i + 1)
      }
      // The second scrape waited on the first one's read rather than opening another.
      expect(connections).toBe(1)
    } finally {
      unwatch()
    }
  }, 15_000)
})

describeJs('herald worker serves /metrics on METRICS_PORT', () => {
  const TOKEN = 'worker-metrics-token-0123'
  test('a real worker process: /healthz, the JetStream consumer gauges and its delivery counters', async () => {
    const db = await createTestDatabase()
    const stream = testStream()
    const rx = startReceiver()
    const env = {
      DATABASE_URL: db.url, NATS_URL: NATS_URL!, NATS_STREAM: stream, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
      HERALD_SECRET_KEY: randomBytes(32).toString('base64'), METRICS_PORT: '0', LOG_LEVEL: 'info', HERALD_METRICS_TOKEN: TOKEN,
    }
    const auth = { authorization: `Bearer ${TOKEN}` }
    const procs: HeraldProcess[] = []
    try {
      const { api, worker } = await spawnServeAndWorker(env, procs)
      const running = JSON.parse(worker.output.find((l) => l.includes('"Herald worker is running"'))!) as { metricsPort: number }
      expect(running.metricsPort).toBeGreaterThan(0)
      const metricsUrl = `http://127.0.0.1:${running.metricsPort}`
      expect(await (await fetch(metricsUrl + '/healthz')).json()).toEqual({ status: 'ok' })
      expect((await fetch(metricsUrl + '/nope')).status).toBe(404)
      expect((await fetch(metricsUrl + '/metrics')).status).toBe(401)

      const admin = adminPost(api)
      const { apiKey } = (await (await admin('/admin/workspaces', { name: 'split', rateLimit: { perSecond: 1000, burst: 1000 } })).json()) as { apiKey: string }
      expect((await admin('/admin/workspaces/split/routers', { name: 'hook', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/w` } })).status).toBe(201)
      for (let i = 0; i < 6; i++) {
        const res = await fetch(api.url + '/event', { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: `w${i}` }) })
        expect(res.status).toBe(200)
      }
      await rx.waitFor(6)

      // A fresh process: its counters hold exactly this test's deliveries.
      const m = await eventually(async () => {
        const s = await scrape(metricsUrl, auth)
        return s.get(sample('herald_delivery_attempts_total', { type: 'webhook', outcome: 'succeeded' })) === 6 && s.get('herald_jetstream_consumer_ack_pending_messages') === 0 && s.get('herald_outbox_rows') === 0 && s
      }, 15_000, 'the worker to count 6 deliveries and acknowledge them, and the relay to delete their outbox rows (with no batch to carry the delete, after 100 ms)')
      expect(m.get(sample('herald_delivery_attempt_duration_seconds_count', { type: 'webhook' }))).toBe(6)
      expect(m.get('herald_jetstream_consumer_pending_messages')).toBe(0)
      expect(m.get('herald_jetstream_consumer_redelivered_messages')).toBe(0)
      expect(m.get('herald_jetstream_consumer_waiting_pulls')).toBeGreaterThanOrEqual(0)
      expect(m.get('herald_jetstream_stream_messages')).toBe(0) // work queue: acknowledged messages are removed
      expect(m.get('herald_pool_threads')).toBe(2)
      expect(m.get('herald_outbox_rows')).toBe(0)
      // The worker takes no HTTP traffic and ingests nothing.
      expect(m.get('herald_ingest_events_accepted_total')).toBe(0)

      // The API process reports the stream and the workers' consumer too (the
      // same numbers: with every worker down, it is the one that shows them),
      // but no pool and no circuits: it does not deliver.
      const apiMetrics = await scrape(api.url, auth)
      expect(apiMetrics.get('herald_ingest_events_accepted_total')).toBe(6)
      expect(apiMetrics.has('herald_jetstream_stream_messages')).toBe(true)
      expect(apiMetrics.get('herald_jetstream_consumer_pending_messages')).toBe(0)
      expect(apiMetrics.get('herald_jetstream_consumer_delivered_sequence')).toBe(m.get('herald_jetstream_consumer_delivered_sequence'))
      expect(apiMetrics.has('herald_pool_threads')).toBe(false)
      expect([...apiMetrics.keys()].some((k) => k.startsWith('herald_destination_circuit'))).toBe(false)

      expect(await worker.kill('SIGTERM')).toBe(0)
      await expect(fetch(metricsUrl + '/healthz')).rejects.toThrow()
    } finally {
      for (const p of procs) await p.kill('SIGKILL').catch(() => {})
      rx.stop()
      await deleteStream(stream)
      await db.drop()
    }
  }, 60_000)
})
