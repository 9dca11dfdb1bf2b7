// A database outage as the API answers it. Every request that met one used
// to log an ERROR line with a stack (4,500 lines in 45 s) and to answer
// `Retry-After: 5` whatever the outage's age, although service came back
// about a second after PostgreSQL did (postgres.js tries again within half a
// second, src/core/db.ts). Now the 503s are counted and said in one warning
// per LOG_INTERVAL_MS, and Retry-After follows the outage: 1 s while it is
// young, then about a tenth of its age, at most RETRY_AFTER_MAX_S, so that
// clients neither hammer a long outage nor wait long after a short one.
import type { HeraldError } from './problems'
import { databaseUnavailable } from './errors'
import type { Logger } from './log'

const LOG_INTERVAL_MS = 5_000 // one line per 5 s says as much as one per request
const RETRY_AFTER_MAX_S = 10 // the longest a client waits past the end of an outage
// No 503 for this long: the outage is taken as over (the API has no other
// signal where nothing writes), and the next one starts young again.
const OVER_AFTER_MS = 5_000

/** Seconds a client should wait, for an outage `ageMs` old: 1 for the first 10 s, then a tenth of its age, at most 10. */
export const retryAfterSeconds = (ageMs: number) => Math.min(RETRY_AFTER_MAX_S, Math.max(1, Math.ceil(ageMs / 10_000)))

export interface Outage {
  /** Counts `requests` answered 503 because the database is unreachable, logs (at most once per interval), and gives the error to answer with. */
  unavailable(requests: number, err: unknown, detail: string): HeraldError
  /** The database answered: an outage, if there was one, is over. */
  recovered(): void
  /** Whether `err` is an answer unavailable() made, counted and logged already. */
  reported(err: unknown): boolean
}

const summary = (err: unknown) => {
  const e = err as { code?: string; message?: string }
  return e?.code ?? e?.message ?? String(err)
}

export function createOutage(log: Logger, now: () => number = Date.now): Outage {
  let since = 0 // when this outage began; 0: none
  let lastAt = 0
  let loggedAt = 0
  let unlogged = 0
  let total = 0
  const made = new WeakSet<object>()
  return {
    unavailable(requests, err, detail) {
      const t = now()
      if (!since || t - lastAt > OVER_AFTER_MS) {
        since = t
        loggedAt = 0
        total = 0
      }
      lastAt = t
      unlogged += requests
      total += requests
      if (!loggedAt || t - loggedAt >= LOG_INTERVAL_MS) {
        log.warn({ error: summary(err), requests: unlogged, outageMs: t - since }, 'database unavailable: requests answered 503')
        loggedAt = t
        unlogged = 0
      }
      const answer = databaseUnavailable(detail, retryAfterSeconds(t - since))
      made.add(answer)
      return answer
    },
    recovered() {
      if (!since) return
      log.info({ outageMs: now() - since, requests: total }, 'database reachable again')
      since = 0
      unlogged = 0
    },
    reported: (err) => typeof err === 'object' && err !== null && made.has(err),
  }
}
