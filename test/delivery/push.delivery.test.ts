// End to end: POST /event → outbox → bus → worker pool → the local APNs and
// FCM stand-ins (test/stand_ins.ts), on the in-process pipeline and on
// PostgreSQL + JetStream. Who is pushed (every device of every member of the
// channel, once; not a member who muted it; not a member of another
// workspace), what happens to dead tokens, and retries.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { ADMIN_TOKEN, NATS_URL, PG_URL, createTestDatabase, deleteStream, pipelines, startPipelineHerald, testStream, type TestHerald } from '../harness'
import { spawnServeAndWorker, type HeraldProcess } from '../processes'
import { eventually } from '../receiver'
import { CA_FILE, TEAM, TOPIC, fcmError, startApns, startGoogle, writeCredentials, type ApnsStandIn, type GoogleStandIn } from '../stand_ins'

setDefaultTimeout(30_000)

const KID = 'KEYID12345'
const apnsToken = () => randomBytes(32).toString('hex')

type Delivery = { id: string; kind: string; deviceId: string | null; status: string; attempts: { attempt: number; ok: boolean; status: number | null; at: string; error: string | null }[] }

for (const pipeline of pipelines) {
  describe(`push to every device of a channel's members (${pipeline})`, () => {
    let herald: TestHerald
    let apns: ApnsStandIn
    let google: GoogleStandIn
    let dir: string
    let acme: { name: string; apiKey: string }
    let other: { name: string; apiKey: string }
    // alice: an iPhone and an Android phone; bob: an iPhone, mutes "ops";
    // dave: an iPhone, member of both workspaces; carol: only in `other`.
    const tokens = { alicePhone: apnsToken(), alicePixel: `fcm-${randomBytes(8).toString('hex')}`, bob: apnsToken(), dave: apnsToken(), carol: apnsToken() }
    const users: Record<string, { userId: string; userToken: string }> = {}

    beforeAll(async () => {
      apns = await startApns()
      apns.kid = KID
      google = startGoogle()
      dir = mkdtempSync(join(tmpdir(), 'herald-push-e2e-'))
      const creds = writeCredentials(dir, `${google.url}/token`)
      herald = await startPipelineHerald(pipeline, {
        APNS_KEY_FILE: creds.p8, APNS_KEY_ID: KID, APNS_TEAM_ID: TEAM, APNS_TOPIC: TOPIC, APNS_ORIGIN: apns.origin,
        FCM_SERVICE_ACCOUNT_FILE: creds.account, FCM_ORIGIN: google.url, GOOGLE_OAUTH_TOKEN_URL: `${google.url}/token`,
        HERALD_RETRY_SCHEDULE: '0s,300ms,300ms', NODE_EXTRA_CA_CERTS: CA_FILE, // the APNs stand-in's certificate
      })
      acme = await herald.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      other = await herald.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      const member = async (ws: string, email: string) => {
        const res = await herald.admin('POST', `/admin/workspaces/${ws}/members`, { email })
        expect(res.status).toBe(201)
        return (await res.json()) as { userId: string; userToken: string }
      }
      users.alice = await member(acme.name, 'alice@example.com')
      users.bob = await member(acme.name, 'bob@example.com')
      users.dave = await member(acme.name, 'dave@example.com')
      expect((await member(other.name, 'dave@example.com')).userId).toBe(users.dave.userId)
      users.carol = await member(other.name, 'carol@example.com')
      const register = async (user: string, body: Record<string, string>) => {
        const res = await asUser(user, 'POST', '/v1/devices', body)
        expect(res.status).toBe(201)
      }
      await register('alice', { platform: 'ios', provider: 'apns', token: tokens.alicePhone, environment: 'sandbox' })
      await register('alice', { platform: 'android', provider: 'fcm', token: tokens.alicePixel })
      await register('bob', { platform: 'ios', provider: 'apns', token: tokens.bob })
      await register('dave', { platform: 'ios', provider: 'apns', token: tokens.dave })
      await register('carol', { platform: 'ios', provider: 'apns', token: tokens.carol })
      // A channel is muted once it exists (muting one that does not is a 404).
      expect((await herald.admin('POST', `/admin/workspaces/${acme.name}/channels`, { slug: 'ops' })).status).toBe(201)
      expect((await asUser('bob', 'PUT', `/v1/workspaces/${acme.name}/channels/ops/mute`)).status).toBe(204)
    }, 60_000)
    afterAll(async () => {
      await herald?.close()
      await apns?.close()
      google?.stop()
      rmSync(dir, { recursive: true, force: true })
    }, 30_000)

    const asUser = (user: string, method: string, path: string, body?: unknown) =>
      fetch(herald.url + path, {
        method,
        headers: { authorization: `Bearer ${users[user]!.userToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const post = async (ws: { apiKey: string }, body: Record<string, unknown>) => {
      const res = await herald.post(ws.apiKey, body)
      expect(res.status).toBe(200)
      return ((await res.json()) as { eventId: string }).eventId
    }
    const deliveries = (ws: { apiKey: string }, eventId: string, n: number) =>
      eventually(async () => {
        const res = await fetch(`${herald.url}/events/${eventId}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })
        const e = (await res.json()) as { deliveries: Delivery[] }
        return e.deliveries.length >= n && e.deliveries.every((d) => d.status !== 'pending') ? e.deliveries : null
      }, 15_000, `${n} settled deliveries of ${eventId}`)
    /** Device tokens pushed for an event, APNs and FCM together, with repeats. */
    const pushedFor = (eventId: string) => [
      ...apns.seen.filter((s) => JSON.parse(s.body).eventId === eventId).map((s) => s.token),
      ...google.sends.filter((s) => JSON.parse(s.body).message.data.eventId === eventId).map((s) => s.deviceToken),
    ].sort()
    const reset = () => {
      apns.seen.length = 0
      google.sends.length = 0
      apns.reply = undefined
      google.reply = undefined
    }

    test('every device of every member of the channel is pushed once, with the event in the payload', async () => {
      reset()
      const eventId = await post(acme, { channel: 'general', title: 'Deploy', message: 'v2 is live', link: 'https://example.com/d/2', event: 'deploy.done' })
      const list = await deliveries(acme, eventId, 4)
      expect(list.map((d) => [d.kind, d.status])).toEqual(Array(4).fill(['push', 'succeeded']))
      expect(pushedFor(eventId)).toEqual([tokens.alicePhone, tokens.alicePixel, tokens.bob, tokens.dave].sort())
      const ios = apns.seen.find((s) => s.token === tokens.alicePhone)!
      expect(JSON.parse(ios.body)).toEqual({
        aps: { alert: { title: 'Deploy', body: 'v2 is live' }, sound: 'default', 'interruption-level': 'active' }, eventId, workspace: acme.name, channel: 'general', link: 'https://example.com/d/2',
      })
      // The delivery id is the apns-id: the same on a retry or a duplicate.
      expect(list.map((d) => d.id)).toContain(String(ios.headers['apns-id']))
      const android = JSON.parse(google.sends.find((s) => s.deviceToken === tokens.alicePixel)!.body).message
      expect(android.notification).toEqual({ title: 'Deploy', body: 'v2 is live' })
      expect(android.data).toMatchObject({ eventId, workspace: acme.name, channel: 'general', link: 'https://example.com/d/2' })
      expect(apns.problems).toEqual([])
      expect(google.problems).toEqual([])
    })

    test('one provider token and one HTTP/2 session serve many pushes', async () => {
      reset()
      const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => post(acme, { message: `burst ${i}` })))
      await Promise.all(ids.map((id) => deliveries(acme, id, 4)))
      expect(apns.seen).toHaveLength(30)
      expect(new Set(apns.seen.map((s) => s.jwt)).size).toBe(1)
      expect(google.tokenCalls).toBe(1) // one access token, cached since the first test
    })

    test('a member who muted the channel is not pushed for it, and still is for others', async () => {
      reset()
      const muted = await post(acme, { channel: 'ops', message: 'disk full' })
      await deliveries(acme, muted, 3)
      expect(pushedFor(muted)).toEqual([tokens.alicePhone, tokens.alicePixel, tokens.dave].sort())
      const open = await post(acme, { channel: 'sales', message: 'deal won' })
      await deliveries(acme, open, 4)
      expect(pushedFor(open)).toContain(tokens.bob)
    })

    test("another workspace's events reach its own members only; a member of both is pushed once", async () => {
      reset()
      const eventId = await post(other, { message: 'hello other' })
      const list = await deliveries(other, eventId, 2)
      expect(list).toHaveLength(2)
      expect(pushedFor(eventId)).toEqual([tokens.carol, tokens.dave].sort())
    })

    test('a 503 is retried after its Retry-After, under the same delivery', async () => {
      reset()
      let first = true
      apns.reply = (token) => {
        if (token !== tokens.bob || !first) return undefined
        first = false
        return { status: 503, reason: 'ServiceUnavailable', headers: { 'retry-after': '1' } }
      }
      const eventId = await post(acme, { message: 'retry me' })
      const bob = (await deliveries(acme, eventId, 4)).find((d) => d.attempts[0]?.status === 503)!
      expect(bob.status).toBe('succeeded')
      expect(bob.attempts.map((a) => [a.attempt, a.ok, a.status])).toEqual([[1, false, 503], [2, true, 200]])
      const tries = apns.seen.filter((s) => s.token === tokens.bob && JSON.parse(s.body).eventId === eventId)
      expect(tries).toHaveLength(2)
      expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(950) // not the schedule's 300 ms
      expect(new Set(tries.map((t) => t.headers['apns-id'])).size).toBe(1)
    })

    test('tokens APNs and FCM report as unregistered are removed, and not pushed again', async () => {
      reset()
      apns.reply = (token) => (token === tokens.alicePhone ? { status: 410, reason: 'Unregistered' } : undefined)
      google.reply = (token) => (token === tokens.alicePixel ? { status: 404, body: fcmError(404, 'NOT_FOUND', 'UNREGISTERED') } : undefined)
      const eventId = await post(acme, { message: 'phones gone' })
      const list = await deliveries(acme, eventId, 4)
      expect(list.filter((d) => d.status === 'failed')).toHaveLength(2)
      expect(list.filter((d) => d.status === 'failed').every((d) => d.attempts.length === 1)).toBe(true) // permanent: no retry
      const mine = (await (await asUser('alice', 'GET', '/v1/devices')).json()) as unknown[]
      expect(mine).toEqual([])
      reset()
      const next = await post(acme, { message: 'after' })
      await deliveries(acme, next, 2)
      await Bun.sleep(300)
      expect(pushedFor(next)).toEqual([tokens.bob, tokens.dave].sort())
    })
  })
}

// A worker caches who is pushed for a channel; the API process announces every
// change of devices, members, mutes and preferences over NATS, so a separate worker
// process sees it at the next event, not when its cache runs out.
const describeSplit = PG_URL && NATS_URL ? describe : describe.skip
describeSplit('an API process and a worker process: audience changes reach the worker at once', () => {
  test('a device registered, and a channel muted, after the worker cached the channel', async () => {
    const apns = await startApns()
    apns.kid = KID
    const google = startGoogle()
    const dir = mkdtempSync(join(tmpdir(), 'herald-push-split-'))
    const db = await createTestDatabase()
    const stream = testStream()
    const creds = writeCredentials(dir, `${google.url}/token`)
    const env = {
      DATABASE_URL: db.url, NATS_URL: NATS_URL!, NATS_STREAM: stream, NODE_EXTRA_CA_CERTS: CA_FILE,
      APNS_KEY_FILE: creds.p8, APNS_KEY_ID: KID, APNS_TEAM_ID: TEAM, APNS_TOPIC: TOPIC, APNS_ORIGIN: apns.origin,
    }
    const procs: HeraldProcess[] = []
    try {
      const { api } = await spawnServeAndWorker(env, procs)
      const call = (token: string, method: string, path: string, body?: unknown) =>
        fetch(api.url + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
      const { apiKey } = (await (await call(ADMIN_TOKEN, 'POST', '/admin/workspaces', { name: 'split' })).json()) as { apiKey: string }
      const { userToken } = (await (await call(ADMIN_TOKEN, 'POST', '/admin/workspaces/split/members', { email: 'e@example.com' })).json()) as { userToken: string }
      const [first, second] = [apnsToken(), apnsToken()]
      expect((await call(userToken, 'POST', '/v1/devices', { platform: 'ios', provider: 'apns', token: first })).status).toBe(201)
      const pushed = async (message: string, n: number) => {
        const res = await call(apiKey, 'POST', '/event', { message })
        expect(res.status).toBe(200)
        const { eventId } = (await res.json()) as { eventId: string }
        await eventually(async () => apns.seen.filter((s) => JSON.parse(s.body).eventId === eventId).length >= n, 15_000, `${n} pushes of ${message}`)
        await Bun.sleep(200) // room for a push that should not come
        return apns.seen.filter((s) => JSON.parse(s.body).eventId === eventId).map((s) => s.token).sort()
      }
      expect(await pushed('one device', 1)).toEqual([first])
      expect((await call(userToken, 'POST', '/v1/devices', { platform: 'ios', provider: 'apns', token: second })).status).toBe(201)
      expect(await pushed('two devices', 2)).toEqual([first, second].sort())
      expect((await call(userToken, 'PUT', '/v1/workspaces/split/channels/general/mute')).status).toBe(204)
      const res = await call(apiKey, 'POST', '/event', { message: 'muted' })
      const { eventId } = (await res.json()) as { eventId: string }
      await Bun.sleep(1500)
      expect(apns.seen.filter((s) => JSON.parse(s.body).eventId === eventId)).toEqual([])
      // Preferences set on the API process reach the worker's cache as a mute does.
      expect((await call(userToken, 'DELETE', '/v1/workspaces/split/channels/general/mute')).status).toBe(204)
      expect(await pushed('unmuted', 2)).toEqual([first, second].sort())
      expect((await call(userToken, 'PUT', '/v1/workspaces/split/preferences', { default: 'urgent' })).status).toBe(200)
      await Bun.sleep(1000)
      const held = (await (await call(apiKey, 'POST', '/event', { message: 'below urgent' })).json()) as { eventId: string }
      const rows = await eventually(async () => {
        const e = (await (await call(apiKey, 'GET', `/events/${held.eventId}`)).json()) as { deliveries: { status: string; reason: string | null }[] }
        return e.deliveries.length === 2 ? e.deliveries : null
      }, 15_000, 'the suppressed pushes')
      expect(rows.map((d) => [d.status, d.reason])).toEqual(Array(2).fill(['suppressed', 'channel general: urgent only (your default); priority 3 is below 5']))
      expect(apns.seen.filter((s) => JSON.parse(s.body).eventId === held.eventId)).toEqual([])
      expect(apns.problems).toEqual([])
    } finally {
      for (const p of procs) await p.kill('SIGTERM').catch(() => {})
      await deleteStream(stream)
      await db.drop()
      await apns.close()
      google.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
