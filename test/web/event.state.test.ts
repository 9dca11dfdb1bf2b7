// The event page's state (src/web/state/event.ts): when its delivery log is
// still due to change, and, against a real Herald and real receivers, the
// event with its deliveries and router names, and replaying a failed one.
import { afterAll, describe, expect, test } from 'bun:test'
import { ApiError } from '../../src/web/api'
import { FANOUT_GRACE_MS } from '../../src/web/state/delivery_state'
import { awaited, loadEvent, readEvent, replayDelivery } from '../../src/web/state/event'
import { backends, useTestHerald } from '../harness'
import { eventually, startReceiver } from '../receiver'
import { postEvents, signUpWeb } from './signed_in'

describe('whether the log is still due to change', () => {
  const now = Date.parse('2025-06-01T12:00:00Z')
  const young = new Date(now - 1000).toISOString()
  const old = new Date(now - FANOUT_GRACE_MS - 1).toISOString()

  test('while a delivery is pending', () => {
    expect(awaited([{ status: 'succeeded' }, { status: 'pending' }], old, now)).toBe(true)
    expect(awaited([{ status: 'succeeded' }, { status: 'failed' }], young, now)).toBe(false)
  })

  test('with no delivery, while the fan-out may still come', () => {
    expect(awaited([], young, now)).toBe(true)
    expect(awaited([], old, now)).toBe(false)
  })
})

for (const backend of backends) {
  describe(`event state against Herald (${backend})`, () => {
    const good = startReceiver()
    const bad = startReceiver()
    bad.fallback = { status: 500, body: 'down' }
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s', CIRCUIT_FAILURES: '1000' })
    afterAll(() => {
      good.stop()
      bad.stop()
    })

    test('the event, its deliveries by router name, and a failed one replayed', async () => {
      const { api, workspace } = await signUpWeb(h, 'event')
      const route = (name: string, url: string) => api.post('/v1/workspaces/{workspace}/routers', { path: { workspace }, body: { name, pattern: 'order.*', destination: { type: 'webhook', url } } })
      const ok = await route('shipping', `${good.url}/ok`)
      const down = await route('billing', `${bad.url}/down`)
      const [id] = await postEvents(h, api, workspace, [{ message: 'Order 7 shipped', event: 'order.shipped' }])
      const { event, routers } = await eventually(async () => {
        const loaded = await loadEvent(api, workspace, id!)
        return loaded.event.deliveries.length === 2 && !awaited(loaded.event.deliveries, loaded.event.createdAt) && loaded
      }, 20_000, 'both deliveries made')
      expect(event.message).toBe('Order 7 shipped')
      expect(routers.get(ok.id)?.name).toBe('shipping')
      expect(routers.get(ok.id)?.health).toBeNull()
      expect(Object.fromEntries(event.deliveries.map((d) => [routers.get(d.routerId!)?.name, d.status]))).toEqual({ shipping: 'succeeded', billing: 'failed' })

      const failed = event.deliveries.find((d) => d.routerId === down.id)!
      await replayDelivery(api, workspace, failed.id)
      await eventually(async () => (await readEvent(api, workspace, id!)).deliveries.find((d) => d.id === failed.id)!.attempts.length === 2, 20_000, 'the replay attempted')
      const done = (await readEvent(api, workspace, id!)).deliveries.find((d) => d.id === failed.id)!
      expect(done.attempts.map((a) => a.status)).toEqual([500, 500])

      // A router whose destination fails (as the health sweep records it): the log reads its health beside its name.
      await h.db.sql`INSERT INTO router_health (router_id, open_until, failing_since, last_error, notified_at)
        VALUES (${down.id}, now() + interval '1 minute', now() - interval '1 hour', 'HTTP 500 from 127.0.0.1', now())`
      const again = await loadEvent(api, workspace, id!)
      expect(again.routers.get(down.id)).toMatchObject({ name: 'billing', health: { state: 'failing', lastError: 'HTTP 500 from 127.0.0.1' } })
      expect(again.routers.get(ok.id)).toMatchObject({ name: 'shipping', health: null })
    }, 60_000)

    test('an event of no workspace of mine is a 404', async () => {
      const { api, workspace } = await signUpWeb(h, 'event-404')
      const err = (await readEvent(api, workspace, '01970000-0000-7000-8000-000000000000').catch((e: unknown) => e)) as ApiError
      expect(err).toBeInstanceOf(ApiError)
      expect(err.status).toBe(404)
    })
  })
}
