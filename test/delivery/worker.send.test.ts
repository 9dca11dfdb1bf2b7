// The pool's task (workers/send.ts): which deliveries a batch of events calls
// for, the ids they get, and the bound on sends under way in one thread,
// against a real loopback receiver.
import { afterAll, describe, expect, test } from 'bun:test'
import send, { deliveryId, plan } from '../../workers/send'
import type { SendTask } from '../../src/delivery/job'
import type { RouterSpec } from '../../src/delivery/job'
import { NOTIFY_DEFAULTS, type EventView } from '../../src/delivery/event_view'
import type { PushTarget } from '../../src/delivery/push/job'

const view = (over: Partial<EventView> = {}): EventView => ({
  eventId: Bun.randomUUIDv7(), workspace: 'acme', channel: 'general', event: null, title: null, message: 'hello', link: null, tags: [], data: null,
  createdAt: new Date().toISOString(), ...NOTIFY_DEFAULTS, ...over,
})
const router = (id: string, pattern: string, url = 'http://127.0.0.1:1/'): RouterSpec => ({
  id, name: id, pattern, destination: { type: 'webhook', url }, signingSecret: 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64'),
})
const device = (id: string): PushTarget => ({ id, provider: 'fcm', token: `tok-${id}`, environment: 'production', topic: null })
const config: SendTask['config'] = {
  maxInFlight: 4, circuit: { maxInFlight: 16, failures: 5, cooldownMs: 30_000, waitMs: 1000 }, outbound: { allow: ['127.0.0.0/8'], timeoutMs: 5000, maxResponseBytes: 1024 }, endpoints: { telegram: '', twilio: '' },
}

describe('deliveryId', () => {
  test('the same event and target always give the same UUID; another target another', () => {
    const e = Bun.randomUUIDv7()
    const a = deliveryId(e, 'router', 'r1')
    expect(deliveryId(e, 'router', 'r1')).toBe(a)
    expect(deliveryId(e, 'router', 'r2')).not.toBe(a)
    expect(deliveryId(e, 'push', 'r1')).not.toBe(a)
    expect(deliveryId(Bun.randomUUIDv7(), 'router', 'r1')).not.toBe(a)
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  test("it starts with the event's timestamp, so ids sort by the time of their event", () => {
    const early = Bun.randomUUIDv7()
    Bun.sleepSync(3)
    const late = Bun.randomUUIDv7()
    expect(deliveryId(early, 'push', 'd').slice(0, 13)).toBe(early.slice(0, 13))
    expect(deliveryId(early, 'push', 'zzz') < deliveryId(late, 'push', 'a')).toBe(true)
  })
})

describe('plan', () => {
  const routers = { 7: [router('all', '*'), router('users', 'user.*'), router('paid', 'order.paid')] }
  const devices = { '7/general': [device('d1'), device('d2')], '7/ops': [device('d3')] }
  const match = (events: EventView[], skip: string[] = []) =>
    plan({ events, match: { workspace: events.map(() => 7), routers, devices, skip }, config })

  test('routers by pattern, devices by channel, each with its derived id', () => {
    const [signup, keyless, paid] = [view({ event: 'user.signup' }), view({ channel: 'ops' }), view({ event: 'order.paid', channel: 'other' })]
    const planned = match([signup, keyless, paid])
    const of = (i: number) => planned.filter((p) => p.event === i).map((p) => `${p.kind}:${p.target}`).sort()
    expect(of(0)).toEqual(['push:d1', 'push:d2', 'router:all', 'router:users'])
    expect(of(1)).toEqual(['push:d3', 'router:all']) // only `*` matches an event without a key
    expect(of(2)).toEqual(['router:all', 'router:paid']) // nobody on channel "other"
    for (const p of planned) {
      expect(p.attempt).toBe(1)
      expect(p.id).toBe(deliveryId([signup, keyless, paid][p.event]!.eventId, p.kind, p.target))
    }
  })

  test('a redelivered event skips the deliveries that already exist', () => {
    const e = view({ event: 'user.signup' })
    const done = deliveryId(e.eventId, 'router', 'all')
    expect(match([e], [done]).map((p) => p.target).sort()).toEqual(['d1', 'd2', 'users'])
  })

  test('another workspace sees none of these routers or devices', () => {
    expect(plan({ events: [view({ event: 'user.signup' })], match: { workspace: [8], routers, devices, skip: [] }, config })).toEqual([])
  })
})

describe('send', () => {
  let now = 0
  let peak = 0
  const seen: string[] = []
  const rx = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      seen.push(req.headers.get('webhook-id')!)
      peak = Math.max(peak, ++now)
      await Bun.sleep(30)
      now--
      return new Response('ok')
    },
  })
  afterAll(() => rx.stop(true))

  test('every matching router is called once, never more than maxInFlight at a time, views given as JSON text too', async () => {
    const events = Array.from({ length: 6 }, (_, i) => view({ event: `user.${i}` }))
    const routers = { 7: [router('a', '*', `http://127.0.0.1:${rx.port}/a`), router('b', 'user.*', `http://127.0.0.1:${rx.port}/b`)] }
    const sent = await send({
      events: events.map((e, i) => (i % 2 ? JSON.stringify(e) : e)),
      match: { workspace: events.map(() => 7), routers, devices: {}, skip: [] },
      config,
    })
    expect(sent).toHaveLength(12)
    expect(sent.every((s) => s.result.ok && s.result.status === 200)).toBe(true)
    expect(new Set(seen)).toEqual(new Set(sent.map((s) => s.id)))
    expect(seen).toHaveLength(12)
    expect(peak).toBeLessThanOrEqual(config.maxInFlight)
    expect(peak).toBeGreaterThan(1)
  })

  test('a receiver that hangs holds only its own deliveries: bounded, timed out, then its circuit opens', async () => {
    const hang = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Promise<Response>(() => {}) })
    try {
      const events = Array.from({ length: 12 }, (_, i) => view({ event: `job.${i}` }))
      const routers = { 7: [router('stuck', '*', `http://127.0.0.1:${hang.port}/`), router('fine', '*', `http://127.0.0.1:${rx.port}/fine`)] }
      const cfg = { ...config, maxInFlight: 64, outbound: { ...config.outbound, timeoutMs: 300 }, circuit: { maxInFlight: 2, failures: 3, cooldownMs: 60_000, waitMs: 200 } }
      const started = Date.now()
      const sent = await send({ events, match: { workspace: events.map(() => 7), routers, devices: {}, skip: [] }, config: cfg })
      const fine = sent.filter((s) => s.target === 'fine')
      const stuck = sent.filter((s) => s.target === 'stuck')
      expect(fine.every((s) => s.result.ok)).toBe(true)
      // The healthy receiver's answers did not wait for the stuck one's time-outs.
      expect(Math.max(...fine.map((s) => s.startedAt + s.result.durationMs)) - started).toBeLessThan(250)
      const timedOut = stuck.filter((s) => s.result.error === 'timed out after 300 ms')
      const refused = stuck.filter((s) => /^(circuit open|destination busy)/.test(s.result.error ?? ''))
      expect(timedOut.length).toBeGreaterThanOrEqual(2) // at most 2 at once, and only until the circuit opened
      expect(timedOut.length).toBeLessThanOrEqual(4)
      expect(timedOut.length + refused.length).toBe(12)
      expect(refused.every((s) => s.result.retryable && s.result.durationMs === 0)).toBe(true)
      expect(Date.now() - started).toBeLessThan(2000) // not 12 × 300 ms
    } finally {
      hang.stop(true)
    }
  })

  test('a push to a provider that is not configured fails permanently, and says so', async () => {
    const e = view()
    const [s] = await send({ events: [e], match: { workspace: [7], routers: {}, devices: { '7/general': [device('d1')] }, skip: [] }, config })
    expect(s!.result).toMatchObject({ ok: false, retryable: false })
    expect(s!.result.error).toMatch(/FCM is not configured/)
  })
})
