// Preferences end to end, on the in-process pipeline (embedded) and on
// PostgreSQL + JetStream: two members, each with a browser subscribed at the
// Web Push service stand-in (test/web_push_service.ts). A member in quiet
// hours, or whose channel level is above the event's priority, or who muted
// the channel, gets a `suppressed` delivery with the reason and no push,
// while the other member is pushed; `except` lets a priority-5 event
// through; an event with recipients pushes them only; routers receive every
// event whatever anyone prefers; a PUT applies to the pushes a second later.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { pipelines, usePipelineHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { CA_FILE } from '../stand_ins'
import { startPushService, type PushService } from '../web_push_service'

setDefaultTimeout(30_000)

type Delivery = { id: string; kind: string; deviceId: string | null; status: string; reason: string | null; attempts: unknown[] }

/** Quiet hours that hold "now" in Pacific/Kiritimati (UTC+14): from an hour ago to an hour ahead on their clock. */
function quietNow(except = 5) {
  const wall = (Math.floor(Date.now() / 60_000) + 14 * 60) % 1440
  const hhmm = (m: number) => `${String(Math.floor(((m + 1440) % 1440) / 60)).padStart(2, '0')}:${String(((m + 1440) % 1440) % 60).padStart(2, '0')}`
  return { timezone: 'Pacific/Kiritimati', from: hhmm(wall - 60), to: hhmm(wall + 60), except }
}

for (const pipeline of pipelines) {
  describe(`preferences decide who is pushed (${pipeline})`, () => {
    const herald = usePipelineHerald(pipeline, { HERALD_OUTBOUND_ALLOW: '127.0.0.1', WEB_PUSH_SUBJECT: 'mailto:ops@example.com', NODE_EXTRA_CA_CERTS: CA_FILE })
    let service: PushService
    let rx: Receiver
    let ws: { name: string; apiKey: string }
    const people: Record<'alice' | 'bob', { userId: string; token: string; deviceId: string; endpoint: string }> = {} as never

    const call = (token: string, method: string, path: string, body?: unknown) =>
      fetch(herald.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const prefs = (who: 'alice' | 'bob', body: unknown) => call(people[who].token, 'PUT', `/v1/workspaces/${ws.name}/preferences`, body)

    beforeAll(async () => {
      const vapidKey = ((await (await fetch(`${herald.url}/v1/push/vapid-public-key`)).json()) as { publicKey: string }).publicKey
      service = startPushService({ vapidPublicKey: vapidKey })
      rx = startReceiver()
      ws = await herald.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      for (const who of ['alice', 'bob'] as const) {
        const res = await herald.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: `${who}-${Date.now()}@example.com` })
        const { userId, userToken } = (await res.json()) as { userId: string; userToken: string }
        const sub = await service.newSubscription({ applicationServerKey: vapidKey })
        const dev = await call(userToken, 'POST', '/v1/devices', { provider: 'webpush', platform: 'web', subscription: sub })
        expect(dev.status).toBe(201)
        people[who] = { userId, token: userToken, deviceId: ((await dev.json()) as { id: string }).id, endpoint: sub.endpoint }
      }
      for (const slug of ['ops', 'sales']) expect((await herald.admin('POST', `/admin/workspaces/${ws.name}/channels`, { slug })).status).toBe(201)
      expect((await herald.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'all', pattern: 'alert.*', destination: { type: 'webhook', url: `${rx.url}/all` } })).status).toBe(201)
    }, 60_000)
    afterAll(() => {
      service?.stop()
      rx?.stop()
    })

    const post = async (body: Record<string, unknown>) => {
      const res = await herald.post(ws.apiKey, { event: 'alert.fired', ...body })
      expect(res.status).toBe(200)
      return ((await res.json()) as { eventId: string }).eventId
    }
    /** The event's two push deliveries once settled, by member. */
    const settled = (eventId: string, n = 2) =>
      eventually(async () => {
        const res = await fetch(`${herald.url}/events/${eventId}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })
        const e = (await res.json()) as { deliveries: Delivery[] }
        const pushes = e.deliveries.filter((d) => d.kind === 'push')
        if (pushes.length < n || pushes.some((d) => d.status === 'pending')) return null
        return { alice: pushes.find((d) => d.deviceId === people.alice.deviceId), bob: pushes.find((d) => d.deviceId === people.bob.deviceId) }
      }, 15_000, `the pushes of ${eventId}`)
    const lastError = async (id: string) => (await herald.db.sql<{ last_error: string | null; attempts: number }[]>`SELECT last_error, attempts FROM deliveries WHERE id = ${id}`)[0]!
    const pushedTo = (eventId: string) => service.received.filter((r) => r.text && JSON.parse(r.text).eventId === eventId).map((r) => r.endpoint)
    const routed = (eventId: string) => eventually(async () => rx.received.some((r) => JSON.parse(r.body).data.eventId === eventId), 10_000, `the router's delivery of ${eventId}`)

    test('quiet hours now: bob gets a suppressed row with the reason, alice the push; the router gets the event', async () => {
      expect((await prefs('bob', { quietHours: quietNow() })).status).toBe(200)
      await Bun.sleep(1000)
      const eventId = await post({ channel: 'ops', message: 'disk 91%' })
      const d = await settled(eventId)
      expect(d.alice!.status).toBe('succeeded')
      expect(d.bob!.status).toBe('suppressed')
      expect(d.bob!.attempts).toEqual([])
      const row = await lastError(d.bob!.id)
      expect(row.last_error).toMatch(/^quiet hours \d\d:\d\d–\d\d:\d\d Pacific\/Kiritimati; priority 3 is below 5$/)
      expect(row.attempts).toBe(0)
      expect(d.bob!.reason).toBe(row.last_error) // GET /events/{id} says why
      expect(d.alice!.reason).toBeNull()
      await routed(eventId)
      await Bun.sleep(200)
      expect(pushedTo(eventId)).toEqual([people.alice.endpoint])
      // The feed's counts and the state filter see it.
      const list = await call(people.bob.token, 'GET', `/v1/workspaces/${ws.name}/deliveries?state=suppressed`)
      expect(list.status).toBe(200)
      expect(((await list.json()) as { deliveries: { id: string; lastError: string }[] }).deliveries.map((x) => x.id)).toContain(d.bob!.id)
    })

    test('except: a priority-5 event gets through the quiet hours', async () => {
      const eventId = await post({ channel: 'ops', message: 'site down', priority: 5 })
      const d = await settled(eventId)
      expect([d.alice!.status, d.bob!.status]).toEqual(['succeeded', 'succeeded'])
      expect(pushedTo(eventId).sort()).toEqual([people.alice.endpoint, people.bob.endpoint].sort())
    })

    test('level high on ops: priority 3 suppressed with the reason, 4 pushed; other channels follow the default', async () => {
      expect((await prefs('bob', { channels: { ops: 'high' } })).status).toBe(200)
      await Bun.sleep(1000)
      const low = await post({ channel: 'ops', message: 'cpu 70%' })
      const d = await settled(low)
      expect([d.alice!.status, d.bob!.status]).toEqual(['succeeded', 'suppressed'])
      expect((await lastError(d.bob!.id)).last_error).toBe('channel ops: high only; priority 3 is below 4')
      const high = await post({ channel: 'ops', message: 'cpu 99%', priority: 4 })
      expect((await settled(high)).bob!.status).toBe('succeeded')
      const sales = await post({ channel: 'sales', message: 'deal won' })
      expect((await settled(sales)).bob!.status).toBe('succeeded')
      await routed(low)
    })

    test('a mute is level none: suppressed "muted"; the mute routes and the document agree', async () => {
      expect((await call(people.bob.token, 'PUT', `/v1/workspaces/${ws.name}/channels/sales/mute`)).status).toBe(204)
      const doc = (await (await call(people.bob.token, 'GET', `/v1/workspaces/${ws.name}/preferences`)).json()) as { channels: Record<string, string> }
      expect(doc.channels).toEqual({ ops: 'high', sales: 'none' })
      await Bun.sleep(1000)
      const eventId = await post({ channel: 'sales', message: 'deal lost', priority: 5 })
      const d = await settled(eventId)
      expect([d.alice!.status, d.bob!.status]).toEqual(['succeeded', 'suppressed'])
      expect((await lastError(d.bob!.id)).last_error).toBe('channel sales: muted')
      await routed(eventId)
    })

    test('an event with recipients pushes them only (their preferences still apply); the router gets it', async () => {
      expect((await prefs('bob', {})).status).toBe(200)
      await Bun.sleep(1000)
      // Written as the ingest writes an event with `to`: the row, and its outbox row, which the relay publishes.
      const eventId = Bun.randomUUIDv7()
      const wsId = (await herald.db.sql<{ id: string }[]>`SELECT id FROM workspaces WHERE name = ${ws.name}`)[0]!.id
      await herald.db.sql`
        INSERT INTO events (id, workspace_id, channel, created_at, event, message, tags, priority, recipients)
        VALUES (${eventId}, ${wsId}, 'ops', uuidv7_time(${eventId}), 'alert.fired', 'for bob', '{}', 3, ${[people.bob.userId]}::uuid[])`
      await herald.db.sql`INSERT INTO outbox (event_ids, workspace_ids, published) VALUES (${[eventId]}::uuid[], ${[wsId]}::bigint[], false)`
      const d = await settled(eventId, 1)
      expect(d.alice).toBeUndefined()
      expect(d.bob!.status).toBe('succeeded')
      await routed(eventId)
      expect(pushedTo(eventId)).toEqual([people.bob.endpoint])
    })

    test('a PUT applies within a second, both ways', async () => {
      expect((await prefs('alice', { default: 'urgent' })).status).toBe(200)
      await Bun.sleep(1000)
      const held = await post({ channel: 'sales', message: 'one' })
      const d = await settled(held)
      expect(d.alice!.status).toBe('suppressed')
      expect((await lastError(d.alice!.id)).last_error).toBe('channel sales: urgent only (your default); priority 3 is below 5')
      expect((await prefs('alice', { default: 'all' })).status).toBe(200)
      await Bun.sleep(1000)
      const back = await post({ channel: 'sales', message: 'two' })
      expect((await settled(back)).alice!.status).toBe('succeeded')
      // Every event of this suite reached the router, whatever anyone preferred.
      await eventually(async () => rx.received.length >= 9, 10_000, 'every event routed')
    })
  })
}
