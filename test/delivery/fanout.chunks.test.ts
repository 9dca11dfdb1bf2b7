// How the fan-out cuts a batch into pool tasks (src/delivery/chunks.ts
// chunkBatch), and the channel key its devices are filed under
// (src/core/channel_key.ts): pure functions, checked here directly rather
// than only through a running Herald.
import { describe, expect, test } from 'bun:test'
import { channelKey, parseChannelKey } from '../../src/core/channel_key'
import type { Incoming } from '../../src/delivery/bus'
import { CHUNK, chunkBatch } from '../../src/delivery/chunks'
import type { RouterSpec } from '../../src/delivery/job'
import type { PushTarget } from '../../src/delivery/push/job'

const event = (n: number, workspaceId = 1, channel = 'general'): Incoming => ({ workspaceId, eventId: `e${n}`, channel, view: '{}' })
const router = (id: string): RouterSpec => ({ id, name: id, pattern: '*', destination: { type: 'webhook', url: `https://example.com/${id}` } as RouterSpec['destination'], signingSecret: 'whsec_x' })
const devices = (n: number, prefix = 'd'): PushTarget[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, provider: 'fcm', token: `t${i}`, environment: 'production', topic: null }))

describe('channel keys', () => {
  test('a key names its workspace and channel, and parses back into them', () => {
    expect(channelKey(12, 'ops')).toBe('12/ops')
    expect(parseChannelKey(channelKey(12, 'ops'))).toEqual({ ws: 12, channel: 'ops' })
    expect(parseChannelKey('7/a/b')).toEqual({ ws: 7, channel: 'a/b' }) // the first '/' ends the workspace id
  })
})

describe('chunkBatch', () => {
  test('an event with neither a router nor a device is in no chunk', () => {
    expect(chunkBatch([event(1), event(2)], () => [], {})).toEqual([])
  })

  test('events share a chunk while they fit: one unit each, plus one per device', () => {
    const a = router('a')
    const batch = [event(1), event(2, 1, 'ops'), event(3)]
    const chunks = chunkBatch(batch, () => [a], { [channelKey(1, 'ops')]: devices(3) })
    expect(chunks).toHaveLength(1)
    expect(chunks[0]!.events).toEqual(batch)
    expect(chunks[0]!.units).toBe(3 + 3)
    expect(chunks[0]!.devices).toEqual({ [channelKey(1, 'ops')]: devices(3) })
  })

  test('a chunk carries each matched router of a workspace once, and only those some event matched', () => {
    const [a, b, c] = [router('a'), router('b'), router('c')]
    const matched: Record<string, RouterSpec[]> = { e1: [a, b], e2: [b], e3: [c] }
    const chunks = chunkBatch([event(1), event(2), event(3, 2)], (e) => matched[e.eventId]!, {})
    expect(chunks).toHaveLength(1)
    expect(chunks[0]!.routers).toEqual({ 1: [a, b], 2: [c] })
  })

  test('a chunk holds at most CHUNK units: the next event opens another', () => {
    const big = CHUNK - 1 // with its event: CHUNK units, a full chunk
    const byChannel = { [channelKey(1, 'big')]: devices(big), [channelKey(1, 'small')]: devices(1, 's') }
    const chunks = chunkBatch([event(1, 1, 'big'), event(2, 1, 'small')], () => [], byChannel)
    expect(chunks.map((c) => c.units)).toEqual([CHUNK, 2])
    expect(chunks.map((c) => c.events.map((e) => e.eventId))).toEqual([['e1'], ['e2']])
    // Exactly CHUNK units still share one chunk.
    const fit = { [channelKey(1, 'big')]: devices(CHUNK - 3), [channelKey(1, 'small')]: devices(1, 's') }
    expect(chunkBatch([event(1, 1, 'big'), event(2, 1, 'small')], () => [], fit).map((c) => c.units)).toEqual([CHUNK])
  })

  test("a channel with more devices than a chunk holds is cut into several, its routers in the first only", () => {
    const a = router('a')
    const key = channelKey(1, 'crowd')
    const crowd = devices(CHUNK * 2 + 10)
    const chunks = chunkBatch([event(1, 1, 'crowd')], () => [a], { [key]: crowd })
    expect(chunks).toHaveLength(3)
    expect(chunks.map((c) => c.devices[key]!.length)).toEqual([CHUNK, CHUNK, 10])
    expect(chunks.map((c) => c.units)).toEqual([CHUNK + 1, CHUNK + 1, 11])
    expect(chunks.map((c) => c.routers)).toEqual([{ 1: [a] }, {}, {}])
    expect(chunks.flatMap((c) => c.devices[key]!)).toEqual(crowd) // every device once, in order
    for (const c of chunks) expect(c.events.map((e) => e.eventId)).toEqual(['e1'])
  })

  test("an event's devices are those of its own workspace's channel", () => {
    const byChannel = { [channelKey(1, 'general')]: devices(2, 'one'), [channelKey(2, 'general')]: devices(1, 'two') }
    const chunks = chunkBatch([event(1, 2)], () => [], byChannel)
    expect(chunks).toHaveLength(1)
    expect(chunks[0]!.devices).toEqual({ [channelKey(2, 'general')]: devices(1, 'two') })
  })
})

describe('an event pushed to some of its channel only (recipients, preferences)', () => {
  test("its own devices ride in the chunk under its index, and the pool's plan pushes those, not the channel's", async () => {
    const { plan } = await import('../../src/delivery/send_task')
    const key = channelKey(1, 'ops')
    const all = devices(3)
    const mine = [all[1]!]
    const batch = [event(1, 1, 'ops'), event(2, 1, 'ops'), event(3, 1, 'ops')]
    const chunks = chunkBatch(batch, () => [], { [key]: all }, new Map([[batch[1]!, mine], [batch[2]!, []]]))
    expect(chunks).toHaveLength(1)
    // Event 3 has no device left and no router: it is in no chunk.
    expect(chunks[0]!.events).toEqual([batch[0]!, batch[1]!])
    expect(chunks[0]!.only).toEqual({ 1: mine })
    expect(chunks[0]!.units).toBe(2 + 3 + 1)
    const view = (id: string) => ({ eventId: id, channel: 'ops' }) as never
    const planned = plan({ events: [view('00000000-0000-7000-8000-000000000001'), view('00000000-0000-7000-8000-000000000002')], match: { workspace: [1, 1], routers: {}, devices: chunks[0]!.devices, only: chunks[0]!.only, skip: [] }, config: {} as never })
    expect(planned.map((p) => [p.event, p.target])).toEqual([[0, 'd0'], [0, 'd1'], [0, 'd2'], [1, 'd1']])
  })

  test('a large channel cut into several chunks keeps an event\'s own devices', () => {
    const mine = devices(CHUNK + 10, 'm')
    const chunks = chunkBatch([event(1, 1, 'ops')], () => [], { [channelKey(1, 'ops')]: devices(CHUNK + 50) }, new Map([[event(1, 1, 'ops'), mine]]))
    // A different Incoming object: the channel's devices, not `mine`.
    expect(chunks.flatMap((c) => Object.values(c.devices).flat()).length).toBe(CHUNK + 50)
    const e = event(2, 1, 'ops')
    const own = chunkBatch([e], () => [], { [channelKey(1, 'ops')]: devices(CHUNK + 50) }, new Map([[e, mine]]))
    expect(own).toHaveLength(2)
    expect(own.flatMap((c) => c.only?.[0] ?? [])).toEqual(mine)
    expect(own.every((c) => Object.keys(c.devices).length === 0)).toBe(true)
  })
})
