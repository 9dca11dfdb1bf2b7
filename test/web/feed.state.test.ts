// The feed's state (src/web/state/feed.ts): filters to and from the address,
// the channel choices, announcing bursts once, and, against a real Herald
// with a real web session, paging back through the events and showing each
// live event once.
import { describe, expect, test } from 'bun:test'
import { channelChoices, choiceIndex, createFeed, feedFilters, feedHref, isFiltered, newEventsAnnouncer, type FeedEvent } from '../../src/web/state/feed'
import { backends, useTestHerald } from '../harness'
import { postEvents, signUpWeb } from './signed_in'

describe('filters', () => {
  test('read from the address, an empty value being no filter', () => {
    expect(feedFilters(new URLSearchParams('status=unread&channel='))).toEqual({ status: 'unread' })
    const f = feedFilters(new URLSearchParams('channel=orders&tag=&q=late&page=3'))
    expect(f).toEqual({ channel: 'orders', q: 'late' })
    expect(isFiltered(f)).toBe(true)
    expect(isFiltered(feedFilters(new URLSearchParams('tag=&other=1')))).toBe(false)
  })

  test('written to the address from the form, trimmed, without the empty ones', () => {
    expect(feedHref('acme co', new URLSearchParams({ channel: 'orders', tag: '  ', event: ' user.* ', q: '' }))).toBe('/w/acme%20co/feed?channel=orders&event=user.*')
    expect(feedHref('acme', new URLSearchParams())).toBe('/w/acme/feed')
  })

  test('the channel choices hold the one filtered on, once, in order; a live one goes in its place', () => {
    expect(channelChoices(['ops', 'billing'], 'gone')).toEqual(['billing', 'gone', 'ops'])
    expect(channelChoices(['ops', 'billing'], 'ops')).toEqual(['billing', 'ops'])
    expect(choiceIndex(['billing', 'ops'], 'general')).toBe(1)
    expect(choiceIndex(['billing', 'ops'], 'alpha')).toBe(0)
    expect(choiceIndex(['billing', 'ops'], 'zulu')).toBe(2)
    expect(choiceIndex(['billing', 'ops'], 'ops')).toBeNull()
  })
})

test('a burst of new events is announced once; a single one by its title', async () => {
  const said: string[] = []
  const announce = newEventsAnnouncer((t) => said.push(t), 20)
  announce({ title: null, message: 'one' })
  announce({ title: 'Two', message: 'two' })
  announce({ title: null, message: 'three' })
  await Bun.sleep(60)
  expect(said).toEqual(['3 new events'])
  announce({ title: null, message: 'Card declined' })
  await Bun.sleep(60)
  announce({ title: 'Jane signed up', message: 'x' })
  await Bun.sleep(60)
  expect(said).toEqual(['3 new events', 'New event: Card declined', 'New event: Jane signed up'])
})

for (const backend of backends) {
  describe(`feed state against Herald (${backend})`, () => {
    const h = useTestHerald(backend)

    test('the first page, then older ones from the cursor, newest first, each event once', async () => {
      const { api, workspace } = await signUpWeb(h, 'feed')
      const ids = await postEvents(h, api, workspace, [1, 2, 3, 4, 5].map((n) => ({ message: `event ${n}`, channel: n % 2 ? 'odd' : 'even' })))
      const feed = createFeed(api, workspace, {}, 2)
      const first = await feed.first()
      expect(first.events.map((e) => e.message)).toEqual(['event 5', 'event 4'])
      expect(first.channels).toEqual(['even', 'general', 'odd'])
      expect(feed.more).toBe(true)
      expect((await feed.older()).map((e) => e.message)).toEqual(['event 3', 'event 2'])
      expect((await feed.older()).map((e) => e.eventId)).toEqual([ids[0]!])
      expect(feed.more).toBe(false)
      expect(await feed.older()).toEqual([])
    })

    test('filters reach the API and the stream; a channel filtered on is a choice even when unknown', async () => {
      const { api, workspace, cookie } = await signUpWeb(h, 'feed-filter')
      await postEvents(h, api, workspace, [{ message: 'a', channel: 'odd', tags: ['x'] }, { message: 'b', channel: 'even' }, { message: 'c', channel: 'odd' }])
      const odd = await createFeed(api, workspace, { channel: 'odd' }).first()
      expect(odd.events.map((e) => e.message)).toEqual(['c', 'a'])
      const tagged = await createFeed(api, workspace, { tag: 'x' }).first()
      expect(tagged.events.map((e) => e.message)).toEqual(['a'])
      const none = createFeed(api, workspace, { channel: 'nowhere', q: 'late' })
      expect((await none.first()).channels).toEqual(['even', 'general', 'nowhere', 'odd'])
      const stream = new URL(none.streamUrl, h.url)
      expect(stream.pathname).toBe('/v1/feed/stream')
      expect(Object.fromEntries(stream.searchParams)).toEqual({ workspace, channel: 'nowhere', q: 'late' })
      // Herald streams at that address (its parameters are the stream's).
      const res = await fetch(h.url + none.streamUrl, { headers: { cookie, accept: 'text/event-stream' } })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toStartWith('text/event-stream')
      await res.body?.cancel()
    })

    test('the status filter reaches the API (not the stream), the counts come with each page and again on recount', async () => {
      const { api, workspace } = await signUpWeb(h, 'feed-status')
      const ids = await postEvents(h, api, workspace, [{ message: 'a', channel: 'odd' }, { message: 'b', channel: 'even' }])
      const all = createFeed(api, workspace, {})
      await all.first()
      expect(all.counts).toEqual({ unread: 2, byChannel: { even: 1, odd: 1 } })
      await api.post('/v1/workspaces/{workspace}/feed/read', { path: { workspace }, body: { eventIds: [ids[0]!] } })
      expect(await all.recount()).toEqual({ unread: 1, byChannel: { even: 1 } })
      const unread = createFeed(api, workspace, { status: 'unread' })
      expect((await unread.first()).events.map((e) => [e.message, e.status])).toEqual([['b', 'unread']])
      expect(Object.fromEntries(new URL(unread.streamUrl, h.url).searchParams)).toEqual({ workspace })
      const read = createFeed(api, workspace, { status: 'read' })
      expect((await read.first()).events.map((e) => e.message)).toEqual(['a'])
    })

    test('live events: kept until the first page is drawn, then each shown once', async () => {
      const { api, workspace } = await signUpWeb(h, 'feed-live')
      const [oldId] = await postEvents(h, api, workspace, [{ message: 'old' }])
      const feed = createFeed(api, workspace, {})
      const live = (eventId: string, message: string): FeedEvent => ({ eventId, workspace, channel: 'general', event: null, title: null, message, link: null, tags: [], data: null, createdAt: new Date().toISOString(), priority: 3, ttl: null, collapseKey: null, receipt: null, to: null })
      // Before the first page: kept, not shown.
      expect(feed.live(live(oldId!, 'old'))).toBe(false)
      expect(feed.live(live('early-1', 'early'))).toBe(false)
      const first = await feed.first()
      expect(first.events.map((e) => e.eventId)).toEqual([oldId!])
      // Drawn: the early ones not in the first page, in the order they came.
      expect(feed.drawn().map((e) => e.eventId)).toEqual(['early-1'])
      expect(feed.drawn()).toEqual([])
      expect(feed.live(live('new-1', 'new'))).toBe(true)
      expect(feed.live(live('new-1', 'new'))).toBe(false) // the stream repeated it
      expect(feed.live(live(oldId!, 'old'))).toBe(false) // shown in the first page
    })
  })
}
