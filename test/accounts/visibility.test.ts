// An event sent `to` people is seen by its recipients and by the workspace's
// owners and admins only (src/ingest/event_reads.ts). Here a plain member who
// is not a recipient (the attacker) tries every read path a person has: the
// feed with every filter (channel, tag, event key and prefix, words of the
// title and the message, minPriority, and their combinations) and every
// cursor, the live stream, the event page, the deliveries list, its counts
// and a replay, the receipt's read and acknowledgement. They learn nothing:
// not the event, not a count, not a cursor that stands on it. The recipient,
// the admin and the owner see it; an admin demoted meanwhile no longer does,
// however the demotion races their reads, and their open stream stops
// getting others' events at once. The producer (its API key) and the
// operator see every event.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { newEmail, signUp, type Person } from '../users'
import { waitFor } from '../support'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { eventReads } from '../../src/ingest/event_reads'
import { receiptOps } from '../../src/delivery/receipt_ops'
import { openFeedStream, type FeedStream } from '../feed_stream'

type FeedPage = { events: { eventId: string; message: string; to: string[] | null; deliveryCounts: Record<string, number> }[]; nextCursor: string | null; counts?: { unread: number; byChannel: Record<string, number> } }
const SECRET = 'zebra quartzite launch codes'

for (const backend of backends) {
  describe(`visibility of events sent to people (${backend})`, () => {
    const streams: FeedStream[] = []
    afterAll(() => {
      for (const s of streams) s.cancel()
    })
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' })
    let rx: Receiver
    let owner: Person, admin: Person, recipient: Person, attacker: Person
    let key: string
    let ws: string
    const ids = { before: '', secret: '', after: '', receipt: '' }

    async function join(role: 'admin' | 'member'): Promise<Person> {
      const email = newEmail(role)
      const res = await owner.call('POST', `/v1/workspaces/${owner.workspace}/invitations`, { email, role })
      expect(res.status).toBe(201)
      const { link } = (await res.json()) as { link: string }
      return { ...(await signUp(h, { email, invitation: link.split('/invite/')[1]! })), workspace: owner.workspace }
    }
    const post = async (body: Record<string, unknown>) => {
      const res = await h.post(key, body)
      expect(res.status).toBe(200)
      return (await res.json()) as { eventId: string; receipt?: string }
    }
    const secretBody = (message = SECRET) => ({
      message, title: 'Vault rotation', channel: 'vault', tags: ['classified'], event: 'vault.rotated', priority: 5,
      data: { needle: 'haystack' }, to: [recipient.email],
    })
    const feed = async (p: Person, query: string) => {
      const res = await p.call('GET', `/v1/feed?workspace=${ws}&${query}`)
      expect(res.status).toBe(200)
      return (await res.json()) as FeedPage
    }
    /** Every page of a filtered feed, one event a page: each event and each cursor the person is shown. */
    async function walk(p: Person, query: string) {
      const seen: string[] = []
      const cursors: string[] = []
      let before: string | null = null
      for (let i = 0; i < 50; i++) {
        const page: FeedPage = await feed(p, `${query}&limit=1${before ? `&before=${before}` : ''}`)
        seen.push(...page.events.map((e) => e.eventId))
        if (!page.nextCursor) break
        cursors.push(page.nextCursor)
        before = page.nextCursor
      }
      return { seen, cursors }
    }
    const setRole = async (p: Person, role: 'admin' | 'member') =>
      expect((await owner.call('PATCH', `/v1/workspaces/${ws}/members/${p.userId}`, { role })).status).toBe(200)

    beforeAll(async () => {
      rx = startReceiver()
      owner = await signUp(h)
      ws = owner.workspace
      admin = await join('admin')
      recipient = await join('member')
      attacker = await join('member')
      key = ((await (await owner.call('POST', `/v1/workspaces/${ws}/keys`, { name: 'vis' })).json()) as { apiKey: string }).apiKey
      expect((await owner.call('POST', `/v1/workspaces/${ws}/routers`, { name: 'all', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/hook` } })).status).toBe(201)
      // The same channel, tag, key and words on a public event before and after the secret one.
      ids.before = (await post({ ...secretBody('zebra quartzite public before'), to: null })).eventId
      const s = await post({ ...secretBody(), ack: { retry: 60, expire: 3600 } })
      ids.secret = s.eventId
      ids.receipt = s.receipt!
      ids.after = (await post({ ...secretBody('zebra quartzite public after'), to: null })).eventId
      // Its router delivery exists before anyone looks.
      await eventually(async () => {
        const e = (await (await owner.call('GET', `/v1/workspaces/${ws}/events/${ids.secret}`)).json()) as { deliveries: { status: string }[] }
        return e.deliveries.some((d) => d.status === 'succeeded')
      })
    }, 60_000)
    afterAll(() => rx?.stop())

    const FILTERS = [
      '', 'channel=vault', 'tag=classified', 'event=vault.rotated', 'event=vault.*', 'q=zebra', 'q=quartz', 'q=launch%20codes', 'q=rotation',
      'minPriority=5', 'minPriority=4', 'channel=vault&q=zebra', 'channel=vault&tag=classified', 'event=vault.*&minPriority=5',
      'channel=vault&tag=classified&q=codes&minPriority=5&event=vault.rotated',
    ]

    test('the feed, with every filter, page by page: the attacker never sees it nor stands a cursor on it; the others do', async () => {
      for (const f of FILTERS) {
        const a = await walk(attacker, f)
        expect({ f, leaked: a.seen.includes(ids.secret) || a.cursors.includes(ids.secret) }).toEqual({ f, leaked: false })
        if (!/codes/.test(f)) {
          // Words of the public events too: they are there, and from the cursor
          // right above the secret event, the next is the public one below it.
          expect({ f, publicSeen: a.seen.includes(ids.before) && a.seen.includes(ids.after) }).toEqual({ f, publicSeen: true })
          const below = await feed(attacker, `${f}&limit=1&before=${ids.after}`)
          expect(below.events.map((e) => e.eventId)).toEqual([ids.before])
        } else expect({ f, seen: a.seen, cursors: a.cursors }).toEqual({ f, seen: [], cursors: [] })
        for (const p of [recipient, admin, owner]) {
          const seen = (await walk(p, f)).seen
          expect({ f, who: p.email, saw: seen.includes(ids.secret) }).toEqual({ f, who: p.email, saw: true })
        }
      }
      // Words that only the secret event holds: the attacker's feed is empty, and so is its cursor.
      expect(await feed(attacker, 'q=launch%20codes')).toEqual({ events: [], nextCursor: null, counts: { unread: 2, byChannel: { vault: 2 } } })
      const mine = await feed(recipient, 'q=launch%20codes')
      expect(mine.events.map((e) => [e.eventId, e.to])).toEqual([[ids.secret, [recipient.userId]]])
    })

    test('the event page: 404 for the attacker, as for an id that does not exist; recipients and managers see it with its recipients', async () => {
      const none = await attacker.call('GET', `/v1/workspaces/${ws}/events/01900000-0000-7000-8000-000000000000`)
      const hidden = await attacker.call('GET', `/v1/workspaces/${ws}/events/${ids.secret}`)
      expect(hidden.status).toBe(404)
      const strip = (b: Record<string, unknown>) => ({ ...b, instance: undefined, requestId: undefined })
      expect(strip(await hidden.json())).toEqual(strip(await none.json()))
      for (const p of [recipient, admin, owner]) {
        const res = await p.call('GET', `/v1/workspaces/${ws}/events/${ids.secret}`)
        expect(res.status).toBe(200)
        const e = (await res.json()) as { message: string; to: string[]; recipients: { userId: string; email: string }[] }
        expect(e.message).toBe(SECRET)
        expect(e.to).toEqual([recipient.userId])
        expect(e.recipients).toEqual([{ userId: recipient.userId, email: recipient.email }])
      }
      // The producer and the operator see it.
      expect((await fetch(`${h.url}/events/${ids.secret}`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
    })

    test('deliveries: not in the attacker\'s list (with any filter or cursor), counted as zeros, not replayable', async () => {
      type Page = { deliveries: { id: string; eventId: string; event: { message: string } | null }[]; nextCursor: string | null }
      const list = async (p: Person, q = '') => {
        const out: Page['deliveries'] = []
        let cursor: string | null = null
        for (let i = 0; i < 100; i++) {
          const res = await p.call('GET', `/v1/workspaces/${ws}/deliveries?limit=1${q}${cursor ? `&cursor=${cursor}` : ''}`)
          expect(res.status).toBe(200)
          const page = (await res.json()) as Page
          out.push(...page.deliveries)
          if (!page.nextCursor) break
          cursor = page.nextCursor
        }
        return out
      }
      const all = await list(owner)
      const secret = all.find((d) => d.eventId === ids.secret)!
      expect(secret.event!.message).toBe(SECRET)
      for (const q of ['', '&state=succeeded', `&since=${new Date(Date.now() - 3600_000).toISOString()}`]) {
        const theirs = await list(attacker, q)
        expect(theirs.map((d) => d.eventId)).not.toContain(ids.secret)
        expect(theirs.map((d) => d.id)).not.toContain(secret.id) // nor any cursor: each is a delivery of the page
        expect(JSON.stringify(theirs)).not.toContain('launch codes')
        expect(theirs.map((d) => d.eventId)).toContain(ids.before)
      }
      expect((await list(recipient)).map((d) => d.eventId)).toContain(ids.secret)
      expect((await list(admin)).map((d) => d.eventId)).toContain(ids.secret)

      const counts = async (p: Person) => (await (await p.call('GET', `/v1/workspaces/${ws}/deliveries/counts?events=${ids.secret},${ids.before}`)).json()) as Record<string, { pending?: number; succeeded: number; failed?: number }>
      const theirs = await counts(attacker)
      expect(theirs[ids.secret]).toEqual({ pending: 0, succeeded: 0, failed: 0 })
      expect(theirs[ids.before]!.succeeded).toBeGreaterThan(0)
      expect((await counts(recipient))[ids.secret]!.succeeded).toBeGreaterThan(0)
      // A replay is for managers: the attacker gets what they get for any delivery.
      const visible = all.find((d) => d.eventId === ids.before)!
      const [r1, r2] = [await attacker.call('POST', `/v1/workspaces/${ws}/deliveries/${secret.id}/replay`), await attacker.call('POST', `/v1/workspaces/${ws}/deliveries/${visible.id}/replay`)]
      expect(r1.status).toBe(r2.status)
      expect(await h.admin('GET', `/admin/workspaces/${ws}/deliveries?state=all`).then((r) => r.json())).toContainEqual(expect.objectContaining({ eventId: ids.secret }))
    })

    test('read state: the attacker\'s unread counts, status filters and marks know nothing of it; the recipient\'s count it', async () => {
      type Counted = FeedPage & { counts: { unread: number; byChannel: Record<string, number> } }
      for (const status of ['unread', 'read', 'archived']) {
        for (const f of ['', 'channel=vault', 'q=codes']) {
          const a = await walk(attacker, `status=${status}${f ? `&${f}` : ''}`)
          expect({ status, f, leaked: a.seen.includes(ids.secret) || a.cursors.includes(ids.secret) }).toEqual({ status, f, leaked: false })
        }
      }
      // Each one's unread count of the channel is the number of unread events of it they can list.
      for (const p of [attacker, recipient]) {
        const listed = (await walk(p, 'status=unread&channel=vault')).seen
        const counts = ((await feed(p, 'limit=1')) as Counted).counts
        expect({ who: p.email, counted: counts.byChannel.vault ?? 0 }).toEqual({ who: p.email, counted: listed.length })
        expect(listed.includes(ids.secret)).toBe(p === recipient)
      }
      // Marking it, by id or as the last event of "everything before", is what marking an event that does not exist is.
      const none = '01900000-0000-7000-8000-000000000000'
      const strip = (b: Record<string, unknown>) => ({ ...b, instance: undefined, requestId: undefined })
      for (const action of ['read', 'archive']) {
        for (const body of [(id: string) => ({ eventIds: [id] }), (id: string) => ({ before: id }), (id: string) => ({ before: id, channel: 'vault' })]) {
          const hidden = await attacker.call('POST', `/v1/workspaces/${ws}/feed/${action}`, body(ids.secret))
          const missing = await attacker.call('POST', `/v1/workspaces/${ws}/feed/${action}`, body(none))
          expect([hidden.status, missing.status]).toEqual([400, 400])
          expect(JSON.stringify(strip(await hidden.json())).replace(ids.secret, 'ID')).toBe(JSON.stringify(strip(await missing.json())).replace(none, 'ID'))
        }
      }
      expect(((await feed(recipient, 'status=unread&q=codes')) as Counted).events.map((e) => e.eventId)).toContain(ids.secret)
    })

    test('the receipt: 404 to the attacker\'s read and acknowledgement; the recipient reads it', async () => {
      const none = '01900000-0000-7000-8000-000000000000'
      for (const [method, path] of [['GET', ''], ['POST', '/ack']] as const) {
        const hidden = await attacker.call(method, `/v1/workspaces/${ws}/receipts/${ids.receipt}${path}`)
        const missing = await attacker.call(method, `/v1/workspaces/${ws}/receipts/${none}${path}`)
        expect([hidden.status, missing.status]).toEqual([404, 404])
      }
      const r = await recipient.call('GET', `/v1/workspaces/${ws}/receipts/${ids.receipt}`)
      expect(r.status).toBe(200)
      expect(((await r.json()) as { status: string }).status).toBe('pending')
      expect((await admin.call('GET', `/v1/workspaces/${ws}/receipts/${ids.receipt}`)).status).toBe(200)
    })

    test('the live stream, with and without filters: the attacker gets the public events only; a demoted admin\'s stream stops at once', async () => {
      const open = async (p: Person, q = '') => {
        const s = await openFeedStream(h.url, p.token, `workspace=${ws}${q}`)
        streams.push(s)
        return s
      }
      const [atk, atkWords, rcp, adm] = [await open(attacker), await open(attacker, '&q=zebra&channel=vault'), await open(recipient), await open(admin)]
      const s1 = (await post(secretBody('zebra live one'))).eventId
      const p1 = (await post({ ...secretBody('zebra live public'), to: null })).eventId
      await waitFor(() => atk.text.includes(p1) && atkWords.text.includes(p1) && rcp.text.includes(s1) && adm.text.includes(s1) && adm.text.includes(p1), 5000, 'the streams')
      expect(atk.text).not.toContain(s1)
      expect(atkWords.text).not.toContain(s1)
      expect(atk.text).not.toContain('zebra live one')
      // In order: the public event after the secret one comes after it.
      expect(adm.text.indexOf(s1)).toBeLessThan(adm.text.indexOf(p1))

      await setRole(admin, 'member')
      try {
        const s2 = (await post(secretBody('zebra live two'))).eventId
        const p2 = (await post({ ...secretBody('zebra live public two'), to: null })).eventId
        await waitFor(() => adm.text.includes(p2) && rcp.text.includes(s2), 5000, 'the streams')
        expect(adm.text).not.toContain(s2)
        expect(atk.text).not.toContain(s2)
      } finally {
        await setRole(admin, 'admin')
      }
    })

    test('the role is read by the statement that reads: a viewer let in as an admin and demoted before the read sees nothing', async () => {
      // What a route holds between its access check and its read: who, not which role.
      const id = (await h.db.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${ws}`)[0]!.id
      const viewer = { userId: admin.userId, workspaceId: id }
      const reads = eventReads(h.db.sql)
      const receipts = receiptOps(h.db.sql)
      const words = { q: 'launch codes' }
      expect((await reads.feedPage(viewer, words, null, 10)).events.map((e) => e.eventId)).toEqual([ids.secret])
      expect((await reads.event(id, ids.secret, viewer)).message).toBe(SECRET)
      expect(await reads.streamSees(viewer, { to: [recipient.userId] })).toBe(true)
      await setRole(admin, 'member')
      try {
        const page = await reads.feedPage(viewer, words, null, 10)
        expect({ events: page.events, nextCursor: page.nextCursor }).toEqual({ events: [], nextCursor: null })
        expect(await reads.event(id, ids.secret, viewer).then(() => 'read', (e: { status?: number }) => e.status)).toBe(404)
        expect(await reads.streamSees(viewer, { to: [recipient.userId] })).toBe(false)
        expect(await receipts.read(id, ids.receipt, viewer).then(() => 'read', (e: { status?: number }) => e.status)).toBe(404)
        // The producer's read (no viewer) is unchanged.
        expect((await reads.event(id, ids.secret, null)).message).toBe(SECRET)
      } finally {
        await setRole(admin, 'admin')
      }
    })

    test('reads racing a demotion never show the event once the demotion is answered', async () => {
      const reads = [
        async () => (await feed(admin, 'q=launch%20codes')).events.some((e) => e.eventId === ids.secret),
        async () => (await admin.call('GET', `/v1/workspaces/${ws}/events/${ids.secret}`)).status === 200,
        async () => ((await (await admin.call('GET', `/v1/workspaces/${ws}/deliveries/counts?events=${ids.secret}`)).json()) as Record<string, { succeeded: number }>)[ids.secret]!.succeeded > 0,
        async () => (await admin.call('GET', `/v1/workspaces/${ws}/receipts/${ids.receipt}`)).status === 200,
      ]
      let leaks = 0
      let seenWhileAdmin = 0
      for (let round = 0; round < 15; round++) {
        let demoted = false
        const racing = (async () => {
          const out: Promise<void>[] = []
          for (let i = 0; i < 12 && !demoted; i++) {
            for (const read of reads) {
              const startedDemoted = demoted
              out.push(read().then((saw) => {
                if (saw && startedDemoted) leaks++
                if (saw && !startedDemoted) seenWhileAdmin++
              }))
            }
            await Bun.sleep(1)
          }
          await Promise.all(out)
        })()
        await Bun.sleep(round % 4)
        await setRole(admin, 'member')
        demoted = true
        // Reads started after the demotion was answered.
        const after = await Promise.all(reads.map((r) => r()))
        leaks += after.filter(Boolean).length
        await racing
        await setRole(admin, 'admin')
      }
      expect(leaks).toBe(0)
      expect(seenWhileAdmin).toBeGreaterThan(0) // the reads did race: some ran while they were an admin
    }, 60_000)
  })
}
