// The receipt routes: an event with `ack` answers its receipt; the workspace's
// API key reads and cancels it; a member acknowledges it; another
// workspace's receipt is a 404; a receipt no longer pending is a 409 that
// says how it ended. On the embedded default and on PostgreSQL.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { expectProblem } from '../support'
import { browser, newEmail, PASSWORD } from '../users'

setDefaultTimeout(30_000)

for (const backend of backends) {
  describe(`receipt routes (${backend})`, () => {
    const h = useTestHerald(backend)
    const member = async (ws: string, email: string) => {
      const res = await h.admin('POST', `/admin/workspaces/${ws}/members`, { email })
      expect(res.status).toBe(201)
      return (await res.json()) as { userId: string; userToken: string }
    }
    const withKey = (key: string, method: string, path: string) => fetch(h.url + path, { method, headers: { authorization: `Bearer ${key}` } })
    const ack = (token: string, ws: string, receipt: string) =>
      fetch(`${h.url}/v1/workspaces/${ws}/receipts/${receipt}/ack`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
    const send = async (key: string, body: Record<string, unknown> = {}) => {
      const res = await h.post(key, { message: 'disk full', ack: { retry: 60, expire: 3600 }, ...body })
      expect(res.status).toBe(200)
      const json = (await res.json()) as { eventId: string; receipt: string }
      expect(json.receipt).toMatch(/^[0-9a-f-]{36}$/)
      return json
    }

    test('an event whose ttl is shorter than its expire: the receipt expires at the ttl (its pushes would end expired after it)', async () => {
      const ws = await h.workspace()
      const { eventId, receipt } = await send(ws.apiKey, { ttl: '2m' })
      const r = (await (await withKey(ws.apiKey, 'GET', `/receipts/${receipt}`)).json()) as { expiresAt: string }
      const eventMs = parseInt(eventId.slice(0, 8) + eventId.slice(9, 13), 16)
      expect(Date.parse(r.expiresAt) - eventMs).toBe(120_000)
      const longer = await send(ws.apiKey, { ttl: '2h' })
      const r2 = (await (await withKey(ws.apiKey, 'GET', `/receipts/${longer.receipt}`)).json()) as { expiresAt: string }
      expect(Date.parse(r2.expiresAt) - parseInt(longer.eventId.slice(0, 8) + longer.eventId.slice(9, 13), 16)).toBe(3600_000)
    })

    test('an event with ack answers a receipt, read with the API key as pending', async () => {
      const ws = await h.workspace()
      const before = Date.now()
      const { eventId, receipt } = await send(ws.apiKey)
      const res = await withKey(ws.apiKey, 'GET', `/receipts/${receipt}`)
      expect(res.status).toBe(200)
      const r = (await res.json()) as Record<string, unknown>
      expect(r).toMatchObject({ receipt, eventId, status: 'pending', acknowledgedAt: null, acknowledgedBy: null, acknowledgedVia: null, lastPushAt: null, pushes: 0, escalated: [] })
      const expires = Date.parse(r.expiresAt as string)
      expect(expires).toBeGreaterThanOrEqual(before + 3600_000 - 1000)
      expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000)
      // An event without ack has no receipt.
      const plain = (await (await h.post(ws.apiKey, { message: 'no ack' })).json()) as Record<string, unknown>
      expect(plain.receipt).toBeUndefined()
    })

    test("another workspace's receipt is a 404, for reading, cancelling and acknowledging", async () => {
      const a = await h.workspace()
      const b = await h.workspace()
      const { receipt } = await send(a.apiKey)
      await expectProblem(await withKey(b.apiKey, 'GET', `/receipts/${receipt}`), 404, 'not-found')
      await expectProblem(await withKey(b.apiKey, 'POST', `/receipts/${receipt}/cancel`), 404, 'not-found')
      const bob = await member(b.name, `bob-${b.name}@example.com`)
      await expectProblem(await ack(bob.userToken, b.name, receipt), 404, 'not-found')
      // A member of b naming a's workspace is not a member there: 404 as well.
      await expectProblem(await ack(bob.userToken, a.name, receipt), 404, 'not-found')
      expect(((await (await withKey(a.apiKey, 'GET', `/receipts/${receipt}`)).json()) as { status: string }).status).toBe('pending')
      // No such receipt, and not a UUID.
      await expectProblem(await withKey(a.apiKey, 'GET', `/receipts/0190d6e4-0000-7000-8000-000000000000`), 404, 'not-found')
      await expectProblem(await withKey(a.apiKey, 'GET', `/receipts/nope`), 400)
      await expectProblem(await fetch(`${h.url}/receipts/${receipt}`), 401)
    })

    test('cancel: 200 with the receipt cancelled, then 409; a member can no longer acknowledge it', async () => {
      const ws = await h.workspace()
      const alice = await member(ws.name, `alice-${ws.name}@example.com`)
      const { receipt } = await send(ws.apiKey)
      const res = await withKey(ws.apiKey, 'POST', `/receipts/${receipt}/cancel`)
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ receipt, status: 'cancelled', acknowledgedBy: null })
      const again = await expectProblem(await withKey(ws.apiKey, 'POST', `/receipts/${receipt}/cancel`), 409, 'conflict')
      expect(again.detail).toContain('cancelled')
      await expectProblem(await ack(alice.userToken, ws.name, receipt), 409, 'conflict')
    })

    test('a member acknowledges: 200 with who and how; a second acknowledgement is a 409 naming the first', async () => {
      const ws = await h.workspace()
      const alice = await member(ws.name, `alice-${ws.name}@example.com`)
      const bob = await member(ws.name, `bob-${ws.name}@example.com`)
      const { receipt } = await send(ws.apiKey)
      const res = await ack(alice.userToken, ws.name, receipt)
      expect(res.status).toBe(200)
      const r = (await res.json()) as Record<string, unknown>
      expect(r).toMatchObject({ receipt, status: 'acknowledged', acknowledgedBy: { userId: alice.userId, email: `alice-${ws.name}@example.com` }, acknowledgedVia: 'api' })
      expect(Math.abs(Date.parse(r.acknowledgedAt as string) - Date.now())).toBeLessThan(5000)
      const second = await expectProblem(await ack(bob.userToken, ws.name, receipt), 409, 'conflict')
      expect(second.detail).toContain(`alice-${ws.name}@example.com`)
      await expectProblem(await withKey(ws.apiKey, 'POST', `/receipts/${receipt}/cancel`), 409, 'conflict')
      expect(await (await withKey(ws.apiKey, 'GET', `/receipts/${receipt}`)).json()).toMatchObject({ status: 'acknowledged', acknowledgedBy: { userId: alice.userId } })
      await expectProblem(await fetch(`${h.url}/v1/workspaces/${ws.name}/receipts/${receipt}/ack`, { method: 'POST' }), 401)
    })

    test('where it was acknowledged: web for a dashboard session, api for an app token, or what the caller says', async () => {
      const b = browser(h)
      const email = newEmail('web')
      const name = `web-${Date.now().toString(36)}`
      expect((await b.session('/v1/auth/signup', { email, password: PASSWORD, workspace: name })).status).toBeLessThan(300)
      const key = (await (await h.admin('POST', `/admin/workspaces/${name}/keys`, {})).json()) as { apiKey: string }
      const viaWeb = await send(key.apiKey)
      const res = await b.call('POST', `/v1/workspaces/${name}/receipts/${viaWeb.receipt}/ack`)
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ status: 'acknowledged', acknowledgedVia: 'web', acknowledgedBy: { email } })
      // A change from a session without its CSRF token is refused, as every change is.
      const noCsrf = await send(key.apiKey)
      await expectProblem(await b.call('POST', `/v1/workspaces/${name}/receipts/${noCsrf.receipt}/ack`, undefined, { csrf: false }), 403)
      const ws = await h.workspace()
      const alice = await member(ws.name, `alice-${ws.name}@example.com`)
      const viaPush = await send(ws.apiKey)
      const pushed = await fetch(`${h.url}/v1/workspaces/${ws.name}/receipts/${viaPush.receipt}/ack`, {
        method: 'POST', headers: { authorization: `Bearer ${alice.userToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ via: 'push' }),
      })
      expect(pushed.status).toBe(200)
      expect(((await pushed.json()) as { acknowledgedVia: string }).acknowledgedVia).toBe('push')
      const other = await send(ws.apiKey)
      for (const body of [{ via: 'link' }, { via: 'sms' }, { who: 'me' }]) {
        await expectProblem(await fetch(`${h.url}/v1/workspaces/${ws.name}/receipts/${other.receipt}/ack`, {
          method: 'POST', headers: { authorization: `Bearer ${alice.userToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
        }), 400)
      }
      expect(((await (await withKey(ws.apiKey, 'GET', `/receipts/${other.receipt}`)).json()) as { status: string }).status).toBe('pending')
    })
  })
}
