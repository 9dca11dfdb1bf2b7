// An event read on one device closes its notification on the member's
// browsers: POST …/feed/read queues a dismissal, the worker claims it once and
// sends a Web Push "dismiss" message with the notification's tag (the
// collapse key, else the event id) to a local push service that decrypts it
// as a browser does. Another member's browser gets nothing.
import { beforeAll, afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { pipelines, usePipelineHerald } from '../harness'
import { CA_FILE } from '../stand_ins'
import { startPushService, type PushService, type WebPushSubscription } from '../web_push_service'

setDefaultTimeout(30_000)

for (const pipeline of pipelines) describe(`dismiss pushes (${pipeline})`, () => {
  const herald = usePipelineHerald(pipeline, { HERALD_OUTBOUND_ALLOW: '127.0.0.1', WEB_PUSH_SUBJECT: 'mailto:ops@example.com', NODE_EXTRA_CA_CERTS: CA_FILE })
  let service: PushService
  let acme: { name: string; apiKey: string }
  let vapidKey: string
  const member = async () => {
    const res = await herald.admin('POST', `/admin/workspaces/${acme.name}/members`, { email: `dismiss-${Date.now()}-${Math.random()}@example.com` })
    const token = ((await res.json()) as { userToken: string }).userToken
    const call = (method: string, path: string, body?: unknown) =>
      fetch(herald.url + path, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) })
    const sub: WebPushSubscription = await service.newSubscription({ applicationServerKey: vapidKey })
    expect((await call('POST', '/v1/devices', { provider: 'webpush', platform: 'web', subscription: sub })).status).toBe(201)
    return { call, sub }
  }

  beforeAll(async () => {
    vapidKey = ((await (await fetch(`${herald.url}/v1/push/vapid-public-key`)).json()) as { publicKey: string }).publicKey
    service = startPushService({ vapidPublicKey: vapidKey })
    acme = await herald.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
  }, 60_000)
  afterAll(() => service?.stop())

  test('marking read sends the member\'s browsers a dismiss message with the tag; another member\'s nothing', async () => {
    const me = await member()
    const other = await member()
    // Both waiters before the event: the push service keeps no push nobody waits for, and the two go out together.
    const first = service.next(me.sub.endpoint, 10_000)
    const otherFirst = service.next(other.sub.endpoint, 10_000)
    const posted = await herald.post(acme.apiKey, { channel: 'ops', message: 'disk full', collapseKey: 'disk' })
    const { eventId } = (await posted.json()) as { eventId: string }
    await first
    await otherFirst
    const dismissed = service.next(me.sub.endpoint, 5_000)
    const res = await me.call('POST', `/v1/workspaces/${acme.name}/feed/read`, { eventIds: [eventId] })
    expect(res.status).toBe(200)
    const push = await dismissed
    expect(JSON.parse(push.text!)).toEqual({ v: 1, type: 'dismiss', workspace: acme.name, tags: ['disk'] })
    expect(push.headers).toMatchObject({ ttl: '60' })
    await Bun.sleep(1500)
    const count = (await herald.db.sql`SELECT count(*)::int AS n FROM push_dismissals`)[0]!.n
    expect(count).toBe(0)
    // Nothing more for the other member than the event itself.
    await expect(service.next(other.sub.endpoint, 500)).rejects.toThrow()
  })
})
