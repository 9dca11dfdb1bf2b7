// The ledger masks the fan-out clears (src/delivery/relay.ts ledgerMasks):
// one bit string per outbox row, its events' bits set, whatever order and
// however many times they come.
import { describe, expect, test } from 'bun:test'
import { ledgerMasks } from '../../src/delivery/relay'

describe('ledgerMasks', () => {
  test('nothing recorded: no row', () => {
    expect(ledgerMasks([])).toEqual([])
  })

  test("one mask per outbox row, as long as the row's batch, with the bits of its recorded events", () => {
    const masks = ledgerMasks([
      { id: 7, index: 0, size: 4 },
      { id: 9, index: 1, size: 2 },
      { id: 7, index: 3, size: 4 },
    ])
    expect(masks).toEqual([
      { id: 7, mask: '1001' },
      { id: 9, mask: '01' },
    ])
  })

  test('an event twice sets its bit once; order does not matter', () => {
    expect(ledgerMasks([{ id: 1, index: 2, size: 3 }, { id: 1, index: 0, size: 3 }, { id: 1, index: 2, size: 3 }])).toEqual([{ id: 1, mask: '101' }])
  })

  test('an index past the batch sets no bit (the mask never grows past the row)', () => {
    expect(ledgerMasks([{ id: 1, index: 5, size: 3 }, { id: 1, index: 1, size: 3 }])).toEqual([{ id: 1, mask: '010' }])
  })
})
