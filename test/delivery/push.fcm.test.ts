// The FCM sender against real local servers standing in for Google: an OAuth2
// token endpoint that verifies the RS256 assertion Herald signs
// with the service account's key (grant type, iss, scope, aud, lifetime), and
// an FCM v1 endpoint that checks the bearer token and the message shape and
// answers whichever FCM error the test asks for. Plain HTTP on loopback, plus
// one run over HTTPS trusted through NODE_EXTRA_CA_CERTS.
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Piscina from 'piscina'
import { fcmError, serviceAccount, startGoogle, type GoogleReply } from '../stand_ins'
import { PUSH_EVENT as EVENT, viaPool } from '../stand_ins'
import { classifyFcm, fcmMessage, resetFcmClients, sendFcm } from '../../src/delivery/push/fcm'
import type { EventView } from '../../src/delivery/event_view'
import type { FcmConfig, PushJob, PushResult } from '../../src/delivery/push/job'
import { caList } from '../../src/delivery/outbound'

const google = startGoogle()
afterAll(() => google.stop())


function fcmConfig(base: string): FcmConfig {
  return { serviceAccount: serviceAccount(`${base}/token`), origin: base, tokenUrl: `${base}/token` }
}
// The certificate authorities the jobs carry (PushJob.ca); the https test sets them.
let ca: string[] | undefined
function job(over: { event?: Partial<EventView>; fcm?: FcmConfig } = {}): PushJob {
  return {
    ...(ca ? { ca } : {}),
    deliveryId: crypto.randomUUID(),
    attempt: 1,
    event: { ...EVENT, ...over.event },
    device: { id: 'dev_2', provider: 'fcm', token: 'fcm-token-' + randomBytes(8).toString('hex'), environment: 'production', topic: null },
    fcm: over.fcm ?? fcmConfig(google.url),
  }
}


// Every test starts without a cached client, so token requests count from zero.
beforeEach(() => {
  resetFcmClients()
  Object.assign(google, { tokenCalls: 0, sends: [], script: [], tokenScript: [], problems: [] })
})
afterEach(() => expect(google.problems).toEqual([]))

describe('fcm: the request', () => {
  test('success: the exact message, with a bearer token from a signed assertion', async () => {
    const j = job()
    const result = await sendFcm(j)
    expect(result).toMatchObject({ ok: true, retryable: false, status: 200 })
    expect(google.tokenCalls).toBe(1)
    expect(google.sends).toHaveLength(1)
    const sent = google.sends[0]!
    expect(google.valid.has(sent.token)).toBe(true)
    expect(sent.headers['content-type']).toStartWith('application/json')
    expect(sent.body).toBe(JSON.stringify({
      message: {
        token: j.device.token,
        notification: { title: 'New user', body: 'Jane Doe signed up' },
        data: { eventId: EVENT.eventId, workspace: 'acme', channel: 'signups', priority: '3', link: 'https://example.com/users/42' },
        android: { priority: 'HIGH', collapse_key: EVENT.eventId, notification: { notification_priority: 'PRIORITY_DEFAULT' } },
        apns: {
          headers: { 'apns-priority': '10', 'apns-expiration': JSON.parse(sent.body).message.apns.headers['apns-expiration'], 'apns-collapse-id': EVENT.eventId },
          payload: { aps: { sound: 'default', 'interruption-level': 'active' } },
        },
      },
    }))
  })

  test('no link, no data.link; the title falls back to the event key', () => {
    const m = fcmMessage({ ...EVENT, link: null, title: null }, 't').message
    expect(m.data).toEqual({ eventId: EVENT.eventId, workspace: 'acme', channel: 'signups', priority: '3' })
    expect(m.notification.title).toBe('user.signup')
    expect(fcmMessage({ ...EVENT, title: null, event: null }, 't').message.notification.title).toBe('New event')
  })

  test('the access token is cached: many sends, one token request', async () => {
    const first = await Promise.all(Array.from({ length: 20 }, () => sendFcm(job())))
    for (let i = 0; i < 10; i++) first.push(await sendFcm(job()))
    expect(first.every((r) => r.ok)).toBe(true)
    expect(google.tokenCalls).toBe(1)
    expect(new Set(google.sends.map((s) => s.token)).size).toBe(1)
  })

  test('401: a new token and exactly one retry', async () => {
    expect(await sendFcm(job())).toMatchObject({ ok: true })
    google.valid.clear() // Google revoked it
    expect(await sendFcm(job())).toMatchObject({ ok: true, status: 200 })
    expect(google.tokenCalls).toBe(2)
    expect(google.sends).toHaveLength(3)
    expect(google.sends[1]!.token).toBe(google.sends[0]!.token)
    expect(google.sends[2]!.token).not.toBe(google.sends[1]!.token)
  })

  test('401 again after a new token: permanent, no third send', async () => {
    google.script = [{ status: 401, body: fcmError(401, 'UNAUTHENTICATED') }, { status: 401, body: fcmError(401, 'UNAUTHENTICATED') }]
    expect(await sendFcm(job())).toMatchObject({ ok: false, retryable: false, status: 401, reason: 'UNAUTHENTICATED' })
    expect(google.sends).toHaveLength(2)
    expect(google.tokenCalls).toBe(2)
  })

  test('a token endpoint that refuses the account: permanent, and says why', async () => {
    google.tokenScript = [{ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } }]
    const result = await sendFcm(job())
    expect(result).toMatchObject({ ok: false, retryable: false })
    expect(result.error).toBe('cannot get an FCM access token: invalid_grant: Invalid JWT Signature.')
    expect(google.sends).toHaveLength(0)
  })

  test('a token endpoint that fails for now (503, or an answer without a token): retryable, says why, and the next send asks again', async () => {
    google.tokenScript = [{ status: 503, body: { error: 'backendError' } }, { status: 200, body: { token_type: 'Bearer' } }]
    const unavailable = await sendFcm(job())
    expect(unavailable).toMatchObject({ ok: false, retryable: true, error: 'cannot get an FCM access token: backendError' })
    expect(await sendFcm(job())).toMatchObject({ ok: false, retryable: true, error: 'cannot get an FCM access token: the token endpoint returned no access_token' })
    expect(await sendFcm(job())).toMatchObject({ ok: true, status: 200 })
    expect(google.tokenCalls).toBe(3)
    expect(google.sends).toHaveLength(1)
  })
})

describe('fcm: errors', () => {
  const cases: [string, GoogleReply, Partial<PushResult>][] = [
    ['404 UNREGISTERED', { status: 404, body: fcmError(404, 'NOT_FOUND', 'UNREGISTERED') }, { ok: false, retryable: false, status: 404, reason: 'UNREGISTERED', unregistered: true }],
    ['404 NOT_FOUND', { status: 404, body: fcmError(404, 'NOT_FOUND') }, { ok: false, retryable: false, status: 404, reason: 'NOT_FOUND', unregistered: true }],
    ['400 INVALID_ARGUMENT', { status: 400, body: fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT') }, { ok: false, retryable: false, status: 400, reason: 'INVALID_ARGUMENT' }],
    ['403 SENDER_ID_MISMATCH', { status: 403, body: fcmError(403, 'PERMISSION_DENIED', 'SENDER_ID_MISMATCH') }, { ok: false, retryable: false, status: 403, reason: 'SENDER_ID_MISMATCH' }],
    ['429 QUOTA_EXCEEDED: at least a minute', { status: 429, body: fcmError(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED') }, { ok: false, retryable: true, status: 429, reason: 'QUOTA_EXCEEDED', retryAfterMs: 60_000 }],
    ['429 with a short Retry-After: still a minute', { status: 429, body: fcmError(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED'), headers: { 'retry-after': '5' } }, { ok: false, retryable: true, retryAfterMs: 60_000 }],
    ['429 with a long Retry-After: honoured', { status: 429, body: fcmError(429, 'RESOURCE_EXHAUSTED'), headers: { 'retry-after': '300' } }, { ok: false, retryable: true, reason: 'RESOURCE_EXHAUSTED', retryAfterMs: 300_000 }],
    ['503 UNAVAILABLE + Retry-After', { status: 503, body: fcmError(503, 'UNAVAILABLE', 'UNAVAILABLE'), headers: { 'retry-after': '30' } }, { ok: false, retryable: true, status: 503, reason: 'UNAVAILABLE', retryAfterMs: 30_000 }],
    ['500 INTERNAL', { status: 500, body: fcmError(500, 'INTERNAL', 'INTERNAL') }, { ok: false, retryable: true, status: 500, reason: 'INTERNAL' }],
    ['401 THIRD_PARTY_AUTH_ERROR: no token refresh', { status: 401, body: fcmError(401, 'UNAUTHENTICATED', 'THIRD_PARTY_AUTH_ERROR') }, { ok: false, retryable: false, reason: 'THIRD_PARTY_AUTH_ERROR' }],
  ]
  for (const [name, reply, expected] of cases) {
    test(name, async () => {
      google.script = [reply]
      const result = await sendFcm(job())
      expect(result).toMatchObject(expected)
      expect(result.error).toStartWith(`FCM answered ${reply.status}`)
      if (!expected.unregistered) expect(result.unregistered).toBeUndefined()
      if (!expected.retryAfterMs) expect(result.retryAfterMs).toBeUndefined()
      expect(google.sends).toHaveLength(1)
      expect(google.tokenCalls).toBe(1)
    })
  }

  test('a bare 404 (not in FCM words) deletes nothing', () => {
    expect(classifyFcm(404, '<html>Not Found</html>', null, 1)).toMatchObject({ ok: false, retryable: false, status: 404, error: 'FCM answered 404: <html>Not Found</html>' })
    expect(classifyFcm(404, '<html>Not Found</html>', null, 1).unregistered).toBeUndefined()
  })

  test('FCM unreachable is retryable', async () => {
    const gone = startGoogle()
    gone.stop()
    const result = await sendFcm(job({ fcm: { ...fcmConfig(google.url), origin: gone.url } }))
    expect(result).toMatchObject({ ok: false, retryable: true })
    expect(result.error).toStartWith('network error talking to FCM')
  })
})

describe('fcm: https and the worker pool', () => {
  test('https token endpoint and FCM origin, trusted through the job\'s certificate authorities', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-fcm-'))
    try {
      execFileSync('/usr/bin/openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ], { stdio: 'ignore' })
      const secure = startGoogle({ key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') })
      try {
        ca = caList(join(dir, 'cert.pem'))
        expect(await sendFcm(job({ fcm: fcmConfig(secure.url) }))).toMatchObject({ ok: true, status: 200 })
        expect(secure.tokenCalls).toBe(1)
        expect(secure.sends).toHaveLength(1)
        expect(secure.problems).toEqual([])
      } finally {
        secure.stop()
      }
    } finally {
      ca = undefined
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('an FCM push job runs through Piscina with workers/send.ts', async () => {
    const pool = new Piscina({ filename: new URL('../../workers/send.ts', import.meta.url).href, maxThreads: 1, concurrentTasksPerWorker: 8 })
    try {
      const results: PushResult[] = await Promise.all(Array.from({ length: 5 }, () => viaPool(pool, job())))
      expect(results.every((r) => r.ok && r.status === 200)).toBe(true)
      expect(google.tokenCalls).toBe(1) // one client per thread, its token reused
      google.script = [{ status: 404, body: fcmError(404, 'NOT_FOUND', 'UNREGISTERED') }]
      expect(await viaPool(pool, job())).toMatchObject({ ok: false, retryable: false, unregistered: true, reason: 'UNREGISTERED' })
      expect(await viaPool(pool, { ...job(), device: { ...job().device, provider: 'wns' as 'fcm' } })).toMatchObject({ ok: false, retryable: false, error: 'unknown push provider "wns"' })
    } finally {
      await pool.destroy()
    }
  })
})
