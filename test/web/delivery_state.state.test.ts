// The feed's delivery states (src/web/state/delivery_state.ts): each state
// of the counts and its words, and, against a real Herald delivering to real
// receivers, keeping the states of the events shown current: a live event
// counted soon and again until it settles, one with nothing to deliver
// drawn so once the fan-out's grace is over, no round once all have settled,
// while the page is out of view or once it is left, and every event counted
// again when it comes back into view.
import { afterAll, describe, expect, test } from 'bun:test'
import { FANOUT_GRACE_MS, stateLabel, stateOf, watchDeliveryStates, type DeliveryState, type WatchOptions } from '../../src/web/state/delivery_state'
import type { Api } from '../../src/web/api'
import { backends, useTestHerald } from '../harness'
import { eventually, startReceiver } from '../receiver'
import { postEvents, signUpWeb } from './signed_in'

describe('an event\'s state from its counts', () => {
  const now = Date.parse('2025-06-01T12:00:00Z')
  const young = new Date(now - 1000).toISOString()
  const old = new Date(now - FANOUT_GRACE_MS).toISOString()
  const counts = (pending: number, succeeded: number, failed: number) => ({ pending, succeeded, failed })

  test('a failure outweighs what is pending, which outweighs what is delivered', () => {
    expect(stateOf(counts(1, 1, 1), old, now)).toBe('failed')
    expect(stateOf(counts(1, 1, 0), old, now)).toBe('pending')
    expect(stateOf(counts(0, 2, 0), old, now)).toBe('delivered')
  })

  test('expired (not sent in time): after a failure and what is pending, before what was delivered; in words with the total', () => {
    const withExpired = (pending: number, succeeded: number, failed: number, expired: number) => ({ pending, succeeded, failed, expired })
    expect(stateOf(withExpired(0, 0, 1, 1), old, now)).toBe('failed')
    expect(stateOf(withExpired(1, 0, 0, 1), old, now)).toBe('pending')
    expect(stateOf(withExpired(0, 2, 0, 1), old, now)).toBe('expired')
    expect(stateOf(withExpired(0, 0, 0, 1), young, now)).toBe('expired')
    const c = withExpired(0, 2, 0, 1)
    expect(stateLabel(c, stateOf(c, old, now))).toBe('1 of 3 expired')
    expect(stateLabel(withExpired(0, 0, 1, 1), 'failed')).toBe('1 of 2 failed')
  })

  test('no deliveries: waiting while the fan-out may come, then nothing to deliver', () => {
    expect(stateOf(counts(0, 0, 0), young, now)).toBe('waiting')
    expect(stateOf(counts(0, 0, 0), old, now)).toBe('none')
  })

  test('in words: the counts that matter, the total beside them', () => {
    const said = (c: ReturnType<typeof counts>) => stateLabel(c, stateOf(c, old, now))
    expect(said(counts(0, 1, 2))).toBe('2 of 3 failed')
    expect(said(counts(1, 0, 1))).toBe('1 of 2 failed, 1 pending')
    expect(said(counts(2, 1, 0))).toBe('2 of 3 pending')
    expect(said(counts(0, 1, 0))).toBe('Delivered')
    expect(said(counts(0, 3, 0))).toBe('All 3 delivered')
    expect(said(counts(0, 0, 0))).toBe('Nothing to deliver')
    expect(stateLabel(counts(0, 0, 0), 'waiting')).toBe('Delivering…')
  })
})

for (const backend of backends) {
  describe(`delivery states against Herald (${backend})`, () => {
    const good = startReceiver()
    const bad = startReceiver()
    bad.fallback = { status: 500, body: 'down' }
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s', CIRCUIT_FAILURES: '1000' })
    afterAll(() => {
      good.stop()
      bad.stop()
    })

    /** A watcher of quick rounds that records what it paints, the last state of each event. */
    function watcher(api: Api, workspace: string, over: Partial<WatchOptions> = {}) {
      const painted: [string, DeliveryState, string][] = []
      const last = new Map<string, string>()
      const page = new AbortController()
      const states = watchDeliveryStates(api, workspace, {
        paint: (id, state, label) => {
          painted.push([id, state, label])
          last.set(id, `${state}: ${label}`)
        },
        visible: () => true,
        signal: page.signal,
        pollMs: 50,
        soonMs: 10,
        ...over,
      })
      return { states, painted, last, leave: () => page.abort() }
    }

    /** A workspace routing `order.*` to a receiver that takes it and one that fails. */
    async function routed(tag: string) {
      const signed = await signUpWeb(h, tag)
      const { api, workspace } = signed
      for (const [name, url] of [['shipping', `${good.url}/ok`], ['billing', `${bad.url}/down`]]) {
        await api.post('/v1/workspaces/{workspace}/routers', { path: { workspace }, body: { name: name!, pattern: 'order.*', destination: { type: 'webhook', url: url! } } })
      }
      return signed
    }

    test('a live event is counted soon, then again until it settles', async () => {
      const { api, workspace } = await routed('live')
      const [routedId, unroutedId] = await postEvents(h, api, workspace, [{ message: 'Order 7', event: 'order.paid' }, { message: 'Hello', event: 'user.signup' }])
      const w = watcher(api, workspace)
      w.states.track(routedId!, new Date().toISOString())
      w.states.track(unroutedId!, new Date().toISOString())
      await eventually(async () => w.last.get(routedId!) === 'failed: 1 of 2 failed', 20_000, 'the routed event settled')
      expect(w.last.get(unroutedId!)).toBe('waiting: Delivering…')
      w.leave()
    }, 30_000)

    test('an event with nothing to deliver is "Delivering…" until its grace is over, then "Nothing to deliver"', async () => {
      const { api, workspace } = await signUpWeb(h, 'grace')
      const [id] = await postEvents(h, api, workspace, [{ message: 'nothing routed' }])
      // Rounds 50 ms apart, a grace that ends 300 ms from now: it ends between two rounds.
      const w = watcher(api, workspace)
      w.states.track(id!, new Date(Date.now() - FANOUT_GRACE_MS + 300).toISOString())
      await eventually(async () => w.last.get(id!) === 'none: Nothing to deliver', 3_000, 'the grace over')
      expect(w.painted[0]).toEqual([id!, 'waiting', 'Delivering…'])
      // Settled: no more rounds.
      const painted = w.painted.length
      await Bun.sleep(300)
      expect(w.painted.length).toBe(painted)
      w.leave()
    })

    test('once all have settled, no more rounds', async () => {
      const { api, workspace } = await routed('settled')
      const [id] = await postEvents(h, api, workspace, [{ message: 'Order 9', event: 'order.paid' }])
      const w = watcher(api, workspace)
      w.states.track(id!, new Date().toISOString())
      await eventually(async () => w.last.get(id!) === 'failed: 1 of 2 failed', 20_000, 'the event settled')
      await Bun.sleep(200)
      const painted = w.painted.length
      await Bun.sleep(300)
      expect(w.painted.length).toBe(painted)
      w.leave()
    }, 30_000)

    test('counts given and settled: no round; back in view, all are counted again', async () => {
      const { api, workspace } = await routed('in-view')
      const [id] = await postEvents(h, api, workspace, [{ message: 'Order 8', event: 'order.paid' }])
      await eventually(async () => {
        const counts = await api.get('/v1/workspaces/{workspace}/deliveries/counts', { path: { workspace }, query: { events: id! } })
        return counts[id!]!.pending === 0 && counts[id!]!.failed === 1
      }, 20_000, 'the deliveries made')
      const w = watcher(api, workspace)
      // Shown with counts from before a replay: settled, so not counted again by itself.
      w.states.track(id!, new Date().toISOString(), { pending: 0, succeeded: 0, failed: 2 })
      await Bun.sleep(200)
      expect(w.painted).toEqual([])
      await w.states.inView()
      expect(w.last.get(id!)).toBe('failed: 1 of 2 failed')
      w.leave()
    })

    test('out of view, one round and no more; a page left, none', async () => {
      const { api, workspace } = await signUpWeb(h, 'hidden')
      const [id] = await postEvents(h, api, workspace, [{ message: 'nothing routed' }])
      // Young, with nothing to deliver: "waiting", which rounds would count again for the grace period.
      const hidden = watcher(api, workspace, { visible: () => false })
      hidden.states.track(id!, new Date().toISOString())
      await eventually(async () => hidden.painted.length > 0, 5_000, 'the first round')
      await Bun.sleep(100)
      const painted = hidden.painted.length
      // Rounds 50 ms apart would have painted it again meanwhile.
      await Bun.sleep(300)
      expect(hidden.painted.length).toBe(painted)
      expect(new Set(hidden.painted.map((p) => p.join(' ')))).toEqual(new Set([`${id} waiting Delivering…`]))
      hidden.leave()

      const left = watcher(api, workspace)
      left.states.track(id!, new Date().toISOString())
      left.leave()
      await Bun.sleep(300)
      expect(left.painted).toEqual([])
    })
  })
}
