// Events under way in this process (src/delivery/inflight.ts): a second copy
// of an event (the relay and JetStream both may hand one over again) waits
// for the first instead of being fanned out again.
import { describe, expect, test } from 'bun:test'
import type { Incoming } from '../../src/delivery/bus'
import { createInFlight } from '../../src/delivery/inflight'

const event = (id: string): Incoming => ({ workspaceId: 1, eventId: id, channel: 'general', view: '{}' })

/** A fan-out that records each batch it is given and finishes when the test says. */
function recordingFanOut() {
  const batches: string[][] = []
  const finish: (() => void)[] = []
  const fail: ((err: Error) => void)[] = []
  const fanOut = (batch: Incoming[]) => {
    batches.push(batch.map((e) => e.eventId))
    return new Promise<void>((res, rej) => (finish.push(res), fail.push(rej)))
  }
  return { batches, finish, fail, fanOut }
}

async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false
  void p.then(
    () => (done = true),
    () => (done = true),
  )
  await Bun.sleep(0)
  return done
}

describe('events in flight', () => {
  test('two copies of an event in one batch are fanned out once', async () => {
    const f = recordingFanOut()
    const inFlight = createInFlight(f.fanOut)
    const p = inFlight.accept([event('a'), event('b'), event('a')])
    expect(f.batches).toEqual([['a', 'b']])
    f.finish[0]!()
    await p
  })

  test('a copy of an event under way waits for the first, and is not fanned out again', async () => {
    const f = recordingFanOut()
    const inFlight = createInFlight(f.fanOut)
    const first = inFlight.accept([event('a')])
    const second = inFlight.accept([event('a'), event('b')])
    expect(f.batches).toEqual([['a'], ['b']])
    f.finish[1]!() // b done, a still under way
    expect(await settled(second)).toBe(false)
    expect(inFlight.underWay()).toHaveLength(1)
    f.finish[0]!()
    await Promise.all([first, second])
    expect(inFlight.underWay()).toHaveLength(0)
  })

  test('once an event is done, a later copy is fanned out again (the ledger, not memory, says it is owed)', async () => {
    const f = recordingFanOut()
    const inFlight = createInFlight(f.fanOut)
    const first = inFlight.accept([event('a')])
    f.finish[0]!()
    await first
    void inFlight.accept([event('a')])
    expect(f.batches).toEqual([['a'], ['a']])
    f.finish[1]!()
  })

  test('a fan-out that fails rejects its batch and the copies that waited, and forgets the events', async () => {
    const f = recordingFanOut()
    const inFlight = createInFlight(f.fanOut)
    const first = inFlight.accept([event('a')])
    const copy = inFlight.accept([event('a')])
    const both = Promise.allSettled([first, copy])
    f.fail[0]!(new Error('database away'))
    const [a, b] = await both
    expect(a).toMatchObject({ status: 'rejected', reason: { message: 'database away' } })
    expect(b).toMatchObject({ status: 'rejected', reason: { message: 'database away' } })
    expect(f.batches).toEqual([['a']])
    expect(inFlight.underWay()).toHaveLength(0)
  })
})
