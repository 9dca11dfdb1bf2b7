// The client's receipts against a real Herald on every backend: `send` of an
// event with `ack` returns its receipt (and priority, ttl, collapseKey are
// stored as sent); `receipt(id)` reads it; `cancelReceipt(id)` ends it, and a
// second cancel is a HeraldError of status 409; another workspace's receipt,
// or none, is a 404.
import { beforeAll, describe, expect, test } from 'bun:test'
import { Herald, HeraldError } from '../../clients/typescript/src/index'
import { backends, useTestHerald } from '../harness'
import { UUIDV7 } from '../support'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

for (const backend of backends) {
  describe(`receipts through the client (${backend})`, () => {
    const h = useTestHerald(backend)
    let herald: Herald
    let other: Herald
    beforeAll(async () => {
      herald = new Herald({ apiKey: (await h.workspace()).apiKey, url: h.url })
      other = new Herald({ apiKey: (await h.workspace()).apiKey, url: h.url })
    }, 30_000)

    const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a HeraldError') }, (err: unknown) => err as HeraldError)

    test('send returns the receipt of an event with ack; receipt(id) reads it, pending; the event keeps its priority, ttl and collapseKey', async () => {
      const a = await herald.send({ message: 'Disk full on db-1', priority: 'urgent', ttl: '2h', collapseKey: 'disk-db-1', ack: { retry: '60s', expire: '1h' } })
      expect(a.receipt).toMatch(UUID)
      expect(a.eventId).toMatch(UUIDV7)
      const r = await herald.receipt(a.receipt!)
      expect(r).toMatchObject({ receipt: a.receipt, eventId: a.eventId, status: 'pending', acknowledgedAt: null, acknowledgedBy: null, acknowledgedVia: null, escalated: [] })
      expect(Date.parse(r.expiresAt) - Date.parse(new Date().toISOString())).toBeGreaterThan(3500_000)
      const stored = (await (await fetch(`${h.url}/events/${a.eventId}`, { headers: { authorization: `Bearer ${(herald as unknown as { apiKey: string }).apiKey}` } })).json()) as Record<string, unknown>
      expect(stored).toMatchObject({ priority: 5, ttl: 7200, collapseKey: 'disk-db-1', receipt: a.receipt })
      // An event without ack has no receipt.
      expect((await herald.send({ message: 'Deploy finished', priority: 2 })).receipt).toBeUndefined()
    })

    test('cancelReceipt ends it; a second cancel is a 409 naming its state; another workspace\'s receipt is a 404', async () => {
      const { receipt } = await herald.send({ message: 'Queue backed up', ack: { retry: 30, expire: 600 } })
      expect(await failure(other.receipt(receipt!))).toMatchObject({ status: 404 })
      expect(await failure(other.cancelReceipt(receipt!))).toMatchObject({ status: 404 })
      const cancelled = await herald.cancelReceipt(receipt!)
      expect(cancelled).toMatchObject({ receipt, status: 'cancelled' })
      expect((await herald.receipt(receipt!)).status).toBe('cancelled')
      const again = await failure(herald.cancelReceipt(receipt!))
      expect(again).toBeInstanceOf(HeraldError)
      expect(again.status).toBe(409)
      expect(again.detail).toContain('cancelled')
      expect(await failure(herald.receipt('0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b'))).toMatchObject({ status: 404 })
    })
  })
}
