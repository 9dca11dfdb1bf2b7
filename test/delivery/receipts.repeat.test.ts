// The repeats of an event sent with `ack`, against the APNs stand-in, on the
// embedded default and on PostgreSQL with NATS: every `retry` each device that
// got the event is pushed again, as a push delivery of its own, until the
// receipt is acknowledged, cancelled or expired; an escalation step adds its
// channel's members at its `after`; repeats spend no quota; routers with
// `receipts: true` are told how the receipt ended. Time passes for a receipt
// by moving its rows' times back (receipts_fixture.ts elapse).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { pipelines, startPipelineHerald, type TestHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { acknowledge, apnsPushesOf, elapse, memberWithPhone, pushStandIns, readReceiptOf, sendAcked, settledDeliveries, type Member } from './receipts_fixture'

setDefaultTimeout(40_000)

for (const pipeline of pipelines) {
  describe(`receipts repeat until acknowledged (${pipeline})`, () => {
    let h: TestHerald
    let push: Awaited<ReturnType<typeof pushStandIns>>
    let receiver: Receiver
    let ws: { name: string; apiKey: string }
    let alice: Member
    let bob: Member
    let carol: Member

    beforeAll(async () => {
      push = await pushStandIns()
      receiver = startReceiver()
      h = await startPipelineHerald(pipeline, { ...push.env, HERALD_RETRY_SCHEDULE: '0s,60s' })
      ws = await h.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      alice = await memberWithPhone(h, ws.name, 'alice')
      bob = await memberWithPhone(h, ws.name, 'bob')
      carol = await memberWithPhone(h, ws.name, 'carol')
      // ops: alice and bob (carol muted it); oncall: everyone.
      for (const slug of ['ops', 'oncall', 'quiet']) expect((await h.admin('POST', `/admin/workspaces/${ws.name}/channels`, { slug })).status).toBe(201)
      expect((await fetch(`${h.url}/v1/workspaces/${ws.name}/channels/ops/mute`, { method: 'PUT', headers: { authorization: `Bearer ${carol.userToken}` } })).status).toBe(204)
      // quiet: nobody (every member muted it).
      for (const m of [alice, bob, carol]) expect((await fetch(`${h.url}/v1/workspaces/${ws.name}/channels/quiet/mute`, { method: 'PUT', headers: { authorization: `Bearer ${m.userToken}` } })).status).toBe(204)
      const router = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'told', pattern: 'alert.*', destination: { type: 'webhook', url: `${receiver.url}/hook` }, receipts: true })
      expect(router.status).toBe(201)
      const chat = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'chat', pattern: 'alert.*', destination: { type: 'slack', url: `${receiver.url}/slack` }, receipts: true })
      expect(chat.status).toBe(201)
      // Not told: receipts is false by default.
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'quiet', pattern: 'alert.*', destination: { type: 'webhook', url: `${receiver.url}/quiet` } })).status).toBe(201)
    }, 60_000)
    afterAll(async () => {
      await h?.close()
      await push?.close()
      receiver?.stop()
    }, 30_000)

    const tokensOf = (eventId: string) => apnsPushesOf(push.apns, eventId).map((s) => s.token).sort()
    const quotaUsed = async () => Number((await h.db.sql<{ q: string }[]>`SELECT quota_used AS q FROM workspaces WHERE name = ${ws.name}`)[0]!.q)

    test('every retry, each device that got the event is pushed again, as a push delivery of its own; no quota is spent', async () => {
      const { eventId, receipt } = await sendAcked(h, ws.apiKey, { channel: 'ops', ack: { retry: 30, expire: 600 } })
      await settledDeliveries(h, ws.apiKey, eventId, 2)
      expect(tokensOf(eventId)).toEqual([alice.device, bob.device].sort())
      const used = await quotaUsed()
      // Not before its retry: a second later, nothing more.
      await Bun.sleep(1500)
      expect(tokensOf(eventId)).toHaveLength(2)
      for (let n = 1; n <= 2; n++) {
        await elapse(h.db.sql, receipt, 30)
        await eventually(async () => tokensOf(eventId).length === 2 * (n + 1), 5000, `repeat ${n}`)
      }
      expect(tokensOf(eventId)).toEqual([alice.device, alice.device, alice.device, bob.device, bob.device, bob.device].sort())
      // Each push has an id of its own (apns-id): 6 pushes, 6 deliveries.
      expect(new Set(apnsPushesOf(push.apns, eventId).map((s) => s.headers['apns-id'])).size).toBe(6)
      const log = await settledDeliveries(h, ws.apiKey, eventId, 6)
      expect(log.filter((d) => d.kind === 'push' && d.status === 'succeeded')).toHaveLength(6)
      expect(new Set(log.filter((d) => d.status !== 'suppressed').map((d) => d.id)).size).toBe(6)
      // carol muted ops: her device's first push is a suppressed row, and no repeat follows it.
      expect(log.filter((d) => d.status === 'suppressed')).toHaveLength(1)
      const r = await readReceiptOf(h, ws.apiKey, receipt)
      expect(r).toMatchObject({ status: 'pending', pushes: 6, escalated: [] })
      expect(Date.now() - Date.parse(r.lastPushAt)).toBeLessThan(10_000)
      expect(await quotaUsed()).toBe(used)
      // Router deliveries are not repeated.
      expect(log.filter((d) => d.kind === 'router')).toHaveLength(0)
      expect((await acknowledge(h, alice.userToken, ws.name, receipt)).status).toBe(200)
    })

    test('acknowledging through the API stops the repeats, and a repeat still queued ends cancelled, not sent', async () => {
      const { eventId, receipt } = await sendAcked(h, ws.apiKey, { channel: 'ops', event: 'alert.disk', ack: { retry: 30, expire: 600 } })
      await settledDeliveries(h, ws.apiKey, eventId, 3)
      // bob's push service fails the first repeat: it waits 60 s for its retry (HERALD_RETRY_SCHEDULE), pending.
      push.apns.reply = (token) => (token === bob.device ? { status: 503, reason: 'ServiceUnavailable' } : undefined)
      const waiting = (n: number) => eventually(async () => (await h.db.sql<{ id: string }[]>`
        SELECT id FROM deliveries WHERE event_id = ${eventId} AND repeat = ${n} AND status = 'pending' AND attempts = 1 AND last_status = 503`)[0], 5000, `repeat ${n} waiting for its retry`)
      const row = async (id: string) => (await h.db.sql<{ status: string; last_error: string }[]>`SELECT status, last_error FROM deliveries WHERE id = ${id}`)[0]
      await elapse(h.db.sql, receipt, 30)
      await eventually(async () => tokensOf(eventId).length === 4, 5000, 'the first repeat')
      const first = await waiting(1)
      // The next repeat goes in its place: the one waiting ends cancelled, never sent twice over.
      await elapse(h.db.sql, receipt, 30)
      await eventually(async () => tokensOf(eventId).length === 6, 5000, 'the second repeat')
      const second = await waiting(2)
      expect(await row(first.id)).toEqual({ status: 'cancelled', last_error: 'not sent: repeat 2 went in its place' })
      push.apns.reply = undefined
      const res = await acknowledge(h, bob.userToken, ws.name, receipt)
      expect(res.status).toBe(200)
      expect(await row(second.id)).toEqual({ status: 'cancelled', last_error: 'not sent: the receipt acknowledged' })
      // Time passes: nothing more goes out.
      await elapse(h.db.sql, receipt, 120)
      await Bun.sleep(2000)
      expect(tokensOf(eventId)).toHaveLength(6)
      // The router that forwarded the event is told, once, with the receipt.
      const hooks = await eventually(async () => receiver.received.filter((x) => JSON.parse(x.body).type === 'receipt.acknowledged' && JSON.parse(x.body).data.receipt === receipt), 5000, 'the receipt webhook')
      const body = JSON.parse(hooks[0]!.body)
      expect(body.data).toMatchObject({ receipt, eventId, status: 'acknowledged', acknowledgedBy: { userId: bob.userId, email: bob.email }, acknowledgedVia: 'api' })
      expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(10_000)
      // The chat router gets one line; the router without receipts gets nothing.
      const slack = await eventually(async () => receiver.received.find((x) => x.path === '/slack' && JSON.parse(x.body).text.includes('acknowledged')), 5000, 'the chat line')
      expect(JSON.parse(slack.body).text).toBe(`Acknowledged: ✅ "disk full on db-1" was acknowledged by ${bob.email} (api).`)
      await Bun.sleep(500)
      expect(hooks).toHaveLength(1)
      expect(receiver.received.filter((x) => x.path === '/quiet' && JSON.parse(x.body).type !== 'event.created')).toHaveLength(0)
      const log = await settledDeliveries(h, ws.apiKey, eventId, 6)
      expect(log.filter((d) => d.kind === 'receipt').map((d) => d.status)).toEqual(['succeeded', 'succeeded'])
    })

    test('cancel stops the repeats; the router is told receipt.cancelled', async () => {
      const { eventId, receipt } = await sendAcked(h, ws.apiKey, { channel: 'ops', event: 'alert.cpu', ack: { retry: 30, expire: 600 } })
      await settledDeliveries(h, ws.apiKey, eventId, 3)
      const res = await fetch(`${h.url}/receipts/${receipt}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}` } })
      expect(res.status).toBe(200)
      await elapse(h.db.sql, receipt, 60)
      await Bun.sleep(2000)
      expect(tokensOf(eventId)).toHaveLength(2)
      await eventually(async () => receiver.received.some((x) => JSON.parse(x.body).type === 'receipt.cancelled' && JSON.parse(x.body).data.receipt === receipt), 5000, 'receipt.cancelled')
    })

    test('at expiresAt the receipt becomes expired, repeats stop, and the router is told receipt.expired', async () => {
      const { eventId, receipt } = await sendAcked(h, ws.apiKey, { channel: 'ops', event: 'alert.mem', ack: { retry: 30, expire: 45 } })
      await settledDeliveries(h, ws.apiKey, eventId, 3)
      await elapse(h.db.sql, receipt, 30)
      await eventually(async () => tokensOf(eventId).length === 4, 5000, 'the repeat before expiry')
      await elapse(h.db.sql, receipt, 15)
      await eventually(async () => (await readReceiptOf(h, ws.apiKey, receipt)).status === 'expired', 5000, 'expired')
      await elapse(h.db.sql, receipt, 60)
      await Bun.sleep(1500)
      expect(tokensOf(eventId)).toHaveLength(4)
      await eventually(async () => receiver.received.some((x) => JSON.parse(x.body).type === 'receipt.expired' && JSON.parse(x.body).data.receipt === receipt), 5000, 'receipt.expired')
      const ack = await acknowledge(h, alice.userToken, ws.name, receipt)
      expect(ack.status).toBe(409)
      expect(((await ack.json()) as { detail: string }).detail).toContain('expired')
    })

    test("an escalation step pushes its channel's members at its after, and they get the repeats that follow", async () => {
      const { eventId, receipt } = await sendAcked(h, ws.apiKey, { channel: 'ops', ack: { retry: 120, expire: 3600, escalate: [{ after: 60, channel: 'oncall' }] } })
      await settledDeliveries(h, ws.apiKey, eventId, 2)
      expect(tokensOf(eventId)).toEqual([alice.device, bob.device].sort())
      await elapse(h.db.sql, receipt, 50)
      await Bun.sleep(1500)
      expect(tokensOf(eventId)).toHaveLength(2)
      await elapse(h.db.sql, receipt, 10)
      // carol muted ops but not oncall: she alone is pushed at the step (alice and bob were already).
      await eventually(async () => tokensOf(eventId).length === 3, 5000, 'the escalation')
      expect(tokensOf(eventId)).toEqual([alice.device, bob.device, carol.device].sort())
      expect((await readReceiptOf(h, ws.apiKey, receipt)).escalated).toEqual(['oncall'])
      await elapse(h.db.sql, receipt, 60)
      await eventually(async () => tokensOf(eventId).length === 6, 5000, 'the repeat after the escalation')
      await Bun.sleep(500)
      expect(tokensOf(eventId)).toHaveLength(6)
      expect(tokensOf(eventId).filter((t) => t === carol.device)).toHaveLength(2)
      expect((await acknowledge(h, carol.userToken, ws.name, receipt)).status).toBe(200)
    })

    test('a receipt whose event reached no device still ends as it should', async () => {
      const { receipt } = await sendAcked(h, ws.apiKey, { channel: 'quiet', ack: { retry: 30, expire: 60 } })
      await elapse(h.db.sql, receipt, 30)
      await Bun.sleep(1500)
      expect(await readReceiptOf(h, ws.apiKey, receipt)).toMatchObject({ status: 'pending', pushes: 0 })
      await elapse(h.db.sql, receipt, 30)
      await eventually(async () => (await readReceiptOf(h, ws.apiKey, receipt)).status === 'expired', 5000, 'expired')
    })
  })
}
