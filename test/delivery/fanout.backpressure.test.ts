// The fan-out's room for work (src/delivery/backpressure.ts): work past the
// room waits for units to be given back, and a chunk larger than the room
// still goes when nothing else is under way.
import { describe, expect, test } from 'bun:test'
import { createWorkRoom, workRoom } from '../../src/delivery/backpressure'
import { CHUNK } from '../../src/delivery/chunks'

/** Whether `p` has settled after the microtasks queued so far have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false
  void p.then(() => (done = true))
  await Bun.sleep(0)
  return done
}

describe('the work room', () => {
  test('is twice WORKER_CONCURRENCY, and at least four full chunks', () => {
    expect(workRoom(10)).toBe(CHUNK * 4)
    expect(workRoom(CHUNK * 3)).toBe(CHUNK * 6)
  })

  test('reserves what fits at once, and counts what is busy and free', async () => {
    const room = createWorkRoom(10)
    expect(await settled(room.reserve(4))).toBe(true)
    expect(await settled(room.reserve(6))).toBe(true)
    expect(room.busy()).toBe(10)
    expect(room.free()).toBe(0)
  })

  test('work that does not fit waits until enough is released', async () => {
    const room = createWorkRoom(10)
    await room.reserve(8)
    const waiting = room.reserve(5)
    expect(await settled(waiting)).toBe(false)
    room.release(2) // 6 busy: 5 more still do not fit
    expect(await settled(waiting)).toBe(false)
    room.release(3) // 3 busy: they fit
    expect(await settled(waiting)).toBe(true)
    expect(room.busy()).toBe(8)
  })

  test('a chunk larger than the room goes when nothing is under way, and only then', async () => {
    const room = createWorkRoom(10)
    await room.reserve(1)
    const huge = room.reserve(25)
    expect(await settled(huge)).toBe(false)
    room.release(1)
    expect(await settled(huge)).toBe(true)
    expect(room.busy()).toBe(25)
    expect(room.free()).toBe(-15)
  })

  test('take() takes without waiting, even past the room (the scheduler takes only what free() allows)', async () => {
    const room = createWorkRoom(10)
    room.take(7)
    expect(room.free()).toBe(3)
    const waiting = room.reserve(4)
    expect(await settled(waiting)).toBe(false)
    room.release(7)
    expect(await settled(waiting)).toBe(true)
    expect(room.busy()).toBe(4)
  })
})
