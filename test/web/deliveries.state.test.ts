// The deliveries page's state (src/web/state/deliveries.ts): filters to and
// from the address (local times to ISO and back), what a bulk replay asks
// and says, and, against a real Herald whose webhook receiver answers 500,
// paging, drawing again only on a change, counting and replaying failed
// deliveries, and reading again for a while after a replay.
import { afterAll, describe, expect, test } from 'bun:test'
import {
  canReplayAll, createDeliveries, deliveriesHref, deliveryFilters, filteredHref, isFiltered, isoOf, localValue, POLL_FOR_MS, replayedMessage, replayQuestion, routerNames,
} from '../../src/web/state/deliveries'
import { backends, useTestHerald } from '../harness'
import { eventually, startReceiver } from '../receiver'
import { postEvents, signUpWeb } from './signed_in'

describe('filters', () => {
  test('read from the address, an empty value being no filter', () => {
    expect(deliveryFilters(new URLSearchParams('state=failed&router=&device=d1&x=1'))).toEqual({ state: 'failed', device: 'd1' })
    expect(isFiltered({})).toBe(false)
    expect(isFiltered({ until: '2025-01-01T00:00:00.000Z' })).toBe(true)
  })

  test('times: the field shows the minute in the local zone; "until" takes the whole of its minute', () => {
    const iso = new Date(2025, 5, 1, 9, 5, 42).toISOString() // 09:05:42, local
    expect(localValue(iso)).toBe('2025-06-01T09:05')
    expect(isoOf('2025-06-01T09:05', false)).toBe(new Date(2025, 5, 1, 9, 5, 0, 0).toISOString())
    expect(isoOf('2025-06-01T09:05', true)).toBe(new Date(2025, 5, 1, 9, 5, 59, 999).toISOString())
    expect(localValue('not a time')).toBe('')
    expect(localValue(undefined)).toBe('')
    expect(isoOf('', true)).toBe('')
  })

  test('the form goes to an address with ISO times and without empty values', () => {
    const form = new URLSearchParams({ state: 'failed', router: '', device: ' d1 ', since: '2025-06-01T09:05', until: '' })
    const href = new URL(deliveriesHref('acme', form), 'http://x')
    expect(href.pathname).toBe('/w/acme/deliveries')
    expect(Object.fromEntries(href.searchParams)).toEqual({ state: 'failed', device: 'd1', since: new Date(2025, 5, 1, 9, 5).toISOString() })
    expect(filteredHref('acme', { state: 'failed', device: 'd1' }, { router: 'r1' })).toBe('/w/acme/deliveries?state=failed&device=d1&router=r1')
  })

  test('"Replay failed…" is for owners and admins, when the filter can hold failed deliveries', () => {
    expect(canReplayAll(true, {})).toBe(true)
    expect(canReplayAll(true, { state: 'failed', router: 'r' })).toBe(true)
    expect(canReplayAll(true, { state: 'pending' })).toBe(false)
    expect(canReplayAll(false, {})).toBe(false)
  })
})

describe('bulk replay in words', () => {
  test('asks how many, saying when more match than one replay takes', () => {
    expect(replayQuestion({ matched: 0, replayed: 0, more: false })).toBeNull()
    expect(replayQuestion({ matched: 1, replayed: 0, more: false })).toStartWith('Replay the 1 failed delivery that matches these filters?')
    expect(replayQuestion({ matched: 3, replayed: 0, more: false })).toStartWith('Replay all 3 failed deliveries that match these filters?')
    expect(replayQuestion({ matched: 1000, replayed: 0, more: true })).toStartWith(`Replay the newest ${(1000).toLocaleString()} failed deliveries that match these filters? More match`)
    expect(replayQuestion({ matched: 2, replayed: 0, more: false })).toEndWith('Each is sent again under its own id, with a fresh retry schedule.')
  })

  test('says what was done', () => {
    expect(replayedMessage({ matched: 3, replayed: 3, more: false })).toBe('3 deliveries replayed.')
    expect(replayedMessage({ matched: 3, replayed: 1, more: false })).toBe('1 delivery replayed. Some were being replayed already.')
    expect(replayedMessage({ matched: 2, replayed: 2, more: true })).toBe('2 deliveries replayed. More failed deliveries match: replay again for the rest.')
  })
})

for (const backend of backends) {
  describe(`deliveries state against Herald (${backend})`, () => {
    const receiver = startReceiver()
    receiver.fallback = { status: 500, body: 'receiver is down' }
    // One attempt per delivery, so that a 500 fails it for good.
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s', CIRCUIT_FAILURES: '1000' })
    afterAll(() => receiver.stop())

    test('pages of failed deliveries; the first page drawn again only when it changed; bulk and single replays', async () => {
      const { api, workspace } = await signUpWeb(h, 'deliveries')
      const router = await api.post('/v1/workspaces/{workspace}/routers', { path: { workspace }, body: { name: 'down', pattern: '*', destination: { type: 'webhook', url: `${receiver.url}/hook` } } })
      expect((await routerNames(api, workspace)).get(router.id)).toBe('down')
      expect((await routerNames(api, 'not-mine')).size).toBe(0) // unreadable: no names, no failure
      await postEvents(h, api, workspace, [1, 2, 3].map((n) => ({ message: `m${n}` })))
      const failed = createDeliveries(api, workspace, { state: 'failed' }, 2)
      await eventually(async () => (await failed.first()).deliveries.length === 2 && failed.more, 20_000, 'two failed deliveries and more')

      // The same first page again: nothing to draw.
      const again = await failed.first()
      expect(again.changed).toBe(false)
      expect(again.deliveries.every((d) => d.status === 'failed' && d.routerId === router.id && d.lastStatus === 500)).toBe(true)
      const older = await failed.older()
      expect(older.length).toBe(1)
      expect(failed.more).toBe(false)
      // Older pages are shown: the first page read again is drawn again (the list goes back to one page).
      expect((await failed.first()).changed).toBe(true)
      expect(failed.polling()).toBe(false)

      const dry = await failed.countFailed()
      expect(dry).toEqual({ matched: 3, replayed: 0, more: false })
      const done = await failed.replayFailed()
      expect(done.matched).toBe(3)
      expect(done.replayed).toBe(3)
      // After a replay the list is read again for a while.
      expect(failed.polling()).toBe(true)
      expect(failed.polling(Date.now() + POLL_FOR_MS + 1000)).toBe(false)
      // The replays run and fail again (the receiver still answers 500).
      await receiver.waitFor(6, 20_000)
      const after = await eventually(async () => {
        const page = await createDeliveries(api, workspace, { state: 'failed' }).first()
        return page.deliveries.length === 3 && page.deliveries.every((d) => d.attemptCount === 2) && page
      }, 20_000, 'three replayed deliveries failed again')
      expect(after.changed).toBe(true)

      // One by one.
      const one = createDeliveries(api, workspace, {})
      await one.replay(after.deliveries[0]!.id)
      expect(one.polling()).toBe(false) // nothing shown yet: it polls once its first page is read
      await one.first()
      expect(one.polling()).toBe(true)
      await eventually(async () => (await one.first()).deliveries.find((d) => d.id === after.deliveries[0]!.id)?.attemptCount === 3, 20_000, 'the replayed delivery tried again')
    }, 60_000)

    test('filters reach the API: a router of none, a state the API refuses', async () => {
      const { api, workspace } = await signUpWeb(h, 'deliveries-filter')
      const none = await createDeliveries(api, workspace, { router: '00000000-0000-7000-8000-000000000000' }).first()
      expect(none.deliveries).toEqual([])
      // A state from a hand-edited address goes to the API, whose 400 the page shows.
      const bad = await createDeliveries(api, workspace, { state: 'lost' }).first().catch((e: unknown) => e)
      expect((bad as { status: number }).status).toBe(400)
    })
  })
}
