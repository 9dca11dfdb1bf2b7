// The Scheduled page's state (src/web/state/scheduled.ts): the time until an
// event goes out, a row's line, who may see the page; and against a real
// Herald, the pages soonest first, a cancel, and a cancel once the event went
// out, which is an outcome (sent, with Herald's words), not an error.
import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { cancelScheduled, goesOutIn, mayScheduled, scheduledPages, summaryOf } from '../../src/web/state/scheduled'
import { ApiError } from '../../src/web/api'
import { backends, useTestHerald } from '../harness'
import { eventually } from '../receiver'
import { signUpWeb, type SignedIn } from './signed_in'

setDefaultTimeout(45_000)

test('goesOutIn: two units at most; due is any moment now', () => {
  const now = Date.parse('2030-01-01T00:00:00Z')
  const at = (s: number) => new Date(now + s * 1000).toISOString()
  expect([at(-1), at(0), at(12), at(61), at(1799), at(7200), at(93784)].map((i) => goesOutIn(i, now))).toEqual(['any moment now', 'any moment now', 'in 12s', 'in 1m 1s', 'in 29m 59s', 'in 2h', 'in 1d 2h'])
})

test('a row shows the title and the message, or the message; owners and admins only', () => {
  expect(summaryOf({ title: 'Maintenance', message: 'starts now' })).toBe('Maintenance: starts now')
  expect(summaryOf({ title: null, message: 'starts now' })).toBe('starts now')
  expect(['owner', 'admin', 'member'].map((r) => mayScheduled(r as 'owner'))).toEqual([true, true, false])
})

for (const backend of backends) {
  describe(`scheduled state against Herald (${backend})`, () => {
    const h = useTestHerald(backend)
    let me: SignedIn
    let key: string
    beforeAll(async () => {
      me = await signUpWeb(h, 'sched')
      key = (await me.api.post('/v1/workspaces/{workspace}/keys', { path: { workspace: me.workspace }, body: { name: 'sched' } })).apiKey
    }, 30_000)
    const schedule = async (body: Record<string, unknown>) => {
      const res = await h.post(key, body)
      expect(res.status).toBe(200)
      return (await res.json()) as { eventId: string }
    }

    test('pages soonest first; a cancel removes one; another cancel of it is cancelled again', async () => {
      const c = await schedule({ message: 'c', delay: '3h' })
      const a = await schedule({ message: 'a', delay: '1h' })
      const b = await schedule({ message: 'b', delay: '2h' })
      const pages = scheduledPages(me.api, me.workspace, 2)
      expect((await pages.first()).map((e) => e.eventId)).toEqual([a.eventId, b.eventId])
      expect(pages.more).toBe(true)
      expect((await pages.next()).map((e) => e.eventId)).toEqual([c.eventId])
      expect(pages.more).toBe(false)
      expect(await cancelScheduled(me.api, me.workspace, b.eventId)).toEqual({ cancelled: true })
      expect(await cancelScheduled(me.api, me.workspace, b.eventId)).toEqual({ cancelled: true })
      expect((await scheduledPages(me.api, me.workspace).first()).map((e) => e.eventId)).toEqual([a.eventId, c.eventId])
      // Not an event of the workspace: the API's 404, thrown.
      const missing = await cancelScheduled(me.api, me.workspace, '0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b').catch((e: unknown) => e)
      expect(missing).toBeInstanceOf(ApiError)
      expect((missing as ApiError).status).toBe(404)
    })

    // Waits 10 s for the event to go out: on one database only, as what it checks is this side's reading of the 409 (the race itself is tested on both in test/ingest/events.scheduled.test.ts).
    if (backend === backends[0]) test('a cancel once the event went out is the outcome "sent", with when', async () => {
      const { eventId } = await schedule({ message: 'soon', delay: 10 })
      await Bun.sleep(10_000)
      const outcome = await eventually(async () => {
        const o = await cancelScheduled(me.api, me.workspace, eventId)
        return !o.cancelled && o
      }, 10_000, 'the event to go out')
      expect(outcome).toMatchObject({ cancelled: false, sent: true, detail: expect.stringContaining('went out at') })
    })
  })
}
