// Web Push (RFC 8030): one POST to the subscription's endpoint per push, its
// payload encrypted for that browser alone (aes128gcm, RFC 8291: ece.ts, an
// ECDH key pair, an ECDH and an AES-GCM per push) and signed for with VAPID
// (RFC 8292: vapid.ts, one JWT per push service and hour). It is sent
// through the SSRF-hardened client of webhooks, since the endpoint is a URL a
// browser chose: https only, no private or loopback address unless
// HERALD_OUTBOUND_ALLOW lets it. It goes over HTTP/2 where the push service
// speaks it, else over at most WEB_PUSH_CONNECTIONS_PER_ORIGIN kept-alive
// HTTP/1.1 connections (webpush_origins.ts).
import type { EventView } from '../event_view'
import { classify, send, type OutboundOptions, type OutboundResult } from '../outbound'
import { connectionsOf, viaOrigin } from './webpush_origins'
import { ELLIPSIS, fitText, jsonBytes } from './payload'
import { encryptPush, OVERHEAD_BYTES, type Receiver } from './ece'
import type { PushJob, PushResult, PushTarget, WebPushConfig } from './job'
import { vapidAuthorization } from './vapid'
import { priorityOf } from '../priority'
import { ttlLeft } from '../expiry'

/**
 * A push service takes at most 4096 bytes of body (RFC 8030 §7.2); the
 * aes128gcm header (86 bytes), the padding delimiter and the tag (17) leave
 * this much for the JSON.
 */
export const MAX_PAYLOAD_BYTES = 4096 - OVERHEAD_BYTES

/** What the service worker receives (src/web/sw.ts reads it). */
export interface WebPushPayload {
  v: 1
  eventId: string
  workspace: string
  channel: string
  event: string | null
  /** Only for an event that must be acknowledged, its receipt: the notification's "Acknowledge" action acknowledges it in `workspace`. */
  receipt?: string
  title: string
  body: string
  url: string // the event's page in the app
  createdAt: string
  priority: number // 1-5: the installed app shows 1 silent, 5 until dismissed and re-alerting
  collapseKey: string | null // the notification's tag: a newer event with the same key replaces it
}

function buildPayload(event: EventView, title: string, body: string): string {
  const payload: WebPushPayload = {
    v: 1,
    eventId: event.eventId,
    workspace: event.workspace,
    channel: event.channel,
    event: event.event,
    ...(event.receipt ? { receipt: event.receipt } : {}),
    title,
    body,
    url: `/w/${encodeURIComponent(event.workspace)}/events/${event.eventId}`,
    createdAt: event.createdAt,
    priority: event.priority ?? 3,
    collapseKey: event.collapseKey ?? null,
  }
  return JSON.stringify(payload)
}

/**
 * The JSON for an event, at most MAX_PAYLOAD_BYTES: an oversized push is cut
 * on a character boundary, never refused. The body gives way first, then
 * the title.
 */
export function webPushPayload(event: EventView): string {
  let title = event.title ?? event.event ?? 'New event'
  const full = buildPayload(event, title, event.message)
  if (Buffer.byteLength(full) <= MAX_PAYLOAD_BYTES) return full
  const size = () => Buffer.byteLength(buildPayload(event, title, ELLIPSIS))
  if (size() > MAX_PAYLOAD_BYTES) title = fitText(title, jsonBytes(title) - (size() - MAX_PAYLOAD_BYTES))
  const room = MAX_PAYLOAD_BYTES - Buffer.byteLength(buildPayload(event, title, ''))
  return buildPayload(event, title, fitText(event.message, room))
}

/**
 * The RFC 8030 headers an event makes: `TTL`, what is left of the event's
 * ttl, else WEB_PUSH_TTL_S; `Urgency` of its priority; `Topic`, its
 * collapse key (a later push with the same topic replaces this one while it
 * waits at the push service), else its id without dashes (32 characters, the
 * most a topic may have), so that a retry never makes two notifications.
 */
export function webPushEventHeaders(event: EventView, defaultTtlSeconds: number, now: number = Date.now()): { ttl: string; urgency: string; topic: string } {
  const left = ttlLeft(event, now)
  return {
    ttl: String(left === null ? defaultTtlSeconds : Math.max(0, left)),
    urgency: priorityOf(event).urgency,
    topic: event.collapseKey ?? event.eventId.replaceAll('-', ''),
  }
}

// An event's payload is the same for every browser it goes to, and a send
// task's deliveries share its event object: made once per event and task.
const payloads = new WeakMap<EventView, Buffer>()
function payloadOf(event: EventView): Buffer {
  let payload = payloads.get(event)
  if (!payload) payloads.set(event, (payload = Buffer.from(webPushPayload(event))))
  return payload
}

// The keys of the subscriptions this thread pushed to lately, decoded once:
// a channel's browsers are pushed event after event.
const RECEIVERS_MAX = 50_000
const receivers = new Map<string, Receiver>()

/** A subscription's keys as the encryption takes them, or why they are unusable. */
function receiverOf(device: PushJob['device']): Receiver | string {
  const cacheKey = `${device.p256dh}.${device.auth}`
  let to = receivers.get(cacheKey)
  if (to) return to
  const publicKey = Buffer.from(device.p256dh ?? '', 'base64url')
  const auth = Buffer.from(device.auth ?? '', 'base64url')
  if (publicKey.length !== 65 || publicKey[0] !== 4) return 'its p256dh is not an uncompressed P-256 point'
  if (auth.length !== 16) return 'its auth secret is not 16 bytes'
  to = { publicKey, auth }
  if (receivers.size >= RECEIVERS_MAX) receivers.delete(receivers.keys().next().value!) // the oldest
  receivers.set(cacheKey, to)
  return to
}

/**
 * Pushes one event to one browser. 404 and 410 mean the subscription is gone
 * (the device is deleted); 408, 429 and 5xx are retried, never sooner than
 * Retry-After; any other answer is final.
 */
export async function sendWebPush(job: PushJob, outbound: OutboundOptions): Promise<PushResult> {
  const { device, event } = job
  if (!job.webpush) return { ok: false, retryable: false, durationMs: 0, error: 'Web Push is not configured' }
  let url: URL
  try {
    url = new URL(device.token)
  } catch {
    return { ok: false, retryable: false, durationMs: 0, error: 'the subscription endpoint is not a URL' }
  }
  if (url.protocol !== 'https:') return { ok: false, retryable: false, durationMs: 0, error: 'refused: a Web Push endpoint must be https' }
  const to = receiverOf(device)
  if (typeof to === 'string') return { ok: false, retryable: false, durationMs: 0, error: `cannot encrypt for this subscription: ${to}` }
  let body: Buffer
  try {
    body = encryptPush(payloadOf(event), to)
  } catch (err) {
    return { ok: false, retryable: false, durationMs: 0, error: `cannot encrypt for this subscription: ${(err as Error).message}` }
  }
  const headers = {
    authorization: vapidAuthorization(job.webpush, url.origin),
    'content-encoding': 'aes128gcm',
    'content-type': 'application/octet-stream',
    ...webPushEventHeaders(event, job.webpush.ttlSeconds),
  }
  const outcome = await post(url, headers, body, job.webpush, { ...outbound, timeoutMs: job.timeoutMs ?? outbound.timeoutMs })
  const result = classify(outcome)
  const gone = outcome.ok && (outcome.status === 404 || outcome.status === 410)
  return {
    ok: result.ok,
    retryable: result.retryable,
    durationMs: result.durationMs,
    ...(result.status === undefined ? {} : { status: result.status }),
    ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
    ...(gone ? { unregistered: true, reason: outcome.status === 410 ? 'Gone' : 'NotFound' } : {}),
    ...(result.ok ? {} : { error: result.error + (outcome.ok && outcome.body ? `: ${result.response}` : '') }),
  }
}

/**
 * POSTs a push to its endpoint once its push service has a place for it
 * (webpush_origins.ts), over HTTP/2 or HTTP/1.1 as the service speaks. The
 * wait for a place counts toward the time limit.
 */
async function post(url: URL, headers: Record<string, string>, body: Buffer, webpush: WebPushConfig, outbound: OutboundOptions): Promise<OutboundResult> {
  const timedOut = (): OutboundResult => ({ ok: false, kind: 'timeout', error: `timed out after ${outbound.timeoutMs} ms waiting for a connection to ${url.host}`, durationMs: outbound.timeoutMs })
  return viaOrigin(url.origin, connectionsOf(webpush), outbound.timeoutMs, async (protocol, waitedMs) => {
    const timeoutMs = Math.max(1, Math.round(outbound.timeoutMs - waitedMs))
    const outcome = await send({ method: 'POST', url: url.href, headers, body, protocol }, { ...outbound, timeoutMs })
    const waited = Math.round(waitedMs)
    const result = outcome.ok || !waited ? outcome
      : { ...outcome, durationMs: outcome.durationMs + waited, ...(outcome.kind === 'timeout' ? { error: `timed out after ${outbound.timeoutMs} ms, ${waited} of them waiting for a connection` } : {}) }
    return { result, outcome: outcome.ok ? 'answered' : outcome.http2Refused ? 'http2-refused' : 'failed' }
  }, timedOut)
}

/**
 * Sends a message that shows nothing (the service worker reads `type`):
 * "dismiss" closes, on this browser, the notifications with these tags (an
 * event read on another device). Best effort: one try, no retry; a push
 * service that keeps it longer than `ttlSeconds` drops it.
 */
export async function sendWebPushMessage(device: PushTarget, message: Record<string, unknown>, webpush: WebPushConfig, outbound: OutboundOptions, ttlSeconds = 60): Promise<{ ok: boolean; gone: boolean; error?: string }> {
  let url: URL
  try {
    url = new URL(device.token)
  } catch {
    return { ok: false, gone: false, error: 'the subscription endpoint is not a URL' }
  }
  const to = receiverOf(device)
  if (url.protocol !== 'https:' || typeof to === 'string') return { ok: false, gone: false, error: typeof to === 'string' ? to : 'not https' }
  const body = encryptPush(Buffer.from(JSON.stringify(message).slice(0, MAX_PAYLOAD_BYTES)), to)
  const headers = { authorization: vapidAuthorization(webpush, url.origin), 'content-encoding': 'aes128gcm', 'content-type': 'application/octet-stream', ttl: String(ttlSeconds), urgency: 'normal' }
  const outcome = await post(url, headers, body, webpush, outbound)
  const result = classify(outcome)
  return { ok: result.ok, gone: outcome.ok && (outcome.status === 404 || outcome.status === 410), ...(result.ok ? {} : { error: result.error }) }
}
