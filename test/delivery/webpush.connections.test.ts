// How Herald's Web Push sender uses its connections, against the push
// service stand-in (test/web_push_service.ts) over HTTP/2 and over HTTP/1.1:
// a service that speaks HTTP/2 gets every push over one connection, many at
// once; one that speaks HTTP/1.1 only never gets more connections than
// WEB_PUSH_CONNECTIONS_PER_ORIGIN, however many pushes are under way; the
// answers mean the same over both; waiting for a connection counts toward
// the attempt's time limit.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { CA_FILE } from '../stand_ins'
import { startPushService, type PushService, type WebPushSubscription } from '../web_push_service'
import { sendWebPush } from '../../src/delivery/push/webpush'
import { loadWebPushConfig } from '../../src/delivery/push/vapid'
import { NOTIFY_DEFAULTS, type EventView } from '../../src/delivery/event_view'
import type { PushResult, WebPushConfig } from '../../src/delivery/push/job'
import { caList } from '../../src/delivery/outbound'

setDefaultTimeout(30_000)

const event: EventView = {
  eventId: '019a0000-0000-7000-8000-000000000002', workspace: 'acme', channel: 'general', event: 'deploy.done', title: 'Deploy finished',
  message: 'api v2.3 is live', link: null, tags: [], data: {}, createdAt: new Date().toISOString(), ...NOTIFY_DEFAULTS,
}
const vapid = loadWebPushConfig({
  HERALD_DATA_DIR: 'memory://', WEB_PUSH_TTL_S: 60, WEB_PUSH_SUBJECT: 'mailto:ops@example.com', HERALD_PUBLIC_URL: undefined, DATABASE_URL: undefined,
  WEB_PUSH_VAPID_PUBLIC_KEY: undefined, WEB_PUSH_VAPID_PRIVATE_KEY: undefined,
})
const ca = caList(CA_FILE) // the stand-in's certificate
const outbound = (timeoutMs = 5000) => ({ allow: ['127.0.0.1/32'], timeoutMs, maxResponseBytes: 1024, ca })

function push(sub: WebPushSubscription, o: { timeoutMs?: number; webpush?: Partial<WebPushConfig> } = {}): Promise<PushResult> {
  const device = { id: 'd', provider: 'webpush' as const, token: sub.endpoint, environment: 'production' as const, topic: null, ...sub.keys }
  return sendWebPush({ deliveryId: 'x', attempt: 1, event, device, webpush: { ...vapid, ...o.webpush } }, outbound(o.timeoutMs))
}

describe('a push service that speaks HTTP/2', () => {
  let service: PushService
  let subs: WebPushSubscription[]
  beforeAll(async () => {
    service = startPushService({ vapidPublicKey: vapid.publicKey, verify: 'all', http2: true })
    await service.ready
    subs = await Promise.all(Array.from({ length: 10 }, () => service.newSubscription({ applicationServerKey: vapid.publicKey })))
  })
  afterAll(() => service.stop())

  test('gets every push over one connection, many at once, each opened by its browser', async () => {
    service.reset()
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => push(subs[i % subs.length]!)))
    expect(results.filter((r) => !r.ok)).toEqual([])
    expect(results.every((r) => r.status === 201)).toBe(true)
    expect(service.received.length).toBe(100)
    expect(service.received.every((r) => JSON.parse(r.text!).eventId === event.eventId)).toBe(true)
    expect(service.problems).toEqual([])
    expect(service.connections).toBe(1)
  })

  test('its answers mean what they mean over HTTP/1.1: 410 and 404 unregister, 429 waits for Retry-After, 500 is retried, 400 is final', async () => {
    const [gone, missing, busy, down, bad] = subs
    service.reply(gone!.endpoint, { status: 410 })
    service.reply(missing!.endpoint, { status: 404 })
    service.reply(busy!.endpoint, { status: 429, headers: { 'retry-after': '120' } })
    service.reply(down!.endpoint, { status: 500, body: 'try later' })
    service.reply(bad!.endpoint, { status: 400, body: 'no' })
    const [r410, r404, r429, r500, r400] = await Promise.all([gone, missing, busy, down, bad].map((s) => push(s!)))
    expect(r410).toMatchObject({ ok: false, retryable: false, status: 410, unregistered: true, reason: 'Gone' })
    expect(r404).toMatchObject({ ok: false, retryable: false, status: 404, unregistered: true, reason: 'NotFound' })
    expect(r429).toMatchObject({ ok: false, retryable: true, status: 429, retryAfterMs: 120_000 })
    expect(r500).toMatchObject({ ok: false, retryable: true, status: 500, error: 'receiver answered HTTP 500: try later' })
    expect(r400).toMatchObject({ ok: false, retryable: false, status: 400 })
    expect(r400!.unregistered).toBeUndefined()
  })

  test('an answer later than the time limit is a retryable time-out', async () => {
    service.delayMs = 500
    try {
      const r = await push(subs[0]!, { timeoutMs: 200 })
      expect(r).toMatchObject({ ok: false, retryable: true })
      expect(r.error).toMatch(/timed out after 200 ms/)
    } finally {
      service.delayMs = 0
    }
  })
})

describe('a push service that speaks HTTP/1.1 only', () => {
  let service: PushService
  let subs: WebPushSubscription[]
  beforeAll(async () => {
    service = startPushService({ vapidPublicKey: vapid.publicKey, verify: 'sample' })
    subs = await Promise.all(Array.from({ length: 10 }, () => service.newSubscription({ applicationServerKey: vapid.publicKey })))
  })
  afterAll(() => service.stop())

  test('gets pushes over at most connectionsPerOrigin connections, however many are under way', async () => {
    service.reset()
    service.delayMs = 5 // long enough for pushes to pile up
    try {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => push(subs[i % subs.length]!, { webpush: { connectionsPerOrigin: 4 } })))
      expect(results.filter((r) => !r.ok)).toEqual([])
      expect(service.count).toBe(100)
      expect(service.problems).toEqual([])
      expect(service.connections).toBeGreaterThanOrEqual(1)
      expect(service.connections).toBeLessThanOrEqual(4)
    } finally {
      service.delayMs = 0
    }
  })

  test('the wait for a free connection counts toward the time limit', async () => {
    service.delayMs = 400
    try {
      const t0 = performance.now()
      const results = await Promise.all([0, 1, 2].map((i) => push(subs[i]!, { timeoutMs: 600, webpush: { connectionsPerOrigin: 1 } })))
      const took = performance.now() - t0
      // The first is answered after 400 ms; the second gets the connection
      // then, with 200 ms left; the third never gets it.
      expect(results[0]).toMatchObject({ ok: true, status: 201 })
      expect(results[1]).toMatchObject({ ok: false, retryable: true })
      expect(results[1]!.error).toMatch(/^timed out after 600 ms, \d+ of them waiting for a connection$/)
      expect(results[2]).toMatchObject({ ok: false, retryable: true })
      expect(results[2]!.error).toMatch(/timed out after 600 ms waiting for a connection to 127\.0\.0\.1:/)
      expect(took).toBeLessThan(1000)
    } finally {
      service.delayMs = 0
    }
  })
})
