// A router's minPriority (1-5, default 1): stored and returned on the
// operator and member APIs, a 400 naming /minPriority when out of bounds, and
// only events at or above it are forwarded: by the worker thread's plan
// (workers/send.ts) and end to end, through POST /event, to a real receiver.
import { describe, expect, test } from 'bun:test'
import { backends, pipelines, usePipelineHerald, useTestHerald } from '../harness'
import { signUp } from '../users'
import { eventually, startReceiver } from '../receiver'
import { plan } from '../../workers/send'
import type { RouterSpec } from '../../src/delivery/job'
import { eventView } from '../support'

const hook = (over: object = {}) => ({ name: `r-${Math.random().toString(36).slice(2, 8)}`, pattern: '*', destination: { type: 'webhook', url: 'https://receiver.invalid/hook' }, ...over })

describe('the worker matches a router only at or above its minPriority', () => {
  const router = (id: string, minPriority?: number): RouterSpec => ({
    id, name: id, pattern: '*', destination: { type: 'webhook', url: 'http://127.0.0.1:1/' }, signingSecret: 'whsec_x', ...(minPriority ? { minPriority } : {}),
  })
  test('minPriority 4 takes the events of priority 4 and 5; none takes every event; an event without a priority is 3', () => {
    const events = [1, 2, 3, 4, 5].map((priority) => eventView({ eventId: Bun.randomUUIDv7(), priority }))
    const legacy = { ...eventView({ eventId: Bun.randomUUIDv7() }), priority: undefined } as unknown as typeof events[number]
    const planned = plan({
      events: [...events, legacy],
      match: { workspace: events.map(() => 1).concat(1), routers: { 1: [router('high', 4), router('all'), router('normal', 3)] }, devices: {}, skip: [] },
      config: {} as never,
    })
    const byRouter = (id: string) => planned.filter((p) => p.target === id).map((p) => p.event)
    expect(byRouter('high')).toEqual([3, 4])
    expect(byRouter('all')).toEqual([0, 1, 2, 3, 4, 5])
    expect(byRouter('normal')).toEqual([2, 3, 4, 5])
  })
})

for (const backend of backends) {
  describe(`a router's minPriority on ${backend}`, () => {
    const h = useTestHerald(backend)

    test('the operator API stores and returns it; default 1; a PATCH changes it', async () => {
      const ws = await h.workspace()
      const base = `/admin/workspaces/${ws.name}/routers`
      const plain = (await (await h.admin('POST', base, hook())).json()) as { id: string }
      expect(((await (await h.admin('GET', `${base}/${plain.id}`)).json()) as { minPriority: number }).minPriority).toBe(1)
      const res = await h.admin('POST', base, hook({ minPriority: 4 }))
      expect(res.status).toBe(201)
      const { id } = (await res.json()) as { id: string }
      expect(((await (await h.admin('GET', `${base}/${id}`)).json()) as { minPriority: number }).minPriority).toBe(4)
      const patched = await h.admin('PATCH', `${base}/${id}`, { minPriority: 5 })
      expect(patched.status).toBe(200)
      expect(((await patched.json()) as { minPriority: number }).minPriority).toBe(5)
      const list = (await (await h.admin('GET', base)).json()) as { id: string; minPriority: number }[]
      expect(list.map((r) => [r.id, r.minPriority])).toEqual([[plain.id, 1], [id, 5]])
    })

    test('out of bounds is a 400 naming /minPriority, on create and on PATCH, on both APIs', async () => {
      const owner = await signUp(h)
      const member = `/v1/workspaces/${owner.workspace}/routers`
      const made = (await (await owner.call('POST', member, hook({ minPriority: 2 }))).json()) as { id: string }
      expect(((await (await owner.call('GET', `${member}/${made.id}`)).json()) as { minPriority: number }).minPriority).toBe(2)
      const ws = await h.workspace()
      for (const bad of [0, 6, 2.5, '4', 'high', null]) {
        for (const res of [
          await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, hook({ minPriority: bad })),
          await owner.call('POST', member, hook({ minPriority: bad })),
          await owner.call('PATCH', `${member}/${made.id}`, { minPriority: bad }),
        ]) {
          const body = (await res.json()) as { errors?: { pointer: string }[] }
          expect({ bad, status: res.status }).toEqual({ bad, status: 400 })
          expect(body.errors?.map((e) => e.pointer)).toContain('/minPriority')
        }
      }
    })
  })
}

for (const pipeline of pipelines) {
  describe(`a router's minPriority end to end (${pipeline})`, () => {
    const h = usePipelineHerald(pipeline, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s' })

    test('end to end: a router with minPriority 4 gets the events of priority 4 and 5 only', async () => {
      const rx = startReceiver()
      try {
        const ws = await h.workspace()
        expect((await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, hook({ destination: { type: 'webhook', url: `${rx.url}/high` }, minPriority: 4 }))).status).toBe(201)
        expect((await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, hook({ destination: { type: 'webhook', url: `${rx.url}/all` } }))).status).toBe(201)
        const sent: Record<string, number> = {}
        for (const priority of [1, 3, 4, 5, 'urgent', undefined]) {
          const res = await h.post(ws.apiKey, { message: `p ${priority}`, ...(priority === undefined ? {} : { priority }) })
          expect(res.status).toBe(200)
          sent[((await res.json()) as { eventId: string }).eventId] = typeof priority === 'number' ? priority : priority === 'urgent' ? 5 : 3
        }
        await eventually(async () => rx.received.filter((r) => r.path === '/all').length === 6, 15_000, 'six events at the router without minPriority')
        await Bun.sleep(300) // anything wrongly forwarded to /high is there by now
        const at = (path: string) => rx.received.filter((r) => r.path === path).map((r) => sent[(JSON.parse(r.body) as { data: { eventId: string } }).data.eventId]).sort()
        expect(at('/high')).toEqual([4, 5, 5])
        expect(at('/all')).toEqual([1, 3, 3, 4, 5, 5])
      } finally {
        rx.stop()
      }
    })
  })
}
