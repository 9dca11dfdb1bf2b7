// Scheduled events (deliverAt / delay), on the embedded default and on
// PostgreSQL: kept to within 1 s at a real receiver and in the feed, nothing
// shown early (feed, stream, receiver), cancelled before and while going
// out (each answer exactly one of cancelled or sent, and the receiver
// agrees), listed, capped, validated on both ingest routes, and hidden from
// members and other workspaces. The ~10 s waits run side by side in one test.
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, backends, createTestDatabase, describePg, useTestHerald } from '../harness'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { startHerald } from '../../src/server'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { expectProblem } from '../support'
import { openFeedStream } from '../feed_stream'
import { signUp, type Person } from '../users'
import { releaseDueEvents } from '../../src/delivery/release'

setDefaultTimeout(60_000)

const CAP = 30

for (const backend of backends) {
  describe(`scheduled events (${backend})`, () => {
    let rx: Receiver
    beforeAll(() => {
      rx = startReceiver()
    })
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_MAX_SCHEDULE: '3600', HERALD_MAX_SCHEDULED_EVENTS: String(CAP) })
    let owner: Person
    let key: string
    beforeAll(async () => {
      owner = await signUp(h)
      const res = await owner.call('POST', `/v1/workspaces/${owner.workspace}/keys`, { name: 'sched' })
      key = ((await res.json()) as { apiKey: string }).apiKey
      const r = await owner.call('POST', `/v1/workspaces/${owner.workspace}/routers`, { name: 'all', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/hook` } })
      expect(r.status).toBe(201)
    }, 30_000)
    const withKey = (k: string, method: string, path: string, body?: unknown) =>
      fetch(h.url + path, { method, headers: { authorization: `Bearer ${k}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
    const schedule = async (body: Record<string, unknown>, k = key) => {
      const res = await h.post(k, body)
      expect(res.status).toBe(200)
      const json = (await res.json()) as { eventId: string; scheduledFor: string; receipt?: string }
      expect(json.scheduledFor).toBeString()
      // The id's time is its scheduled time.
      expect(parseInt(json.eventId.slice(0, 8) + json.eventId.slice(9, 13), 16)).toBe(Date.parse(json.scheduledFor))
      return json
    }
    const received = (eventId: string) => rx.received.filter((r) => r.body.includes(eventId))
    const feedIds = async () => {
      const res = await owner.call('GET', `/v1/feed?workspace=${owner.workspace}&limit=100`)
      expect(res.status).toBe(200)
      return ((await res.json()) as { events: { eventId: string; createdAt: string }[] }).events
    }

    test('validation: both fields, too soon, too far, bad formats; on POST /event and in POST /events', async () => {
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ delay: 60, deliverAt: new Date(Date.now() + 60_000).toISOString() }, '/delay', /not both/],
        [{ delay: 5 }, '/delay', /at least 10s/],
        [{ delay: '3601s' }, '/delay', /at most 1h/],
        [{ delay: '1.5h' }, '/delay', /duration/],
        [{ delay: -1 }, '/delay', /duration/],
        [{ deliverAt: new Date(Date.now() + 3000).toISOString() }, '/deliverAt', /at least 10 s/],
        [{ deliverAt: new Date(Date.now() - 60_000).toISOString() }, '/deliverAt', /at least 10 s/],
        [{ deliverAt: new Date(Date.now() + 7200_000).toISOString() }, '/deliverAt', /at most 1h/],
        [{ deliverAt: '2030-01-01 09:00' }, '/deliverAt', /RFC 3339/],
        [{ deliverAt: '2030-01-01T09:00:00' }, '/deliverAt', /RFC 3339/],
        [{ deliverAt: 1893488400 }, '/deliverAt', /RFC 3339/],
      ]
      for (const [fields, pointer, detail] of cases) {
        const body = await expectProblem(await h.post(key, { message: 'x', ...fields }), 400, 'validation-failed')
        expect(body.errors).toContainEqual({ pointer, detail: expect.stringMatching(detail) })
        const batch = await withKey(key, 'POST', '/events', { events: [{ message: 'ok' }, { message: 'x', ...fields }] })
        expect(batch.status).toBe(200)
        const results = ((await batch.json()) as { results: Record<string, any>[] }).results
        expect(results[0]!.eventId).toBeString()
        expect(results[1]!.status).toBe(400)
        expect(results[1]!.errors).toContainEqual({ pointer: `/events/1${pointer}`, detail: expect.stringMatching(detail) })
      }
      // null is absent; GET /events names status.
      expect((await h.post(key, { message: 'x', delay: null, deliverAt: null })).status).toBe(200)
      const list = await expectProblem(await withKey(key, 'GET', '/events'), 400, 'validation-failed')
      expect(JSON.stringify(list)).toContain('status')
    })

    test('kept to the second, nothing early, cancelled before and while going out, listed, read', async () => {
      const stream = await openFeedStream(h.url, owner.token, `workspace=${owner.workspace}`)
      try {
        const submitted = Date.now()
        // One by delay, one by deliverAt (through POST /events), one to cancel before, one with ack.
        const a = await schedule({ message: 'in ten', event: 'sched.a', delay: 10 })
        const batch = await withKey(key, 'POST', '/events', { events: [{ message: 'at time', event: 'sched.b', deliverAt: new Date(submitted + 11_000).toISOString() }] })
        const b = ((await batch.json()) as { results: { eventId: string; scheduledFor: string }[] }).results[0]!
        expect(b.scheduledFor).toBe(new Date(submitted + 11_000).toISOString())
        const c = await schedule({ message: 'never', event: 'sched.c', delay: '10s' })
        const d = await schedule({ message: 'acked', event: 'sched.d', delay: 10, ack: { retry: 60, expire: 3600 } })
        // Racers: due at one moment, each cancelled around it.
        const racers = await Promise.all(Array.from({ length: 12 }, (_, i) => schedule({ message: `race ${i}`, event: 'sched.race', delay: 12 })))

        // Listed, soonest first; read as scheduled; the receipt's clocks start at the scheduled time.
        const page = (await (await withKey(key, 'GET', '/events?status=scheduled&limit=100')).json()) as { events: { eventId: string; status: string; scheduledFor: string }[]; nextCursor: null }
        const listed = page.events.map((e) => e.eventId)
        expect(listed).toContain(a.eventId)
        expect(listed).toEqual([...listed].sort())
        expect(page.events.every((e) => e.status === 'scheduled')).toBe(true)
        const first = (await (await withKey(key, 'GET', '/events?status=scheduled&limit=2')).json()) as { events: { eventId: string }[]; nextCursor: string }
        const second = (await (await withKey(key, 'GET', `/events?status=scheduled&limit=2&cursor=${first.nextCursor}`)).json()) as { events: { eventId: string }[] }
        expect([...first.events, ...second.events].map((e) => e.eventId)).toEqual(listed.slice(0, 4))
        const readA = (await (await withKey(key, 'GET', `/events/${a.eventId}`)).json()) as Record<string, unknown>
        expect(readA).toMatchObject({ eventId: a.eventId, status: 'scheduled', scheduledFor: a.scheduledFor, createdAt: a.scheduledFor, deliveries: [] })
        const receipt = (await (await withKey(key, 'GET', `/receipts/${d.receipt}`)).json()) as { expiresAt: string }
        expect(Date.parse(receipt.expiresAt)).toBe(Date.parse(d.scheduledFor) + 3600_000)

        // Cancel before: 200, again 200; read as cancelled.
        for (let i = 0; i < 2; i++) {
          const res = await withKey(key, 'DELETE', `/events/${c.eventId}`)
          expect(res.status).toBe(200)
          expect(await res.json()).toEqual({ eventId: c.eventId, status: 'cancelled', scheduledFor: c.scheduledFor })
        }
        expect(((await (await withKey(key, 'GET', `/events/${c.eventId}`)).json()) as { status: string }).status).toBe('cancelled')

        // Nothing early: until 300 ms before its time, no receiver, feed or stream has it.
        await Bun.sleep(Math.max(0, Date.parse(a.scheduledFor) - 300 - Date.now()))
        expect(received(a.eventId)).toEqual([])
        expect((await feedIds()).map((e) => e.eventId)).not.toContain(a.eventId)
        expect(stream.text).not.toContain(a.eventId)

        // The race: cancels fired from 150 ms before the due moment to 150 ms after.
        const due = Date.parse(racers[0]!.scheduledFor)
        const answers = await Promise.all(racers.map(async (r, i) => {
          await Bun.sleep(Math.max(0, due - 150 + i * 25 - Date.now()))
          const res = await withKey(key, 'DELETE', `/events/${r.eventId}`)
          const body = (await res.json()) as { type?: string; status?: unknown }
          expect([200, 409]).toContain(res.status)
          if (res.status === 409) expect(body.type).toEndWith('/event-sent')
          return { eventId: r.eventId, status: res.status }
        }))

        // Within 1 s of its time: at the receiver, in the feed (at its time) and on the stream.
        for (const e of [a, b, d]) {
          const [hit] = await rx.waitFor(1, 15_000).then(() => eventually(async () => received(e.eventId).length ? received(e.eventId) : null, 15_000, `${e.eventId} at the receiver`))
          expect(hit!.at - Date.parse(e.scheduledFor)).toBeLessThan(1000)
          expect(hit!.at).toBeGreaterThanOrEqual(Date.parse(e.scheduledFor))
          expect(JSON.parse(hit!.body).data).toMatchObject({ eventId: e.eventId, scheduledFor: e.scheduledFor, createdAt: e.scheduledFor })
          const inFeed = (await feedIds()).find((x) => x.eventId === e.eventId)
          expect(inFeed?.createdAt).toBe(e.scheduledFor)
          await eventually(async () => stream.text.includes(e.eventId), 5000, 'the stream')
        }
        // Once gone out: 409 naming when; the read shows scheduledFor and no status.
        await expectProblem(await withKey(key, 'DELETE', `/events/${a.eventId}`), 409, 'event-sent')
        const sent = (await (await withKey(key, 'GET', `/events/${a.eventId}`)).json()) as Record<string, unknown>
        expect(sent.scheduledFor).toBe(a.scheduledFor)
        expect(sent.status).toBeUndefined()

        // The race's answers and the receiver agree, each once.
        await Bun.sleep(1500)
        for (const r of answers) expect(received(r.eventId).length).toBe(r.status === 409 ? 1 : 0)
        expect(received(c.eventId)).toEqual([])
        expect(stream.text).not.toContain(c.eventId)
        // An unscheduled event's body has no scheduledFor.
        const plain = (await (await h.post(key, { message: 'now', event: 'plain' })).json()) as { eventId: string }
        const [p] = await eventually(async () => received(plain.eventId).length ? received(plain.eventId) : null)
        expect(Object.keys(JSON.parse(p!.body).data)).not.toContain('scheduledFor')
      } finally {
        stream.cancel()
      }
    })

    test('a cancel that comes after a release whose clock ran ahead answers that it went out, not 404', async () => {
      const e = await schedule({ message: 'released a moment early', delay: 600 })
      // A release on a process whose clock is ahead of this API's: it takes the event before the API's clock says it is due.
      const released = await releaseDueEvents(h.db.sql, 100, Date.parse(e.scheduledFor) + 1)
      expect(released.events.map((x) => x.view.eventId)).toContain(e.eventId)
      const res = await withKey(key, 'DELETE', `/events/${e.eventId}`)
      expect(res.status).toBe(409)
      expect(((await res.json()) as { type: string }).type).toEndWith('/event-sent')
    })

    test('the cap: two requests race for the last place; a cancel frees one', async () => {
      const ws = await h.workspace()
      const batch = await withKey(ws.apiKey, 'POST', '/events', { events: Array.from({ length: CAP - 1 }, (_, i) => ({ message: `m${i}`, delay: '1h' })) })
      expect(((await batch.json()) as { results: { eventId?: string }[] }).results.every((r) => r.eventId)).toBe(true)
      const [x, y] = await Promise.all([h.post(ws.apiKey, { message: 'x', delay: '1h' }), h.post(ws.apiKey, { message: 'y', delay: '1h' })])
      expect([x.status, y.status].sort()).toEqual([200, 429])
      const lost = x.status === 429 ? x : y
      expect(((await lost.json()) as { type: string }).type).toEndWith('/schedule-limit')
      // Unscheduled events are not capped.
      expect((await h.post(ws.apiKey, { message: 'now' })).status).toBe(200)
      const page = (await (await withKey(ws.apiKey, 'GET', '/events?status=scheduled')).json()) as { events: { eventId: string }[]; nextCursor: string }
      expect(page.events.length).toBe(CAP > 50 ? 50 : CAP)
      expect((await withKey(ws.apiKey, 'DELETE', `/events/${page.events[0]!.eventId}`)).status).toBe(200)
      expect((await h.post(ws.apiKey, { message: 'z', delay: '1h' })).status).toBe(200)
    })

    test('visibility: a member can neither list nor cancel; another workspace\'s key gets 404; owners list and cancel', async () => {
      const e = await schedule({ message: 'private', delay: '1h' })
      const other = await h.workspace()
      await expectProblem(await withKey(other.apiKey, 'DELETE', `/events/${e.eventId}`), 404, 'not-found')
      await expectProblem(await withKey(other.apiKey, 'GET', `/events/${e.eventId}`), 404, 'not-found')
      const otherList = (await (await withKey(other.apiKey, 'GET', '/events?status=scheduled')).json()) as { events: unknown[] }
      expect(otherList.events).toEqual([])
      const res = await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email: `m-${Date.now()}@example.com` })
      const member = (await res.json()) as { userToken: string }
      const asMember = (method: string, path: string) => fetch(h.url + path, { method, headers: { authorization: `Bearer ${member.userToken}` } })
      await expectProblem(await asMember('GET', `/v1/workspaces/${owner.workspace}/scheduled`), 403)
      await expectProblem(await asMember('DELETE', `/v1/workspaces/${owner.workspace}/scheduled/${e.eventId}`), 403)
      // Nor can a member read it through the event page.
      await expectProblem(await asMember('GET', `/v1/workspaces/${owner.workspace}/events/${e.eventId}`), 404)
      const list = (await (await owner.call('GET', `/v1/workspaces/${owner.workspace}/scheduled`)).json()) as { events: { eventId: string }[] }
      expect(list.events.map((x) => x.eventId)).toContain(e.eventId)
      const cancel = await owner.call('DELETE', `/v1/workspaces/${owner.workspace}/scheduled/${e.eventId}`)
      expect(cancel.status).toBe(200)
      expect(((await cancel.json()) as { status: string }).status).toBe('cancelled')
    })
  })
}

describePg('scheduled events across a restart (PostgreSQL)', () => {
  test('events waiting while no Herald runs go out once after it starts', async () => {
    const db = await createTestDatabase()
    const rx = startReceiver()
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_DATA_DIR: 'memory://', HERALD_DEMO_WORKSPACE: 'false', LOG_LEVEL: 'silent', DATABASE_URL: db.url, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') }) // one key for both starts: the router's secret
    let herald = await startHerald(config, createLogger('silent'), 'all', { banner: false })
    try {
      const admin = (method: string, path: string, body?: unknown) => fetch(herald.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })
      const created = (await (await admin('POST', '/admin/workspaces', { name: `restart-${process.pid}` })).json()) as { apiKey: string }
      expect((await admin('POST', `/admin/workspaces/restart-${process.pid}/routers`, { name: 'all', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/r` } })).status).toBe(201)
      const ids = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
        const res = await fetch(`${herald.url}/event`, { method: 'POST', headers: { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: `r${i}`, delay: 10 }) })
        return ((await res.json()) as { eventId: string; scheduledFor: string })
      }))
      await herald.stop()
      await Bun.sleep(Math.max(0, Date.parse(ids[0]!.scheduledFor) + 1000 - Date.now()))
      expect(rx.received).toEqual([])
      const startedAt = Date.now()
      herald = await startHerald(config, createLogger('silent'), 'all', { banner: false })
      await rx.waitFor(10, 15_000)
      expect(rx.received[0]!.at).toBeGreaterThanOrEqual(startedAt)
      await Bun.sleep(1500)
      for (const e of ids) expect(rx.received.filter((r) => r.body.includes(e.eventId)).length).toBe(1)
    } finally {
      await herald.stop()
      rx.stop()
      await db.drop()
    }
  })
})
