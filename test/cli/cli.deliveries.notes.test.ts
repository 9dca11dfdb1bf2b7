// The last column of `herald delivery list` for the states a router's
// throttle or digest gives: where a digested event went, what a digest held,
// why a throttled one was not sent. The digest fields come with the digest
// engine; without them the rows still read.
import { describe, expect, test } from 'bun:test'
import { deliveryNote } from '../../src/cli/deliveries'

const base = { kind: 'router', lastError: null }

describe('herald delivery list notes', () => {
  test('a digested delivery names its digest, a digest says what it held, a throttled one why it was not sent', () => {
    expect(deliveryNote({ ...base, status: 'digested', digestId: '0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b' })).toBe('sent in digest 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b')
    expect(deliveryNote({ ...base, kind: 'digest', status: 'succeeded', digest: { key: 'acme', count: 6 } })).toBe('digest of 6 events for key "acme"')
    expect(deliveryNote({ ...base, kind: 'digest', status: 'pending', digest: { key: '', count: 1 } })).toBe('digest of 1 event')
    expect(deliveryNote({ ...base, status: 'throttled' })).toBe("held back by the router's throttle")
  })

  test('the last error comes first, and fields that are absent leave a plain row', () => {
    expect(deliveryNote({ ...base, kind: 'digest', status: 'failed', lastError: 'HTTP 500', digest: { key: '', count: 2 } })).toBe('HTTP 500')
    expect(deliveryNote({ ...base, status: 'digested' })).toBe('sent in a digest')
    expect(deliveryNote({ ...base, kind: 'digest', status: 'pending' })).toBe('-')
    expect(deliveryNote({ ...base, status: 'succeeded' })).toBe('-')
  })
})
