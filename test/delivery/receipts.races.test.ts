// Receipts under races: exactly one of six simultaneous acknowledgements
// wins; acknowledge against expire, and cancel against acknowledge, each end
// in one state, told once to the routers; the cap of pending receipts is
// exact under concurrent requests, on one instance and on two sharing a
// PostgreSQL database. On the embedded default and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, backends, describePg, startTestHerald, type TestHerald } from '../harness'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { startHerald, type Herald } from '../../src/server'
import { acknowledgeReceipt, anyReceipt } from '../../src/delivery/receipts'
import { fireDueReceipts } from '../../src/delivery/receipt_timer'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { acknowledge, elapse, readReceiptOf, sendAcked } from './receipts_fixture'

setDefaultTimeout(60_000)

for (const backend of backends) {
  describe(`receipt races (${backend})`, () => {
    let h: TestHerald
    let receiver: Receiver
    let ws: { name: string; apiKey: string }
    const people: { email: string; userId: string; userToken: string }[] = []

    beforeAll(async () => {
      receiver = startReceiver()
      h = await startTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_MAX_PENDING_RECEIPTS: '5' })
      ws = await h.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      for (let i = 0; i < 6; i++) {
        const email = `p${i}-${ws.name}@example.com`
        const res = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email })
        people.push({ email, ...((await res.json()) as { userId: string; userToken: string }) })
      }
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'told', pattern: 'race.*', destination: { type: 'webhook', url: `${receiver.url}/hook` }, receipts: true })).status).toBe(201)
    }, 60_000)
    afterAll(async () => {
      await h?.close()
      receiver?.stop()
    }, 30_000)

    /** An event the router forwarded (its delivery recorded), with its receipt. */
    const forwarded = async (ack: Record<string, unknown> = { retry: 30, expire: 600 }) => {
      const sent = await sendAcked(h, ws.apiKey, { event: 'race.alert', ack })
      await eventually(async () => (await h.db.sql`SELECT 1 FROM deliveries WHERE event_id = ${sent.eventId} AND kind = 'router' AND status = 'succeeded'`).length > 0, 10_000, 'the router delivery')
      return sent
    }
    const receiptDeliveries = async (eventId: string) => (await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM deliveries WHERE event_id = ${eventId} AND kind = 'receipt'`)[0]!.n
    const hooksFor = (receipt: string) => receiver.received.filter((x) => JSON.parse(x.body).type.startsWith('receipt.') && JSON.parse(x.body).data?.receipt === receipt)

    test('six acknowledgements at once: one 200, five 409s naming who acknowledged; the router is told once', async () => {
      const { eventId, receipt } = await forwarded()
      const answers = await Promise.all(people.map((p) => acknowledge(h, p.userToken, ws.name, receipt)))
      const statuses = answers.map((a) => a.status).sort()
      expect(statuses).toEqual([200, 409, 409, 409, 409, 409])
      const winner = people[answers.findIndex((a) => a.status === 200)]!
      for (const a of answers.filter((x) => x.status === 409)) expect(((await a.json()) as { detail: string }).detail).toContain(winner.email)
      expect(await readReceiptOf(h, ws.apiKey, receipt)).toMatchObject({ status: 'acknowledged', acknowledgedBy: { userId: winner.userId, email: winner.email } })
      expect(await receiptDeliveries(eventId)).toBe(1)
      await eventually(async () => hooksFor(receipt).length === 1, 5000, 'the receipt webhook')
      await Bun.sleep(300)
      expect(hooksFor(receipt)).toHaveLength(1)
    })

    test('acknowledge against expire: each round ends in one state, and the router hears that one', async () => {
      for (let round = 0; round < 5; round++) {
        const { eventId, receipt } = await forwarded({ retry: 30, expire: 60 })
        await elapse(h.db.sql, receipt, 61) // due to expire: the timer and the acknowledgement race for it
        const [acked, fired] = await Promise.all([
          acknowledgeReceipt(h.db.sql, (await wsId()), receipt, { userId: people[round]!.userId, via: 'api' }, anyReceipt),
          fireDueReceipts(h.db.sql, 100),
        ])
        const view = await readReceiptOf(h, ws.apiKey, receipt)
        expect(['acknowledged', 'expired']).toContain(view.status)
        expect(acked!.won).toBe(view.status === 'acknowledged')
        expect(acked!.receipt.status).toBe(view.status)
        expect(fired.claimed).toBeGreaterThanOrEqual(0)
        expect(await receiptDeliveries(eventId)).toBe(1)
        await eventually(async () => hooksFor(receipt).length === 1, 5000, 'the receipt webhook')
        expect(JSON.parse(hooksFor(receipt)[0]!.body).type).toBe(`receipt.${view.status}`)
      }
    })

    test('cancel against acknowledge: one 200, one 409, and the receipt ends as the winner said', async () => {
      for (let round = 0; round < 5; round++) {
        const { eventId, receipt } = await forwarded()
        const [cancel, ack] = await Promise.all([
          fetch(`${h.url}/receipts/${receipt}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}` } }),
          acknowledge(h, people[0]!.userToken, ws.name, receipt),
        ])
        expect([cancel.status, ack.status].sort()).toEqual([200, 409])
        const view = await readReceiptOf(h, ws.apiKey, receipt)
        expect(view.status).toBe(cancel.status === 200 ? 'cancelled' : 'acknowledged')
        expect(await receiptDeliveries(eventId)).toBe(1)
      }
    })

    test('the cap of pending receipts is exact under concurrent requests, on both ingest routes, and frees up when one ends', async () => {
      const capped = await h.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
      const singles = Array.from({ length: 12 }, (_, i) => h.post(capped.apiKey, { message: `cap ${i}`, ack: { retry: 30, expire: 600 } }))
      const batch = fetch(`${h.url}/events`, {
        method: 'POST', headers: { authorization: `Bearer ${capped.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: Array.from({ length: 6 }, (_, i) => ({ message: `cap batch ${i}`, ack: { retry: 30, expire: 600 } })) }),
      })
      const answers = await Promise.all(singles)
      const items = ((await (await batch).json()) as { results: { receipt?: string; status?: number; type?: string; errors?: { pointer: string }[] }[] }).results
      const single = await Promise.all(answers.map(async (a) => ({ status: a.status, body: (await a.json()) as { type?: string; receipt?: string } })))
      const ok = single.filter((a) => a.status === 200).length + items.filter((r) => r.receipt).length
      expect(ok).toBe(5)
      for (const a of single.filter((x) => x.status !== 200)) {
        expect(a.status).toBe(429)
        expect(a.body.type).toBe('https://herald.dev/problems/receipt-limit')
      }
      const refused = items.map((r, i) => ({ r, i })).filter(({ r }) => !r.receipt)
      for (const { r, i } of refused) {
        expect(r).toMatchObject({ status: 429, type: 'https://herald.dev/problems/receipt-limit' })
        expect(r.errors?.[0]?.pointer).toBe(`/events/${i}/ack`)
      }
      const [pending] = await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM receipts r JOIN workspaces w ON w.id = r.workspace_id WHERE w.name = ${capped.name} AND r.status = 'pending'`
      expect(pending!.n).toBe(5)
      // Refused events were not stored and took no quota; an event without ack still goes.
      expect((await h.post(capped.apiKey, { message: 'no ack' })).status).toBe(200)
      const [{ used } = { used: '' }] = await h.db.sql<{ used: string }[]>`SELECT quota_used AS used FROM workspaces WHERE name = ${capped.name}`
      expect(Number(used)).toBe(6)
      // One ends: one place again.
      const receipt = single.find((a) => a.status === 200)?.body.receipt ?? items.find((r) => r.receipt)!.receipt!
      expect((await fetch(`${h.url}/receipts/${receipt}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${capped.apiKey}` } })).status).toBe(200)
      const again = await Promise.all([0, 1].map((i) => h.post(capped.apiKey, { message: `after ${i}`, ack: { retry: 30, expire: 600 } })))
      expect(again.map((a) => a.status).sort()).toEqual([200, 429])
    })

    const wsId = async () => Number((await h.db.sql<{ id: string }[]>`SELECT id FROM workspaces WHERE name = ${ws.name}`)[0]!.id)
  })
}

describePg('the cap of pending receipts across two instances on one PostgreSQL database', () => {
  let a: TestHerald
  let b: Herald

  beforeAll(async () => {
    a = await startTestHerald('postgres', { HERALD_MAX_PENDING_RECEIPTS: '7' })
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_DATA_DIR: 'memory://', HERALD_DEMO_WORKSPACE: 'false', LOG_LEVEL: 'silent', DATABASE_URL: a.databaseUrl!, HERALD_MAX_PENDING_RECEIPTS: '7' })
    b = await startHerald(config, createLogger('silent'), 'all', { banner: false })
  }, 60_000)
  afterAll(async () => {
    await b?.stop()
    await a?.close()
  }, 30_000)

  test('requests to both at once: exactly the cap is accepted', async () => {
    const ws = await a.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
    const post = (url: string, i: number) => fetch(`${url}/event`, {
      method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: `both ${i}`, ack: { retry: 30, expire: 600 } }),
    })
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => post(i % 2 ? a.url : b.url, i)))
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(7)
    expect(statuses.filter((s) => s === 429)).toHaveLength(23)
    const [pending] = await a.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM receipts r JOIN workspaces w ON w.id = r.workspace_id WHERE w.name = ${ws.name} AND r.status = 'pending'`
    expect(pending!.n).toBe(7)
  })
})
