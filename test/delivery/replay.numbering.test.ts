// A replayed delivery's attempts are numbered on from those before it (#1,
// then #2), and its attempt count includes them, while its retry schedule
// starts again.
import { afterAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { eventually, startReceiver } from '../receiver'

for (const backend of backends) {
  describe(`attempt numbers across replays on ${backend}`, () => {
    // One attempt per schedule: the first answer, a 500, fails the delivery.
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s' })
    const rx = startReceiver()
    afterAll(() => rx.stop())

    test('failed once, replayed, delivered: attempts #1 and #2, attemptCount 2', async () => {
      const ws = await h.workspace()
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'hook', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/hook` } })).status).toBe(201)
      rx.script.push({ status: 500 })
      const { eventId } = (await (await h.post(ws.apiKey, { message: 'replay me' })).json()) as { eventId: string }
      const read = async () => ((await (await fetch(`${h.url}/events/${eventId}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json()) as { deliveries: { id: string; status: string; attempts: { attempt: number; ok: boolean }[] }[] }).deliveries
      const [failed] = await eventually(async () => { const d = await read(); return d[0]?.status === 'failed' && d }, 15_000, 'the delivery to fail')
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/deliveries/${failed!.id}/replay`)).status).toBeLessThan(300)
      const [done] = await eventually(async () => { const d = await read(); return d[0]?.status === 'succeeded' && d }, 15_000, 'the replay to succeed')
      expect(done!.attempts.map((a) => [a.attempt, a.ok])).toEqual([[1, false], [2, true]])
      const list = (await (await h.admin('GET', `/admin/workspaces/${ws.name}/deliveries?state=all`)).json()) as { deliveries?: { id: string; attemptCount: number }[] } | { id: string; attemptCount: number }[]
      const rows = Array.isArray(list) ? list : list.deliveries ?? []
      expect(rows.find((d) => d.id === failed!.id)?.attemptCount).toBe(2)
    }, 40_000)
  })
}
