// A log line about a delivery says which delivery it is (STYLE.md 19): a
// failed attempt against a real receiver that answers 500 is logged with the
// deliveryId and attempt of its rows in the database, and the router and
// event they belong to, on the first attempt (the fan-out) and on the retry
// (the scheduler); so is a retry that cannot be made (its router was
// disabled). The worker's log is captured as JSON lines.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { pipelines, usePipelineHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'

setDefaultTimeout(30_000)

type Line = Record<string, unknown>
type AttemptRow = { deliveryId: string; attempt: number; routerId: string; eventId: string; status: number | null; error: string | null }

for (const pipeline of pipelines) {
  describe(`the log of a failing delivery (${pipeline})`, () => {
    const lines: Line[] = []
    const logs = { write: (line: string) => void lines.push(JSON.parse(line) as Line) }
    const herald = usePipelineHerald(pipeline, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,1500ms', CIRCUIT_FAILURES: '1000', LOG_LEVEL: 'info' }, { logs })
    let rx: Receiver
    let ws: { name: string; apiKey: string }

    beforeAll(async () => {
      rx = startReceiver()
      rx.fallback = { status: 500, body: 'down' }
      ws = await herald.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
    }, 30_000)
    afterAll(() => rx?.stop())

    const router = async (name: string) => {
      const res = await herald.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name, pattern: `${name}.*`, destination: { type: 'webhook', url: `${rx.url}/${name}` } })
      expect(res.status).toBe(201)
      return ((await res.json()) as { id: string }).id
    }
    const post = async (event: string) => {
      const res = await herald.post(ws.apiKey, { event, message: 'hello' })
      expect(res.status).toBe(200)
      return ((await res.json()) as { eventId: string }).eventId
    }
    /** The attempt rows of an event's deliveries, once its deliveries have failed for good. */
    const failedAttempts = (eventId: string) =>
      eventually(async () => {
        const deliveries = await herald.db.sql<{ status: string }[]>`SELECT status FROM deliveries WHERE event_id = ${eventId}`
        if (!deliveries.length || deliveries.some((d) => d.status !== 'failed')) return null
        return herald.db.sql<AttemptRow[]>`
          SELECT d.id AS "deliveryId", a.attempt, d.router_id AS "routerId", d.event_id AS "eventId", a.status, a.error
          FROM deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id
          WHERE d.event_id = ${eventId} ORDER BY a.attempt`
      }, 20_000, `the deliveries of ${eventId} to fail`)
    /** The worker's lines about failed attempts of the deliveries in `rows`, with the fields that say which. */
    const logged = (rows: AttemptRow[]) =>
      lines
        .filter((l) => l.msg === 'delivery attempt failed' && rows.some((r) => r.deliveryId === l.deliveryId))
        .map((l) => ({ deliveryId: l.deliveryId, attempt: l.attempt, routerId: l.routerId, eventId: l.eventId, error: l.error }))
        .sort((a, b) => Number(a.attempt) - Number(b.attempt))

    test('each failed attempt is logged with the deliveryId, attempt, router and event of its row', async () => {
      const routerId = await router('billing')
      const eventId = await post('billing.failed')
      const rows = await failedAttempts(eventId)
      expect(rows.map((r) => [r.attempt, r.status, r.routerId])).toEqual([[1, 500, routerId], [2, 500, routerId]])
      await eventually(async () => logged(rows).length >= rows.length, 5_000, 'the log lines')
      expect(logged(rows)).toEqual(rows.map((r) => ({ deliveryId: r.deliveryId, attempt: r.attempt, routerId: r.routerId, eventId: r.eventId, error: r.error })))
    })

    test('a retry that cannot be made (its router disabled) is logged as its delivery\'s attempt too', async () => {
      const routerId = await router('orders')
      const eventId = await post('orders.paid')
      // The first attempt failed and is recorded; the retry is due in 1.5 s.
      await eventually(async () => (await herald.db.sql<{ attempts: number }[]>`SELECT attempts FROM deliveries WHERE event_id = ${eventId}`)[0]?.attempts === 1, 5_000, 'the first attempt')
      expect((await herald.admin('PATCH', `/admin/workspaces/${ws.name}/routers/${routerId}`, { enabled: false })).status).toBe(200)
      const rows = await failedAttempts(eventId)
      expect(rows.map((r) => [r.attempt, r.status, r.error])).toEqual([[1, 500, 'receiver answered HTTP 500'], [2, null, 'the router was deleted or disabled']])
      await eventually(async () => logged(rows).length >= rows.length, 5_000, 'the log lines')
      expect(logged(rows)).toEqual(rows.map((r) => ({ deliveryId: r.deliveryId, attempt: r.attempt, routerId: r.routerId, eventId: r.eventId, error: r.error })))
    })
  })
}
