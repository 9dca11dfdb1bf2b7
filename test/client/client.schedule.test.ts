// Scheduled events through the client against a real Herald on every backend:
// `send` with `deliverAt` (a Date or a string) or `delay` returns
// `scheduledFor`, and so does the batch; `scheduled()` pages them soonest
// first and `allScheduled()` walks every page; `cancel(id)` answers cancelled
// (again on a repeat) and, once the event went out, throws a HeraldError of
// status 409 and kind `event-sent`.
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Herald, HeraldError } from '../../clients/typescript/src/index'
import { backends, useTestHerald } from '../harness'
import { eventually } from '../receiver'

setDefaultTimeout(60_000)

for (const backend of backends) {
  describe(`scheduled events through the client (${backend})`, () => {
    const h = useTestHerald(backend)
    let herald: Herald
    let other: Herald
    beforeAll(async () => {
      herald = new Herald({ apiKey: (await h.workspace()).apiKey, url: h.url })
      other = new Herald({ apiKey: (await h.workspace()).apiKey, url: h.url })
    }, 30_000)
    const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a HeraldError') }, (err: unknown) => err as HeraldError)

    test('deliverAt as a Date or a string and delay as seconds or a duration; the answer carries scheduledFor', async () => {
      const at = new Date(Date.now() + 3600_000)
      const a = await herald.send({ message: 'Date', deliverAt: at })
      expect(Date.parse(a.scheduledFor!)).toBe(at.getTime())
      const b = await herald.send({ message: 'string', deliverAt: '2099-01-01T00:00:00Z' }).catch((e: HeraldError) => e)
      // Past HERALD_MAX_SCHEDULE: the server's pointer comes back.
      expect(b).toBeInstanceOf(HeraldError)
      expect((b as HeraldError).errors.map((e) => e.pointer)).toEqual(['/deliverAt'])
      const c = await herald.send({ message: 'string', deliverAt: new Date(Date.now() + 7200_000).toISOString() })
      expect(c.scheduledFor).toBeString()
      const d = await herald.send({ message: 'seconds', delay: 600 })
      expect(Math.abs(Date.parse(d.scheduledFor!) - Date.now() - 600_000)).toBeLessThan(5000)
      const e = await herald.send({ message: 'duration', delay: '30m' })
      expect(Math.abs(Date.parse(e.scheduledFor!) - Date.now() - 1800_000)).toBeLessThan(5000)
      expect((await herald.send({ message: 'now' })).scheduledFor).toBeUndefined()
      // The batch: enqueue with a delay.
      const q = await herald.enqueue({ message: 'batched', delay: '45m' })
      await herald.flush()
      const outcome = await q.result
      expect(outcome.ok).toBe(true)
      if (outcome.ok) expect(Math.abs(Date.parse(outcome.value.scheduledFor!) - Date.now() - 2700_000)).toBeLessThan(5000)
    })

    test('scheduled() pages soonest first; allScheduled() walks every page; another workspace sees none', async () => {
      const first = await herald.scheduled({ limit: 2 })
      expect(first.events.map((e) => e.message)).toEqual(['seconds', 'duration'])
      expect(first.events.every((e) => e.status === 'scheduled')).toBe(true)
      expect(first.nextCursor).toBeString()
      const second = await herald.scheduled({ cursor: first.nextCursor, limit: 2 })
      expect(second.events.map((e) => e.message)).toEqual(['batched', 'Date'])
      const all: string[] = []
      for await (const e of herald.allScheduled({ limit: 1 })) all.push(e.message)
      expect(all).toEqual(['seconds', 'duration', 'batched', 'Date', 'string'])
      expect((await other.scheduled()).events).toEqual([])
      await expect(herald.scheduled({ limit: 101 })).rejects.toThrow(RangeError)
    })

    test('cancel(id) answers cancelled, again on a repeat; the event leaves the list; another workspace gets a 404', async () => {
      const { eventId, scheduledFor } = await herald.send({ message: 'cancel me', delay: '20m' })
      expect(await failure(other.cancel(eventId))).toMatchObject({ status: 404 })
      expect(await herald.cancel(eventId)).toEqual({ eventId, status: 'cancelled', scheduledFor: scheduledFor! })
      expect(await herald.cancel(eventId)).toMatchObject({ eventId, status: 'cancelled' })
      const listed: string[] = []
      for await (const e of herald.allScheduled()) listed.push(e.eventId)
      expect(listed).not.toContain(eventId)
    })

    // Waits 10 s for the event to go out: on one database only, as what it checks is this side's reading of the 409 (the race itself is tested on both in test/ingest/events.scheduled.test.ts).
    if (backend === backends[0]) test('cancel once it went out throws the 409 event-sent', async () => {
      const { eventId } = await herald.send({ message: 'goes out', delay: 10 })
      await Bun.sleep(10_500)
      const err = await eventually(async () => {
        const e = await failure(herald.cancel(eventId))
        return e.status === 409 && e
      }, 10_000, 'the event to go out')
      expect(err).toBeInstanceOf(HeraldError)
      expect(err.kind).toBe('event-sent')
      expect(err.detail).toContain('went out')
    })
  })
}
