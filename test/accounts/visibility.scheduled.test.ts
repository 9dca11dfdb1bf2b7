// A scheduled event is written to events when it is accepted, and hidden by
// the one visibility predicate (src/ingest/event_reads.ts visibleTo) until
// its time. Here a plain member and an owner try every read path a person has
// while it waits (the feed with every filter and cursor, search by its words,
// its tag, unread counts, status filters, marks and "mark all before", the
// live stream, the event page, deliveries and their counts, its receipt) and
// learn nothing; once it is out, they see it, unread, though they marked
// everything read before it came.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { newEmail, signUp, type Person } from '../users'
import { waitFor } from '../support'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { openFeedStream, type FeedStream } from '../feed_stream'

type FeedPage = { events: { eventId: string; status?: string }[]; nextCursor: string | null; counts: { unread: number; byChannel: Record<string, number> } }
const WORDS = 'xylophone quasar embargo'

for (const backend of backends) {
  describe(`scheduled events are seen by no one before their time (${backend})`, () => {
    const streams: FeedStream[] = []
    afterAll(() => {
      for (const s of streams) s.cancel()
    })
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' })
    let rx: Receiver
    let owner: Person, member: Person
    let key: string
    let ws: string
    const ids = { before: '', later: '', after: '', receipt: '', due: 0 }
    const none = '01900000-0000-7000-8000-000000000000'
    const strip = (b: Record<string, unknown>) => ({ ...b, instance: undefined, requestId: undefined })

    const post = async (body: Record<string, unknown>) => {
      const res = await h.post(key, body)
      expect(res.status).toBe(200)
      return (await res.json()) as { eventId: string; receipt?: string; scheduledFor?: string }
    }
    const body = (message: string) => ({ message, title: 'Launch window', channel: 'orbit', tags: ['countdown'], event: 'orbit.launch', priority: 5 })
    const feed = async (p: Person, query: string) => {
      const res = await p.call('GET', `/v1/feed?workspace=${ws}&${query}`)
      expect(res.status).toBe(200)
      return (await res.json()) as FeedPage
    }
    async function walk(p: Person, query: string) {
      const seen: string[] = []
      let before: string | null = null
      for (let i = 0; i < 20; i++) {
        const page: FeedPage = await feed(p, `${query}&limit=1${before ? `&before=${before}` : ''}`)
        seen.push(...page.events.map((e) => e.eventId))
        if (!page.nextCursor) break
        seen.push(page.nextCursor)
        before = page.nextCursor
      }
      return seen
    }
    const FILTERS = ['', 'channel=orbit', 'tag=countdown', 'event=orbit.launch', 'event=orbit.*', 'q=xylophone', 'q=quasar%20embargo', 'minPriority=5',
      'channel=orbit&tag=countdown', 'channel=orbit&q=launch', 'event=orbit.*&minPriority=5', 'status=unread', 'status=unread&channel=orbit', 'status=read', 'status=archived']

    beforeAll(async () => {
      rx = startReceiver()
      owner = await signUp(h)
      ws = owner.workspace
      const email = newEmail('member')
      const inv = (await (await owner.call('POST', `/v1/workspaces/${ws}/invitations`, { email, role: 'member' })).json()) as { link: string }
      member = { ...(await signUp(h, { email, invitation: inv.link.split('/invite/')[1]! })), workspace: ws }
      key = ((await (await owner.call('POST', `/v1/workspaces/${ws}/keys`, { name: 'sched' })).json()) as { apiKey: string }).apiKey
      expect((await owner.call('POST', `/v1/workspaces/${ws}/routers`, { name: 'all', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/hook` } })).status).toBe(201)
      ids.before = (await post(body('public launch before'))).eventId
      const s = await post({ ...body(`${WORDS} launch`), delay: 14, ack: { retry: 60, expire: 3600 } })
      ids.later = s.eventId
      ids.receipt = s.receipt!
      ids.due = Date.parse(s.scheduledFor!)
      ids.after = (await post(body('public launch after'))).eventId
    }, 60_000)
    afterAll(() => rx?.stop())

    test('while it waits: nothing, by any read path, for a member or an owner; once out: everything, unread', async () => {
      const opened = await Promise.all([member, owner].map((p) => openFeedStream(h.url, p.token, `workspace=${ws}`)))
      streams.push(...opened)
      for (const p of [member, owner]) {
        // The feed, every filter and cursor; the public events are there.
        for (const f of FILTERS) {
          const seen = await walk(p, f)
          expect({ f, who: p.email, leaked: seen.includes(ids.later) }).toEqual({ f, who: p.email, leaked: false })
          if (!f.startsWith('q=x') && !f.startsWith('q=q') && !f.startsWith('status=read') && !f.startsWith('status=arch')) {
            expect({ f, seen: seen.includes(ids.before) && seen.includes(ids.after) }).toEqual({ f, seen: true })
          }
        }
        expect(await feed(p, 'q=xylophone')).toMatchObject({ events: [], nextCursor: null })
        // A cursor on it shows what is below it, as any id of that time would.
        expect((await feed(p, `before=${ids.later}&limit=5`)).events.map((e) => e.eventId)).toEqual([ids.after, ids.before])
        // Unread counts: the two public events only.
        expect((await feed(p, 'limit=1')).counts).toEqual({ unread: 2, byChannel: { orbit: 2 } })
        // The event page, its deliveries, their counts and its receipt: as for an id that does not exist.
        const [hidden, missing] = [await p.call('GET', `/v1/workspaces/${ws}/events/${ids.later}`), await p.call('GET', `/v1/workspaces/${ws}/events/${none}`)]
        expect([hidden.status, missing.status]).toEqual([404, 404])
        expect(strip(await hidden.json())).toEqual(strip(await missing.json()))
        const deliveries = (await (await p.call('GET', `/v1/workspaces/${ws}/deliveries?limit=100`)).json()) as { deliveries: { eventId: string }[] }
        expect(deliveries.deliveries.map((d) => d.eventId)).not.toContain(ids.later)
        const counts = (await (await p.call('GET', `/v1/workspaces/${ws}/deliveries/counts?events=${ids.later}`)).json()) as Record<string, { succeeded: number }>
        expect(counts[ids.later]).toMatchObject({ succeeded: 0 })
        for (const [method, path] of [['GET', ''], ['POST', '/ack']] as const) {
          const r = await p.call(method, `/v1/workspaces/${ws}/receipts/${ids.receipt}${path}`)
          const m = await p.call(method, `/v1/workspaces/${ws}/receipts/${none}${path}`)
          expect([r.status, m.status]).toEqual([404, 404])
        }
        // Marks: marking it, or everything before it, is marking an event that does not exist.
        for (const mark of [{ eventIds: [ids.later] }, { before: ids.later }, { before: ids.later, channel: 'orbit' }]) {
          const r = await p.call('POST', `/v1/workspaces/${ws}/feed/read`, mark)
          expect(r.status).toBe(400)
        }
        // Everything before the newest public event read: the waiting one is not among them.
        expect((await p.call('POST', `/v1/workspaces/${ws}/feed/read`, { before: ids.after })).status).toBeLessThan(300)
        expect((await feed(p, 'limit=1')).counts).toEqual({ unread: 0, byChannel: {} })
      }
      // The producer reads it as scheduled.
      const asProducer = (await (await fetch(`${h.url}/events/${ids.later}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string }
      expect(asProducer.status).toBe('scheduled')
      expect(Date.now()).toBeLessThan(ids.due) // every check above ran before its time
      for (const s of opened) expect(s.text).not.toContain(ids.later)
      expect(rx.received.some((r) => r.body.includes(ids.later))).toBe(false)

      // Out: the stream, the receiver, the feed (unread), its words, the page.
      await waitFor(() => opened.every((s) => s.text.includes(ids.later)), 20_000, 'the streams')
      expect(Date.now()).toBeGreaterThanOrEqual(ids.due)
      await eventually(async () => rx.received.some((r) => r.body.includes(ids.later)), 10_000)
      for (const p of [member, owner]) {
        const page = await feed(p, 'limit=5')
        expect(page.events.map((e) => [e.eventId, e.status])).toEqual([[ids.later, 'unread'], [ids.after, 'read'], [ids.before, 'read']])
        expect(page.counts).toEqual({ unread: 1, byChannel: { orbit: 1 } })
        expect((await feed(p, 'q=xylophone')).events.map((e) => e.eventId)).toEqual([ids.later])
        expect((await feed(p, 'tag=countdown&channel=orbit&limit=1')).events.map((e) => e.eventId)).toEqual([ids.later])
        expect((await p.call('GET', `/v1/workspaces/${ws}/events/${ids.later}`)).status).toBe(200)
        await eventually(async () => {
          const d = (await (await p.call('GET', `/v1/workspaces/${ws}/deliveries?limit=100`)).json()) as { deliveries: { eventId: string }[] }
          return d.deliveries.some((x) => x.eventId === ids.later)
        }, 10_000)
        expect((await p.call('GET', `/v1/workspaces/${ws}/receipts/${ids.receipt}`)).status).toBe(200)
      }
    }, 60_000)
  })
}
