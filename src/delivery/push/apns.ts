// A thin APNs client: token-based auth (ES256 JWT) over node:http2.
//
// Why not the `apns2` package: it is broken under Bun (Bun swaps its undici
// import, and `res.statusCode` comes back undefined) and it hard-codes port
// 443, so it cannot reach a local stand-in (APNS_ORIGIN). node:http2 works
// well under Bun, and APNs needs little more than one POST per push, so this
// replaces apns2.
//
// One provider JWT per process, signed by the main thread and handed to every
// pool thread with its tasks, and one HTTP/2 session per origin and thread,
// reused across tasks. Apple asks for both: a new connection per push, or new
// tokens more often than every 20 minutes, gets a provider throttled.
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2'
import { createPrivateKey, sign, type KeyObject } from 'node:crypto'
import type { EventView } from '../event_view'
import type { ApnsConfig, PushJob, PushResult } from './job'
import { parseRetryAfter, preview } from '../outbound'
import { ELLIPSIS, fitText, jsonBytes } from './payload'
import { priorityOf } from '../priority'
import { ttlLeft } from '../expiry'

export const APNS_HOSTS = {
  production: 'https://api.push.apple.com',
  sandbox: 'https://api.sandbox.push.apple.com',
} as const

// APNs answers 413 PayloadTooLarge above 4 KiB for an alert push.
export const MAX_PAYLOAD_BYTES = 4096
// APNs rejects a provider token older than 60 min (ExpiredProviderToken) and
// answers TooManyProviderTokenUpdates when one is renewed more often than
// every 20 min: 50 min keeps clear of both.
const JWT_TTL_MS = 50 * 60_000
// APNs advertises up to 1000 concurrent streams per connection; beyond this
// many the tasks of one thread queue rather than flood one connection.
const MAX_STREAMS = 500
// When the job names none: DELIVERY_TIMEOUT_MS's default, queueing for a stream included.
const TIMEOUT_MS = 10_000
// Apple keeps an undeliverable notification (device off) this long.
const EXPIRATION_S = 24 * 60 * 60
const COLLAPSE_ID_MAX_BYTES = 64 // APNs: apns-collapse-id "must not exceed 64 bytes"
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
// Reasons a fresh provider token may cure, so worth exactly one retry.
const TOKEN_REASONS = new Set(['ExpiredProviderToken', 'InvalidProviderToken'])

/** The origin a device's pushes go to: APNS_ORIGIN when set, else Apple's host for its environment. */
export function apnsOrigin(environment: 'sandbox' | 'production', config: Pick<ApnsConfig, 'origin'>): string {
  return config.origin ?? APNS_HOSTS[environment]
}


// ---------------------------------------------------------------- provider token

const tokens = new Map<string, { jwt: string; at: number }>()
const keys = new Map<string, KeyObject>()
// Shared tokens APNs refused on this thread; the thread signs its own instead.
const refused = new Set<string>()

/** The provider JWT for this key and when it was signed: reused for `jwtTtlMs`, then signed anew. */
export function signedProviderToken(config: ApnsConfig, now: number = Date.now()): { jwt: string; at: number } {
  const id = `${config.teamId}/${config.keyId}`
  const hit = tokens.get(id)
  if (hit && now - hit.at < (config.jwtTtlMs ?? JWT_TTL_MS)) return hit
  let key = keys.get(config.keyPem)
  if (!key) keys.set(config.keyPem, (key = createPrivateKey(config.keyPem)))
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const unsigned = `${part({ alg: 'ES256', kid: config.keyId })}.${part({ iss: config.teamId, iat: Math.floor(now / 1000) })}`
  // JWS wants the raw r||s signature (IEEE P1363), not node's default DER.
  const signature = sign('sha256', Buffer.from(unsigned), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')
  const token = { jwt: `${unsigned}.${signature}`, at: now }
  tokens.set(id, token)
  return token
}

/** The token a push uses: the process's shared one while it is fresh and not refused, else this thread's own. */
export function providerToken(config: ApnsConfig, now: number = Date.now()): string {
  const shared = config.shared
  if (shared && !refused.has(shared.jwt) && now - shared.at < (config.jwtTtlMs ?? JWT_TTL_MS)) return shared.jwt
  return signedProviderToken(config, now).jwt
}

/** Forgets `jwt` if it is still the current token; concurrent rejections of one token renew it once. */
function dropProviderToken(config: ApnsConfig, jwt: string): void {
  const id = `${config.teamId}/${config.keyId}`
  if (tokens.get(id)?.jwt === jwt) tokens.delete(id)
  if (config.shared?.jwt === jwt) {
    if (refused.size > 100) refused.clear()
    refused.add(jwt)
  }
}

// ---------------------------------------------------------------- payload

/**
 * The `aps` dictionary's sound and interruption level for the event's
 * priority. Passive makes no sound. `critical` (priority 5 with
 * APNS_CRITICAL_PRIORITY5) rings through the mute switch and Do Not Disturb,
 * and needs Apple's Critical Alerts entitlement in the app (granted by Apple
 * on request): an app without it gets no critical alert, so it is off by default.
 */
export function apsLevel(event: Pick<EventView, 'priority'>, critical = false): { sound?: unknown; 'interruption-level': string } {
  const row = priorityOf(event)
  if (critical && row.name === 'urgent') return { sound: { critical: 1, name: 'default', volume: 1 }, 'interruption-level': 'critical' }
  return row.interruptionLevel === 'passive' ? { 'interruption-level': 'passive' } : { sound: 'default', 'interruption-level': row.interruptionLevel }
}

function buildPayload(event: EventView, title: string, body: string, link: string | null, critical: boolean): string {
  return JSON.stringify({
    aps: { alert: { title, body }, ...apsLevel(event, critical) },
    eventId: event.eventId,
    workspace: event.workspace,
    channel: event.channel,
    ...(link === null ? {} : { link }),
  })
}

/**
 * The APNs JSON for an event, at most MAX_PAYLOAD_BYTES: an oversized push
 * is cut, never refused. The body gives way first; if even "…" does not fit,
 * the link goes (half a link is no link), then the title is cut.
 */
export function apnsPayload(event: EventView, critical = false): string {
  let title = event.title ?? event.event ?? 'New event'
  let link = event.link
  const build = (t: string, body: string, l: string | null) => buildPayload(event, t, body, l, critical)
  const full = build(title, event.message, link)
  if (Buffer.byteLength(full) <= MAX_PAYLOAD_BYTES) return full
  const size = () => Buffer.byteLength(build(title, ELLIPSIS, link))
  if (size() > MAX_PAYLOAD_BYTES) link = null
  if (size() > MAX_PAYLOAD_BYTES) title = fitText(title, jsonBytes(title) - (size() - MAX_PAYLOAD_BYTES))
  const room = MAX_PAYLOAD_BYTES - Buffer.byteLength(build(title, '', link))
  return build(title, fitText(event.message, room), link)
}

// ---------------------------------------------------------------- sessions

interface Session {
  h2: ClientHttp2Session
  limit: number // streams we may open; 0 until the server's SETTINGS arrive
  active: number
  waiting: ((outcome: 'granted' | 'retry' | 'failed') => void)[]
  error?: string
}

const sessions = new Map<string, Session>()

/** `ca`: the job's (PushJob.ca); absent, the runtime's trust. A session keeps the one it opened with. */
function openSession(origin: string, ca: string[] | undefined): Session {
  const h2 = connect(origin, ca ? { ca } : {})
  const s: Session = { h2, limit: 0, active: 0, waiting: [] }
  // Streams opened before the server's SETTINGS arrive are refused once it
  // turns out to allow fewer (Bun's client does not hold them back), and a
  // server may change its limit at any time (APNs raises it once a token is
  // accepted): follow every SETTINGS frame.
  h2.on('remoteSettings', (settings) => {
    s.limit = Math.min(MAX_STREAMS, settings.maxConcurrentStreams ?? MAX_STREAMS)
    grant(s)
  })
  // GOAWAY, an error or a close: new streams go to a fresh session; the ones
  // in flight finish or fail on their own. A session that never came up
  // (refused, bad certificate) fails its waiters instead: reconnecting at
  // once would only spin.
  const retire = () => {
    if (sessions.get(origin) === s) sessions.delete(origin)
    for (const waiter of s.waiting.splice(0)) waiter(s.limit ? 'retry' : 'failed')
  }
  h2.on('goaway', retire)
  h2.on('error', (err: Error) => {
    s.error ??= err.message
    retire()
  })
  h2.on('close', retire)
  // An idle session must not keep a worker thread (or a test) alive.
  h2.unref()
  sessions.set(origin, s)
  return s
}

function grant(s: Session): void {
  while (s.active < s.limit && s.waiting.length) {
    s.active++
    s.waiting.shift()!('granted')
  }
}

function release(s: Session): void {
  s.active--
  grant(s)
}

/** A session with a stream slot taken for the caller, or why there is none. */
function acquire(origin: string, deadline: number, ca: string[] | undefined): Promise<Session | { failed: string }> {
  let s = sessions.get(origin)
  if (!s || s.h2.closed || s.h2.destroyed) s = openSession(origin, ca)
  if (s.active < s.limit && !s.waiting.length) {
    s.active++
    return Promise.resolve(s)
  }
  const session = s
  return new Promise((resolve) => {
    const waiter = (outcome: 'granted' | 'retry' | 'failed') => {
      clearTimeout(timer)
      if (outcome === 'granted') resolve(session)
      else if (outcome === 'retry') resolve(acquire(origin, deadline, ca))
      else resolve({ failed: `cannot connect to APNs at ${origin}: ${session.error ?? 'connection closed'}` })
    }
    const timer = setTimeout(() => {
      session.waiting.splice(session.waiting.indexOf(waiter), 1)
      resolve({ failed: 'timed out waiting for an APNs stream' })
    }, Math.max(0, deadline - Date.now()))
    session.waiting.push(waiter)
  })
}

/** Closes every session of this thread (shutdown, tests). */
export function closeApnsSessions(): void {
  for (const s of sessions.values()) s.h2.close()
  sessions.clear()
}

// ---------------------------------------------------------------- exchange

type Answer = { ok: true; status: number; headers: IncomingHttpHeaders; body: string } | { ok: false; error: string }

/** One request on one stream of a session whose slot the caller holds. */
function streamRequest(s: Session, headers: OutgoingHttpHeaders, body: string, deadline: number): Promise<Answer> {
  return new Promise((resolve) => {
    let done = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = (a: Answer) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(a)
    }
    let req: ReturnType<ClientHttp2Session['request']>
    try {
      req = s.h2.request(headers)
    } catch (err) {
      return finish({ ok: false, error: `APNs connection closed: ${(err as Error).message}` }) // GOAWAY under us
    }
    timer = setTimeout(() => {
      req.close(constants.NGHTTP2_CANCEL)
      finish({ ok: false, error: 'timed out talking to APNs' })
    }, Math.max(0, deadline - Date.now()))
    let status = 0
    let answered: IncomingHttpHeaders = {}
    const chunks: Buffer[] = []
    req.on('response', (h) => {
      status = Number(h[':status'])
      answered = h
    })
    req.on('data', (c: Buffer) => chunks.length < 16 && chunks.push(c)) // APNs bodies are a few bytes
    req.on('end', () => finish({ ok: true, status, headers: answered, body: Buffer.concat(chunks).toString('utf8') }))
    req.on('error', (err: Error) => finish({ ok: false, error: `network error talking to APNs: ${err.message}` }))
    req.on('close', () => finish({ ok: false, error: `network error talking to APNs: stream closed (code ${req.rstCode})` }))
    req.end(body)
  })
}

// A failed exchange is not resent here, not even a refused stream: the
// delivery's schedule retries at once, and one attempt stays one request.
async function exchange(origin: string, headers: OutgoingHttpHeaders, body: string, timeoutMs: number, ca: string[] | undefined): Promise<Answer> {
  const deadline = Date.now() + timeoutMs
  const s = await acquire(origin, deadline, ca)
  if ('failed' in s) return { ok: false, error: s.failed }
  try {
    return await streamRequest(s, headers, body, deadline)
  } finally {
    release(s)
  }
}

// ---------------------------------------------------------------- the task

/**
 * `apns-expiration`: until when Apple keeps the push for a device that is
 * off. The event's ttl (what is left of it): now plus that, or 0 ("deliver
 * once, now, and keep nothing") when none is left; without a ttl, a day.
 */
export function apnsExpiration(event: Pick<EventView, 'createdAt' | 'ttl'>, now: number = Date.now()): string {
  const left = ttlLeft(event, now)
  if (left === null) return String(Math.floor(now / 1000) + EXPIRATION_S)
  return left <= 0 ? '0' : String(Math.floor(now / 1000) + left)
}

/** The APNs headers an event's priority, ttl and collapse key make (FCM's `apns` block carries them too). */
export function apnsEventHeaders(event: EventView, now: number = Date.now()): Record<string, string> {
  // The collapse key replaces an older notification with the same key on the
  // device; without one, a retried delivery replaces its own banner instead
  // of stacking a second one.
  const collapse = event.collapseKey ?? event.eventId
  return {
    'apns-priority': priorityOf(event).apnsPriority,
    'apns-expiration': apnsExpiration(event, now),
    ...(Buffer.byteLength(collapse) <= COLLAPSE_ID_MAX_BYTES ? { 'apns-collapse-id': collapse } : {}),
  }
}

function requestHeaders(job: PushJob, config: ApnsConfig, jwt: string): OutgoingHttpHeaders {
  const { device, event } = job
  return {
    ':method': 'POST',
    ':path': `/3/device/${encodeURIComponent(device.token)}`,
    authorization: `bearer ${jwt}`,
    'apns-topic': device.topic ?? config.topic,
    'apns-push-type': 'alert',
    'content-type': 'application/json',
    ...apnsEventHeaders(event),
    // APNs answers BadMessageId to anything but a UUID.
    ...(UUID.test(job.deliveryId) ? { 'apns-id': job.deliveryId } : {}),
  }
}

const reasonOf = (body: string): string | undefined => {
  try {
    const reason = (JSON.parse(body) as { reason?: unknown }).reason
    return typeof reason === 'string' ? reason : undefined
  } catch {
    return undefined
  }
}

/**
 * What a push makes of APNs' answer (docs/push.md, "Errors"):
 * 200 is delivered; 410 and BadDeviceToken mean the token is dead (delete the
 * device, do not retry); 429 and 5xx retry; every other 4xx is permanent.
 */
export function classifyApns(status: number, body: string, retryAfter: string | undefined, durationMs: number): PushResult {
  if (status === 200) return { ok: true, retryable: false, status, durationMs }
  const reason = reasonOf(body)
  const retryAfterMs = parseRetryAfter(retryAfter)
  const unregistered = status === 410 || reason === 'BadDeviceToken' || reason === 'Unregistered'
  return {
    ok: false,
    retryable: !unregistered && (status === 429 || status >= 500),
    status,
    ...(reason ? { reason } : {}),
    ...(unregistered ? { unregistered } : {}),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    durationMs,
    error: `APNs answered ${status}${reason ? ` ${reason}` : body ? `: ${preview(body, 200)}` : ''}`,
  }
}

/** Sends one alert push to one APNs device; never throws. */
export async function sendApns(job: PushJob): Promise<PushResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const config = job.apns
  if (!config) return { ok: false, retryable: false, durationMs: 0, error: 'APNs is not configured (APNS_KEY_FILE)' }
  const origin = apnsOrigin(job.device.environment, config)
  const payload = apnsPayload(job.event, config.critical)
  for (let attempt = 1; ; attempt++) {
    let jwt: string
    try {
      jwt = providerToken(config)
    } catch (err) {
      return { ok: false, retryable: false, durationMs: elapsed(), error: `cannot sign the APNs provider token: ${(err as Error).message}` }
    }
    const answer = await exchange(origin, requestHeaders(job, config, jwt), payload, job.timeoutMs ?? TIMEOUT_MS, job.ca)
    if (!answer.ok) return { ok: false, retryable: true, durationMs: elapsed(), error: answer.error }
    const retryAfter = answer.headers['retry-after']
    const result = classifyApns(answer.status, answer.body, Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, elapsed())
    // An expired or rejected token: sign a new one and try once more, now.
    if (attempt === 1 && answer.status === 403 && TOKEN_REASONS.has(result.reason ?? '')) {
      dropProviderToken(config, jwt)
      continue
    }
    return result
  }
}
