// The routers page's state (src/web/state/routers.ts): what the API shows of
// a destination, and, against a real Herald and a real webhook receiver,
// listing routers, sending a test event through one and deleting it.
import { afterAll, describe, expect, test } from 'bun:test'
import { ApiError } from '../../src/web/api'
import { deleteRouter, destinationParts, listRouters, readRouter, settleRouterDeliveries, shownUrl, testRouter } from '../../src/web/state/routers'
import { backends, useTestHerald } from '../harness'
import { startReceiver } from '../receiver'
import { signUpWeb } from './signed_in'

describe('a destination as shown', () => {
  test('a URL whose path the API hides is its origin, said to be cut', () => {
    expect(shownUrl('https://hooks.slack.com/…')).toEqual({ url: 'https://hooks.slack.com', hidden: true })
    expect(shownUrl('https://example.com/hook')).toEqual({ url: 'https://example.com/hook', hidden: false })
  })

  test('without a URL: the chat, the recipients', () => {
    expect(destinationParts({ type: 'telegram', chatId: 42 })).toEqual(['chat 42'])
    expect(destinationParts({ type: 'email', to: ['a@example.com', 'b@example.com'] })).toEqual(['a@example.com, b@example.com'])
    expect(destinationParts({ type: 'sms', to: '+15550100' })).toEqual(['+15550100'])
    expect(destinationParts({ type: 'webhook' })).toEqual([])
  })
})

for (const backend of backends) {
  describe(`routers state against Herald (${backend})`, () => {
    const receiver = startReceiver()
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' })
    afterAll(() => receiver.stop())

    test('lists the routers with their destination\'s type and no secret, tests one, deletes it', async () => {
      const { api, workspace } = await signUpWeb(h, 'routers')
      expect(await listRouters(api, workspace)).toEqual([])
      const made = await api.post('/v1/workspaces/{workspace}/routers', { path: { workspace }, body: { name: 'hook', pattern: 'user.*', destination: { type: 'webhook', url: `${receiver.url}/secret-path?token=t` } } })
      const [router, ...rest] = await listRouters(api, workspace)
      expect(rest).toEqual([])
      expect(router!.id).toBe(made.id)
      expect(router!.destination.type).toBe('webhook')
      expect(shownUrl(String(router!.destination.url))).toEqual({ url: receiver.url, hidden: true })

      receiver.script.push({ status: 202, body: 'taken' })
      const result = await testRouter(api, workspace, made.id)
      expect(result.ok).toBe(true)
      expect(result.status).toBe(202)
      expect(result.response).toBe('taken')
      expect(receiver.received.at(-1)!.path).toBe('/secret-path?token=t')
      receiver.script.push({ status: 500, body: 'down' })
      const failed = await testRouter(api, workspace, made.id)
      expect(failed.ok).toBe(false)
      expect(failed.status).toBe(500)

      await deleteRouter(api, workspace, made.id)
      expect(await listRouters(api, workspace)).toEqual([])
      const gone = (await deleteRouter(api, workspace, made.id).catch((e: unknown) => e)) as ApiError
      expect(gone.status).toBe(404)
    })

    test("a failing router shows since when and its last error; its pending deliveries can be cancelled", async () => {
      const { api, workspace } = await signUpWeb(h, 'failing')
      const made = await api.post('/v1/workspaces/{workspace}/routers', { path: { workspace }, body: { name: 'down', pattern: '*', destination: { type: 'webhook', url: `${receiver.url}/down` } } })
      expect((await readRouter(api, workspace, made.id)).health).toBeNull()
      // As the health sweep leaves a router failing for ROUTER_FAILING_AFTER_MS (test/delivery/router.dead.test.ts makes one for real).
      await h.db.sql`INSERT INTO router_health (router_id, open_until, failing_since, last_error, notified_at)
        VALUES (${made.id}, now() + interval '1 minute', now() - interval '1 hour', 'HTTP 503 from 127.0.0.1', now())`
      const [listed] = await listRouters(api, workspace)
      expect(listed!.health).toMatchObject({ state: 'failing', lastError: 'HTTP 503 from 127.0.0.1' })
      expect(Date.now() - Date.parse(listed!.health!.since)).toBeGreaterThan(3_500_000)
      expect(await settleRouterDeliveries(api, workspace, made.id, 'cancelled')).toBe(0)
      // Enabled again by its owner: the old failure is forgotten.
      const patched = await api.patch('/v1/workspaces/{workspace}/routers/{id}', { path: { workspace, id: made.id }, body: { enabled: true } })
      expect(patched.health).toBeNull()
    })
  })
}
