// End to end: POST /event → outbox → bus → worker pool → a real HTTP receiver,
// on the in-process pipeline (embedded) and on PostgreSQL + JetStream. Retries
// follow a short HERALD_RETRY_SCHEDULE so the test does not wait minutes.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { ADMIN_TOKEN, pipelines, usePipelineHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'

setDefaultTimeout(30_000)

type Delivery = { id: string; status: string; routerId: string; attempts: { attempt: number; ok: boolean; status: number | null; error: string | null; at: string }[] }

// WORKER_THREADS=0 sends on the worker's own thread instead of the pool's (src/delivery/pool.ts): the same behaviour either way.
for (const [pipeline, threads] of [...pipelines.map((p) => [p, '2'] as const), ['in-process', '0'] as const]) {
  describe(`fan-out to a webhook router (${pipeline}, WORKER_THREADS=${threads})`, () => {
    const herald = usePipelineHerald(pipeline, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,300ms,300ms', WORKER_THREADS: threads })
    let rx: Receiver
    let ws: { name: string; apiKey: string }

    beforeAll(async () => {
      rx = startReceiver()
      ws = await herald.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
    }, 30_000)
    afterAll(() => rx?.stop())

    const router = async (body: Record<string, unknown>) => {
      const res = await herald.admin('POST', `/admin/workspaces/${ws.name}/routers`, body)
      expect(res.status).toBe(201)
      return (await res.json()) as { id: string; secret: string }
    }
    const post = async (body: Record<string, unknown>) => {
      const res = await herald.post(ws.apiKey, body)
      expect(res.status).toBe(200)
      return ((await res.json()) as { eventId: string }).eventId
    }
    const read = async (eventId: string) => {
      const res = await fetch(`${herald.url}/events/${eventId}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })
      expect(res.status).toBe(200)
      return (await res.json()) as Record<string, unknown> & { deliveries: Delivery[] }
    }
    const settled = (eventId: string, n = 1) =>
      eventually(async () => {
        const e = await read(eventId)
        return e.deliveries.length >= n && e.deliveries.every((d) => d.status !== 'pending') ? e : null
      }, 15_000, `deliveries of ${eventId} to settle`)

    test('a matching event is POSTed, signed per Standard Webhooks, with the default body', async () => {
      const { id: routerId, secret } = await router({ name: 'signups', pattern: 'user.*', destination: { type: 'webhook', url: `${rx.url}/hook?x=1` } })
      expect(secret).toStartWith('whsec_')
      rx.received.length = 0
      const eventId = await post({ event: 'user.signup', message: 'alice signed up', title: 'Signup', tags: ['pro'], data: { plan: 'pro', quote: 'a "b" \\ c' } })
      const [req] = await rx.waitFor(1)
      expect(req!.method).toBe('POST')
      expect(req!.path).toBe('/hook?x=1')
      expect(req!.headers['content-type']).toStartWith('application/json')
      // The reference implementation verifies the signature, or throws.
      const verified = new Webhook(secret).verify(req!.body, req!.headers) as Record<string, unknown>
      expect(verified.type).toBe('event.created')
      const body = JSON.parse(req!.body)
      const stored = await settled(eventId)
      // `recipients` (the e-mails of an event sent `to` people) is what the event's read adds; the view has `to`.
      const { deliveries, recipients, ...view } = stored
      expect(recipients).toBeNull()
      expect(body.data).toEqual(view)
      expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(60_000)
      expect(deliveries).toHaveLength(1)
      expect(deliveries[0]!.id).toBe(req!.headers['webhook-id']!)
      expect(deliveries[0]!.routerId).toBe(routerId)
      expect(deliveries[0]!.status).toBe('succeeded')
      expect(deliveries[0]!.attempts.map((a) => [a.attempt, a.ok, a.status])).toEqual([[1, true, 200]])
      await herald.admin('PATCH', `/admin/workspaces/${ws.name}/routers/${routerId}`, { enabled: false })
    })

    test('events that match no router get no delivery; `*` matches events without a key', async () => {
      const { id } = await router({ name: 'everything', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/all` } })
      await router({ name: 'orders', pattern: 'order.paid', destination: { type: 'webhook', url: `${rx.url}/orders` } })
      rx.received.length = 0
      const keyless = await post({ message: 'no key at all' })
      const other = await post({ event: 'order.refunded', message: 'refund' })
      const paid = await post({ event: 'order.paid', message: 'paid' })
      expect((await settled(keyless)).deliveries).toHaveLength(1)
      expect((await settled(other)).deliveries).toHaveLength(1)
      expect((await settled(paid, 2)).deliveries).toHaveLength(2)
      await rx.waitFor(4)
      await Bun.sleep(300)
      expect(rx.received.map((r) => r.path).sort()).toEqual(['/all', '/all', '/all', '/orders'])
      await herald.admin('DELETE', `/admin/workspaces/${ws.name}/routers/${id}`)
    })

    test('a 500 is retried under the same webhook-id; 429 waits for Retry-After', async () => {
      const { id } = await router({ name: 'retry', pattern: 'retry.*', destination: { type: 'webhook', url: `${rx.url}/retry` } })
      rx.received.length = 0
      rx.script = [{ status: 500, body: 'boom' }, { status: 429, headers: { 'retry-after': '1' } }, { status: 200 }]
      const eventId = await post({ event: 'retry.me', message: 'flaky receiver' })
      const reqs = await rx.waitFor(3)
      expect(new Set(reqs.map((r) => r.headers['webhook-id'])).size).toBe(1)
      expect(reqs[2]!.at - reqs[1]!.at).toBeGreaterThanOrEqual(950)
      const d = (await settled(eventId)).deliveries[0]!
      expect(d.status).toBe('succeeded')
      expect(d.attempts.map((a) => [a.attempt, a.ok, a.status])).toEqual([[1, false, 500], [2, false, 429], [3, true, 200]])
      await herald.admin('DELETE', `/admin/workspaces/${ws.name}/routers/${id}`)
    })

    test('a 400 fails at once, stays visible, and a replay delivers it under the same id', async () => {
      const { id } = await router({ name: 'strict', pattern: 'strict.*', destination: { type: 'webhook', url: `${rx.url}/strict` } })
      rx.received.length = 0
      rx.script = [{ status: 400, body: 'bad request' }]
      const eventId = await post({ event: 'strict.check', message: 'rejected once' })
      const d = (await settled(eventId)).deliveries[0]!
      expect(d.status).toBe('failed')
      expect(d.attempts).toHaveLength(1)
      expect(d.attempts[0]!.status).toBe(400)
      await Bun.sleep(800) // longer than the retry schedule: no retry came
      expect(rx.received).toHaveLength(1)
      const failed = (await (await herald.admin('GET', `/admin/workspaces/${ws.name}/deliveries`)).json()) as { id: string }[]
      expect(failed.map((f) => f.id)).toContain(d.id)
      // The CLI shows the same list.
      // (Spawned asynchronously: this process serves the CLI's request.)
      const cli = Bun.spawn([process.execPath, 'src/cli/main.ts', 'delivery', 'list', ws.name, '--url', herald.url], {
        cwd: `${import.meta.dir}/../..`, env: { ...process.env, HERALD_ADMIN_TOKEN: ADMIN_TOKEN }, stdout: 'pipe', stderr: 'pipe',
      })
      const out = await new Response(cli.stdout).text()
      expect(await cli.exited).toBe(0)
      expect(out).toContain(d.id)
      expect(out).toContain('HTTP 400')
      const replay = await herald.admin('POST', `/admin/workspaces/${ws.name}/deliveries/${d.id}/replay`)
      expect(replay.status).toBe(202)
      await rx.waitFor(2)
      expect(rx.received[1]!.headers['webhook-id']).toBe(d.id)
      const after = await eventually(async () => {
        const x = (await read(eventId)).deliveries[0]!
        return x.status === 'succeeded' ? x : null
      })
      expect(after.attempts.map((a) => a.status)).toEqual([400, 200])
      await herald.admin('DELETE', `/admin/workspaces/${ws.name}/routers/${id}`)
    })

    test('a disabled router delivers nothing', async () => {
      const { id } = await router({ name: 'off', pattern: 'off.*', destination: { type: 'webhook', url: `${rx.url}/off` }, enabled: false })
      rx.received.length = 0
      const eventId = await post({ event: 'off.x', message: 'nobody listens' })
      await Bun.sleep(500)
      expect((await read(eventId)).deliveries).toHaveLength(0)
      expect(rx.received).toHaveLength(0)
      await herald.admin('DELETE', `/admin/workspaces/${ws.name}/routers/${id}`)
    })
  })
}
