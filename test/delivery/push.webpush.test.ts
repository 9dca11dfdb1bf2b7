// Web Push end to end: POST /event → outbox → bus → worker pool → a local
// push service (test/web_push_service.ts) that checks the VAPID JWT against
// the key the browser subscribed with and decrypts the payload with the
// subscription's private key, as a browser does. On the in-process pipeline
// and on PostgreSQL + JetStream: what arrives, byte for byte; a subscription
// that is gone (404, 410) is deleted; 429 and 500 are retried, never sooner
// than Retry-After; a failed push can be replayed; the attempts are counted
// in the metrics; an endpoint at a private address is never reached. The
// stand-in speaks HTTP/1.1, as some push services do; one test pushes to one
// that speaks HTTP/2, as FCM, Mozilla and Apple do.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, pipelines, usePipelineHerald } from '../harness'
import { eventually } from '../receiver'
import { CA_FILE } from '../stand_ins'
import { startPushService, type PushService, type WebPushSubscription } from '../web_push_service'
import { MAX_PAYLOAD_BYTES, sendWebPush, webPushPayload } from '../../src/delivery/push/webpush'
import { loadWebPushConfig } from '../../src/delivery/push/vapid'
import { createLogger } from '../../src/core/log'
import { NOTIFY_DEFAULTS, type EventView } from '../../src/delivery/event_view'
import { caList } from '../../src/delivery/outbound'

setDefaultTimeout(30_000)

type Attempt = { attempt: number; ok: boolean; status: number | null; at: string; error: string | null }
type Delivery = { id: string; kind: string; deviceId: string | null; status: string; attempts: Attempt[] }

for (const pipeline of pipelines) {
  describe(`Web Push deliveries (${pipeline})`, () => {
    const herald = usePipelineHerald(pipeline, { HERALD_OUTBOUND_ALLOW: '127.0.0.1', HERALD_RETRY_SCHEDULE: '0s,300ms,300ms', WEB_PUSH_SUBJECT: 'mailto:ops@example.com', NODE_EXTRA_CA_CERTS: CA_FILE })
    let service: PushService
    let acme: { name: string; apiKey: string }
    let userToken: string
    let vapidKey: string

    beforeAll(async () => {
      vapidKey = ((await (await fetch(`${herald.url}/v1/push/vapid-public-key`)).json()) as { publicKey: string }).publicKey
      service = startPushService({ vapidPublicKey: vapidKey })
      acme = await herald.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      const res = await herald.admin('POST', `/admin/workspaces/${acme.name}/members`, { email: `webpush-${Date.now()}@example.com` })
      userToken = ((await res.json()) as { userToken: string }).userToken
    }, 60_000)
    afterAll(() => service?.stop())

    const asUser = (method: string, path: string, body?: unknown) =>
      fetch(herald.url + path, {
        method,
        headers: { authorization: `Bearer ${userToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    /** A browser subscribed with Herald's key, registered as a device; removes the others. */
    const browser = async (): Promise<{ sub: WebPushSubscription; deviceId: string }> => {
      await herald.db.sql`DELETE FROM devices`
      const sub = await service.newSubscription({ applicationServerKey: vapidKey })
      const res = await asUser('POST', '/v1/devices', { provider: 'webpush', platform: 'web', subscription: sub })
      expect(res.status).toBe(201)
      return { sub, deviceId: ((await res.json()) as { id: string }).id }
    }
    const post = async (body: Record<string, unknown>) => {
      const res = await herald.post(acme.apiKey, body)
      expect(res.status).toBe(200)
      return ((await res.json()) as { eventId: string }).eventId
    }
    const settled = (eventId: string) =>
      eventually(async () => {
        const res = await fetch(`${herald.url}/events/${eventId}`, { headers: { authorization: `Bearer ${acme.apiKey}` } })
        const e = (await res.json()) as { deliveries: Delivery[] }
        return e.deliveries.length >= 1 && e.deliveries.every((d) => d.status !== 'pending') ? e.deliveries : null
      }, 15_000, `the deliveries of ${eventId}`)

    test('the browser gets the event, encrypted for it alone, signed with Herald\'s VAPID key', async () => {
      service.reset()
      const { sub, deviceId } = await browser()
      const arrived = service.next(sub.endpoint, 10_000)
      const eventId = await post({ channel: 'deploys', title: 'Deploy finished', message: 'api v2.3 is live on prod ✅ — 42 s', event: 'deploy.done', link: 'https://example.com/d/2' })
      const push = await arrived
      expect(JSON.parse(push.text!)).toEqual({
        v: 1, eventId, workspace: acme.name, channel: 'deploys', event: 'deploy.done', title: 'Deploy finished', body: 'api v2.3 is live on prod ✅ — 42 s',
        url: `/w/${acme.name}/events/${eventId}`, createdAt: expect.any(String), priority: 3, collapseKey: null,
      })
      expect(push.k).toBe(vapidKey)
      expect(push.claims).toMatchObject({ aud: service.origin, sub: 'mailto:ops@example.com' })
      expect(push.headers).toMatchObject({ ttl: '86400', urgency: 'normal', topic: eventId.replaceAll('-', ''), 'content-encoding': 'aes128gcm' })
      const [delivery] = await settled(eventId)
      expect(delivery).toMatchObject({ kind: 'push', deviceId, status: 'succeeded' })
      expect(delivery!.attempts.map((a) => [a.ok, a.status])).toEqual([[true, 201]])
      expect(service.problems).toEqual([])
    })

    test('a push service that speaks HTTP/2 gets the event the same, over one connection', async () => {
      const h2 = startPushService({ vapidPublicKey: vapidKey, http2: true })
      try {
        await h2.ready
        await herald.db.sql`DELETE FROM devices`
        const subs = await Promise.all([1, 2, 3].map(() => h2.newSubscription({ applicationServerKey: vapidKey })))
        for (const sub of subs) expect((await asUser('POST', '/v1/devices', { provider: 'webpush', platform: 'web', subscription: sub })).status).toBe(201)
        h2.reply(subs[2]!.endpoint, { status: 410 })
        const arrived = Promise.all(subs.map((s) => h2.next(s.endpoint, 10_000).catch(() => null)))
        const eventId = await post({ channel: 'deploys', title: 'Over HTTP/2', message: 'one connection' })
        const pushes = await arrived
        expect(pushes.slice(0, 2).map((p) => JSON.parse(p!.text!).eventId)).toEqual([eventId, eventId])
        const deliveries = await settled(eventId)
        expect(deliveries.map((d) => d.status).sort()).toEqual(['failed', 'succeeded', 'succeeded'])
        await eventually(async () => (await herald.db.sql`SELECT 1 FROM devices`).length === 2, 5000, 'the gone subscription deleted')
        expect(h2.problems).toEqual([])
        // One connection per pool thread at most (each thread keeps its own).
        expect(h2.connections).toBeGreaterThanOrEqual(1)
        expect(h2.connections).toBeLessThanOrEqual(2)
      } finally {
        h2.stop()
      }
    })

    test('a subscription that is gone (410, 404) is deleted and not pushed again', async () => {
      for (const status of [410, 404]) {
        service.reset()
        const { sub, deviceId } = await browser()
        service.reply(sub.endpoint, { status, times: Infinity })
        const eventId = await post({ message: `gone ${status}` })
        const [delivery] = await settled(eventId)
        expect(delivery).toMatchObject({ deviceId, status: 'failed' })
        expect(delivery!.attempts).toHaveLength(1)
        await eventually(async () => (await herald.db.sql`SELECT 1 FROM devices WHERE id = ${deviceId}`).length === 0, 5000, 'the device deleted')
        const before = service.count
        const later = await post({ message: 'after' })
        await Bun.sleep(500)
        expect(service.count).toBe(before)
        const res = await fetch(`${herald.url}/events/${later}`, { headers: { authorization: `Bearer ${acme.apiKey}` } })
        expect(((await res.json()) as { deliveries: Delivery[] }).deliveries).toEqual([])
      }
    })

    test('429 is retried, never sooner than Retry-After; 500 is retried; both under the same delivery', async () => {
      service.reset()
      const { sub } = await browser()
      service.reply(sub.endpoint, { status: 429, headers: { 'retry-after': '1' } })
      service.reply(sub.endpoint, { status: 500 })
      const eventId = await post({ message: 'busy' })
      const [delivery] = await eventually(async () => {
        const list = await settled(eventId)
        return list[0]!.attempts.length === 3 ? list : null
      }, 15_000, 'three attempts')
      expect(delivery!.status).toBe('succeeded')
      expect(delivery!.attempts.map((a) => a.status)).toEqual([429, 500, 201])
      const [first, second] = delivery!.attempts.map((a) => Date.parse(a.at))
      expect(second! - first!).toBeGreaterThanOrEqual(1000)
      // Each attempt was the same push: same topic, same text.
      const texts = service.received.filter((r) => r.endpoint === sub.endpoint).map((r) => r.text)
      expect(texts).toHaveLength(3)
      expect(new Set(texts).size).toBe(1)
    })

    test('a failed push can be replayed, and is then delivered', async () => {
      service.reset()
      const { sub } = await browser()
      service.reply(sub.endpoint, { status: 400, body: 'bad request', times: 1 })
      const eventId = await post({ message: 'replay me' })
      const [failed] = await settled(eventId)
      expect(failed).toMatchObject({ status: 'failed' })
      expect(failed!.attempts[0]!.error).toContain('HTTP 400')
      const res = await fetch(`${herald.url}/admin/workspaces/${acme.name}/deliveries/${failed!.id}/replay`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      expect(res.status).toBe(202)
      const [done] = await eventually(async () => {
        const list = await settled(eventId)
        return list[0]!.status === 'succeeded' ? list : null
      }, 15_000, 'the replay delivered')
      expect(done!.id).toBe(failed!.id)
    })

    test('the attempts are counted in the metrics under type webpush', async () => {
      service.reset()
      await browser()
      const count = async () => {
        const text = await (await fetch(`${herald.url}/metrics`)).text()
        const line = text.split('\n').find((l) => l.startsWith('herald_delivery_attempts_total{') && l.includes('type="webpush"') && l.includes('outcome="succeeded"'))
        return line ? Number(line.split(' ').pop()) : 0
      }
      const before = await count()
      await settled(await post({ message: 'count me' }))
      await eventually(async () => (await count()) === before + 1, 5000, `herald_delivery_attempts_total{type="webpush"} at ${before + 1}`)
    })

    test('an endpoint at a private address is never reached, whatever the database holds', async () => {
      service.reset()
      const { sub, deviceId } = await browser()
      // Registration refuses it (webpush.devices.test.ts); a row that got in
      // some other way is refused again at the send.
      await herald.db.sql`UPDATE devices SET token = ${sub.endpoint.replace('127.0.0.1', '10.1.2.3')} WHERE id = ${deviceId}`
      const eventId = await post({ message: 'ssrf' })
      const [delivery] = await settled(eventId)
      expect(delivery).toMatchObject({ status: 'failed' })
      expect(delivery!.attempts[0]!.error).toMatch(/refused: .*private address/)
      expect(service.count).toBe(0)
    })
  })
}

describe('the Web Push payload', () => {
  const event: EventView = {
    eventId: '019a0000-0000-7000-8000-000000000001', workspace: 'acme', channel: 'general', event: 'k', title: 'T', message: 'm', link: null, tags: [], data: {}, createdAt: '2026-11-24T00:00:00.000Z', ...NOTIFY_DEFAULTS,
  }

  test('never over the limit, cut on a character boundary, title kept when it can be', () => {
    for (const ch of ['a', 'é', '😀', '"', '\u0001', '\ud800']) {
      const text = webPushPayload({ ...event, message: ch.repeat(5000), title: ch.repeat(128) })
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES)
      const p = JSON.parse(text)
      expect(p.body.endsWith('…')).toBe(true)
      expect(p.title).toBe(ch.repeat(128))
      expect([...p.body.slice(0, -1)].every((c: string) => c === ch)).toBe(true)
    }
    expect(JSON.parse(webPushPayload(event))).toMatchObject({ title: 'T', body: 'm' })
    expect(JSON.parse(webPushPayload({ ...event, title: null })).title).toBe('k')
    expect(JSON.parse(webPushPayload({ ...event, title: null, event: null })).title).toBe('New event')
  })

  test('the largest payload still fits a push service\'s 4096 bytes once encrypted, and decrypts whole', async () => {
    const ca = caList(CA_FILE) // the push service's certificate
    const webpush = loadWebPushConfig({ HERALD_DATA_DIR: 'memory://', WEB_PUSH_TTL_S: 60, WEB_PUSH_SUBJECT: 'mailto:ops@example.com', HERALD_PUBLIC_URL: undefined, DATABASE_URL: undefined, WEB_PUSH_VAPID_PUBLIC_KEY: undefined, WEB_PUSH_VAPID_PRIVATE_KEY: undefined })
    const service = startPushService({ vapidPublicKey: webpush.publicKey })
    try {
      const sub = await service.newSubscription()
      const big = { ...event, message: '😀'.repeat(5000) }
      const device = { id: 'd', provider: 'webpush' as const, token: sub.endpoint, environment: 'production' as const, topic: null, ...sub.keys }
      const result = await sendWebPush({ deliveryId: 'x', attempt: 1, event: big, device, webpush }, { allow: ['127.0.0.1'], timeoutMs: 5000, maxResponseBytes: 1024, ca })
      expect(result).toMatchObject({ ok: true, status: 201 })
      expect(service.received[0]!.text).toBe(webPushPayload(big))
      expect(service.problems).toEqual([])
      // Without the allow-list entry the same push is refused before any byte leaves.
      const refused = await sendWebPush({ deliveryId: 'x', attempt: 1, event, device, webpush }, { allow: [], timeoutMs: 5000, maxResponseBytes: 1024 })
      expect(refused).toMatchObject({ ok: false, retryable: false })
      expect(refused.error).toMatch(/loopback/)
      expect(service.count).toBe(1)
    } finally {
      service.stop()
    }
  })
})

describe('the VAPID subject when WEB_PUSH_SUBJECT is unset', () => {
  /** The lines a start logs about the subject, at debug level and up, as pino writes them. */
  function startLines(publicUrl: string | undefined) {
    const lines: { level: number; msg: string }[] = []
    const log = createLogger('debug', { write: (s: string) => void lines.push(JSON.parse(s)) }, 'json')
    const webpush = loadWebPushConfig({ HERALD_DATA_DIR: 'memory://', WEB_PUSH_TTL_S: 60, WEB_PUSH_SUBJECT: undefined, HERALD_PUBLIC_URL: publicUrl, DATABASE_URL: undefined, WEB_PUSH_VAPID_PUBLIC_KEY: undefined, WEB_PUSH_VAPID_PRIVATE_KEY: undefined }, log)
    return { subject: webpush.subject, said: lines.filter((l) => l.msg.startsWith('WEB_PUSH_SUBJECT is unset')).map((l) => (l.level === 40 ? 'warn' : l.level === 20 ? 'debug' : String(l.level))) }
  }

  test('a local start says it at debug level only; a public address that is not https gets the warning; https needs none', () => {
    expect(startLines(undefined)).toEqual({ subject: 'mailto:herald@localhost', said: ['debug'] })
    expect(startLines('http://localhost:8080')).toEqual({ subject: 'mailto:herald@localhost', said: ['debug'] })
    expect(startLines('http://127.0.0.1:8080')).toEqual({ subject: 'mailto:herald@localhost', said: ['debug'] })
    expect(startLines('http://[::1]:8080')).toEqual({ subject: 'mailto:herald@localhost', said: ['debug'] })
    expect(startLines('http://herald.example.com')).toEqual({ subject: 'mailto:herald@localhost', said: ['warn'] })
    expect(startLines('http://192.168.1.5:8080')).toEqual({ subject: 'mailto:herald@localhost', said: ['warn'] })
    expect(startLines('https://herald.example.com')).toEqual({ subject: 'https://herald.example.com', said: [] })
  })
})
