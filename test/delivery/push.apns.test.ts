// The APNs sender against a real local HTTP/2 TLS server standing in for
// Apple (test/stand_ins.ts), trusted through the job's certificate
// authorities (PushJob.ca). The server verifies every provider JWT (ES256, kid, iss, iat) and
// every APNs header, counts sessions and concurrent streams, and answers
// whichever APNs error the test asks for.
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { CA_FILE, TEAM, TOPIC, apnsKey, startApns, type ApnsReply } from '../stand_ins'
import { PUSH_EVENT as EVENT, viaPool } from '../stand_ins'
import Piscina from 'piscina'
import { APNS_HOSTS, MAX_PAYLOAD_BYTES, apnsOrigin, apnsPayload, closeApnsSessions, sendApns } from '../../src/delivery/push/apns'
import { fitText } from '../../src/delivery/push/payload'
import type { EventView } from '../../src/delivery/event_view'
import type { ApnsConfig, PushJob, PushResult } from '../../src/delivery/push/job'
import { caList } from '../../src/delivery/outbound'

const CA = caList(CA_FILE)
const keyPem = apnsKey.privateKey

const apns = await startApns()
const narrow = await startApns({ maxConcurrentStreams: 10 })
afterAll(() => {
  closeApnsSessions()
  apns.server.close()
  narrow.server.close()
})

const DEVICE_TOKEN = randomBytes(32).toString('hex')
let config: ApnsConfig

// A fresh key id per test: its own provider-token cache entry, so JWT counts
// start from zero; and no session left over from the test before.
beforeEach(() => {
  closeApnsSessions()
  const keyId = randomBytes(5).toString('hex').toUpperCase()
  config = { keyPem, keyId, teamId: TEAM, topic: TOPIC, origin: apns.origin }
  for (const s of [apns, narrow]) Object.assign(s, { kid: keyId, topic: TOPIC, delayMs: 0, seen: [], script: [], problems: [], sessions: 0, maxActive: 0 })
})
afterEach(() => {
  expect(apns.problems).toEqual([])
  expect(narrow.problems).toEqual([])
})

function job(over: { event?: Partial<EventView>; device?: Partial<PushJob['device']>; apns?: Partial<ApnsConfig> } = {}): PushJob {
  return {
    deliveryId: crypto.randomUUID(),
    attempt: 1,
    event: { ...EVENT, ...over.event },
    device: { id: 'dev_1', provider: 'apns', token: DEVICE_TOKEN, environment: 'production', topic: null, ...over.device },
    apns: { ...config, ...over.apns },
    ca: CA,
  }
}
const distinct = (xs: string[]) => new Set(xs).size


describe('apns: the request', () => {
  test('success: the exact payload and headers', async () => {
    const j = job()
    const result = await sendApns(j)
    expect(result).toMatchObject({ ok: true, retryable: false, status: 200 })
    expect(result.durationMs).toBeGreaterThanOrEqual(0)
    expect(apns.seen).toHaveLength(1)
    const r = apns.seen[0]!
    expect(r.path).toBe(`/3/device/${DEVICE_TOKEN}`)
    expect(r.body).toBe(JSON.stringify({
      aps: { alert: { title: 'New user', body: 'Jane Doe signed up' }, sound: 'default', 'interruption-level': 'active' },
      eventId: EVENT.eventId, workspace: 'acme', channel: 'signups', link: 'https://example.com/users/42',
    }))
    expect(r.headers['apns-id']).toBe(j.deliveryId)
    expect(r.headers['apns-collapse-id']).toBe(EVENT.eventId)
    expect(r.headers['apns-topic']).toBe(TOPIC)
    expect(r.headers['content-type']).toBe('application/json')
  })

  test('title falls back to the event key, then "New event"; no link, no key', async () => {
    expect(JSON.parse(apnsPayload({ ...EVENT, title: null })).aps.alert.title).toBe('user.signup')
    const bare = JSON.parse(apnsPayload({ ...EVENT, title: null, event: null, link: null }))
    expect(bare.aps.alert.title).toBe('New event')
    expect('link' in bare).toBe(false)
  })

  test("a device's own topic replaces the default", async () => {
    apns.topic = 'dev.herald.other'
    expect(await sendApns(job({ device: { topic: 'dev.herald.other' } }))).toMatchObject({ ok: true })
    expect(apns.seen[0]!.headers['apns-topic']).toBe('dev.herald.other')
  })

  test('sandbox and production hosts; APNS_ORIGIN replaces both', () => {
    expect(apnsOrigin('production', {})).toBe('https://api.push.apple.com')
    expect(apnsOrigin('sandbox', {})).toBe('https://api.sandbox.push.apple.com')
    expect(APNS_HOSTS).toEqual({ production: 'https://api.push.apple.com', sandbox: 'https://api.sandbox.push.apple.com' })
    expect(apnsOrigin('production', { origin: 'https://127.0.0.1:8443' })).toBe('https://127.0.0.1:8443')
    expect(apnsOrigin('sandbox', { origin: 'https://127.0.0.1:8443' })).toBe('https://127.0.0.1:8443')
  })
})

describe('apns: provider token and connection', () => {
  test('one JWT and one HTTP/2 session for many pushes, multiplexed', async () => {
    apns.delayMs = 20
    const results = await Promise.all(Array.from({ length: 50 }, () => sendApns(job())))
    for (let i = 0; i < 10; i++) results.push(await sendApns(job()))
    expect(results.every((r) => r.ok)).toBe(true)
    expect(apns.seen).toHaveLength(60)
    expect(distinct(apns.seen.map((s) => s.jwt))).toBe(1)
    expect(apns.sessions).toBe(1)
    expect(apns.maxActive).toBeGreaterThan(1)
  })

  test('a new JWT once jwtTtlMs has passed', async () => {
    const short = { apns: { jwtTtlMs: 300 } }
    expect(await sendApns(job(short))).toMatchObject({ ok: true })
    expect(await sendApns(job(short))).toMatchObject({ ok: true })
    await Bun.sleep(350)
    expect(await sendApns(job(short))).toMatchObject({ ok: true })
    const jwts = apns.seen.map((s) => s.jwt)
    expect(jwts[0]).toBe(jwts[1]!)
    expect(jwts[2]).not.toBe(jwts[1]!)
  })

  test('403 ExpiredProviderToken: a new JWT and exactly one retry', async () => {
    apns.script = [{ status: 403, reason: 'ExpiredProviderToken' }]
    expect(await sendApns(job())).toMatchObject({ ok: true, status: 200 })
    expect(apns.seen).toHaveLength(2)
    expect(distinct(apns.seen.map((s) => s.jwt))).toBe(2)
    // The new token is the one kept.
    await sendApns(job())
    expect(apns.seen[2]!.jwt).toBe(apns.seen[1]!.jwt)
  })

  test('403 twice: permanent, no third request', async () => {
    apns.script = [{ status: 403, reason: 'ExpiredProviderToken' }, { status: 403, reason: 'InvalidProviderToken' }]
    expect(await sendApns(job())).toMatchObject({ ok: false, retryable: false, status: 403, reason: 'InvalidProviderToken' })
    expect(apns.seen).toHaveLength(2)
  })

  test('a GOAWAY: the next push opens a new session', async () => {
    apns.script = [{ status: 200, goaway: true }]
    expect(await sendApns(job())).toMatchObject({ ok: true })
    await Bun.sleep(50)
    expect(await sendApns(job())).toMatchObject({ ok: true })
    expect(apns.sessions).toBe(2)
    expect(apns.seen.map((s) => s.session)).toEqual([1, 2])
  })

  test("streams never exceed the server's SETTINGS_MAX_CONCURRENT_STREAMS", async () => {
    narrow.delayMs = 30
    const results = await Promise.all(Array.from({ length: 100 }, () => sendApns(job({ apns: { origin: narrow.origin } }))))
    expect(results.filter((r) => !r.ok)).toEqual([])
    expect(narrow.seen).toHaveLength(100)
    expect(narrow.maxActive).toBeLessThanOrEqual(10)
    expect(narrow.maxActive).toBeGreaterThan(1)
    expect(narrow.sessions).toBe(1)
  })

  test('connection refused is retryable, and fails fast', async () => {
    const gone = await startApns()
    gone.server.close()
    await Bun.sleep(20)
    const result = await sendApns(job({ apns: { origin: gone.origin } }))
    expect(result).toMatchObject({ ok: false, retryable: true })
    expect(result.error).toStartWith(`cannot connect to APNs at ${gone.origin}`)
    expect(result.durationMs).toBeLessThan(5000)
  })
})

describe('apns: errors', () => {
  const cases: [string, ApnsReply, Partial<PushResult>][] = [
    ['410 Unregistered', { status: 410, reason: 'Unregistered' }, { ok: false, retryable: false, status: 410, reason: 'Unregistered', unregistered: true }],
    ['400 BadDeviceToken', { status: 400, reason: 'BadDeviceToken' }, { ok: false, retryable: false, status: 400, reason: 'BadDeviceToken', unregistered: true }],
    ['400 DeviceTokenNotForTopic', { status: 400, reason: 'DeviceTokenNotForTopic' }, { ok: false, retryable: false, status: 400, reason: 'DeviceTokenNotForTopic' }],
    ['429 TooManyRequests + Retry-After', { status: 429, reason: 'TooManyRequests', headers: { 'retry-after': '120' } }, { ok: false, retryable: true, status: 429, reason: 'TooManyRequests', retryAfterMs: 120_000 }],
    ['503 ServiceUnavailable + Retry-After', { status: 503, reason: 'ServiceUnavailable', headers: { 'retry-after': '30' } }, { ok: false, retryable: true, status: 503, reason: 'ServiceUnavailable', retryAfterMs: 30_000 }],
    ['500 InternalServerError', { status: 500, reason: 'InternalServerError' }, { ok: false, retryable: true, status: 500, reason: 'InternalServerError' }],
  ]
  for (const [name, reply, expected] of cases) {
    test(name, async () => {
      apns.script = [reply]
      const result = await sendApns(job())
      expect(result).toMatchObject(expected)
      expect(result.error).toBe(`APNs answered ${reply.status} ${reply.reason}`)
      if (!expected.unregistered) expect(result.unregistered).toBeUndefined()
      if (!expected.retryAfterMs) expect(result.retryAfterMs).toBeUndefined()
      expect(apns.seen).toHaveLength(1)
    })
  }
})

describe('apns: payload size', () => {
  const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
  const unit = 'ab😀é"\n\u0001中'
  const huge = unit.repeat(Math.ceil(10_000 / unit.length)).slice(0, 10_000)

  test('a 10,000-character body is cut to fit 4096 bytes, on a code point, with "…"', async () => {
    expect(await sendApns(job({ event: { message: huge } }))).toMatchObject({ ok: true })
    const body = apns.seen[0]!.body
    const size = Buffer.byteLength(body)
    expect(size).toBeLessThanOrEqual(4096)
    expect(size).toBeGreaterThan(4096 - 12) // cut no more than needed
    const text: string = JSON.parse(body).aps.alert.body
    expect(text.endsWith('…')).toBe(true)
    expect(huge.startsWith(text.slice(0, -1))).toBe(true)
    expect(LONE_SURROGATE.test(text)).toBe(false)
    expect(body).toBe(apnsPayload({ ...EVENT, message: huge }))
  })

  test('a huge link and title never make a push fail', () => {
    const payload = apnsPayload({ ...EVENT, title: '😀'.repeat(2000), link: 'https://x.test/' + '😀'.repeat(1000), message: huge })
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(4096)
    const parsed = JSON.parse(payload)
    expect('link' in parsed).toBe(false)
    expect(parsed.aps.alert.body).toEndWith('…') // the room the cut title leaves (a few bytes)
    expect(parsed.aps.alert.body.length).toBeLessThan(5)
    expect(LONE_SURROGATE.test(parsed.aps.alert.title)).toBe(false)
  })

  test('fitText keeps what fits and never splits a pair', () => {
    expect(fitText('hello', 5)).toBe('hello')
    expect(fitText('hello', 4)).toBe('h…') // "…" is 3 bytes
    expect(fitText('😀😀', 7)).toBe('😀…')
    expect(fitText('😀😀', 6)).toBe('…')
    expect(fitText('😀😀', 2)).toBe('')
    expect(fitText('a"b"c', 6)).toBe('a"…') // '"' is 2 bytes escaped
    expect(fitText('a"b"c', 5)).toBe('a…')
  })
})

describe('apns: worker pool', () => {
  test('a push job runs through Piscina with workers/send.ts', async () => {
    const pool = new Piscina({ filename: new URL('../../workers/send.ts', import.meta.url).href, maxThreads: 1, concurrentTasksPerWorker: 8 })
    try {
      const results: PushResult[] = await Promise.all(Array.from({ length: 5 }, () => viaPool(pool, job())))
      expect(results.every((r) => r.ok && r.status === 200)).toBe(true)
      apns.script = [{ status: 410, reason: 'Unregistered' }]
      expect(await viaPool(pool, job())).toMatchObject({ ok: false, retryable: false, unregistered: true, reason: 'Unregistered' })
      expect(await viaPool(pool, { ...job(), apns: undefined })).toMatchObject({ ok: false, retryable: false, error: 'APNs is not configured (APNS_KEY_FILE)' })
      expect(distinct(apns.seen.map((s) => s.jwt))).toBe(1) // one token per thread, reused
      expect(apns.sessions).toBe(1)
    } finally {
      await pool.destroy()
    }
  })
})
