// The feed, on every backend: newest first, each filter, cursor pagination,
// the live stream (Server-Sent Events), an event with its delivery log and
// replay; and, on PostgreSQL, that every feed query is an index scan on a
// table of 200,000 events (the plan PostgreSQL keeps at 10 million:
// bench/feed.ts measures that).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { backends, describePg, startPipelineHerald, useTestHerald, type TestHerald } from '../harness'
import { bearerCall, signUp, type Person } from '../users'
import { expectProblem, waitFor } from '../support'
import { eventually, startReceiver, type Receiver } from '../receiver'
import postgres from 'postgres'
import type { Sql } from '../../src/core/db'
import { readFeed, searchQuery } from '../../src/ingest/feed'
import { visibleTo } from '../../src/ingest/event_reads'
import { STREAMS_PER_PERSON } from '../../src/http/routes/feed'

type FeedEvent = { eventId: string; channel: string; event: string | null; title: string | null; message: string; tags: string[] }
type Page = { events: FeedEvent[]; nextCursor: string | null }

for (const backend of backends) {
  describe(`feed (${backend})`, () => {
    const h = useTestHerald(backend)
    let owner: Person
    let key: string
    const ids: Record<string, string> = {}

    beforeAll(async () => {
      owner = await signUp(h)
      const res = await owner.call('POST', `/v1/workspaces/${owner.workspace}/keys`, { name: 'feed' })
      key = ((await res.json()) as { apiKey: string }).apiKey
      const events = [
        ['signup', { event: 'user.signup', channel: 'users', title: 'New signup', message: 'Jane Doe joined', tags: ['web', 'pro'] }],
        ['churn', { event: 'user.churn', channel: 'users', title: 'Churned', message: 'Bob left us', tags: ['web'] }],
        ['paid', { event: 'invoice.paid', channel: 'billing', title: 'Invoice paid', message: 'Acme paid 300 EUR', tags: ['pro'] }],
        ['deploy', { event: 'deploy.done', message: 'Deployed version 2.4 to production' }],
        ['keyless', { message: 'A note without a key', tags: ['ops'] }],
      ] as const
      for (const [name, body] of events) {
        const r = await h.post(key, body)
        expect(r.status).toBe(200)
        ids[name] = ((await r.json()) as { eventId: string }).eventId
      }
    }, 30_000)

    const feed = async (query: string): Promise<Page> => {
      const res = await owner.call('GET', `/v1/feed?workspace=${owner.workspace}${query}`)
      expect(res.status).toBe(200)
      return (await res.json()) as Page
    }
    const names = (page: Page) => page.events.map((e) => Object.keys(ids).find((k) => ids[k] === e.eventId))

    test('newest first, every field as stored', async () => {
      const page = await feed('')
      expect(names(page)).toEqual(['keyless', 'deploy', 'paid', 'churn', 'signup'])
      expect(page.nextCursor).toBeNull()
      expect(page.events[2]).toMatchObject({ channel: 'billing', event: 'invoice.paid', title: 'Invoice paid', message: 'Acme paid 300 EUR', tags: ['pro'] })
    })

    test('filters: channel, tag, exact key, key prefix, words (prefixes, any case), and together', async () => {
      expect(names(await feed('&channel=users'))).toEqual(['churn', 'signup'])
      expect(names(await feed('&tag=pro'))).toEqual(['paid', 'signup'])
      expect(names(await feed('&event=user.churn'))).toEqual(['churn'])
      expect(names(await feed('&event=user.*'))).toEqual(['churn', 'signup'])
      expect(names(await feed('&q=deploy'))).toEqual(['deploy'])
      expect(names(await feed('&q=PROD%20vers'))).toEqual(['deploy'])
      expect(names(await feed('&q=jane'))).toEqual(['signup'])
      expect(names(await feed('&channel=users&tag=pro&q=joined'))).toEqual(['signup'])
      expect(names(await feed('&q=nothing-like-this'))).toEqual([])
      expect(names(await feed('&q=%25%27%3B'))).toEqual(['keyless', 'deploy', 'paid', 'churn', 'signup']) // no words: no filter
    })

    test('cursor pagination walks every event once, in order', async () => {
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const page: Page = await feed(`&limit=2${cursor ? `&before=${cursor}` : ''}`)
        expect(page.events.length).toBeLessThanOrEqual(2)
        seen.push(...page.events.map((e) => e.eventId))
        cursor = page.nextCursor
      } while (cursor)
      expect(seen).toEqual(['keyless', 'deploy', 'paid', 'churn', 'signup'].map((k) => ids[k]!))
      await expectProblem(await owner.call('GET', `/v1/feed?workspace=${owner.workspace}&before=nope`), 400, 'validation-failed')
      await expectProblem(await owner.call('GET', `/v1/feed?workspace=${owner.workspace}&limit=1000`), 400, 'validation-failed')
    })

    test('the live stream sends each new event that passes the filters, as it is posted', async () => {
      const res = await owner.call('GET', `/v1/feed/stream?workspace=${owner.workspace}&channel=live`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toStartWith('text/event-stream')
      const reader = res.body!.getReader()
      let text = ''
      const read = async (until: (t: string) => boolean) => {
        const end = Date.now() + 10_000
        while (!until(text)) {
          if (Date.now() > end) throw new Error(`stream: ${text}`)
          const { value, done } = await Promise.race([reader.read(), Bun.sleep(10_000).then(() => ({ value: undefined, done: true }))])
          if (done) break
          text += new TextDecoder().decode(value)
        }
      }
      await read((t) => t.includes(': watching'))
      await h.post(key, { channel: 'other', message: 'not for this stream' })
      const r = await h.post(key, { channel: 'live', message: 'streamed', tags: ['x'] })
      const { eventId } = (await r.json()) as { eventId: string }
      await read((t) => t.includes(eventId))
      const message = text.split('\n\n').find((m) => m.includes(eventId))!
      expect(message).toContain(`id: ${eventId}\nevent: event\ndata: `)
      const data = JSON.parse(message.split('data: ')[1]!)
      expect(data).toMatchObject({ eventId, channel: 'live', message: 'streamed', tags: ['x'], workspace: owner.workspace })
      expect(text).not.toContain('not for this stream')
      await reader.cancel()
    })

    test(`a person has at most ${STREAMS_PER_PERSON} live streams open; closing one frees its place`, async () => {
      const url = `${h.url}/v1/feed/stream?workspace=${owner.workspace}`
      const controllers = Array.from({ length: STREAMS_PER_PERSON }, () => new AbortController())
      const streams = await Promise.all(controllers.map((c) => fetch(url, { headers: { authorization: `Bearer ${owner.token}` }, signal: c.signal })))
      expect(streams.map((r) => r.status)).toEqual(Array(STREAMS_PER_PERSON).fill(200))
      const over = await owner.call('GET', `/v1/feed/stream?workspace=${owner.workspace}`)
      await expectProblem(over, 429, 'too-many-streams')
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
      // Someone else is not held back by it.
      const added = await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email: `streams-${Date.now()}@example.com` })
      const other = await bearerCall(h, ((await added.json()) as { userToken: string }).userToken)('GET', `/v1/feed/stream?workspace=${owner.workspace}`)
      expect(other.status).toBe(200)
      await other.body!.cancel()
      controllers[0]!.abort()
      await waitFor(async () => {
        const again = await fetch(url, { headers: { authorization: `Bearer ${owner.token}` } })
        if (again.status === 200) await again.body!.cancel()
        return again.status === 200
      }, 5000, 'a place for a new stream')
      for (const c of controllers) c.abort()
    })

    test('searchQuery keeps letters and digits only, as prefixes', () => {
      expect(searchQuery("Deploy v2.4 to 'prod'; DROP TABLE")).toBe('deploy:* & v2:* & 4:* & to:* & prod:* & drop:* & table:*')
      expect(searchQuery('%%%')).toBeNull()
      expect(searchQuery('Ünïcode 東京')).toBe('ünïcode:* & 東京:*')
    })
  })
}

for (const pipeline of ['in-process', 'jetstream'] as const) {
  describe(`an event's delivery log and replay (${pipeline})`, () => {
    let h: TestHerald
    let rx: Receiver
    let owner: Person
    beforeAll(async () => {
      if (pipeline === 'jetstream' && !process.env.NATS_URL) return
      h = await startPipelineHerald(pipeline, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s' })
      rx = startReceiver()
      owner = await signUp(h)
    }, 30_000)
    afterAll(async () => {
      await h?.close()
      rx?.stop()
    })

    test('GET /v1/workspaces/{ws}/events/{id} lists the deliveries; an owner replays a failed one', async () => {
      if (!h) return // no NATS outside CI (the harness refuses to load without it under CI=true)
      const ws = owner.workspace
      await owner.call('POST', `/v1/workspaces/${ws}/routers`, { name: 'log', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/log` } })
      const key = ((await (await owner.call('POST', `/v1/workspaces/${ws}/keys`, { name: 'k' })).json()) as { apiKey: string }).apiKey
      rx.script = [{ status: 500, body: 'down' }]
      const { eventId } = (await (await h.post(key, { message: 'logged' })).json()) as { eventId: string }
      type D = { id: string; status: string; attempts: { status: number; ok: boolean }[] }
      const failed = await eventually(async () => {
        const e = (await (await owner.call('GET', `/v1/workspaces/${ws}/events/${eventId}`)).json()) as { message: string; deliveries: D[] }
        return e.deliveries[0]?.status === 'failed' ? e : null
      })
      expect(failed.message).toBe('logged')
      expect(failed.deliveries[0]!.attempts.map((a) => a.status)).toEqual([500])
      const member = await signUp(h)
      await expectProblem(await member.call('POST', `/v1/workspaces/${ws}/deliveries/${failed.deliveries[0]!.id}/replay`), 404, 'not-found')
      expect((await owner.call('POST', `/v1/workspaces/${ws}/deliveries/${failed.deliveries[0]!.id}/replay`)).status).toBe(202)
      const done = await eventually(async () => {
        const e = (await (await owner.call('GET', `/v1/workspaces/${ws}/events/${eventId}`)).json()) as { deliveries: D[] }
        return e.deliveries[0]?.status === 'succeeded' ? e : null
      })
      expect(done.deliveries[0]!.attempts.map((a) => a.status)).toEqual([500, 200])
      await expectProblem(await owner.call('GET', `/v1/workspaces/${ws}/events/01a00000-0000-7000-8000-000000000000`), 404, 'not-found')
    })
  })
}

describePg('feed queries use the indexes (PostgreSQL, 200,000 events)', () => {
  const h = useTestHerald('postgres')
  let wsId: number
  // A plain member reads: the plans hold the visibility of events sent `to` people.
  const reader = () => ({ userId: '00000000-0000-7000-8000-000000000001', workspaceId: wsId })
  beforeAll(async () => {
    const { name } = await h.workspace()
    const other = await h.workspace()
    const sql = h.db.sql
    wsId = (await sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${name}`)[0]!.id
    const otherId = (await sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${other.name}`)[0]!.id
    // 200,000 events over 60 days in two workspaces; ids are UUIDv7 of their time.
    await sql`
      INSERT INTO events (id, workspace_id, channel, created_at, event, title, message, tags)
      SELECT (lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7000' || '8' || lpad(to_hex(i), 15, '0'))::uuid,
        CASE WHEN i % 4 = 0 THEN ${otherId}::bigint ELSE ${wsId}::bigint END,
        'ch' || (i % 20), t, 'key.' || (i % 50), 'Title ' || (i % 1000),
        'message number ' || i || ' about ' || (ARRAY['deploys','signups','invoices','alerts'])[1 + i % 4],
        ARRAY['tag' || (i % 30)]
      FROM generate_series(1, 200000) AS i, LATERAL (SELECT now() - (i * interval '25 seconds')) AS x(t)`
    await sql`ANALYZE events`
  }, 120_000)

  /** The plan of the very statement readFeed sends (captured through postgres.js's debug hook). */
  const plan = async (filter: Parameters<typeof readFeed>[2], before: string | null = null, explain = 'EXPLAIN') => {
    let captured: { query: string; params: unknown[] } | null = null
    const spy = postgres(h.databaseUrl!, {
      max: 1, onnotice: () => {},
      types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
      debug: (_conn, query, params) => (captured = { query, params }),
    }) as unknown as Sql
    try {
      await readFeed(spy, wsId, filter, before, 50, visibleTo(spy, reader()))
      const { query, params } = captured!
      const rows = (await spy.unsafe(`${explain} ${query}`, params as never[])) as unknown as { 'QUERY PLAN': string }[]
      return rows.map((r) => r['QUERY PLAN']).join('\n')
    } finally {
      await spy.end()
    }
  }

  /** Sequential scans of partitions the planner thinks hold rows (empty future months cost nothing). */
  const seqScans = (text: string) =>
    [...text.matchAll(/Seq Scan on (events\w*) \S+ +\(cost=[\d.]+\.\.([\d.]+) rows=(\d+)/g)].filter((m) => Number(m[2]) > 1).map((m) => m[1])

  const cases: [string, Parameters<typeof readFeed>[2], RegExp][] = [
    ['the whole feed', {}, /events_\w*pkey|Index Scan Backward/],
    // Partitions name their copies of an index after its columns.
    ['a channel', { channel: 'ch3' }, /Index Scan Backward using events_\w+_workspace_id_channel_id_idx/],
    ['an event key', { event: 'key.7' }, /Index Scan Backward using events_\w+_workspace_id_event_id_idx/],
    ['a tag', { tag: 'tag7' }, /events_\w+_tags_idx|Index Scan Backward using events_\w+_pkey/],
    ['words', { q: 'invoices 1234' }, /Bitmap Index Scan on events_\w+_to_tsvector_idx|Index Scan Backward using events_\w+_pkey/],
  ]
  for (const [name, filter, index] of cases) {
    test(`${name}: an index scan, never a sequential scan of a partition that holds events`, async () => {
      const text = await plan(filter)
      expect(seqScans(text)).toEqual([])
      expect(text).toMatch(index)
    })
  }

  test('combined filters: the window answers a common combination, a sparse one gathers every match; both exact', async () => {
    const sql = h.db.sql
    const reference = async (channel: string, tag: string) =>
      (await sql<{ id: string }[]>`SELECT id FROM events WHERE workspace_id = ${wsId} AND channel = ${channel} AND ${tag} = ANY(tags) ORDER BY id DESC LIMIT 50`).map((r) => r.id)
    // ch5 and tag5: every 60th event, ~33 in the newest 2,000 of the channel: past the window.
    // ch3 and tag3 likewise; ch7 and tag8 never meet.
    for (const [channel, tag] of [['ch5', 'tag5'], ['ch7', 'tag8'], ['ch10', 'tag10']] as const) {
      const page = await readFeed(sql, wsId, { channel, tag }, null, 50, visibleTo(sql, reader()))
      expect(page.events.map((e) => e.eventId)).toEqual(await reference(channel, tag))
    }
    const words = await readFeed(sql, wsId, { channel: 'ch3', q: 'deploys' }, null, 50, visibleTo(sql, reader()))
    expect(words.events.length).toBe(0) // ch3 events are i%4 == 3: "alerts"
    const alerts = await readFeed(sql, wsId, { channel: 'ch3', q: 'alerts' }, null, 50, visibleTo(sql, reader()))
    expect(alerts.events).toHaveLength(50) // common: the window fills the page
    expect(alerts.nextCursor).toBe(alerts.events[49]!.eventId)
  })

  test('a later page is bounded by its cursor, partitions included', async () => {
    const first = await readFeed(h.db.sql, wsId, {}, null, 50, visibleTo(h.db.sql, reader()))
    const text = await plan({}, first.nextCursor)
    expect(seqScans(text)).toEqual([])
    const second = await readFeed(h.db.sql, wsId, {}, first.nextCursor, 50, visibleTo(h.db.sql, reader()))
    expect(second.events[0]!.eventId < first.events.at(-1)!.eventId).toBe(true)
  })
  test('events to come (scheduled): the first page bounds the id by now in its index condition and reads none of them', async () => {
    const sql = h.db.sql
    // 10,000 scheduled events from a minute to 20 days ahead, on the filters' own index ranges.
    await sql`
      INSERT INTO events (id, workspace_id, channel, created_at, event, title, message, tags, priority, scheduled_for)
      SELECT (lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7000' || '9' || lpad(to_hex(i), 15, '0'))::uuid,
        ${wsId}::bigint, 'ch3', t, 'key.7', 'Later', 'message about the future alerts', ARRAY['tag7'], 5, t
      FROM generate_series(1, 10000) AS i, LATERAL (SELECT date_trunc('milliseconds', now() + interval '1 minute' + i * interval '172 seconds')) AS x(t)`
    await sql`ANALYZE events`
    for (const filter of [{}, { channel: 'ch3' }, { event: 'key.7' }, { minPriority: 4 }, { channel: 'ch3', tag: 'tag7' }] as Parameters<typeof readFeed>[2][]) {
      const text = await plan(filter, null, 'EXPLAIN (ANALYZE, COSTS OFF)')
      // The bound is an index condition (not a filter applied to rows fetched).
      expect(text).toMatch(/Index Cond: \(.*\(id <= '[0-9a-f-]+'::uuid\)/)
      // No node handles the 10,000: each reads at most the window of the combined filters.
      const most = Math.max(...[...text.matchAll(/actual time=\S+ rows=(\d+)/g)].map((m) => Number(m[1])))
      expect(most).toBeLessThanOrEqual(2000)
      const page = await readFeed(sql, wsId, filter, null, 50, visibleTo(sql, reader()))
      expect(page.events.every((e) => e.title !== 'Later')).toBe(true)
    }
  })
})
