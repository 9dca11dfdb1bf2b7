// Partitions are made and dropped while events flow (maintain() runs on a
// timer in every instance). Attaching or dropping a month of deliveries
// locks workspaces for its foreign key after it has locked the month's
// tables, and ingest locks workspaces (the quota) before it inserts the
// event: the two once deadlocked, and the change failed (CI, retention
// test). Here months are made and dropped back to back under a stream of
// events from several producers: every change lands, every event is a 200
// and is stored once.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { describePg, useTestHerald } from '../harness'
import { startReceiver, type Receiver } from '../receiver'
import { dropExpiredPartitions, ensurePartitions } from '../../src/core/partitions'

setDefaultTimeout(60_000)

describePg('partitions changed while events flow (postgres)', () => {
  // Deliveries are written while months change too: their partitions hold
  // the foreign key to workspaces.
  const h = useTestHerald('postgres', { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' })
  let apiKey = ''
  let receiver: Receiver
  beforeAll(async () => {
    receiver = startReceiver()
    let ws = ''
    ;({ name: ws, apiKey } = await h.workspace({ rateLimit: { perSecond: 100_000, burst: 100_000 } }))
    const res = await h.admin('POST', `/admin/workspaces/${ws}/routers`, { name: 'flow', pattern: 'part.*', destination: { type: 'webhook', url: `${receiver.url}/flow` } })
    expect(res.status).toBe(201)
  })
  afterAll(() => receiver?.stop())

  test('months made and dropped under ingest: every change lands, every event is stored once', async () => {
    let stop = false
    const statuses: number[] = []
    const producer = async () => {
      while (!stop) {
        const res = await fetch(`${h.url}/event`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'while partitions change', event: 'part.flow' }),
        })
        statuses.push(res.status)
        await res.arrayBuffer()
      }
    }
    const producers = Array.from({ length: 8 }, producer)
    const now = new Date()
    const made: string[] = []
    const dropped: string[] = []
    try {
      // Twelve past months, each made (three partitions, rows moved out of
      // the defaults, attached) and then dropped by a retention of one month.
      for (let k = 24; k >= 13; k--) {
        const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - k, 15))
        made.push(...(await ensurePartitions(h.db.sql, month)))
        dropped.push(...(await dropExpiredPartitions(h.db.sql, 12, now)))
      }
    } finally {
      stop = true
      await Promise.all(producers)
    }
    // Each call makes its month and the two after it (the drop before took
    // them again); a retention of 12 months keeps only the newest of them
    // (eleven months ago), and drops every other one it made.
    expect(made.length).toBe(12 * 3 * 3)
    const keptMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1))
    const keptSuffix = `_y${keptMonth.getUTCFullYear()}m${String(keptMonth.getUTCMonth() + 1).padStart(2, '0')}`
    expect(dropped.toSorted()).toEqual(made.filter((name) => !name.endsWith(keptSuffix)).toSorted())
    expect(receiver.received.length).toBeGreaterThan(0)
    expect(statuses.length).toBeGreaterThan(50)
    expect(statuses.filter((s) => s !== 200)).toEqual([])
    const [stored] = await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events WHERE event = 'part.flow'`
    expect(stored!.n).toBe(statuses.length)
  })
})
