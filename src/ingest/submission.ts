// What POST /event hands the write path, and what comes back: the submission
// of one event and its outcome (accepted, replayed, limited, …).
import type { Principal } from './auth'
import type { NormalizedEvent } from './event'

export interface Submission {
  principal: Principal
  id: string // UUIDv7
  createdAt: Date // the timestamp inside the UUIDv7
  channel: string
  event: NormalizedEvent
  changes: string[]
  idempotency?: { key: string; hash: string } // hash: hex SHA-256 of the raw body
  receipt?: string | null // a UUIDv7 when the event has `ack`: its receipt's id
  recipients?: string[] | null // the members' user ids its `to` resolved to (src/ingest/recipients.ts)
}

export interface SubmitResult {
  workspace: string
  channel: string
  eventId: string
  remainingQuota: number
  receipt?: string
  scheduledFor?: string // ISO 8601, when the event is scheduled
  errors?: string[]
}

export interface RateState {
  limit: number // the bucket's burst
  remaining: number // whole tokens left
  reset: number // seconds until the bucket is full again
}

export type Outcome =
  | { kind: 'accepted'; body: SubmitResult; rate: RateState }
  | { kind: 'replayed'; body: SubmitResult; rate: RateState }
  | { kind: 'limited'; reason: 'quota' | 'rate'; retryAfter: number; rate: RateState }
  | { kind: 'idempotency-mismatch' }
  | { kind: 'channel-limit'; max: number } // the event named a new channel past the workspace's limit
  | { kind: 'unknown-workspace' }
  | { kind: 'receipt-limit'; max: number } // the workspace has its most pending receipts
  | { kind: 'escalation-channel'; index: number; channel: string } // ack.escalate[index] names a channel the workspace lacks
  | { kind: 'schedule-limit'; max: number } // the workspace has its most scheduled events

export function resultBody(s: Submission, remainingQuota: number): SubmitResult {
  const body: SubmitResult = { workspace: s.principal.workspace, channel: s.channel, eventId: s.id, remainingQuota }
  if (s.receipt) body.receipt = s.receipt
  if (s.event.scheduledFor) body.scheduledFor = s.createdAt.toISOString()
  if (s.changes.length) body.errors = s.changes
  return body
}

export const rateState = (tokens: number, rate: number, burst: number): RateState => ({
  limit: burst,
  remaining: Math.max(0, Math.floor(tokens)),
  reset: Math.max(0, Math.ceil((burst - tokens) / rate)),
})
