// What the dashboard says of the deliveries a router's throttle or digest
// makes (src/web/state/digest.ts, delivery_state.ts), from fixture data in
// the shapes of the API: the feed's counts ("2 of 5 throttled"), a digested
// delivery's link to its digest, a digest's key and events, the deliveries
// filter; and every one of them with the fields absent, as before the engine.
import { describe, expect, test } from 'bun:test'
import { stateLabel, stateOf, type DeliveryCounts } from '../../src/web/state/delivery_state'
import { DELIVERY_STATE_LABELS, digestHref, digestText, idTime, pacedText } from '../../src/web/state/digest'

const OLD = '2020-01-01T00:00:00.000Z'
const counts = (c: Partial<DeliveryCounts>): DeliveryCounts => ({ pending: 0, succeeded: 0, failed: 0, ...c })
const said = (c: Partial<DeliveryCounts>) => {
  const full = counts(c)
  const state = stateOf(full, OLD)
  return [state, stateLabel(full, state)]
}

describe('an event’s deliveries at a glance, with throttled and digested ones', () => {
  test('throttled: held back, never sent; after what failed, is pending or was delivered', () => {
    expect(said({ throttled: 2 })).toEqual(['throttled', '2 of 2 throttled'])
    expect(said({ succeeded: 3, throttled: 2 })).toEqual(['delivered', '3 of 5 delivered, 2 throttled'])
    expect(said({ failed: 1, throttled: 4 })).toEqual(['failed', '1 of 5 failed'])
    expect(said({ pending: 1, throttled: 1 })).toEqual(['pending', '1 of 2 pending'])
    expect(said({ throttled: 2, suppressed: 3 })).toEqual(['throttled', '2 of 5 throttled, 3 suppressed'])
  })

  test('digested: sent inside a digest, delivered', () => {
    expect(said({ digested: 1 })).toEqual(['delivered', 'Sent in a digest'])
    expect(said({ digested: 3 })).toEqual(['delivered', 'All 3 sent in digests'])
    expect(said({ succeeded: 2, digested: 1 })).toEqual(['delivered', 'All 3 delivered (1 in a digest)'])
    expect(said({ succeeded: 1, digested: 1, throttled: 2 })).toEqual(['delivered', '2 of 4 delivered (1 in a digest), 2 throttled'])
  })

  test('counts without the new fields read as before', () => {
    expect(said({ succeeded: 2 })).toEqual(['delivered', 'All 2 delivered'])
    expect(said({ succeeded: 1, suppressed: 1 })).toEqual(['delivered', '1 of 2 delivered, 1 suppressed'])
  })
})

describe('a digested delivery and a digest', () => {
  const digestId = '0197a3c4-5d6e-8f80-9a1b-2c3d4e5f6a7b'
  const router = '01900000-0000-7000-8000-000000000001'
  const digestEventId = '0197a3c4-5d6e-7000-8000-000000000001'
  const digested = { id: '0197a3c4-0000-8000-8000-000000000002', kind: 'router', status: 'digested', routerId: router, digestId, digestEventId }

  test('the time a delivery id begins with is its event’s', () => {
    expect(idTime('0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b')).toBe(new Date(0x0197a3c45d6e).toISOString())
    expect(idTime('not an id')).toBeNull()
  })

  test('links to the digest on this page when it is here, else to its delivery on the page of the digest’s first event', () => {
    expect(digestHref('acme', digested, [{ id: digested.id }, { id: digestId }])).toBe(`#delivery-${digestId}`)
    expect(digestHref('acme', digested, [{ id: digested.id }])).toBe(`/w/acme/events/${digestEventId}#delivery-${digestId}`)
    expect(digestHref('acme', { ...digested, digestEventId: undefined }, [{ id: digested.id }])).toBeNull()
    expect(digestHref('acme', { ...digested, digestId: undefined }, [])).toBeNull()
  })

  test('says what it is: a digest its count and key, a throttled or digested one why', () => {
    expect(digestText({ digest: { key: 'acme', count: 6, eventIds: [] } })).toBe('A digest of 6 events, key “acme”')
    expect(digestText({ digest: { key: '', count: 1, eventIds: [] } })).toBe('A digest of 1 event')
    expect(digestText({})).toBeNull()
    expect(pacedText({ status: 'throttled' })).toContain("router's throttle")
    expect(pacedText({ status: 'digested' })).toBe('Sent in a digest')
    expect(pacedText({ status: 'succeeded' })).toBeNull()
  })

  test('the deliveries filter offers both states', () => {
    expect(DELIVERY_STATE_LABELS.map(([v]) => v)).toEqual(['pending', 'succeeded', 'failed', 'cancelled', 'expired', 'suppressed', 'throttled', 'digested'])
  })
})
