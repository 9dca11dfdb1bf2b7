// The plain, serialisable job a worker thread receives for one delivery
// attempt, and the result it returns. An expected failure (a 500, a refused
// address, a timeout) is a result with ok: false, never a throw.
import type { Destination, Template } from './destinations/schema'
import type { ApnsConfig, FcmConfig, WebPushConfig } from './push/job'
import type { CircuitOptions } from './circuit'
import type { EventView } from './event_view'

export interface OutboundOptions {
  allow: string[] // CIDRs exempt from the SSRF rules (HERALD_OUTBOUND_ALLOW)
  timeoutMs: number // whole request, connect to last byte (DELIVERY_TIMEOUT_MS)
  maxResponseBytes: number // read at most this much of a response
}

/** An enabled router as a delivery needs it: destination and signing secret decrypted. */
export interface RouterSpec {
  id: string
  name: string
  pattern: string
  destination: Destination // decrypted
  template?: Template
  signingSecret: string // whsec_…, used by webhook destinations
}

export interface Endpoints {
  telegram: string // TELEGRAM_API_URL, e.g. https://api.telegram.org
  twilio: string // TWILIO_API_URL, e.g. https://api.twilio.com
  smtpUrl?: string // SMTP_URL, default server of e-mail destinations
  smtpFrom?: string // SMTP_FROM
}

/** What every delivery of a worker process shares: limits, endpoints and push credentials. */
export interface SendConfig {
  maxInFlight: number // sends at once per thread: WORKER_CONCURRENCY ÷ WORKER_THREADS
  circuit: CircuitOptions // per router, per thread
  outbound: OutboundOptions
  endpoints: Endpoints
  apns?: ApnsConfig
  fcm?: FcmConfig
  webpush?: WebPushConfig
}

export interface DeliveryJob {
  deliveryId: string // stable across attempts and duplicates: the webhook-id
  attempt: number // 1-based
  event: EventView
  router: Omit<RouterSpec, 'pattern'>
  outbound: OutboundOptions
  endpoints: Endpoints
}

export interface DeliveryResult {
  ok: boolean
  retryable: boolean // meaningful when !ok: 408, 429, 5xx, network errors and timeouts
  status?: number // HTTP status (or SMTP reply code) when one was received
  retryAfterMs?: number // from Retry-After, when the receiver sent one
  durationMs: number
  response?: string // the response body, truncated to 1 KiB
  error?: string // why it failed, readable by an operator
  /** Not sent: the destination's circuit held it back (src/delivery/circuit.ts). Not an attempt: no attempt row, and none of the schedule's attempts used. */
  held?: 'circuit_open' | 'busy'
}
