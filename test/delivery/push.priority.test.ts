// What each push transport sends for an event's priority (1-5), ttl and
// collapse key, as the stand-ins receive it: the APNs HTTP/2 stand-in, the
// FCM v1 stand-in and the Web Push service stand-in (test/stand_ins.ts,
// test/web_push_service.ts), each of which also refuses what the real
// service would. The table the contract gives, row by row; and the table as
// captured, printed with HERALD_PRINT_MAPPING=1.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipelines, startPipelineHerald, type TestHerald } from '../harness'
import { eventually } from '../receiver'
import { CA_FILE, PUSH_EVENT, TEAM, TOPIC, apnsKey, serviceAccount, startApns, startGoogle, writeCredentials } from '../stand_ins'
import { startPushService } from '../web_push_service'
import { closeApnsSessions, sendApns } from '../../src/delivery/push/apns'
import { resetFcmClients, sendFcm } from '../../src/delivery/push/fcm'
import { sendWebPush } from '../../src/delivery/push/webpush'
import { generateVapidPair } from '../../src/delivery/push/vapid'
import { caList } from '../../src/delivery/outbound'
import type { EventView } from '../../src/delivery/event_view'
import type { PushJob } from '../../src/delivery/push/job'

const CA = caList(CA_FILE)
const apns = await startApns()
const google = startGoogle()
const vapid = { ...generateVapidPair(), subject: 'mailto:ops@example.com', ttlSeconds: 86_400 }
const service = startPushService({ vapidPublicKey: vapid.publicKey, verify: 'all' })
afterAll(() => {
  closeApnsSessions()
  apns.server.close()
  google.stop()
  service.stop()
})

const keyId = randomBytes(5).toString('hex').toUpperCase()
beforeEach(() => {
  Object.assign(apns, { kid: keyId, topic: TOPIC, seen: [], script: [], problems: [] })
  Object.assign(google, { sends: [], script: [], problems: [] })
  service.reset()
})

/** An event created now (a ttl counts from it), with the fields a test names. */
const event = (over: Partial<EventView> = {}): EventView => ({ ...PUSH_EVENT, eventId: Bun.randomUUIDv7(), createdAt: new Date().toISOString(), ...over })
const base = (e: EventView): Pick<PushJob, 'deliveryId' | 'attempt' | 'event' | 'ca'> => ({ deliveryId: crypto.randomUUID(), attempt: 1, event: e, ca: CA })

async function viaApns(e: EventView, critical = false) {
  const result = await sendApns({
    ...base(e),
    device: { id: 'd1', provider: 'apns', token: randomBytes(32).toString('hex'), environment: 'production', topic: null },
    apns: { keyPem: apnsKey.privateKey, keyId, teamId: TEAM, topic: TOPIC, origin: apns.origin, critical },
  })
  expect(result).toMatchObject({ ok: true, status: 200 })
  expect(apns.problems).toEqual([])
  const seen = apns.seen.at(-1)!
  return { headers: seen.headers, aps: JSON.parse(seen.body).aps }
}

async function viaFcm(e: EventView, critical = false) {
  resetFcmClients()
  const result = await sendFcm({
    ...base(e),
    device: { id: 'd2', provider: 'fcm', token: 'fcm-' + randomBytes(8).toString('hex'), environment: 'production', topic: null },
    fcm: { serviceAccount: serviceAccount(`${google.url}/token`), origin: google.url, tokenUrl: `${google.url}/token`, critical },
  })
  expect(result).toMatchObject({ ok: true, status: 200 })
  expect(google.problems).toEqual([])
  return JSON.parse(google.sends.at(-1)!.body).message
}

async function viaWebPush(e: EventView) {
  const sub = await service.newSubscription({ applicationServerKey: vapid.publicKey })
  const arrived = service.next(sub.endpoint)
  const result = await sendWebPush(
    { ...base(e), device: { id: 'd3', provider: 'webpush', token: sub.endpoint, environment: 'production', topic: null, ...sub.keys }, webpush: vapid },
    { allow: ['127.0.0.0/8'], timeoutMs: 5000, maxResponseBytes: 4096, ca: CA },
  )
  expect(result).toMatchObject({ ok: true, status: 201 })
  const push = await arrived
  expect(service.problems).toEqual([])
  return { headers: push.headers, payload: JSON.parse(push.text!) }
}

describe('priority: each transport, as the stand-ins receive it', () => {
  // The contract's table: [priority, apns-priority, interruption-level, android.priority, notification_priority, Urgency].
  const table = [
    [1, '5', 'passive', 'NORMAL', 'PRIORITY_MIN', 'very-low'],
    [2, '5', 'passive', 'NORMAL', 'PRIORITY_LOW', 'low'],
    [3, '10', 'active', 'HIGH', 'PRIORITY_DEFAULT', 'normal'],
    [4, '10', 'active', 'HIGH', 'PRIORITY_HIGH', 'high'],
    [5, '10', 'time-sensitive', 'HIGH', 'PRIORITY_MAX', 'high'],
  ] as const
  const captured: string[] = []

  for (const [priority, apnsPriority, level, android, notification, urgency] of table) {
    test(`priority ${priority}: APNs ${apnsPriority}/${level}, FCM ${android}/${notification} and its apns block, Web Push ${urgency}`, async () => {
      const e = event({ priority })
      const a = await viaApns(e)
      expect(a.headers['apns-priority']).toBe(apnsPriority)
      expect(a.aps['interruption-level']).toBe(level)
      // Passive is silent; every other level plays the default sound.
      if (level === 'passive') expect('sound' in a.aps).toBe(false)
      else expect(a.aps.sound).toBe('default')

      const f = await viaFcm(e)
      expect(f.android.priority).toBe(android)
      expect(f.android.notification).toEqual({ notification_priority: notification })
      expect(f.apns.headers['apns-priority']).toBe(apnsPriority)
      expect(f.apns.payload.aps['interruption-level']).toBe(level)
      expect(f.data.priority).toBe(String(priority))

      const w = await viaWebPush(e)
      expect(w.headers.urgency).toBe(urgency)
      expect(w.payload.priority).toBe(priority)
      captured.push(`| ${priority} | apns-priority: ${a.headers['apns-priority']}, interruption-level: ${a.aps['interruption-level']}${a.aps.sound ? `, sound: ${JSON.stringify(a.aps.sound)}` : ''} | android.priority: ${f.android.priority}, notification_priority: ${f.android.notification.notification_priority}, apns.headers apns-priority: ${f.apns.headers['apns-priority']}, apns aps.interruption-level: ${f.apns.payload.aps['interruption-level']} | Urgency: ${w.headers.urgency}, payload priority: ${w.payload.priority} |`)
    })
  }

  test('an event without a priority is 3 on every transport', async () => {
    const e = event()
    expect(e.priority).toBe(3)
    expect((await viaApns(e)).headers['apns-priority']).toBe('10')
    expect((await viaFcm(e)).android.priority).toBe('HIGH')
    expect((await viaWebPush(e)).headers.urgency).toBe('normal')
  })

  test('APNS_CRITICAL_PRIORITY5: priority 5 is critical with a critical sound, on APNs and in the FCM apns block; 4 is not', async () => {
    const a = await viaApns(event({ priority: 5 }), true)
    expect(a.aps['interruption-level']).toBe('critical')
    expect(a.aps.sound).toEqual({ critical: 1, name: 'default', volume: 1 })
    expect(a.headers['apns-priority']).toBe('10')
    const f = await viaFcm(event({ priority: 5 }), true)
    expect(f.apns.payload.aps).toEqual({ sound: { critical: 1, name: 'default', volume: 1 }, 'interruption-level': 'critical' })
    expect((await viaApns(event({ priority: 4 }), true)).aps['interruption-level']).toBe('active')
  })

  afterAll(() => {
    if (process.env.HERALD_PRINT_MAPPING) console.log(['| priority | APNs | FCM | Web Push |', '|---|---|---|---|', ...captured].join('\n'))
  })
})

describe('ttl and collapse key', () => {
  test('a ttl: APNs apns-expiration now + ttl, FCM android.ttl and the apns block, Web Push TTL', async () => {
    const e = event({ ttl: 600 })
    const now = Math.floor(Date.now() / 1000)
    const a = await viaApns(e)
    expect(Number(a.headers['apns-expiration'])).toBeWithin(now + 599, now + 602)
    const f = await viaFcm(e)
    expect(f.android.ttl).toMatch(/^(599|600)s$/)
    expect(Number(f.apns.headers['apns-expiration'])).toBeWithin(now + 599, now + 602)
    expect((await viaWebPush(e)).headers.ttl).toMatch(/^(599|600)$/)
  })

  test('a retry sends what is left of the ttl, not the whole of it again', async () => {
    const e = event({ ttl: 600, createdAt: new Date(Date.now() - 100_500).toISOString() })
    const now = Math.floor(Date.now() / 1000)
    expect(Number((await viaApns(e)).headers['apns-expiration'])).toBeWithin(now + 498, now + 501)
    expect((await viaFcm(e)).android.ttl).toMatch(/^(499|500)s$/)
    expect((await viaWebPush(e)).headers.ttl).toMatch(/^(499|500)$/)
  })

  test('ttl 0: APNs apns-expiration 0 (once, now), FCM "0s", Web Push TTL 0', async () => {
    const e = event({ ttl: 0 })
    expect((await viaApns(e)).headers['apns-expiration']).toBe('0')
    const f = await viaFcm(e)
    expect(f.android.ttl).toBe('0s')
    expect(f.apns.headers['apns-expiration']).toBe('0')
    expect((await viaWebPush(e)).headers.ttl).toBe('0')
  })

  test('no ttl: APNs keeps a day, FCM its default (no android.ttl), Web Push WEB_PUSH_TTL_S', async () => {
    const e = event()
    const now = Math.floor(Date.now() / 1000)
    expect(Number((await viaApns(e)).headers['apns-expiration'])).toBeWithin(now + 86_399, now + 86_402)
    expect('ttl' in (await viaFcm(e)).android).toBe(false)
    expect((await viaWebPush(e)).headers.ttl).toBe('86400')
  })

  test('a collapse key: APNs apns-collapse-id, FCM android.collapse_key and apns-collapse-id, Web Push Topic, the app\'s payload', async () => {
    const e = event({ collapseKey: 'db-primary_cpu-1' })
    expect((await viaApns(e)).headers['apns-collapse-id']).toBe('db-primary_cpu-1')
    const f = await viaFcm(e)
    expect(f.android.collapse_key).toBe('db-primary_cpu-1')
    expect(f.apns.headers['apns-collapse-id']).toBe('db-primary_cpu-1')
    const w = await viaWebPush(e)
    expect(w.headers.topic).toBe('db-primary_cpu-1')
    expect(w.payload.collapseKey).toBe('db-primary_cpu-1')
  })

  test('no collapse key: the event id, so a retry replaces its own notification', async () => {
    const e = event()
    expect((await viaApns(e)).headers['apns-collapse-id']).toBe(e.eventId)
    expect((await viaFcm(e)).android.collapse_key).toBe(e.eventId)
    const w = await viaWebPush(e)
    expect(w.headers.topic).toBe(e.eventId.replaceAll('-', ''))
    expect(w.payload.collapseKey).toBeNull()
  })
})

for (const pipeline of pipelines) {
  describe(`through POST /event to APNs and FCM, with APNS_CRITICAL_PRIORITY5 (${pipeline})`, () => {
    const KID = 'KEYID54321'
    let herald: TestHerald
    let dir: string
    let ws: { name: string; apiKey: string }
    const iphone = randomBytes(32).toString('hex')
    const pixel = `fcm-${randomBytes(8).toString('hex')}`
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'herald-priority-'))
      const creds = writeCredentials(dir, `${google.url}/token`)
      herald = await startPipelineHerald(pipeline, {
        APNS_KEY_FILE: creds.p8, APNS_KEY_ID: KID, APNS_TEAM_ID: TEAM, APNS_TOPIC: TOPIC, APNS_ORIGIN: apns.origin, APNS_CRITICAL_PRIORITY5: 'true',
        FCM_SERVICE_ACCOUNT_FILE: creds.account, FCM_ORIGIN: google.url, GOOGLE_OAUTH_TOKEN_URL: `${google.url}/token`, NODE_EXTRA_CA_CERTS: CA_FILE,
      })
      ws = await herald.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      const { userToken } = (await (await herald.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: `oncall-${pipeline}@example.com` })).json()) as { userToken: string }
      for (const body of [{ platform: 'ios', provider: 'apns', token: iphone }, { platform: 'android', provider: 'fcm', token: pixel }]) {
        const res = await fetch(`${herald.url}/v1/devices`, { method: 'POST', headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
        expect(res.status).toBe(201)
      }
    }, 60_000)
    afterAll(async () => {
      await herald?.close()
      rmSync(dir, { recursive: true, force: true })
    }, 30_000)

    /** What APNs and FCM got for the event posted with `body`. */
    async function pushed(body: Record<string, unknown>) {
      apns.kid = KID
      const res = await herald.post(ws.apiKey, { message: 'db-1 is down', ...body })
      expect(res.status).toBe(200)
      const { eventId } = (await res.json()) as { eventId: string }
      return eventually(async () => {
        const a = apns.seen.find((s) => JSON.parse(s.body).eventId === eventId)
        const f = google.sends.find((s) => JSON.parse(s.body).message.data.eventId === eventId)
        return a && f ? { eventId, apns: { headers: a.headers, aps: JSON.parse(a.body).aps }, fcm: JSON.parse(f.body).message } : null
      }, 15_000, `the pushes of ${eventId}`)
    }

    test('priority "urgent", ttl "15m", a collapse key: critical on iOS, PRIORITY_MAX on Android, the ttl and the key on both', async () => {
      const now = Math.floor(Date.now() / 1000)
      const p = await pushed({ priority: 'urgent', ttl: '15m', collapseKey: 'db-1_down' })
      expect(p.apns.headers).toMatchObject({ 'apns-priority': '10', 'apns-collapse-id': 'db-1_down' })
      expect(Number(p.apns.headers['apns-expiration'])).toBeWithin(now + 895, now + 905)
      expect(p.apns.aps).toMatchObject({ 'interruption-level': 'critical', sound: { critical: 1, name: 'default', volume: 1 } })
      expect(p.fcm.android).toMatchObject({ priority: 'HIGH', collapse_key: 'db-1_down', notification: { notification_priority: 'PRIORITY_MAX' } })
      expect(p.fcm.android.ttl).toMatch(/^(89[5-9]|900)s$/)
      expect(p.fcm.apns.payload.aps['interruption-level']).toBe('critical')
      expect(apns.problems).toEqual([])
      expect(google.problems).toEqual([])
    })

    test('priority "min": apns-priority 5 and passive, NORMAL and PRIORITY_MIN; an event without a priority sends 3', async () => {
      const low = await pushed({ priority: 'min' })
      expect(low.apns.headers['apns-priority']).toBe('5')
      expect(low.apns.aps['interruption-level']).toBe('passive')
      expect(low.fcm.android).toMatchObject({ priority: 'NORMAL', collapse_key: low.eventId, notification: { notification_priority: 'PRIORITY_MIN' } })
      const plain = await pushed({})
      expect(plain.apns.headers['apns-priority']).toBe('10')
      expect(plain.apns.aps['interruption-level']).toBe('active')
      expect(plain.fcm.android.notification.notification_priority).toBe('PRIORITY_DEFAULT')
      expect(apns.problems).toEqual([])
      expect(google.problems).toEqual([])
    })
  })
}
