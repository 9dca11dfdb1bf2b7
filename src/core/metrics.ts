// Prometheus metrics of this process, through prom-client: the one registry,
// the HTTP metrics, and the means by which each area defines its own
// (src/ingest/metrics.ts, src/delivery/metrics.ts and metrics_scrape.ts). Counters and histograms
// are updated where things happen (O(1), no awaits: the ingest path is
// benchmarked); gauges that need PostgreSQL, JetStream or the pool are read
// when Prometheus scrapes, each probe time-boxed, so that a scrape that meets a
// database or NATS that is down still answers everything else, promptly.
// No label holds a workspace, an event or a raw path: series stay few.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { ElysiaCustomStatusResponse } from 'elysia'
import { bearer, secretsEqual } from './keys'
import { problemResponse } from './problems'
import { metricsOnly, metricsUnauthorized } from './errors'

export const registry = new Registry()
export const registers = [registry]

// Prometheus' default scrape timeout is 10 s; a probe that has not answered in
// 2 s (as /readyz) is left out of this scrape rather than holding it.
export const PROBE_TIMEOUT_MS = 2_000

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

// ------------------------------------------------------ gauges, on scrape

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

// The reads of every probe, waited on by the error counter's own collect.
const probes: (() => Promise<unknown>)[] = []

const probeErrors = new Counter({
  name: 'herald_scrape_probe_errors_total',
  help: 'Scrapes whose read of PostgreSQL (probe="database") or JetStream (probe="jetstream") failed or took over 2 s; their gauges were left out.',
  labelNames: ['probe'] as const,
  registers,
  // Counts this scrape's failures in this scrape: waits for the probes the
  // gauges started (the same reads, not new ones).
  async collect() {
    await Promise.all(probes.map((p) => p()))
  },
})
for (const probe of ['database', 'jetstream']) probeErrors.inc({ probe }, 0)

const TIMED_OUT = Symbol('timed out')

/**
 * A read at scrape time, bounded by PROBE_TIMEOUT_MS, shared by every gauge
 * of a scrape (prom-client collects them all in the same tick). A read that
 * has not settled is waited on again by the next scrape rather than started
 * again, so a database that hangs does not collect a queue of them. Resolves
 * to null, and counts an error, on failure or time-out; to null alone when
 * there is nothing to read (`present` is false).
 */
export function probe<S extends object, T>(name: 'database' | 'jetstream', source: () => S | undefined, read: (s: S) => Promise<T>) {
  // The read under way, and whose it is: another source (a Herald started
  // since) does not wait on a read that hangs on the one before.
  let running: { of: S; read: Promise<T> } | null = null
  let attempt: Promise<T | null> | null = null
  async function once(of: S): Promise<T | null> {
    if (running?.of !== of) {
      const r: { of: S; read: Promise<T> } = { of, read: read(of).finally(() => running === r && (running = null)) }
      running = r
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<typeof TIMED_OUT>((res) => (timer = setTimeout(res, PROBE_TIMEOUT_MS, TIMED_OUT)))
    try {
      const value = await Promise.race([running.read, timeout])
      if (value !== TIMED_OUT) return value
    } catch {
      // counted below, like a time-out
    } finally {
      clearTimeout(timer)
    }
    probeErrors.inc({ probe: name })
    return null
  }
  const get = (): Promise<T | null> => {
    const of = source()
    if (!of) return Promise.resolve(null)
    return (attempt ??= once(of).finally(() => (attempt = null)))
  }
  probes.push(get)
  return get
}

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

/** A gauge read at scrape time; undefined leaves it without a sample. */
export const scrapedGauge = (name: string, help: string, read: () => number | undefined | Promise<number | undefined>) => new ScrapedGauge(name, help, read)

/** A gauge over a probe's value; a failed probe leaves it without a sample. */
export const probed = <T>(name: string, help: string, read: () => Promise<T | null>, value: (v: T) => number | undefined) =>
  new ScrapedGauge(name, help, async () => {
    const v = await read()
    return v === null ? undefined : value(v)
  })

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

/** The text exposition format of every metric. */
export async function exposition(): Promise<Response> {
  return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } })
}

/**
 * `herald worker` has no API: this tiny server answers /metrics and /healthz
 * on METRICS_PORT (0 picks a free port).
 */
export function serveMetrics(opts: { port: number; hostname: string; token?: string; ready?: () => boolean }) {
  return Bun.serve({
    port: opts.port,
    hostname: opts.hostname,
    development: false,
    reusePort: false, // a second worker on a taken METRICS_PORT stops, rather than share it
    fetch(req) {
      const path = new URL(req.url).pathname
      if (path === '/healthz') return opts.ready && !opts.ready() ? Response.json({ status: 'not-ready', detail: 'no JetStream consumer: NATS is unreachable, or the consumer is being made again' }, { status: 503 }) : Response.json({ status: 'ok' })
      if (path !== '/metrics') return problemResponse(metricsOnly())
      if (!metricsAllowed(req.headers.get('authorization'), opts.token)) return problemResponse(metricsUnauthorized())
      return exposition()
    },
  })
}
