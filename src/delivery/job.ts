// The plain, serialisable job a worker thread receives for one delivery
// attempt, and the result it returns. An expected failure (a 500, a refused
// address, a timeout) is a result with ok: false, never a throw.
import type { Destination } from './destinations'
import type { DestinationJob, Endpoints } from './destinations/destination'
import type { DeliveryResult, OutboundOptions } from './outbound'
import type { Template } from './template'
import type { ApnsConfig, FcmConfig, PushResult, PushTarget, WebPushConfig } from './push/job'
import type { CircuitOptions, CircuitReport } from './circuit'
import type { EventView } from './event_view'
import type { ChannelKey } from '../core/channel_key'
import type { ReceiptNotice } from './receipt_notice'
import type { Digest, Throttle } from './router_windows'
import type { DigestBatch } from './destinations/destination'

/** An enabled router as a delivery needs it: destination and signing secret decrypted. */
export interface RouterSpec {
  id: string
  name: string
  pattern: string
  destination: Destination // decrypted
  template?: Template
  signingSecret: string // whsec_…, used by webhook destinations
  minPriority?: number // 2-5: only events at or above it (absent: every event)
  throttle?: Throttle // at most `limit` deliveries per `per` seconds and rendered key (router_windows.ts)
  digest?: Digest // its events gathered per rendered key and sent as one delivery
}

export type { DeliveryResult, Endpoints, OutboundOptions }

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

/** One attempt of one router delivery: what a destination type sees (DestinationJob), and the router's destination. */
export interface DeliveryJob extends DestinationJob {
  router: Omit<RouterSpec, 'pattern'>
}

export type DeliveryKind = 'router' | 'push' | 'receipt' | 'digest' // receipt: a router told that a receipt of an event it forwarded ended; digest: a router's gathered events, as one delivery (digest.ts)

/** One delivery to make: an attempt of (event, router) or (event, device). */
export interface Planned {
  id: string
  event: number // index into SendTask.events
  kind: DeliveryKind
  target: string // router id or device id
  attempt: number // 1-based
  router?: RouterSpec
  device?: PushTarget
  receipt?: ReceiptNotice // kind 'receipt': the receipt's new state
  digest?: DigestBatch // kind 'digest': the gathered events (the task's `event` is the first of them)
}

/** A pool task (workers/send.ts): the deliveries of a batch of events, first attempts or retries. */
export interface SendTask {
  events: (EventView | string)[] // a string is the view as JSON (as JetStream carries it)
  /** First attempts: every router of events[i]'s workspace whose pattern matches, and every device of its channel. */
  match?: {
    workspace: number[] // per event
    routers: Record<string, RouterSpec[]> // by workspace id
    devices: Record<ChannelKey, PushTarget[]> // by channel (channelKey)
    only?: Record<number, PushTarget[]> // per event (index into events) pushed to some of its channel's devices only: those
    skip: string[] // delivery ids that already exist (a redelivered event)
  }
  /** Or exactly these deliveries: retries and replays. */
  planned?: Planned[]
  config: SendConfig
}

/** One delivery's attempt, as a pool task returns it. */
export interface Sent {
  id: string
  event: number
  kind: DeliveryKind
  target: string
  destination: string // the router's destination type (webhook, slack, …) or the push provider (apns, fcm, webpush): a metrics label
  attempt: number
  startedAt: number // epoch ms
  /** `expired`: not sent, its event being older than its ttl (src/delivery/expiry.ts); the delivery ends `expired`. */
  result: DeliveryResult & Pick<PushResult, 'unregistered' | 'reason'> & { expired?: boolean }
  /** The router's circuit in this thread when it is not closed, or was not before this send (its closing is news too); absent otherwise. */
  circuit?: CircuitReport
}
