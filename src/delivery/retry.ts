// The retry policy is data: HERALD_RETRY_SCHEDULE lists the delay before each
// attempt of a delivery (the first is usually 0s, "immediately"). Its length is
// the number of attempts; after the last one the delivery is failed. loadConfig
// parses it once (config.retryScheduleMs).

export type NextStep = { status: 'succeeded' } | { status: 'failed' } | { status: 'expired' } | { status: 'pending'; delayMs: number }

/**
 * What follows attempt number `attempt` (1-based): done, failed for good, or
 * another attempt after the schedule's delay, never sooner than the receiver's
 * Retry-After. A delivery its destination's circuit held back was not
 * attempted: it is due again as soon as the circuit may let it through,
 * whatever the schedule says, and keeps every attempt the schedule allows.
 * One not sent because its event outlived its ttl ends `expired`.
 */
export function nextStep(schedule: number[], attempt: number, result: { ok: boolean; retryable: boolean; retryAfterMs?: number; held?: string; expired?: boolean }): NextStep {
  if (result.ok) return { status: 'succeeded' }
  if (result.expired) return { status: 'expired' }
  if (result.held) return { status: 'pending', delayMs: result.retryAfterMs ?? 0 }
  if (!result.retryable || attempt >= schedule.length) return { status: 'failed' }
  return { status: 'pending', delayMs: Math.max(schedule[attempt]!, result.retryAfterMs ?? 0) }
}
