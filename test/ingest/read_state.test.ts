// Read state per member, on every backend: marks by ids and by "before"
// (all channels or one), the feed's status filter and counts, a member's
// second session hearing the change live, another member's state apart, a
// removed member's state gone, retention, bad input, and two marks at once.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { bearerCall, PASSWORD, signUp, type Call, type Person } from '../users'
import { expectFieldError, expectProblem } from '../support'
import { deleteExpiredMarks } from '../../src/ingest/read_state'

type Ev = { eventId: string; channel: string; status: string }
type Page = { events: Ev[]; nextCursor: string | null; counts: { unread: number; byChannel: Record<string, number> } }

/** Reads a live stream until `until` holds (10 s at most). */
async function streamOf(call: Call, path: string) {
  const res = await call('GET', path)
  expect(res.status).toBe(200)
  const reader = res.body!.getReader()
  let text = ''
  return {
    get text() {
      return text
    },
    async until(f: (t: string) => boolean, ms = 10_000) {
      const end = Date.now() + ms
      while (!f(text)) {
        if (Date.now() > end) throw new Error(`stream: ${text}`)
        const { value, done } = await Promise.race([reader.read(), Bun.sleep(end - Date.now()).then(() => ({ value: undefined, done: true }))])
        if (done) break
        text += new TextDecoder().decode(value)
      }
    },
    cancel: () => reader.cancel(),
  }
}

for (const backend of backends) {
  describe(`read state (${backend})`, () => {
    const h = useTestHerald(backend)
    let owner: Person
    let other: Call // a second member
    let key: string
    const ids: string[] = [] // a1 a2 b1 a3 b2, oldest first (channels a and b)

    beforeAll(async () => {
      owner = await signUp(h)
      key = ((await (await owner.call('POST', `/v1/workspaces/${owner.workspace}/keys`, { name: 'k' })).json()) as { apiKey: string }).apiKey
      for (const channel of ['a', 'a', 'b', 'a', 'b']) {
        const r = await h.post(key, { channel, message: `on ${channel}` })
        expect(r.status).toBe(200)
        ids.push(((await r.json()) as { eventId: string }).eventId)
      }
      const added = await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email: `reader-${Date.now()}@example.com` })
      other = bearerCall(h, ((await added.json()) as { userToken: string }).userToken)
    }, 30_000)

    const feedOf = async (call: Call, query = ''): Promise<Page> => {
      const res = await call('GET', `/v1/feed?workspace=${owner.workspace}${query}`)
      expect(res.status).toBe(200)
      return (await res.json()) as Page
    }
    const statuses = (p: Page) => Object.fromEntries(p.events.filter((e) => ids.includes(e.eventId)).map((e) => [ids.indexOf(e.eventId), e.status]))
    const mark = (call: Call, what: 'read' | 'archive', body: unknown) => call('POST', `/v1/workspaces/${owner.workspace}/feed/${what}`, body)

    test('a fresh member has everything unread, counted per channel', async () => {
      const p = await feedOf(other)
      expect(p.events.map((e) => e.status)).toEqual(Array(5).fill('unread'))
      expect(p.counts).toEqual({ unread: 5, byChannel: { a: 3, b: 2 } })
    })

    test('by ids: read, then archived; the answer says what changed; the status filter and counts follow; others are untouched', async () => {
      const me = await signUp(h) // a fresh member of the same workspace
      const added = await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email: me.email })
      expect(added.status).toBe(201)
      const call = me.call
      let r = await mark(call, 'read', { eventIds: [ids[0], ids[2]] })
      expect(r.status).toBe(200)
      let body = (await r.json()) as { eventIds: string[]; status: string; counts: Page['counts'] }
      expect(body.status).toBe('read')
      expect(body.eventIds.sort()).toEqual([ids[0]!, ids[2]!].sort())
      expect(body.counts).toEqual({ unread: 3, byChannel: { a: 2, b: 1 } })
      // Again: nothing changes.
      body = await (await mark(call, 'read', { eventIds: [ids[0]] })).json()
      expect(body.eventIds).toEqual([])
      r = await mark(call, 'archive', { eventIds: [ids[0], ids[1]] })
      expect(r.status).toBe(200)
      // Read on an archived event does not unarchive it.
      expect(((await (await mark(call, 'read', { eventIds: [ids[1]] })).json()) as { eventIds: string[] }).eventIds).toEqual([])
      expect(statuses(await feedOf(call))).toEqual({ 0: 'archived', 1: 'archived', 2: 'read', 3: 'unread', 4: 'unread' })
      expect((await feedOf(call, '&status=unread')).events.map((e) => ids.indexOf(e.eventId))).toEqual([4, 3])
      expect((await feedOf(call, '&status=read')).events.map((e) => ids.indexOf(e.eventId))).toEqual([2])
      expect((await feedOf(call, '&status=archived')).events.map((e) => ids.indexOf(e.eventId))).toEqual([1, 0])
      expect((await feedOf(call, '&status=unread&channel=b')).events.map((e) => ids.indexOf(e.eventId))).toEqual([4])
      // Counts ignore the filters.
      expect((await feedOf(call, '&status=archived&channel=b')).counts).toEqual({ unread: 2, byChannel: { a: 1, b: 1 } })
      // The owner's state is their own.
      expect((await feedOf(owner.call)).counts.unread).toBeGreaterThanOrEqual(5)
    })

    test('by before: one channel, then all; "before" includes that event; marks under the watermark go', async () => {
      const me = await signUp(h)
      await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email: me.email })
      await mark(me.call, 'read', { eventIds: [ids[1]] })
      let r = await mark(me.call, 'read', { before: ids[3], channel: 'a' })
      expect(r.status).toBe(200)
      const body = (await r.json()) as { moved: boolean; before: string; channel: string; counts: Page['counts'] }
      expect(body).toMatchObject({ moved: true, before: ids[3], channel: 'a', counts: { unread: 2, byChannel: { b: 2 } } })
      expect(statuses(await feedOf(me.call))).toEqual({ 0: 'read', 1: 'read', 2: 'unread', 3: 'read', 4: 'unread' })
      const userId = ((await (await me.call('GET', '/v1/me')).json()) as { userId: string }).userId
      const marks = await h.db.sql`SELECT count(*)::int AS n FROM read_marks WHERE user_id = ${userId}`
      expect(marks[0]!.n).toBe(0) // covered by the channel's watermark
      // Archive everything up to b1, all channels.
      r = await mark(me.call, 'archive', { before: ids[2] })
      expect(statuses(await feedOf(me.call))).toEqual({ 0: 'archived', 1: 'archived', 2: 'archived', 3: 'read', 4: 'unread' })
      // Mark all read with the newest id.
      r = await mark(me.call, 'read', { before: ids[4] })
      expect(((await r.json()) as Page).counts).toEqual({ unread: 0, byChannel: {} })
      expect(((await (await mark(me.call, 'read', { before: ids[4] })).json()) as { moved: boolean }).moved).toBe(false)
      // A new event is unread.
      const n = (await (await h.post(key, { channel: 'b', message: 'new' })).json()) as { eventId: string }
      const p = await feedOf(me.call, '&status=unread')
      expect(p.events.map((e) => e.eventId)).toEqual([n.eventId])
      expect(p.counts.byChannel).toEqual({ b: 1 })
    })

    test('a second session of the same member hears the change live, within a second; another member hears nothing', async () => {
      const signin = await fetch(`${h.url}/v1/auth/signin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: owner.email, password: PASSWORD }) })
      expect(signin.status).toBe(200)
      const second = bearerCall(h, ((await signin.json()) as { token: string }).token)
      const mine = await streamOf(second, `/v1/feed/stream?workspace=${owner.workspace}&channel=zzz`)
      const theirs = await streamOf(other, `/v1/feed/stream?workspace=${owner.workspace}`)
      await mine.until((t) => t.includes(': watching'))
      await theirs.until((t) => t.includes(': watching'))
      const t0 = Date.now()
      expect((await mark(owner.call, 'read', { eventIds: [ids[4]] })).status).toBe(200)
      await mine.until((t) => t.includes('event: read'), 1000)
      expect(Date.now() - t0).toBeLessThan(1000)
      const msg = mine.text.split('\n\n').find((m) => m.includes('event: read'))!
      expect(JSON.parse(msg.split('data: ')[1]!)).toEqual({ eventIds: [ids[4]], status: 'read' })
      await mark(owner.call, 'archive', { before: ids[3], channel: 'a' })
      await mine.until((t) => t.includes('"before"'), 1000)
      const moved = mine.text.split('\n\n').find((m) => m.includes('"before"'))!
      expect(JSON.parse(moved.split('data: ')[1]!)).toEqual({ eventIds: [], status: 'archived', before: ids[3], channel: 'a' })
      await Bun.sleep(200)
      expect(theirs.text).not.toContain('event: read')
      await mine.cancel()
      await theirs.cancel()
    })

    test('a removed member\'s state goes with them', async () => {
      const me = await signUp(h)
      await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email: me.email })
      const userId = ((await (await me.call('GET', '/v1/me')).json()) as { userId: string }).userId
      await mark(me.call, 'read', { eventIds: [ids[4]] })
      await mark(me.call, 'read', { before: ids[1] })
      await mark(me.call, 'archive', { before: ids[2], channel: 'b' })
      const count = async () => (await h.db.sql`SELECT (SELECT count(*) FROM read_marks WHERE user_id = ${userId}) + (SELECT count(*) FROM read_watermarks WHERE user_id = ${userId}) AS n`)[0]!.n
      expect(Number(await count())).toBe(3) // one mark (the other is under the watermark), two watermarks
      expect((await owner.call('DELETE', `/v1/workspaces/${owner.workspace}/members/${userId}`)).status).toBe(204)
      expect(Number(await count())).toBe(0)
    })

    test('marks follow retention: those of events past the cutoff are deleted', async () => {
      const me = await signUp(h)
      await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email: me.email })
      const userId = ((await (await me.call('GET', '/v1/me')).json()) as { userId: string }).userId
      await mark(me.call, 'read', { eventIds: [ids[4]] })
      await deleteExpiredMarks(h.db.sql, new Date(Date.now() - 86_400_000))
      expect((await h.db.sql`SELECT count(*)::int AS n FROM read_marks WHERE user_id = ${userId}`)[0]!.n).toBe(1)
      await deleteExpiredMarks(h.db.sql, new Date(Date.now() + 86_400_000))
      expect((await h.db.sql`SELECT count(*)::int AS n FROM read_marks WHERE user_id = ${userId}`)[0]!.n).toBe(0)
    })

    test('bad input: unknown ids, more than 100, a before of another workspace, an unknown channel, both forms, a bad status: clear 400s', async () => {
      const unknown = '01900000-0000-7000-8000-000000000000'
      await expectFieldError(await mark(owner.call, 'read', { eventIds: [ids[0], unknown] }), '/eventIds/1')
      await expectProblem(await mark(owner.call, 'read', { eventIds: Array(101).fill(ids[0]) }), 400)
      await expectProblem(await mark(owner.call, 'read', { eventIds: [] }), 400)
      await expectProblem(await mark(owner.call, 'read', { eventIds: ['nope'] }), 400)
      await expectProblem(await mark(owner.call, 'read', {}), 400)
      await expectProblem(await mark(owner.call, 'read', { eventIds: [ids[0]], before: ids[0] }), 400)
      await expectProblem(await mark(owner.call, 'read', { eventIds: [ids[0]], channel: 'a' }), 400)
      await expectProblem(await mark(owner.call, 'read', { before: ids[0], extra: 1 }), 400)
      const elsewhere = await signUp(h)
      const k2 = ((await (await elsewhere.call('POST', `/v1/workspaces/${elsewhere.workspace}/keys`, { name: 'k' })).json()) as { apiKey: string }).apiKey
      const foreign = ((await (await h.post(k2, { message: 'not yours' })).json()) as { eventId: string }).eventId
      await expectFieldError(await mark(owner.call, 'read', { before: foreign }), '/before')
      await expectFieldError(await mark(owner.call, 'archive', { eventIds: [foreign] }), '/eventIds/0')
      await expectFieldError(await mark(owner.call, 'read', { before: ids[0], channel: 'nowhere' }), '/channel')
      await expectProblem(await owner.call('GET', `/v1/feed?workspace=${owner.workspace}&status=new`), 400)
      // Another workspace's marks: 404, as for every person route.
      await expectProblem(await mark(elsewhere.call, 'read', { eventIds: [ids[0]] }), 404)
    })

    test('a channel\'s watermark follows its rename, and goes with the channel', async () => {
      const ws = owner.workspace
      const e = ((await (await h.post(key, { channel: 'moving', message: 'm' })).json()) as { eventId: string }).eventId
      expect((await mark(owner.call, 'read', { before: e, channel: 'moving' })).status).toBe(200)
      expect((await owner.call('PATCH', `/v1/workspaces/${ws}/channels/moving`, { slug: 'moved' })).status).toBe(200)
      const p = await feedOf(owner.call, '&channel=moved')
      expect(p.events.map((x) => [x.eventId, x.status])).toEqual([[e, 'read']])
      expect(p.counts.byChannel.moved).toBeUndefined()
      const rows = async () => (await h.db.sql`SELECT channel FROM read_watermarks WHERE channel IN ('moving', 'moved')`).map((r) => r.channel)
      expect(await rows()).toEqual(['moved'])
      expect((await owner.call('DELETE', `/v1/workspaces/${ws}/channels/moved`)).status).toBe(204)
      expect(await rows()).toEqual([])
    })

    test('two marks at once both hold', async () => {
      const me = await signUp(h)
      await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email: me.email })
      const rs = await Promise.all([
        mark(me.call, 'read', { eventIds: [ids[0], ids[1]] }),
        mark(me.call, 'archive', { eventIds: [ids[1], ids[2]] }),
        mark(me.call, 'read', { before: ids[3], channel: 'a' }),
        mark(me.call, 'read', { eventIds: [ids[4]] }),
      ])
      expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200])
      expect(statuses(await feedOf(me.call))).toEqual({ 0: 'read', 1: 'archived', 2: 'archived', 3: 'read', 4: 'read' })
    })
  })
}
