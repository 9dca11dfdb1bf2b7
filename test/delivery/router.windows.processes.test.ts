// A digest router across two worker processes on one PostgreSQL and one
// JetStream, with one worker killed and started again inside the window:
// each (router, key, window) gives exactly one digest, holding every event
// of its key once. The windows are rows claimed FOR UPDATE SKIP LOCKED
// (src/delivery/digest.ts, digest_timer.ts), the gathering of one key
// serializes on its row, and an event JetStream redelivers after the kill
// is not gathered twice. The window is the minimum, 10 s.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, NATS_URL, PG_URL } from '../harness'
import { eventually } from '../receiver'
import { caseProcesses, caseSetup, cleanups, query, spawn } from '../faults/fixture'

setDefaultTimeout(90_000)

const describeJs = PG_URL && NATS_URL ? describe : describe.skip

describeJs('a digest across two workers and a restart on PostgreSQL and NATS', () => {
  const c = cleanups(60_000)

  test('one digest per key and window, each event in it once', async () => {
    // A short ack wait: the killed worker's events come back inside the window.
    const { db, rx, env } = await caseSetup(c, { nats: 'shared', env: { JETSTREAM_ACK_WAIT_MS: '2000' } })
    const { api, workers } = await caseProcesses(c, env, { apis: 1, workers: 2 })
    const call = (method: string, path: string, token: string, body?: unknown) =>
      fetch(api.url + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    const ws = await call('POST', '/admin/workspaces', ADMIN_TOKEN, { name: 'digests', rateLimit: { perSecond: 1000, burst: 1000 } })
    expect(ws.status).toBe(201)
    const { apiKey } = (await ws.json()) as { apiKey: string }
    const router = await call('POST', '/admin/workspaces/digests/routers', ADMIN_TOKEN, {
      name: 'digest', pattern: '*', destination: { type: 'webhook', url: rx.url }, digest: { window: '10s', key: '{{data.k}}', max: 1000 },
    })
    expect(router.status).toBe(201)
    const send = (k: string, i: number) => call('POST', '/event', apiKey, { message: `${k}${i}`, data: { k } }).then(async (r) => {
      expect(r.status).toBe(200)
      return ((await r.json()) as { eventId: string }).eventId
    })
    const keys = ['a', 'b', 'c']
    const sent = new Map<string, string[]>(keys.map((k) => [k, []]))
    const round = async (from: number, n: number) => {
      const ids = await Promise.all(keys.flatMap((k) => Array.from({ length: n }, (_, i) => send(k, from + i).then((id) => [k, id] as const))))
      for (const [k, id] of ids) sent.get(k)!.push(id)
    }
    const gathered = async () => (await query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM deliveries WHERE status = 'digested'`))[0]!.n

    // Both workers gather (JetStream shares the events between them), at once.
    await round(0, 20)
    await eventually(async () => (await gathered()) >= 30, 10_000, 'some events gathered')
    // A worker dies in the middle, and starts again, inside the window.
    await workers[0]!.kill('SIGKILL')
    const again = round(20, 10)
    await spawn(c, env, 'worker')
    await again
    await round(30, 10)
    await eventually(async () => (await gathered()) === 120, 15_000, 'every event gathered')

    // The windows end (10 s after each key's first event): one digest each.
    const digests = () => rx.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === 'events.digest')
    await eventually(async () => digests().length >= keys.length, 20_000, 'the digests')
    await Bun.sleep(1500) // both timers look again: no second digest
    const got = digests()
    expect(got).toHaveLength(keys.length)
    for (const k of keys) {
      const d = got.find((b) => b.data.key === k)
      expect(d.data.count).toBe(40)
      expect(d.data.events.map((e: { eventId: string }) => e.eventId).sort()).toEqual([...sent.get(k)!].sort())
    }
    const rows = await query<{ kind: string; status: string; n: number }>(db.url, `SELECT kind, status, count(*)::int AS n FROM deliveries GROUP BY 1, 2 ORDER BY 1, 2`)
    expect(rows).toEqual([{ kind: 'digest', status: 'succeeded', n: 3 }, { kind: 'router', status: 'digested', n: 120 }])
    expect((await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM digest_windows'))[0]!.n).toBe(0)
  })
})
