// What a signed-in member could once do to stall the whole server through
// the router preview, and what a router's template could do to a pool
// thread. The probe's bodies: 10,000 and 100,000 levels of `[` (4.7 s, then
// a 500 from a blown stack), and sections nested 4 deep over a 60-item list
// (13 MB rendered in 4.1 s). Now JSON is refused past MAX_JSON_DEPTH before
// anything parses it, and every render has a budget of steps, time and
// output (src/delivery/template.ts): a 400 at preview time, a failed delivery with
// its reason, not retried, at send time. /healthz is timed all along.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { backends, pipelines, usePipelineHerald, useTestHerald, type TestHerald } from '../harness'
import { bearerCall, newEmail, type Call } from '../users'
import { expectProblem } from '../support'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { MAX_JSON_DEPTH } from '../../src/http/body'
import { TEMPLATE_LIMITS } from '../../src/delivery/template'

setDefaultTimeout(60_000)

/** Runs `action` while /healthz is asked every 10 ms; the slowest answer, in ms. */
async function whileProbing<T>(h: TestHerald, action: () => Promise<T>): Promise<{ result: T; slowestHealthzMs: number }> {
  let slowest = 0
  let running = true
  const probe = (async () => {
    while (running) {
      const t0 = performance.now()
      const res = await fetch(`${h.url}/healthz`)
      await res.arrayBuffer()
      slowest = Math.max(slowest, performance.now() - t0)
      await Bun.sleep(10)
    }
  })()
  await Bun.sleep(30) // the probe is under way before the action starts
  try {
    return { result: await action(), slowestHealthzMs: slowest }
  } finally {
    running = false
    await probe
  }
}

// Sections 4 deep (the most allowed) over one list: items^4 renders.
const NESTED_OVER_LIST = '{{#data.l}}{{#data.l}}{{#data.l}}{{#data.l}}x{{/data.l}}{{/data.l}}{{/data.l}}{{/data.l}}'
const sixtyItems = Array.from({ length: 60 }, (_, i) => i)

for (const backend of backends) {
  describe(`the router preview cannot stall the server (${backend})`, () => {
    const h = useTestHerald(backend)
    let ws: string
    let member: Call
    let memberToken: string
    const preview = (body: string) =>
      fetch(`${h.url}/v1/workspaces/${ws}/routers/preview`, { method: 'POST', headers: { authorization: `Bearer ${memberToken}`, 'content-type': 'application/json' }, body })

    beforeAll(async () => {
      ws = (await h.workspace()).name
      // A plain member: the least a person needs to reach the preview.
      const res = await h.admin('POST', `/admin/workspaces/${ws}/members`, { email: newEmail('member'), role: 'member' })
      memberToken = ((await res.json()) as { userToken: string }).userToken
      member = bearerCall(h, memberToken)
    }, 30_000)

    test('10,000 levels of [ are a 400 at once, and /healthz never waits', async () => {
      const { result: res, slowestHealthzMs } = await whileProbing(h, async () => {
        const t0 = performance.now()
        const res = await preview('['.repeat(10_000) + ']'.repeat(10_000))
        return { res, ms: performance.now() - t0 }
      })
      const p = await expectProblem(res.res, 400)
      expect(p.detail).toContain(`deeper than ${MAX_JSON_DEPTH} levels`)
      expect(res.ms).toBeLessThan(500)
      expect(slowestHealthzMs).toBeLessThan(200)
    })

    test('100,000 levels are refused (past the route\'s size limit) without a 500', async () => {
      const res = await preview('['.repeat(100_000) + ']'.repeat(100_000))
      await expectProblem(res, 413, 'payload-too-large')
      // Within the size limit, as deep as its bytes allow: still a 400.
      const deep = await preview(`{"destination":{"type":"slack"},"sample":{"data":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}`)
      await expectProblem(deep, 400)
    })

    test(`a body nested ${MAX_JSON_DEPTH} levels is parsed; one level more is a 400 naming the rule`, async () => {
      // The body and `sample` are two levels; `data` holds the rest.
      const nest = (levels: number) => '{"a":'.repeat(levels - 2) + '1' + '}'.repeat(levels - 2)
      const ok = await preview(`{"destination":{"type":"webhook"},"sample":{"data":${nest(MAX_JSON_DEPTH)}}}`)
      expect(ok.status).toBe(200)
      const p = await expectProblem(await preview(`{"destination":{"type":"webhook"},"sample":{"data":${nest(MAX_JSON_DEPTH + 1)}}}`), 400)
      expect(p.detail).toContain(`deeper than ${MAX_JSON_DEPTH} levels`)
    })

    test('sections 4 deep over a 60-item list: a 400 naming the template, quickly, and /healthz never waits', async () => {
      const { result: res, slowestHealthzMs } = await whileProbing(h, async () => {
        const t0 = performance.now()
        const res = await member('POST', `/v1/workspaces/${ws}/routers/preview`, { destination: { type: 'webhook' }, template: { body: NESTED_OVER_LIST }, sample: { data: { l: sixtyItems } } })
        return { res, ms: performance.now() - t0 }
      })
      const p = await expectProblem(res.res, 400)
      expect(p.errors?.[0]?.pointer).toBe('/template')
      // Whichever budget runs out first: steps on an idle machine, time on a busy one.
      expect(p.detail).toMatch(/takes more than [\d,]+ steps|takes longer than \d+ ms/)
      expect(res.ms).toBeLessThan(TEMPLATE_LIMITS.ms * 5)
      // The render stops at its time budget (100 ms); unbounded, it took 4.1 s.
      expect(slowestHealthzMs).toBeLessThan(300)
    })

    test('a render past the output budget is a 400 naming the limit', async () => {
      const big = 'y'.repeat(30_000)
      const res = await member('POST', `/v1/workspaces/${ws}/routers/preview`, { destination: { type: 'slack' }, template: { body: '{{#data.l}}{{data.big}}{{/data.l}}' }, sample: { data: { l: sixtyItems, big } } })
      const p = await expectProblem(res, 400)
      expect(p.detail).toContain(`more than ${TEMPLATE_LIMITS.outputChars.toLocaleString('en')} characters`)
    })

    test(`sections nested deeper than ${TEMPLATE_LIMITS.sectionDepth} are refused when a router is made, changed or previewed`, async () => {
      const deep = '{{#a}}'.repeat(TEMPLATE_LIMITS.sectionDepth + 1) + 'x' + '{{/a}}'.repeat(TEMPLATE_LIMITS.sectionDepth + 1)
      const router = { name: 'deep', pattern: '*', destination: { type: 'webhook', url: 'https://example.com/x' }, template: { body: deep } }
      for (const res of [
        await h.admin('POST', `/admin/workspaces/${ws}/routers`, router),
        await member('POST', `/v1/workspaces/${ws}/routers/preview`, { destination: { type: 'webhook' }, template: { body: deep } }),
      ]) {
        const p = await expectProblem(res, 400)
        expect(p.detail).toContain(`nest more than ${TEMPLATE_LIMITS.sectionDepth} deep`)
      }
      const made = await h.admin('POST', `/admin/workspaces/${ws}/routers`, { ...router, template: { body: 'fine' } })
      const { id } = (await made.json()) as { id: string }
      await expectProblem(await h.admin('PATCH', `/admin/workspaces/${ws}/routers/${id}`, { template: { title: deep } }), 400)
      expect(((await (await h.admin('GET', `/admin/workspaces/${ws}/routers/${id}`)).json()) as { template: unknown }).template).toEqual({ body: 'fine' })
    })
  })
}

for (const pipeline of pipelines) {
  describe(`a router's template cannot stall a pool thread (${pipeline})`, () => {
    const h = usePipelineHerald(pipeline, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,200ms,200ms' })
    let rx: Receiver
    let ws: { name: string; apiKey: string }

    beforeAll(async () => {
      rx = startReceiver()
      ws = await h.workspace()
    }, 30_000)
    afterAll(() => rx?.stop())

    type Delivery = { status: string; attempts: { ok: boolean; error: string | null }[] }
    const settled = (eventId: string) =>
      eventually(async () => {
        const e = (await (await fetch(`${h.url}/events/${eventId}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json()) as { deliveries: Delivery[] }
        return e.deliveries.length > 0 && e.deliveries.every((d) => d.status !== 'pending') ? e.deliveries : null
      }, 15_000, `the deliveries of ${eventId}`)

    test('an event whose data blows the budget fails its delivery with the reason, is not retried, and other events still go out', async () => {
      const made = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'nested', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/nested` }, template: { body: NESTED_OVER_LIST } })
      expect(made.status).toBe(201)
      const { result, slowestHealthzMs } = await whileProbing(h, async () => {
        const bomb = (await (await h.post(ws.apiKey, { message: 'bomb', data: { l: sixtyItems } })).json()) as { eventId: string }
        const fine = (await (await h.post(ws.apiKey, { message: 'fine', data: { l: [1, 2] } })).json()) as { eventId: string }
        return { bomb: await settled(bomb.eventId), fine: await settled(fine.eventId) }
      })
      expect(result.bomb).toHaveLength(1)
      expect(result.bomb[0]!.status).toBe('failed')
      expect(result.bomb[0]!.attempts).toHaveLength(1) // a permanent failure: the same data would fail again
      // The step budget, or on a busy machine the time budget, whichever runs out first.
      expect(result.bomb[0]!.attempts[0]!.error).toMatch(/not sent: the template takes (more|longer) than/)
      expect(result.fine[0]!.status).toBe('succeeded')
      expect(rx.received.map((r) => r.body)).toEqual(['x'.repeat(16)])
      expect(slowestHealthzMs).toBeLessThan(200)
    })

    test('output past the budget fails the delivery with the limit named', async () => {
      const made = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'wide', pattern: 'wide', destination: { type: 'webhook', url: `${rx.url}/wide` }, template: { body: '{{#data.l}}{{data.big}}{{/data.l}}' } })
      expect(made.status).toBe(201)
      const res = await h.post(ws.apiKey, { event: 'wide', message: 'wide', data: { l: sixtyItems, big: 'y'.repeat(30_000) } })
      const { eventId } = (await res.json()) as { eventId: string }
      const deliveries = await settled(eventId)
      const wide = deliveries.find((d) => d.attempts[0]?.error?.includes('characters'))
      expect(wide?.status).toBe('failed')
      expect(wide?.attempts[0]!.error).toContain(`more than ${TEMPLATE_LIMITS.outputChars.toLocaleString('en')} characters`)
    })
  })
}
