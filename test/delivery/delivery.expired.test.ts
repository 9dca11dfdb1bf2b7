// An event's ttl ends the deliveries not sent in time: a router delivery or a
// push whose event is older than its ttl when its turn comes (a first
// attempt, a retry, or one held for a parked router) is not sent and ends
// `expired`, never `failed`, with no attempt of its own; it shows in the
// delivery log and in herald_deliveries_ttl_expired_total. End to end
// through POST /event, on the in-process pipeline and on PostgreSQL +
// JetStream, against a real receiver that is down and a Web Push service
// stand-in; and in the pool's task itself, for every kind of target.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import send from '../../workers/send'
import { pipelines, usePipelineHerald } from '../harness'
import { eventually, startReceiver } from '../receiver'
import { scrapeMetrics, sample } from '../exposition'
import { CA_FILE, PUSH_EVENT, TEAM, TOPIC, apnsKey, startApns } from '../stand_ins'
import { startPushService, type PushService } from '../web_push_service'
import { closeApnsSessions } from '../../src/delivery/push/apns'
import { caList } from '../../src/delivery/outbound'
import { isExpired, ttlLeft } from '../../src/delivery/expiry'
import type { SendTask } from '../../src/delivery/job'

setDefaultTimeout(30_000)

type Delivery = { id: string; kind: string; status: string; attempts: { ok: boolean; status: number | null }[] }

describe('the ttl in whole seconds', () => {
  const at = (ageMs: number, ttl: number | null) => ({ createdAt: new Date(Date.UTC(2026, 0, 1)).toISOString(), ttl, now: Date.UTC(2026, 0, 1) + ageMs })
  test.each([
    [0, 0, 0, false], [999, 0, 0, false], [1000, 0, -1, true],
    [59_999, 60, 1, false], [60_999, 60, 0, false], [61_000, 60, -1, true],
    [10 * 86_400_000, null, null, false],
  ])('an event %p ms old with ttl %p has %p s left; expired: %p', (age, ttl, left, expired) => {
    const { now, ...e } = at(age, ttl)
    expect(ttlLeft(e, now)).toBe(left)
    expect(isExpired(e, now)).toBe(expired)
  })
})

describe('the pool task sends nothing for an event older than its ttl', () => {
  const rx = startReceiver()
  let apns: Awaited<ReturnType<typeof startApns>>
  beforeAll(async () => {
    apns = await startApns()
  })
  afterAll(() => {
    rx.stop()
    closeApnsSessions()
    apns.server.close()
  })

  test('a router delivery, an APNs push and a Web Push: each comes back expired, and no request is made', async () => {
    const keyId = randomBytes(5).toString('hex').toUpperCase()
    Object.assign(apns, { kid: keyId, seen: [], problems: [] })
    const old = { ...PUSH_EVENT, eventId: Bun.randomUUIDv7(), createdAt: new Date(Date.now() - 5_000).toISOString(), ttl: 3 }
    const fresh = { ...old, eventId: Bun.randomUUIDv7(), createdAt: new Date().toISOString() }
    const router = { id: 'r1', name: 'r1', pattern: '*', destination: { type: 'webhook' as const, url: `${rx.url}/in` }, signingSecret: 'whsec_' + randomBytes(24).toString('base64') }
    const device = { id: 'd1', provider: 'apns' as const, token: randomBytes(32).toString('hex'), environment: 'production' as const, topic: null }
    const browser = { id: 'd2', provider: 'webpush' as const, token: 'https://127.0.0.1:9/push/x', environment: 'production' as const, topic: null }
    const task: SendTask = {
      events: [old, JSON.stringify(fresh)],
      planned: [
        { id: crypto.randomUUID(), event: 0, kind: 'router', target: 'r1', attempt: 2, router },
        { id: crypto.randomUUID(), event: 0, kind: 'push', target: 'd1', attempt: 1, device },
        { id: crypto.randomUUID(), event: 0, kind: 'push', target: 'd2', attempt: 1, device: browser },
        { id: crypto.randomUUID(), event: 1, kind: 'router', target: 'r1', attempt: 1, router },
        { id: crypto.randomUUID(), event: 1, kind: 'push', target: 'd1', attempt: 1, device },
      ],
      config: {
        maxInFlight: 8, circuit: { maxInFlight: 8, failures: 5, cooldownMs: 30_000, waitMs: 1000 },
        outbound: { allow: ['127.0.0.0/8'], timeoutMs: 5000, maxResponseBytes: 1024, ca: caList(CA_FILE) }, endpoints: { telegram: '', twilio: '' },
        apns: { keyPem: apnsKey.privateKey, keyId, teamId: TEAM, topic: TOPIC, origin: apns.origin },
        webpush: { publicKey: 'x', privateKey: 'x', subject: 'mailto:ops@example.com', ttlSeconds: 60 },
      },
    }
    const sent = await send(task)
    const expired = { ok: false, retryable: false, expired: true, error: 'expired: the event is older than its ttl of 3 s; not sent' }
    expect(sent.slice(0, 3).map((s) => s.result)).toEqual([expect.objectContaining(expired), expect.objectContaining(expired), expect.objectContaining(expired)])
    expect(sent.slice(3).map((s) => [s.result.ok, s.result.expired])).toEqual([[true, undefined], [true, undefined]])
    // Only the fresh event's two deliveries reached anything.
    expect(rx.received).toHaveLength(1)
    expect(apns.seen).toHaveLength(1)
    expect(apns.problems).toEqual([])
  })
})

for (const pipeline of pipelines) {
  describe(`expired deliveries end to end (${pipeline})`, () => {
    // A retry 2.5 s after the first attempt: past a ttl of 1 s.
    const h = usePipelineHerald(pipeline, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,2500ms', CIRCUIT_FAILURES: '1000', DELIVERY_SWEEP_INTERVAL_MS: '300', WEB_PUSH_SUBJECT: 'mailto:ops@example.com', NODE_EXTRA_CA_CERTS: CA_FILE })
    const rx = startReceiver()
    let ws: { name: string; apiKey: string }
    let service: PushService
    let userToken: string
    let vapidKey: string
    beforeAll(async () => {
      ws = await h.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      vapidKey = ((await (await fetch(`${h.url}/v1/push/vapid-public-key`)).json()) as { publicKey: string }).publicKey
      service = startPushService({ vapidPublicKey: vapidKey })
      const res = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: `expired-${pipeline}-${Date.now()}@example.com` })
      userToken = ((await res.json()) as { userToken: string }).userToken
    }, 60_000)
    afterAll(() => {
      rx.stop()
      service?.stop()
    })

    const router = async (path: string) => {
      const res = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: `r-${path}-${Date.now()}`, pattern: `${path}.*`, destination: { type: 'webhook', url: `${rx.url}/${path}` } })
      expect(res.status).toBe(201)
      return ((await res.json()) as { id: string }).id
    }
    const post = async (body: Record<string, unknown>) => {
      const res = await h.post(ws.apiKey, body)
      expect(res.status).toBe(200)
      return ((await res.json()) as { eventId: string }).eventId
    }
    const settled = (eventId: string, n = 1) =>
      eventually(async () => {
        const res = await fetch(`${h.url}/events/${eventId}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })
        const e = (await res.json()) as { deliveries: Delivery[] }
        return e.deliveries.length >= n && e.deliveries.every((d) => d.status !== 'pending') ? e.deliveries : null
      }, 15_000, `the deliveries of ${eventId}`)
    const expiredCount = async (type: string) => (await scrapeMetrics(h.url)).get(sample('herald_deliveries_ttl_expired_total', { type })) ?? 0

    test('a router delivery whose retry comes after the ttl (1 s) ends expired, not failed; without a ttl it fails', async () => {
      await router('down')
      rx.script = []
      rx.fallback = { status: 503, body: 'down' }
      const before = await expiredCount('webhook')
      const short = await post({ event: 'down.ttl', message: 'disk full', ttl: 1 })
      const plain = await post({ event: 'down.plain', message: 'disk full' })
      const [a] = await settled(short)
      expect(a).toMatchObject({ kind: 'router', status: 'expired' })
      expect(a!.attempts.map((x) => [x.ok, x.status])).toEqual([[false, 503]]) // the first attempt; the retry was never sent
      const [b] = await settled(plain)
      expect(b).toMatchObject({ kind: 'router', status: 'failed' })
      expect(b!.attempts).toHaveLength(2)
      expect(rx.received.filter((r) => r.path === '/down')).toHaveLength(3)
      expect(await expiredCount('webhook')).toBe(before + 1)
      // The delivery log lists it under its own state, with why.
      const owner = await h.admin('GET', `/admin/workspaces/${ws.name}/deliveries?state=expired`)
      const listed = (await owner.json()) as { id: string; status: string; lastError: string }[]
      expect(listed).toContainEqual(expect.objectContaining({ id: a!.id, status: 'expired', lastError: 'expired: the event is older than its ttl of 1 s; not sent' }))
      // The feed's counts say so, rather than "nothing to deliver"; an event with none expired has no such count.
      const counts = await fetch(`${h.url}/v1/workspaces/${ws.name}/deliveries/counts?events=${short},${plain}`, { headers: { authorization: `Bearer ${userToken}` } })
      expect(await counts.json()).toEqual({ [short]: { pending: 0, succeeded: 0, failed: 0, expired: 1 }, [plain]: { pending: 0, succeeded: 0, failed: 1 } })
      rx.fallback = { status: 200, body: 'ok' }
    })

    test('a delivery held for a parked router is not sent once its event outlived its ttl', async () => {
      const id = await router('parked')
      await h.db.sql`INSERT INTO router_health (router_id, open_until) VALUES (${id}, now() + interval '2500 ms')`
      const eventId = await post({ event: 'parked.x', message: 'held', ttl: 1 })
      const [d] = await settled(eventId)
      expect(d).toMatchObject({ status: 'expired', attempts: [] })
      expect(rx.received.filter((r) => r.path === '/parked')).toEqual([])
    })

    test('a router parked for an hour: its deliveries past their ttl expire by the sweep, the others stay pending', async () => {
      const id = await router('asleep')
      await h.db.sql`INSERT INTO router_health (router_id, open_until) VALUES (${id}, now() + interval '1 hour')`
      const before = await expiredCount('webhook')
      const short = await post({ event: 'asleep.x', message: 'short', ttl: 1 })
      const long = await post({ event: 'asleep.y', message: 'long', ttl: 3600 })
      const [d] = await settled(short)
      expect(d).toMatchObject({ status: 'expired', attempts: [] })
      const res = await fetch(`${h.url}/events/${long}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })
      expect(((await res.json()) as { deliveries: Delivery[] }).deliveries.map((x) => x.status)).toEqual(['pending'])
      expect(await expiredCount('webhook')).toBeGreaterThanOrEqual(before + 1)
      expect(rx.received.filter((r) => r.path === '/asleep')).toEqual([])
      await h.db.sql`DELETE FROM router_health WHERE router_id = ${id}`
    })

    test('a push whose retry comes after the ttl ends expired; the push service got one request', async () => {
      await h.db.sql`DELETE FROM devices`
      const sub = await service.newSubscription({ applicationServerKey: vapidKey })
      const res = await fetch(`${h.url}/v1/devices`, {
        method: 'POST', headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'webpush', platform: 'web', subscription: sub }),
      })
      expect(res.status).toBe(201)
      service.reply(sub.endpoint, { status: 500 })
      const before = await expiredCount('webpush')
      const eventId = await post({ message: 'on fire', ttl: 1, priority: 'urgent' })
      const [d] = await settled(eventId)
      expect(d).toMatchObject({ kind: 'push', status: 'expired' })
      expect(d!.attempts.map((x) => x.status)).toEqual([500])
      expect(service.count).toBe(1)
      expect(await expiredCount('webpush')).toBe(before + 1)
    })
  })
}
