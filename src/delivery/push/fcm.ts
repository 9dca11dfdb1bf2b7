// FCM HTTP v1: one POST .../messages:send per push, authorised with an OAuth2
// access token of the service account (google_token.ts: an RS256-signed JWT
// assertion exchanged at the token endpoint, GOOGLE_OAUTH_TOKEN_URL).
//
// One access token per process: the main thread gets it and hands it to
// every pool thread with its tasks (a thread falls back to a token of its own
// when FCM refuses it). Each token is reused until shortly before it expires.
import type { EventView } from '../event_view'
import type { FcmConfig, PushJob, PushResult } from './job'
import { parseRetryAfter, preview } from '../outbound'
import { AccessTokens, TokenError } from './google_token'
import { apnsEventHeaders, apsLevel } from './apns'
import { priorityOf } from '../priority'
import { ttlLeft } from '../expiry'

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging'
// When the job names none: DELIVERY_TIMEOUT_MS's default (and per token request).
const TIMEOUT_MS = 10_000
// Firebase asks senders to back off at least a minute after a quota error
// ("wait at least one minute before retrying", FCM error codes).
const QUOTA_BACKOFF_MS = 60_000

const clients = new Map<string, AccessTokens>()

function authClient(config: FcmConfig): AccessTokens {
  const account = config.serviceAccount
  // The key text itself is part of the map key (a digest of it would cost a
  // hash per push); a map lookup of a 2 KB string only compares it.
  const id = `${config.tokenUrl}\n${account.client_email}\n${account.private_key}`
  let client = clients.get(id)
  if (!client) {
    client = new AccessTokens({ account, tokenUrl: config.tokenUrl, scope: SCOPE, timeoutMs: TIMEOUT_MS })
    clients.set(id, client)
  }
  return client
}

/**
 * The FCM v1 request body for an event. `data` values must be strings.
 * `android` carries the priority, the ttl (what is left of it) and the
 * collapse key; `apns`, for the iOS devices FCM pushes, the APNs headers and
 * interruption level of the same priority (apns.ts).
 */
export function fcmMessage(event: EventView, token: string, opts: { critical?: boolean; now?: number } = {}) {
  const now = opts.now ?? Date.now()
  const data: Record<string, string> = { eventId: event.eventId, workspace: event.workspace, channel: event.channel, priority: String(event.priority ?? 3) }
  if (event.link !== null) data.link = event.link
  const row = priorityOf(event)
  const left = ttlLeft(event, now)
  return {
    message: {
      token,
      notification: { title: event.title ?? event.event ?? 'New event', body: event.message },
      data,
      android: {
        priority: row.fcmPriority,
        // The collapse key replaces an older notification with the same key;
        // without one, a retried delivery replaces its own notification.
        collapse_key: event.collapseKey ?? event.eventId,
        ...(left === null ? {} : { ttl: `${Math.max(0, left)}s` }),
        notification: { notification_priority: row.notificationPriority },
      },
      apns: { headers: apnsEventHeaders(event, now), payload: { aps: apsLevel(event, opts.critical) } },
    },
  }
}

interface FcmError {
  status?: string // google.rpc status, e.g. NOT_FOUND
  code?: string // FcmError errorCode from details, e.g. UNREGISTERED
}

function fcmError(body: string): FcmError {
  try {
    const error = (JSON.parse(body) as { error?: { status?: unknown; details?: { errorCode?: unknown }[] } }).error
    const code = error?.details?.find((d) => typeof d?.errorCode === 'string')?.errorCode as string | undefined
    return { status: typeof error?.status === 'string' ? error.status : undefined, code }
  } catch {
    return {}
  }
}

/**
 * What a push makes of FCM's answer (docs/push.md, "Errors"):
 * 2xx is delivered; UNREGISTERED means the token is dead; quota errors retry
 * after at least a minute; 5xx retry; every other 4xx is permanent.
 */
export function classifyFcm(status: number, body: string, retryAfter: string | null, durationMs: number): PushResult {
  if (status >= 200 && status < 300) return { ok: true, retryable: false, status, durationMs }
  const { status: rpc, code } = fcmError(body)
  const reason = code ?? rpc
  // Only an answer in FCM's own words deletes a device: a bare 404 from a
  // misconfigured FCM_ORIGIN (or a proxy) must not wipe every token.
  const unregistered = code === 'UNREGISTERED' || (status === 404 && rpc === 'NOT_FOUND')
  const quota = status === 429 || reason === 'QUOTA_EXCEEDED' || rpc === 'RESOURCE_EXHAUSTED'
  let retryAfterMs = parseRetryAfter(retryAfter)
  if (quota) retryAfterMs = Math.max(QUOTA_BACKOFF_MS, retryAfterMs ?? 0)
  return {
    ok: false,
    retryable: !unregistered && (quota || status >= 500),
    status,
    ...(reason ? { reason } : {}),
    ...(unregistered ? { unregistered } : {}),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    durationMs,
    error: `FCM answered ${status}${reason ? ` ${reason}` : body ? `: ${preview(body, 200)}` : ''}`,
  }
}

/** A token failure: the endpoint's 4xx (bad key, revoked account) is permanent; the rest may pass. */
function tokenFailure(err: unknown, durationMs: number): PushResult {
  const status = err instanceof TokenError ? err.status : undefined
  // No answer, or one that may pass: retried. A refusal of the account is not.
  const retryable = typeof status !== 'number' || status === 408 || status === 429 || status >= 500
  return { ok: false, retryable, durationMs, error: `cannot get an FCM access token: ${(err as Error).message ?? String(err)}` }
}

async function post(url: string, accessToken: string, body: string, timeoutMs: number, ca: string[] | undefined): Promise<Response> {
  // Plain fetch: the FCM origin is operator configuration, not user input,
  // so it does not go through the SSRF-hardened client.
  return fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json; charset=utf-8' },
    body,
    signal: AbortSignal.timeout(timeoutMs),
    ...(ca && url.startsWith('https:') ? { tls: { ca } } : {}),
  })
}

// A shared token this close to its expiry is not handed on: a thread gets its own.
const TOKEN_MARGIN_MS = 60_000
// Shared tokens FCM refused on this thread.
const refused = new Set<string>()

/** The access token of this process, for the pool's threads; null when it cannot be had (each push then reports why). `ca`: as PushJob.ca. */
export async function sharedAccessToken(config: FcmConfig, ca?: string[]): Promise<{ token: string; expiresAt: number } | null> {
  try {
    const { token, expiresAt } = await authClient(config).get(ca)
    return expiresAt - Date.now() > TOKEN_MARGIN_MS ? { token, expiresAt } : null
  } catch {
    return null
  }
}

/** Sends one push to one FCM device; never throws. */
export async function sendFcm(job: PushJob): Promise<PushResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const config = job.fcm
  if (!config) return { ok: false, retryable: false, durationMs: 0, error: 'FCM is not configured (FCM_SERVICE_ACCOUNT_FILE)' }
  const timeoutMs = job.timeoutMs ?? TIMEOUT_MS
  const url = `${config.origin.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(config.serviceAccount.project_id)}/messages:send`
  const body = JSON.stringify(fcmMessage(job.event, job.device.token, { critical: config.critical }))
  const client = authClient(config)
  for (let attempt = 1; ; attempt++) {
    let accessToken: string
    const shared = config.shared
    if (shared && !refused.has(shared.token) && shared.expiresAt - Date.now() > TOKEN_MARGIN_MS) accessToken = shared.token
    else {
      try {
        accessToken = (await client.get(job.ca)).token
      } catch (err) {
        return tokenFailure(err, elapsed())
      }
    }
    let res: Response
    let text: string
    try {
      res = await post(url, accessToken, body, timeoutMs, job.ca)
      text = await res.text()
    } catch (err) {
      const e = err as Error
      const error = e.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : `network error talking to FCM: ${e.message}`
      return { ok: false, retryable: true, durationMs: elapsed(), error }
    }
    const result = classifyFcm(res.status, text, res.headers.get('retry-after'), elapsed())
    // 401: our access token was revoked or expired early. Get a new one and
    // try once more, now. THIRD_PARTY_AUTH_ERROR is the app's APNs
    // credentials in Firebase, which a new token does not fix.
    if (attempt === 1 && res.status === 401 && result.reason !== 'THIRD_PARTY_AUTH_ERROR') {
      if (accessToken === shared?.token) {
        if (refused.size > 100) refused.clear()
        refused.add(accessToken)
      } else client.expire(accessToken)
      continue
    }
    return result
  }
}

/** Forgets every cached client and token of this thread (tests). */
export function resetFcmClients(): void {
  clients.clear()
}
