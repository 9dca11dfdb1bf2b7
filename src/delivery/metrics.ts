// The delivery metrics: attempts by destination, and the gauges a scrape
// reads from the running pipeline (outbox, JetStream, pool, fan-out).
import { Counter, Histogram } from 'prom-client'
import type { Sql } from '../core/db'
import { enableProcessMetrics, probe, probed, registers, scrapedGauge } from '../core/metrics'
import type { BusState, EventBus } from './bus'
import type { Pool } from './pool'
import { countOutbox, type OutboxBacklog } from './relay'

// The backlog is counted over its oldest rows only, so that a scrape stays
// cheap when NATS has been away for hours: beyond this the gauges read the cap
// (the age of the oldest row keeps telling how far behind the relay is).
export const OUTBOX_COUNT_CAP = 100_000

const attempts = new Counter({
  name: 'herald_delivery_attempts_total',
  help: 'Delivery attempts by destination type (webhook, slack, …, apns, fcm, webpush) and outcome: succeeded, retry (failed, another attempt is scheduled) or failed (for good).',
  labelNames: ['type', 'outcome'] as const,
  registers,
})
const attemptSeconds = new Histogram({
  name: 'herald_delivery_attempt_duration_seconds',
  help: 'Duration of a delivery attempt, by destination type.',
  labelNames: ['type'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
})
const OUTCOMES = { succeeded: 'succeeded', pending: 'retry', failed: 'failed' } as const

/** An attempt's result: `next` is what it left its delivery in (src/delivery/retry.ts). */
export function deliveryAttempted(type: string, next: 'succeeded' | 'pending' | 'failed', durationMs: number) {
  attempts.inc({ type, outcome: OUTCOMES[next] })
  attemptSeconds.observe({ type }, durationMs / 1000)
}

const held = new Counter({
  name: 'herald_deliveries_held_total',
  help: 'Deliveries held back without a request, by destination type and reason: circuit_open (the destination failed and its circuit is open) or busy (its sends under way are at DESTINATION_CONCURRENCY). Not attempts: each is only due again later.',
  labelNames: ['type', 'reason'] as const,
  registers,
})

/** A delivery its destination's circuit held back (src/delivery/circuit.ts): rescheduled, not attempted. */
export function deliveryHeld(type: string, reason: 'circuit_open' | 'busy') {
  held.inc({ type, reason })
}

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

const readOutbox = probe('database', latest, (s): Promise<OutboxBacklog> => countOutbox(s.sql, OUTBOX_COUNT_CAP))
const readBus = probe('jetstream', latest, (s): Promise<BusState | null> => s.bus.state())

probed('herald_outbox_rows', `Outbox rows (the ledger: one per committed batch) with events whose fan-out is not recorded yet; counted up to ${OUTBOX_COUNT_CAP}.`, readOutbox, (o) => o.rows)
probed('herald_outbox_events', `Accepted events whose fan-out is not recorded yet: owed in the ledger (over the oldest ${OUTBOX_COUNT_CAP} rows).`, readOutbox, (o) => o.events)
probed('herald_outbox_oldest_age_seconds', 'Age of the oldest outbox row; 0 when the outbox is empty.', readOutbox, (o) => o.oldestAgeSeconds)

probed('herald_jetstream_stream_messages', 'Messages in the JetStream stream (events published, not yet acknowledged by a worker).', readBus, (b) => b?.stream.messages)
probed('herald_jetstream_stream_bytes', 'Bytes of the JetStream stream.', readBus, (b) => b?.stream.bytes)
probed('herald_jetstream_consumer_pending_messages', 'Messages of the stream not yet handed to any worker (num_pending; worker processes only).', readBus, (b) => b?.consumer?.pending)
probed('herald_jetstream_consumer_ack_pending_messages', 'Messages handed to workers and not yet acknowledged (num_ack_pending; worker processes only).', readBus, (b) => b?.consumer?.ackPending)
probed('herald_jetstream_consumer_redelivered_messages', 'Messages redelivered and not yet acknowledged (num_redelivered; worker processes only).', readBus, (b) => b?.consumer?.redelivered)
probed('herald_jetstream_consumer_waiting_pulls', 'Pull requests of workers waiting for messages (num_waiting; worker processes only).', readBus, (b) => b?.consumer?.waiting)

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
