// Every bound of `ack` is a 400 naming its field (errors[].pointer) on both
// ingest routes; an escalation to a channel the workspace does not have is a
// 400 at its step's channel (nothing stored, no quota spent);
// HERALD_MAX_ACK_EXPIRE raises the 3 h maximum. On the embedded default and
// on PostgreSQL.
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { expectFieldError, postAsBatch, postEvent } from '../support'

setDefaultTimeout(30_000)

const ok = { retry: 60, expire: 3600 }
const BAD: [string, unknown, string][] = [
  ['ack not an object', 5, '/ack'],
  ['retry under 30 s', { retry: 29, expire: 600 }, '/ack/retry'],
  ['retry as a duration under 30 s', { retry: '20s', expire: 600 }, '/ack/retry'],
  ['retry not a duration', { retry: '1x', expire: 600 }, '/ack/retry'],
  ['retry missing', { expire: 600 }, '/ack/retry'],
  ['expire missing', { retry: 30 }, '/ack/expire'],
  ['expire past 3 h', { retry: 30, expire: 10_801 }, '/ack/expire'],
  ['expire past 3 h as a duration', { retry: 30, expire: '4h' }, '/ack/expire'],
  ['expire under retry', { retry: 120, expire: 60 }, '/ack/expire'],
  ['escalate not an array', { ...ok, escalate: { after: 60, channel: 'oncall' } }, '/ack/escalate'],
  ['more than 3 escalation steps', { ...ok, escalate: [1, 2, 3, 4].map((i) => ({ after: i * 60, channel: 'oncall' })) }, '/ack/escalate'],
  ['an escalation not before expire', { ...ok, escalate: [{ after: 3600, channel: 'oncall' }] }, '/ack/escalate/0/after'],
  ['an escalation step without after', { ...ok, escalate: [{ channel: 'oncall' }] }, '/ack/escalate/0/after'],
  ['an escalation channel that is no slug', { ...ok, escalate: [{ after: 60, channel: 'On Call!' }] }, '/ack/escalate/0/channel'],
]

for (const backend of backends) {
  describe(`the bounds of ack (${backend})`, () => {
    const h = useTestHerald(backend)
    const routes = [
      ['POST /event', (key: string, body: unknown) => postEvent(h, 'handle', key, body)],
      ['POST /events', (key: string, body: unknown) => postAsBatch(h, key, body)],
    ] as const

    for (const [route, post] of routes) {
      test(`${route}: every bound answers 400 at its pointer`, async () => {
        const ws = await h.workspace()
        for (const [, ack, pointer] of BAD) await expectFieldError(await post(ws.apiKey, { message: 'x', ack }), pointer)
      })

      test(`${route}: an escalation to a channel the workspace lacks is a 400 at its step's channel, and nothing is stored`, async () => {
        const ws = await h.workspace()
        expect((await h.admin('POST', `/admin/workspaces/${ws.name}/channels`, { slug: 'oncall' })).status).toBe(201)
        const res = await post(ws.apiKey, { message: 'x', ack: { ...ok, escalate: [{ after: 60, channel: 'oncall' }, { after: 120, channel: 'nobody-here' }] } })
        const e = await expectFieldError(res, '/ack/escalate/1/channel')
        expect(e.detail).toContain('nobody-here')
        const [row] = await h.db.sql<{ used: string; n: number }[]>`
          SELECT w.quota_used AS used, (SELECT count(*) FROM events e WHERE e.workspace_id = w.id)::int AS n FROM workspaces w WHERE w.name = ${ws.name}`
        expect(row).toEqual({ used: expect.anything(), n: 0 })
        expect(Number(row!.used)).toBe(0)
        expect((await post(ws.apiKey, { message: 'x', ack: { ...ok, escalate: [{ after: 60, channel: 'oncall' }] } })).status).toBe(200)
      })
    }
  })

  describe(`HERALD_MAX_ACK_EXPIRE raises the maximum (${backend})`, () => {
    const h = useTestHerald(backend, { HERALD_MAX_ACK_EXPIRE: '21600' })
    test('6 h is taken on both routes; a second more is a 400', async () => {
      const ws = await h.workspace()
      for (const post of [(b: unknown) => postEvent(h, 'handle', ws.apiKey, b), (b: unknown) => postAsBatch(h, ws.apiKey, b)]) {
        const res = await post({ message: 'x', ack: { retry: 60, expire: '6h' } })
        expect(res.status).toBe(200)
        const { receipt } = (await res.json()) as { receipt: string }
        const r = (await (await fetch(`${h.url}/receipts/${receipt}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json()) as { expiresAt: string }
        expect(Math.abs(Date.parse(r.expiresAt) - Date.now() - 21_600_000)).toBeLessThan(5000)
        await expectFieldError(await post({ message: 'x', ack: { retry: 60, expire: 21_601 } }), '/ack/expire')
      }
    })
  })
}
