// The receipt's state on the dashboard (src/web/state/receipt.ts), against a
// real Herald as a signed-in browser calls it: a member reads a receipt;
// the first acknowledgement wins (via web, by this person); a second one
// loses and reads the receipt again, naming who won; another workspace's
// receipt, or a person of another workspace, is a 404; the feed's pages
// and live events keep to the least priority asked for.
import { describe, expect, test } from 'bun:test'
import { ApiError } from '../../src/web/api'
import { acknowledge, readReceipt, readReceipts } from '../../src/web/state/receipt'
import { createFeed } from '../../src/web/state/feed'
import { backends, useTestHerald } from '../harness'
import { signUpWeb } from './signed_in'

for (const backend of backends) {
  describe(`receipt state against Herald (${backend})`, () => {
    const h = useTestHerald(backend)

    /** Posts with a fresh key of the person's workspace; the 200 bodies. */
    async function post(api: Awaited<ReturnType<typeof signUpWeb>>['api'], workspace: string, bodies: Record<string, unknown>[]) {
      const { apiKey } = await api.post('/v1/workspaces/{workspace}/keys', { path: { workspace }, body: { name: 'alerts' } })
      const out: { eventId: string; receipt?: string }[] = []
      for (const body of bodies) {
        const res = await h.post(apiKey, body)
        expect(res.status).toBe(200)
        out.push(await res.json())
      }
      return out
    }

    test('a member reads the receipt; the first acknowledgement wins, a second reads who won; strangers get 404', async () => {
      const owner = await signUpWeb(h, 'receipt-owner')
      const [alert] = await post(owner.api, owner.workspace, [{ message: 'db-1 down', priority: 'urgent', ack: { retry: 30, expire: 600 } }])
      const id = alert!.receipt!
      expect(await readReceipt(owner.api, owner.workspace, id)).toMatchObject({ receipt: id, eventId: alert!.eventId, status: 'pending', acknowledgedBy: null })

      const first = await acknowledge(owner.api, owner.workspace, id)
      expect(first).toMatchObject({ won: true, receipt: { status: 'acknowledged', acknowledgedVia: 'web', acknowledgedBy: { email: owner.email } } })
      const second = await acknowledge(owner.api, owner.workspace, id)
      expect(second).toMatchObject({ won: false, receipt: { status: 'acknowledged', acknowledgedBy: { email: owner.email } } })

      // Someone of another workspace: the receipt is not there for them.
      const stranger = await signUpWeb(h, 'receipt-stranger')
      const refused = await readReceipt(stranger.api, stranger.workspace, id).then(() => null, (e: unknown) => e as ApiError)
      expect(refused?.status).toBe(404)
      const notMine = await readReceipt(stranger.api, owner.workspace, id).then(() => null, (e: unknown) => e as ApiError)
      expect(notMine?.status).toBe(404)
      // A page of receipts leaves out the one that cannot be read.
      expect([...(await readReceipts(stranger.api, stranger.workspace, [id])).keys()]).toEqual([])
      expect([...(await readReceipts(owner.api, owner.workspace, [id])).keys()]).toEqual([id])
    })

    test('the feed keeps to the least priority: its pages, and live events', async () => {
      const { api, workspace } = await signUpWeb(h, 'receipt-feed')
      const [low, , urgent] = await post(api, workspace, [{ message: 'low', priority: 'low' }, { message: 'default' }, { message: 'urgent', priority: 5 }])
      const feed = createFeed(api, workspace, { minPriority: '4' })
      expect(feed.streamUrl).toContain('minPriority=4')
      const first = await feed.first()
      expect(first.events.map((e) => e.eventId)).toEqual([urgent!.eventId])
      feed.drawn()
      expect(feed.live({ ...first.events[0]!, eventId: low!.eventId, priority: 2 })).toBe(false)
      // A filter that is no priority filters nothing.
      expect((await createFeed(api, workspace, { minPriority: 'loud' }).first()).events).toHaveLength(3)
    })
  })
}
