// The ingest metrics: batches committed and failed, events accepted and refused.
import { Counter, Histogram } from 'prom-client'
import { registers } from '../core/metrics'

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
export function batchCommitted(startedAt: number, outcomes: readonly { kind: string; reason?: string }[]) {
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

const keyLookups = new Counter({
  name: 'herald_api_key_lookups_total',
  help: 'API keys looked up in the database: a key not in the cache, or one whose cached entry expired. Compare with requests: a few per thousand once the cache is warm.',
  registers,
})
/** An API key was looked up in the database. */
export const keyLookedUp = () => keyLookups.inc()
