// The delivery gauges a scrape reads: from the running pipeline (outbox,
// delivery backlog, JetStream, pool, fan-out) and the destinations' circuits
// as the pool's threads report them (circuit.ts circuitBoard). The counters
// the pipeline increments are in metrics.ts.
import { Gauge } from 'prom-client'
import type { Sql } from '../core/db'
import { enableProcessMetrics, probe, probed, registers, scrapedGauge } from '../core/metrics'
import type { BusState, EventBus } from './bus'
import type { CircuitSummary } from './circuit'
import type { Pool } from './pool'
import { countOutbox, type OutboxBacklog } from './relay'
import { countDeliveryBacklog, type DeliveryBacklog } from './status'

// The backlogs are counted over their first rows only, so that a scrape stays
// cheap when NATS or a destination has been away for hours: beyond this the
// counts read the cap (the ages keep telling how far behind things are).
export const OUTBOX_COUNT_CAP = 100_000
export const DELIVERY_COUNT_CAP = 100_000

/** What a running Herald lets the scrape read: its database, bus, pool and fan-out. */
export interface MetricSource {
  sql: Sql
  bus: Pick<EventBus, 'state'>
  pool?: Pick<Pool, 'stats'> | null
  fanout?: { inFlight(): number; circuits?(now?: number): CircuitSummary } | null
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

// One read of PostgreSQL per scrape, outbox and deliveries together: one
// probe, one time-out, one error counted when the database is away. Every
// process reads the same numbers (take max() across them).
const readDatabase = probe('database', latest, async (s): Promise<{ outbox: OutboxBacklog; deliveries: DeliveryBacklog }> => {
  const [outbox, deliveries] = await Promise.all([countOutbox(s.sql, OUTBOX_COUNT_CAP), countDeliveryBacklog(s.sql, DELIVERY_COUNT_CAP)])
  return { outbox, deliveries }
})
const readBus = probe('jetstream', latest, (s): Promise<BusState | null> => s.bus.state())

probed('herald_outbox_rows', `Outbox rows (the ledger: one per committed batch) with events whose fan-out is not recorded yet; counted up to ${OUTBOX_COUNT_CAP}.`, readDatabase, (d) => d.outbox.rows)
probed('herald_outbox_events', `Accepted events whose fan-out is not recorded yet: owed in the ledger (over the oldest ${OUTBOX_COUNT_CAP} rows).`, readDatabase, (d) => d.outbox.events)
probed('herald_outbox_oldest_age_seconds', 'Age of the oldest outbox row; 0 when the outbox is empty.', readDatabase, (d) => d.outbox.oldestAgeSeconds)

probed('herald_deliveries_pending', `Deliveries waiting for an attempt (a retry, or held by their destination's circuit), of every workspace; counted up to ${DELIVERY_COUNT_CAP}.`, readDatabase, (d) => d.deliveries.pending)
probed('herald_deliveries_pending_oldest_age_seconds', 'Age of the oldest pending delivery, from its event; 0 when none is pending.', readDatabase, (d) => d.deliveries.oldestPendingAgeSeconds)
probed('herald_deliveries_overdue_seconds', 'How long the most overdue pending delivery has been due without a worker taking it; 0 when none is due.', readDatabase, (d) => d.deliveries.overdueSeconds)
probed('herald_deliveries_failed_last_hour', `Deliveries that failed for good (retries used up, or refused) in the last hour; counted up to ${DELIVERY_COUNT_CAP}.`, readDatabase, (d) => d.deliveries.failedLastHour)

// A message is a committed batch (up to JETSTREAM_BATCH_MAX_EVENTS events):
// the consumer's figures count messages; the stream's events gauge says how
// many events they carry.
probed('herald_jetstream_stream_messages', 'Messages in the JetStream stream: batches of events published, not yet acknowledged by a worker.', readBus, (b) => b?.stream.messages)
probed('herald_jetstream_stream_events', 'Events the JetStream stream\'s messages carry (published, not yet acknowledged by a worker).', readBus, (b) => b?.stream.events)
probed('herald_jetstream_stream_bytes', 'Bytes of the JetStream stream.', readBus, (b) => b?.stream.bytes)
// The consumer's, read by every process (the API's too): with every worker
// down these still show the batches waiting.
probed('herald_jetstream_consumer_pending_messages', 'Messages (batches of events) of the stream not yet handed to any worker (num_pending; absent while no worker has made the consumer).', readBus, (b) => b?.consumer?.pending)
probed('herald_jetstream_consumer_ack_pending_messages', 'Messages (batches of events) handed to workers and not yet acknowledged (num_ack_pending).', readBus, (b) => b?.consumer?.ackPending)
probed('herald_jetstream_consumer_redelivered_messages', 'Messages (batches of events) redelivered and not yet acknowledged (num_redelivered).', readBus, (b) => b?.consumer?.redelivered)
probed('herald_jetstream_consumer_waiting_pulls', 'Pull requests of workers waiting for messages (num_waiting).', readBus, (b) => b?.consumer?.waiting)
probed('herald_jetstream_consumer_delivered_sequence', 'Deliveries of the consumer to workers so far, redeliveries included (its delivered consumer sequence): it stands still while no worker takes anything.', readBus, (b) => b?.consumer?.delivered)

/** A gauge over the running Heralds of this process that have the part (summed, or their mean); none: no sample. */
const local = (name: string, help: string, value: (s: MetricSource) => number | undefined, mean = false) =>
  scrapedGauge(name, help, () => {
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

// ------------------------------------------------------------- circuits

// Series of herald_destination_circuit_state at most: the hosts whose circuit
// opened first, then one host="_other" for the rest. A label per host, not
// per router (a router is a workspace's) and not unbounded.
export const CIRCUIT_HOSTS_SHOWN = 20
export const CIRCUIT_OTHER_HOSTS = '_other'
/** The circuits of every fan-out of this process, hosts capped (opened first first, then "_other"); null when none delivers. */
export function circuitSummary(now = Date.now()) {
  const fanouts = [...sources].flatMap((s) => (s.fanout ? [s.fanout] : []))
  if (!fanouts.length) return null
  const hosts: CircuitSummary['hosts'] = new Map()
  let open = 0
  let halfOpen = 0
  for (const f of fanouts) {
    const c = f.circuits?.(now)
    if (!c) continue
    open += c.open
    halfOpen += c.halfOpen
    for (const [host, x] of c.hosts) {
      const h = hosts.get(host)
      hosts.set(host, { value: Math.max(h?.value ?? 0, x.value), openedAt: Math.min(h?.openedAt ?? Infinity, x.openedAt) })
    }
  }
  const byHost = [...hosts].sort(([a, x], [b, y]) => x.openedAt - y.openedAt || (a < b ? -1 : 1)).map(([host, { value }]) => ({ host, value }))
  const shown = byHost.slice(0, CIRCUIT_HOSTS_SHOWN)
  const rest = byHost.slice(CIRCUIT_HOSTS_SHOWN)
  if (rest.length) shown.push({ host: CIRCUIT_OTHER_HOSTS, value: Math.max(...rest.map((h) => h.value)) })
  return { hosts: shown, open, halfOpen }
}

new Gauge({
  name: 'herald_destination_circuit_state',
  help: `Circuit of the destinations on a host, in this process's delivery threads: 0 closed (again), 1 open (sends held back), 2 half-open (a trial send may go); the worst of its routers. Only hosts whose circuit opened in the last minutes, at most ${CIRCUIT_HOSTS_SHOWN}, the rest as host="${CIRCUIT_OTHER_HOSTS}".`,
  labelNames: ['host'] as const,
  registers,
  collect() {
    this.reset()
    for (const { host, value } of circuitSummary()?.hosts ?? []) this.set({ host }, value)
  },
})
new Gauge({
  name: 'herald_destination_circuits',
  help: 'Routers whose circuit is open (state="open") or half-open (state="half_open") in this process\'s delivery threads.',
  labelNames: ['state'] as const,
  registers,
  collect() {
    this.reset()
    const c = circuitSummary()
    if (!c) return
    this.set({ state: 'open' }, c.open)
    this.set({ state: 'half_open' }, c.halfOpen)
  },
})
