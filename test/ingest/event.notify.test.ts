// priority, ttl, collapseKey and ack on both ingest routes: every bound is a
// 400 naming the field by its pointer, valid values are stored as integers and
// returned by GET /events/{id} and the feed, and the feed filters by
// minPriority (docs/events.md, "Priority, expiry, acknowledgement").
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { accepted, eventVias, expectFieldError, postEvent, stored } from '../support'
import { signUp, type Person } from '../users'

describe.each(backends)('priority, ttl, collapseKey and ack on %s', (backend) => {
  const h = useTestHerald(backend)
  let apiKey: string
  beforeAll(async () => {
    ;({ apiKey } = await h.workspace())
  }, 30_000)

  describe.each(eventVias)('via %s', (via) => {
    test('an event without them has priority 3 and nothing else', async () => {
      const { result, event } = await stored(h, via, apiKey, { message: 'plain' })
      expect(result).not.toHaveProperty('receipt')
      expect(event).toMatchObject({ priority: 3, ttl: null, collapseKey: null, receipt: null })
    })

    test.each([
      [1, 1], [5, 5], ['min', 1], ['low', 2], ['default', 3], ['high', 4], ['urgent', 5], [null, 3],
    ] as const)('priority %p is stored as %p', async (priority, want) => {
      const { event } = await stored(h, via, apiKey, { message: 'p', priority })
      expect(event.priority).toBe(want)
    })

    test.each([[0], [6], [2.5], ['5'], ['URGENT'], ['critical'], [true], [[3]], [{}], [-1]])('priority %p is a 400 at /priority', async (priority) => {
      const e = await expectFieldError(await postEvent(h, via, apiKey, { message: 'p', priority }), '/priority')
      expect(e.detail).toContain('1 to 5')
    })

    test.each([[0, 0], [90, 90], ['90s', 90], ['15m', 900], ['2h', 7200], ['7d', 604_800], [2_419_200, 2_419_200], ['28d', 2_419_200]] as const)(
      'ttl %p is stored as %p seconds', async (ttl, want) => {
        const { event } = await stored(h, via, apiKey, { message: 't', ttl })
        expect(event.ttl).toBe(want)
      })

    test.each([[-1], [2_419_201], ['29d'], ['1.5h'], ['10 m'], ['1w'], ['m'], [1.5], ['90'], [true], [{}]])('ttl %p is a 400 at /ttl', async (ttl) => {
      await expectFieldError(await postEvent(h, via, apiKey, { message: 't', ttl }), '/ttl')
    })

    test.each([['a'], ['deploy-status_2'], ['x'.repeat(32)]])('collapseKey %p is stored', async (collapseKey) => {
      const { event } = await stored(h, via, apiKey, { message: 'c', collapseKey })
      expect(event.collapseKey).toBe(collapseKey)
    })

    test.each([[''], ['x'.repeat(33)], ['with space'], ['dot.ted'], ['é'], [42], [['k']]])('collapseKey %p is a 400 at /collapseKey', async (collapseKey) => {
      await expectFieldError(await postEvent(h, via, apiKey, { message: 'c', collapseKey }), '/collapseKey')
    })

    test.each([
      [{ retry: 29, expire: 3600 }, '/ack/retry'],
      [{ retry: '20s', expire: 3600 }, '/ack/retry'],
      [{ retry: 60, expire: 10_801 }, '/ack/expire'],
      [{ retry: 60, expire: '4h' }, '/ack/expire'],
      [{ retry: 600, expire: 300 }, '/ack/expire'],
      [{ expire: 3600 }, '/ack/retry'],
      [{ retry: 60 }, '/ack/expire'],
      [{ retry: 'often', expire: 3600 }, '/ack/retry'],
      [{ retry: 60, expire: 3600, extra: 1 }, '/ack/extra'],
      [{ retry: 60, expire: 3600, escalate: 'oncall' }, '/ack/escalate'],
      [{ retry: 60, expire: 3600, escalate: [1, 2, 3, 4].map((i) => ({ after: `${i}m`, channel: 'oncall' })) }, '/ack/escalate'],
      [{ retry: 60, expire: 3600, escalate: [{ after: '1h', channel: 'oncall' }] }, '/ack/escalate/0/after'],
      [{ retry: 60, expire: 3600, escalate: [{ after: '10m', channel: 'On Call' }] }, '/ack/escalate/0/channel'],
      [{ retry: 60, expire: 3600, escalate: [{ after: '10m' }] }, '/ack/escalate/0/channel'],
      [{ retry: 60, expire: 3600, escalate: [{ channel: 'oncall' }] }, '/ack/escalate/0/after'],
      [{ retry: 60, expire: 3600, escalate: [{ after: '5m', channel: 'a' }, null] }, '/ack/escalate/1'],
      ['yes', '/ack'],
      [[60, 3600], '/ack'],
    ] as const)('ack %j is a 400 at %s', async (ack, pointer) => {
      const e = await expectFieldError(await postEvent(h, via, apiKey, { message: 'a', ack }), pointer)
      expect(e.pointer).toBe(pointer)
    })

    test('several bad fields are reported at once', async () => {
      const res = await postEvent(h, via, apiKey, { message: 'x', priority: 9, ttl: 'soon', collapseKey: '', ack: { retry: 1, expire: 1 } })
      const body = (await res.json()) as { errors: { pointer: string }[] }
      expect(res.status).toBe(400)
      expect(body.errors.map((e) => e.pointer).sort()).toEqual(['/ack/expire', '/ack/retry', '/collapseKey', '/priority', '/ttl'])
    })

    test('they are no longer unknown properties', async () => {
      const r = await accepted(h, via, apiKey, { message: 'k', priority: 2, ttl: 5, collapseKey: 'k' })
      expect(r.errors).toBeUndefined()
    })
  })
})

describe.each(backends)('the feed by priority on %s', (backend) => {
  const h = useTestHerald(backend)
  let owner: Person
  let key: string
  const ids: string[] = []
  beforeAll(async () => {
    owner = await signUp(h)
    const res = await owner.call('POST', `/v1/workspaces/${owner.workspace}/keys`, { name: 'prio' })
    key = ((await res.json()) as { apiKey: string }).apiKey
    for (const [i, priority] of [1, 2, 3, 4, 5, 3].entries()) {
      const r = await h.post(key, { message: `p${priority}`, priority, channel: i % 2 ? 'odd' : 'even' })
      expect(r.status).toBe(200)
      ids.push(((await r.json()) as { eventId: string }).eventId)
    }
  }, 30_000)
  const feed = async (q: string) => {
    const res = await owner.call('GET', `/v1/feed?workspace=${owner.workspace}${q}`)
    expect(res.status).toBe(200)
    return ((await res.json()) as { events: { message: string; priority: number }[] }).events.map((e) => e.message)
  }

  test('every event carries its priority; minPriority keeps those at or above it', async () => {
    expect(await feed('')).toEqual(['p3', 'p5', 'p4', 'p3', 'p2', 'p1'])
    expect(await feed('&minPriority=1')).toEqual(['p3', 'p5', 'p4', 'p3', 'p2', 'p1'])
    expect(await feed('&minPriority=4')).toEqual(['p5', 'p4'])
    expect(await feed('&minPriority=5')).toEqual(['p5'])
    expect(await feed('&minPriority=3&channel=even')).toEqual(['p5', 'p3'])
  })

  test.each(['0', '6', 'high', '2.5'])('minPriority=%s is a 400 naming it', async (v) => {
    const res = await owner.call('GET', `/v1/feed?workspace=${owner.workspace}&minPriority=${v}`)
    expect(res.status).toBe(400)
    expect(await res.text()).toContain('minPriority')
  })
})
