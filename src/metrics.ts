// Prometheus metrics of this process, through prom-client: one registry, and
// every metric Herald exports is defined here. Counters and histograms are
// updated where things happen (O(1), no awaits: the ingest path is
// benchmarked); gauges that need PostgreSQL, JetStream or the pool are read
// when Prometheus scrapes, each probe time-boxed, so that a scrape that meets a
// database or NATS that is down still answers everything else, promptly.
// No label holds a workspace, an event or a raw path: series stay few.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { ElysiaCustomStatusResponse } from 'elysia'
import type { Sql } from './db'
import type { BusState, EventBus } from './bus'
import type { Outcome } from './ingest'
import type { Pool } from './pool'
import { countOutbox, type OutboxBacklog } from './relay'
import { bearer } from './auth'
import { secretsEqual } from './keys'
import { HeraldError, problemResponse } from './problems'

export const registry = new Registry()
const registers = [registry]

// Prometheus' default scrape timeout is 10 s; a probe that has not answered in
// 2 s (as /readyz) is left out of this scrape rather than holding it.
export const PROBE_TIMEOUT_MS = 2_000
// The backlog is counted over its oldest rows only, so that a scrape stays
// cheap when NATS has been away for hours: beyond this the gauges read the cap
// (the age of the oldest row keeps telling how far behind the relay is).
export const OUTBOX_COUNT_CAP = 100_000

// ------------------------------------------------------------------- HTTP

// The per-request counter and histogram are kept out of prom-client's hot
// path: it hashes a request's labels on every inc() and observe(), which
// cost POST /event 1.4 µs of its 14 (bench/ingest.ts, the "stub" server).
// Here each series (route, method and status) is made once and counted in
// place; a scrape reads them, in prom-client's export format, through the
// same registry.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

interface RequestSeries {
  labels: { route: string; method: string; status: number }
  count: number
  timing: TimingSeries
}
interface TimingSeries {
  labels: { route: string; method: string }
  buckets: Float64Array // per bucket, not cumulative; the last one is +Inf
  sum: number
  count: number
}
const requestSeries = new Map<string, RequestSeries>()
const timingSeries = new Map<string, TimingSeries>()

function series(route: string, method: string, status: number): RequestSeries {
  const key = `${method} ${status} ${route}`
  let s = requestSeries.get(key)
  if (!s) {
    const tkey = `${method} ${route}`
    let timing = timingSeries.get(tkey)
    if (!timing) timingSeries.set(tkey, (timing = { labels: { route, method }, buckets: new Float64Array(DURATION_BUCKETS.length + 1), sum: 0, count: 0 }))
    requestSeries.set(key, (s = { labels: { route, method, status }, count: 0, timing }))
  }
  return s
}

function observeDuration(t: TimingSeries, seconds: number) {
  let i = 0
  while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++
  t.buckets[i]!++
  t.sum += seconds
  t.count++
}

/** A metric of the registry whose values are read from `values` at scrape time. */
function scraped(name: string, help: string, type: 'counter' | 'histogram', values: () => { labels: Record<string, string | number>; value: number; metricName?: string }[], reset: () => void) {
  registry.registerMetric({ name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, aggregator: 'sum', values: values() }), reset } as never)
}
scraped('herald_http_requests_total', 'HTTP requests answered by the API, by route pattern (not the raw path), method and status.', 'counter',
  () => [...requestSeries.values()].map((s) => ({ labels: s.labels, value: s.count })),
  () => requestSeries.clear())
scraped('herald_http_request_duration_seconds', 'Time from a request arriving to its response being ready to send (a stream: to its start), by route pattern and method.', 'histogram',
  () => [...timingSeries.values()].flatMap((t) => {
    const name = 'herald_http_request_duration_seconds'
    let cumulative = 0
    const buckets = DURATION_BUCKETS.map((le, i) => ({ labels: { ...t.labels, le }, value: (cumulative += t.buckets[i]!), metricName: `${name}_bucket` }))
    return [
      ...buckets,
      { labels: { ...t.labels, le: '+Inf' }, value: t.count, metricName: `${name}_bucket` },
      { labels: t.labels, value: t.sum, metricName: `${name}_sum` },
      { labels: t.labels, value: t.count, metricName: `${name}_count` },
    ]
  }),
  () => timingSeries.clear())

// Any other method (a client may send any token) is counted as OTHER.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
// Arrival times, kept on the request itself (cheaper than a WeakMap). The
// hooks destructure only what they read: Elysia infers from a hook's
// parameters what to prepare for every request, and a hook that takes its
// whole context makes it parse the query, the cookies and the headers of
// every request, POST /event included.
const STARTED = Symbol('herald.startedAt')
type Timed = Request & { [STARTED]?: number }

/** onRequest: notes the request's arrival time. */
export function requestStarted({ request }: { request: Request }) {
  ;(request as Timed)[STARTED] = performance.now()
}

/**
 * Counts and times a request under its route pattern. A request answered
 * before routing (an unknown path, a malformed request line) has
 * no pattern: it counts as "unmatched".
 */
export function requestFinished(request: Request, route: string | undefined, status: number) {
  const t = (request as Timed)[STARTED]
  const method = request.method
  const s = series(route || 'unmatched', METHODS.has(method) ? method : 'OTHER', status | 0)
  s.count++
  if (t !== undefined) observeDuration(s.timing, (performance.now() - t) / 1000)
}

/**
 * mapResponse: runs once per routed request, after its handler or its error
 * (rendered by onError), before the response is sent. `responseValue` is a
 * Response, Elysia's status(code, …) value, or a body whose status is in `set`.
 */
export function responseMapped({ route, request, set, responseValue }: { route?: string; request: Request; set: { status?: number | string }; responseValue?: unknown }) {
  const status = responseValue instanceof Response ? responseValue.status : responseValue instanceof ElysiaCustomStatusResponse ? Number(responseValue.code) : typeof set.status === 'number' ? set.status : 200
  requestFinished(request, route, status)
}

// ----------------------------------------------------------------- ingest

const batchEvents = new Histogram({
  name: 'herald_ingest_batch_events',
  help: 'Events per committed ingest batch (one transaction).',
  buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
  registers,
})
const batchSeconds = new Histogram({
  name: 'herald_ingest_batch_commit_seconds',
  help: 'Time an ingest batch takes to commit, BEGIN to COMMIT.',
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers,
})
const eventsAccepted = new Counter({
  name: 'herald_ingest_events_accepted_total',
  help: 'Events accepted and committed by POST /event (idempotent replays not included).',
  registers,
})
const eventsRejected = new Counter({
  name: 'herald_ingest_events_rejected_total',
  help: 'Events refused by POST /event with 429, by reason: quota (monthly quota used up) or rate (token bucket empty).',
  labelNames: ['reason'] as const,
  registers,
})
const batchesFailed = new Counter({
  name: 'herald_ingest_batches_failed_total',
  help: 'Ingest batches that did not commit, by reason: unavailable (database unreachable, answered 503) or error.',
  labelNames: ['reason'] as const,
  registers,
})
for (const reason of ['quota', 'rate']) eventsRejected.inc({ reason }, 0)
for (const reason of ['unavailable', 'error']) batchesFailed.inc({ reason }, 0)
const quotaRejected = eventsRejected.labels('quota')
const rateRejected = eventsRejected.labels('rate')

/** A batch committed: its size, its commit time (from `startedAt`, performance.now()) and what became of its events. */
export function batchCommitted(startedAt: number, outcomes: readonly Outcome[]) {
  batchEvents.observe(outcomes.length)
  batchSeconds.observe((performance.now() - startedAt) / 1000)
  let accepted = 0
  let quota = 0
  let rate = 0
  for (const o of outcomes) {
    if (o.kind === 'accepted') accepted++
    else if (o.kind === 'limited') o.reason === 'quota' ? quota++ : rate++
  }
  if (accepted) eventsAccepted.inc(accepted)
  if (quota) quotaRejected.inc(quota)
  if (rate) rateRejected.inc(rate)
}

export const batchFailed = (reason: 'unavailable' | 'error') => batchesFailed.inc({ reason })

// ------------------------------------------------------------- deliveries

const attempts = new Counter({
  name: 'herald_delivery_attempts_total',
  help: 'Delivery attempts by destination type (webhook, slack, …, apns, fcm) and outcome: succeeded, retry (failed, another attempt is scheduled) or failed (for good).',
  labelNames: ['type', 'outcome'] as const,
  registers,
})
const attemptSeconds = new Histogram({
  name: 'herald_delivery_attempt_duration_seconds',
  help: 'Duration of a delivery attempt, by destination type (0 for an attempt an open circuit did not send).',
  labelNames: ['type'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
})
const OUTCOMES = { succeeded: 'succeeded', pending: 'retry', failed: 'failed' } as const

/** An attempt's result: `next` is what it left its delivery in (src/retry.ts). */
export function deliveryAttempted(type: string, next: 'succeeded' | 'pending' | 'failed', durationMs: number) {
  attempts.inc({ type, outcome: OUTCOMES[next] })
  attemptSeconds.observe({ type }, durationMs / 1000)
}

// ------------------------------------------------------ gauges, on scrape

/** What a running Herald lets the scrape read: its database, bus, pool and fan-out. */
export interface MetricSource {
  sql: Sql
  bus: Pick<EventBus, 'state'>
  pool?: Pick<Pool, 'stats'> | null
  fanout?: { inFlight(): number } | null
}

// A process runs one Herald; the tests run several, one after the other and
// sometimes side by side. The database and the bus are read from the latest
// one; the pools and fan-outs, which are each this process's own, add up.
const sources = new Set<MetricSource>()
const latest = () => [...sources].at(-1)

/** Registers a running Herald's parts for the scrape; returns the function that forgets them. */
export function watchMetrics(source: MetricSource): () => void {
  enableProcessMetrics()
  sources.add(source)
  return () => void sources.delete(source)
}

let processMetrics = false
/** CPU, memory, event loop and GC of this process, as herald_process_… and herald_nodejs_…; once per process. */
export function enableProcessMetrics() {
  if (processMetrics) return
  processMetrics = true
  collectDefaultMetrics({ register: registry, prefix: 'herald_' })
  // Under Bun, v8.getHeapSpaceStatistics() walks the whole heap, on the main
  // thread: 17 ms on an idle server, over 100 ms under load, at every
  // scrape, while every request waits. The heap's total and used size stay
  // (herald_nodejs_heap_size_*_bytes, from process.memoryUsage()).
  for (const kind of ['total', 'used', 'available']) registry.removeSingleMetric(`herald_nodejs_heap_space_size_${kind}_bytes`)
}

const probeErrors = new Counter({
  name: 'herald_scrape_probe_errors_total',
  help: 'Scrapes whose read of PostgreSQL (probe="database") or JetStream (probe="jetstream") failed or took over 2 s; their gauges were left out.',
  labelNames: ['probe'] as const,
  registers,
  // Counts this scrape's failures in this scrape: waits for the probes the
  // gauges started (the same reads, not new ones).
  async collect() {
    await Promise.all([readOutbox(), readBus()])
  },
})
for (const probe of ['database', 'jetstream']) probeErrors.inc({ probe }, 0)

const TIMED_OUT = Symbol('timed out')

/**
 * A read at scrape time, bounded by PROBE_TIMEOUT_MS, shared by every gauge
 * of a scrape (prom-client collects them all in the same tick). A read that
 * has not settled is waited on again by the next scrape rather than started
 * again, so a database that hangs does not collect a queue of them. Resolves
 * to null, and counts an error, on failure or time-out.
 */
function probe<T>(name: 'database' | 'jetstream', read: (s: MetricSource) => Promise<T>) {
  let running: Promise<T> | null = null
  let attempt: Promise<T | null> | null = null
  async function once(source: MetricSource): Promise<T | null> {
    running ??= read(source).finally(() => (running = null))
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<typeof TIMED_OUT>((res) => (timer = setTimeout(res, PROBE_TIMEOUT_MS, TIMED_OUT)))
    try {
      const value = await Promise.race([running, timeout])
      if (value !== TIMED_OUT) return value
    } catch {
      // counted below, like a time-out
    } finally {
      clearTimeout(timer)
    }
    probeErrors.inc({ probe: name })
    return null
  }
  return (): Promise<T | null> => {
    const source = latest()
    if (!source) return Promise.resolve(null)
    return (attempt ??= once(source).finally(() => (attempt = null)))
  }
}

const readOutbox = probe<OutboxBacklog>('database', (s) => countOutbox(s.sql, OUTBOX_COUNT_CAP))
const readBus = probe<BusState | null>('jetstream', (s) => s.bus.state())

/**
 * A gauge read at scrape time by `read`, which returns undefined when it has
 * nothing to report (its probe failed, or this process lacks the part): the
 * gauge then has no sample at all, rather than a 0 that would read as "no
 * backlog" while the database is down.
 */
class ScrapedGauge extends Gauge {
  private present = false
  constructor(name: string, help: string, read: () => number | undefined | Promise<number | undefined>) {
    super({
      name,
      help,
      registers,
      async collect() {
        const v = await read()
        ;(this as ScrapedGauge).present = v !== undefined
        if (v !== undefined) this.set(v)
      },
    })
  }
  override async get() {
    const metric = await super.get()
    return this.present ? metric : { ...metric, values: [] }
  }
}

const probed = <T>(name: string, help: string, read: () => Promise<T | null>, value: (v: T) => number | undefined) =>
  new ScrapedGauge(name, help, async () => {
    const v = await read()
    return v === null ? undefined : value(v)
  })

probed('herald_outbox_rows', `Outbox rows waiting for the relay (one per committed batch; counted up to ${OUTBOX_COUNT_CAP}).`, readOutbox, (o) => o.rows)
probed('herald_outbox_events', `Events in the outbox rows waiting for the relay (over the oldest ${OUTBOX_COUNT_CAP} rows).`, readOutbox, (o) => o.events)
probed('herald_outbox_oldest_age_seconds', 'Age of the oldest outbox row; 0 when the outbox is empty.', readOutbox, (o) => o.oldestAgeSeconds)

probed('herald_jetstream_stream_messages', 'Messages in the JetStream stream (events published, not yet acknowledged by a worker).', readBus, (b) => b?.stream.messages)
probed('herald_jetstream_stream_bytes', 'Bytes of the JetStream stream.', readBus, (b) => b?.stream.bytes)
probed('herald_jetstream_consumer_pending_messages', 'Messages of the stream not yet handed to any worker (num_pending; worker processes only).', readBus, (b) => b?.consumer?.pending)
probed('herald_jetstream_consumer_ack_pending_messages', 'Messages handed to workers and not yet acknowledged (num_ack_pending; worker processes only).', readBus, (b) => b?.consumer?.ackPending)
probed('herald_jetstream_consumer_redelivered_messages', 'Messages redelivered and not yet acknowledged (num_redelivered; worker processes only).', readBus, (b) => b?.consumer?.redelivered)
probed('herald_jetstream_consumer_waiting_pulls', 'Pull requests of workers waiting for messages (num_waiting; worker processes only).', readBus, (b) => b?.consumer?.waiting)

/** A gauge over the running Heralds of this process that have the part (summed, or their mean); none: no sample. */
const local = (name: string, help: string, value: (s: MetricSource) => number | undefined, mean = false) =>
  new ScrapedGauge(name, help, () => {
    let total = 0
    let n = 0
    for (const s of sources) {
      const v = value(s)
      if (v !== undefined) (total += v), n++
    }
    return n === 0 ? undefined : mean ? total / n : total
  })

local('herald_pool_utilization_ratio', 'Share of the delivery pool\'s capacity in use (piscina utilization, 0 to 1).', (s) => s.pool?.stats().utilization, true)
local('herald_pool_queue_tasks', 'Tasks (batches of deliveries) waiting for a pool thread.', (s) => s.pool?.stats().queueSize)
local('herald_pool_threads', 'Threads of the delivery pool.', (s) => s.pool?.stats().threads)
local('herald_deliveries_in_flight', 'Work units (an event, plus one per device it pushes) being delivered by this process.', (s) => s.fanout?.inFlight())

// -------------------------------------------------------------- exposition

/**
 * Whether a request may read /metrics: always without HERALD_METRICS_TOKEN
 * (the endpoint is then meant for the internal network), else with
 * `Authorization: Bearer <token>`.
 */
export function metricsAllowed(authorization: string | null, token: string | undefined): boolean {
  if (!token) return true
  const given = bearer(authorization)
  return !!given && secretsEqual(given, token)
}

export const metricsUnauthorized = () =>
  new HeraldError('unauthorized', '/metrics needs "Authorization: Bearer $HERALD_METRICS_TOKEN".', undefined, { 'www-authenticate': 'Bearer' })

/** The text exposition format of every metric. */
export async function exposition(): Promise<Response> {
  return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } })
}

/**
 * `herald worker` has no API: this tiny server answers /metrics and /healthz
 * on METRICS_PORT (0 picks a free port).
 */
export function serveMetrics(opts: { port: number; hostname: string; token?: string }) {
  return Bun.serve({
    port: opts.port,
    hostname: opts.hostname,
    development: false,
    fetch(req) {
      const path = new URL(req.url).pathname
      if (path === '/healthz') return Response.json({ status: 'ok' })
      if (path !== '/metrics') return problemResponse(new HeraldError('not-found', 'This server answers only /metrics and /healthz.'))
      if (!metricsAllowed(req.headers.get('authorization'), opts.token)) return problemResponse(metricsUnauthorized())
      return exposition()
    },
  })
}
