// Fuzzes POST /event with 100,000 generated bodies (test/fuzz_bodies.ts):
// deep nesting, huge numbers, invalid UTF-8, prototype-pollution keys,
// duplicate keys, wrong types, unstorable text, every length limit, odd link
// schemes, Content-Types, sizes around 256 KiB, non-JSON and truncated JSON.
// Each body must get 200, 400 or 413 (never a 500, never a crash), as its
// case predicts, with a well-formed answer; no prototype may change; and every
// 200 must be an event in the database.
//
// Most bodies go through app.handle (no socket), in concurrent batches sampled
// with fc.sample; a few thousand go over the real socket. When a body fails,
// its run is replayed alone through fc.assert (same seed, its path), so that
// fast-check shrinks it, and the test fails with the shrunk body. Replay a run
// with FUZZ_SEED=<seed>; FUZZ_BODIES and FUZZ_SOCKET_BODIES change the counts.
import { beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { SLUG } from '../../src/ingest/event'
import { PG_URL, useTestHerald } from '../harness'
import { countEvents, UUIDV7 } from '../support'
import { describeCase, fuzzCase, POLLUTION_PROBES, type FuzzCase, type SubmitBody } from '../fuzz_bodies'

const BODIES = Number(process.env.FUZZ_BODIES ?? 100_000)
const SOCKET_BODIES = Number(process.env.FUZZ_SOCKET_BODIES ?? 3_000)
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)
const BATCH = 250 // requests in flight in-process: the batcher then commits a few hundred events at once
const SOCKET_BATCH = 32
const ANSWER_TIMEOUT_MS = 30_000
const backend = PG_URL ? 'postgres' : 'embedded'

type Via = 'handle' | 'socket'

interface Tally {
  sent: number
  accepted: number
  statuses: Record<number, number>
  kinds: Record<string, number>
  eventIds: Set<string>
}
const newTally = (): Tally => ({ sent: 0, accepted: 0, statuses: {}, kinds: {}, eventIds: new Set() })

/** Everything on the built-in prototypes: names, symbols and values, to compare before and after. */
function prototypes() {
  const out = new Map<string, unknown>()
  for (const [name, p] of Object.entries({ Object: Object.prototype, Array: Array.prototype, Function: Function.prototype, String: String.prototype, Number: Number.prototype, Boolean: Boolean.prototype })) {
    for (const key of Reflect.ownKeys(p)) {
      const d = Object.getOwnPropertyDescriptor(p, key)!
      out.set(`${name}.${String(key)}`, d.get ?? d.set ?? d.value)
    }
  }
  return out
}

describe(`POST /event fuzzing on ${backend}`, () => {
  let ws: { name: string; apiKey: string }
  let before: Map<string, unknown>
  const probesBefore = Object.fromEntries(POLLUTION_PROBES.map((k) => [k, ({} as Record<string, unknown>)[k]]))

  beforeAll(() => {
    before = prototypes()
  })
  // 60 s to close: the embedded store may still be delivering a few ten thousand events.
  const h = useTestHerald(backend, {}, 60_000)
  beforeAll(async () => {
    ws = await h.workspace({ rateLimit: { perSecond: 1e6, burst: 1e6 }, monthlyQuota: 1e9 })
  }, 60_000)

  const chunked = (bytes: Uint8Array, size: number) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.byteLength; i += size) controller.enqueue(bytes.slice(i, i + size))
        controller.close()
      },
    })

  async function answer(via: Via, c: FuzzCase): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${ws.apiKey}` }
    if (c.contentType !== null) headers['content-type'] = c.contentType
    if (c.idempotencyKeyLength !== undefined) headers['idempotency-key'] = (crypto.randomUUID() + '-'.repeat(300)).slice(0, c.idempotencyKeyLength)
    // A stream goes without a length: in-process straight to the route, over the socket chunked.
    const chunk = via === 'socket' && c.body.byteLength > 256 ? Math.max(c.chunk, 256) : c.chunk // 1-byte chunks on the wire for small bodies only
    const body = c.transfer === 'stream' ? chunked(c.body, chunk) : (c.body as BodyInit)
    if (via === 'socket') return fetch(h.url + '/event', { method: 'POST', headers, body, duplex: 'half' } as RequestInit)
    if (c.transfer === 'length') headers['content-length'] = String(c.body.byteLength)
    return h.app.handle(new Request('http://localhost/event', { method: 'POST', headers, body, duplex: 'half' } as RequestInit))
  }

  /** Sends a case and checks its answer: what is wrong with it, or null. */
  async function trial(via: Via, c: FuzzCase, tally?: Tally): Promise<string | null> {
    let status: number
    let type: string
    let text: string
    try {
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS)))
      const res = await Promise.race([answer(via, c), timeout]).finally(() => clearTimeout(timer))
      status = res.status
      type = res.headers.get('content-type') ?? ''
      text = await res.text()
    } catch (err) {
      return `no answer: ${(err as Error).message}`
    }
    if (tally) {
      tally.sent++
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1
      tally.kinds[c.kind] = (tally.kinds[c.kind] ?? 0) + 1
    }
    if (!c.expect.includes(status)) return `expected ${c.expect.join(' or ')}, got ${status}: ${text.slice(0, 400)}`
    if (text.includes(ws.apiKey)) return 'the answer echoes the API key'
    let body: Record<string, unknown>
    try {
      body = JSON.parse(text)
    } catch {
      return `the ${status} body is not JSON: ${text.slice(0, 200)}`
    }
    if (status !== 200) return problemFault(status, type, body)
    const fault = resultFault(type, body as unknown as SubmitBody) ?? c.check?.(body as unknown as SubmitBody) ?? null
    if (!fault && tally) {
      tally.accepted++
      if (tally.eventIds.has(body.eventId as string)) return `eventId ${body.eventId} was given twice`
      tally.eventIds.add(body.eventId as string)
    }
    return fault
  }

  function resultFault(type: string, b: SubmitBody): string | null {
    if (!type.startsWith('application/json')) return `200 with Content-Type ${type}`
    if (b.workspace !== ws.name) return `workspace ${JSON.stringify(b.workspace)}`
    if (typeof b.eventId !== 'string' || !UUIDV7.test(b.eventId)) return `eventId ${JSON.stringify(b.eventId)} is not a UUIDv7`
    if (typeof b.remainingQuota !== 'number' || !Number.isInteger(b.remainingQuota) || b.remainingQuota < 0) return `remainingQuota ${JSON.stringify(b.remainingQuota)}`
    if (typeof b.channel !== 'string' || !SLUG.test(b.channel)) return `channel ${JSON.stringify(b.channel)}`
    if ('errors' in b && (!Array.isArray(b.errors) || !b.errors.length || b.errors.some((e) => typeof e !== 'string'))) return `errors ${JSON.stringify(b.errors)}: absent, or a non-empty list of strings`
    return null
  }

  function problemFault(status: number, type: string, p: Record<string, unknown>): string | null {
    if (!type.startsWith('application/problem+json')) return `${status} with Content-Type ${type}`
    if (p.status !== status) return `problem status ${JSON.stringify(p.status)} on a ${status}`
    if (typeof p.type !== 'string' || !p.type.startsWith('https://herald.dev/problems/')) return `problem type ${JSON.stringify(p.type)}`
    if (typeof p.title !== 'string' || !p.title) return 'problem without a title'
    if (typeof p.detail !== 'string' || !p.detail.trim()) return 'problem without a detail'
    const errors = p.errors as { pointer?: unknown; detail?: unknown }[] | undefined
    if (errors !== undefined && (!Array.isArray(errors) || errors.some((e) => typeof e.pointer !== 'string' || typeof e.detail !== 'string'))) return `problem errors ${JSON.stringify(errors).slice(0, 200)}`
    return null
  }

  /** Replays run `index` of `seed` alone through fc.assert, which shrinks it; resolves to fast-check's report. */
  async function shrink(via: Via, seed: number, index: number): Promise<string> {
    try {
      await fc.assert(
        fc.asyncProperty(fuzzCase, async (c) => {
          const fault = await trial(via, c)
          if (fault) throw new Error(fault)
        }),
        { seed, path: String(index), interruptAfterTimeLimit: 120_000 },
      )
      return 'it did not fail again when sent alone'
    } catch (err) {
      return (err as Error).message
    }
  }

  /** Sends `total` bodies in batches of `batch`, each batch sampled from its own seed; throws with the shrunk body on the first failure. */
  async function fuzz(via: Via, total: number, batch: number, seedBase: number): Promise<Tally> {
    const tally = newTally()
    for (let run = 0; run * batch < total; run++) {
      const seed = (seedBase + run) % 2 ** 31
      const cases = fc.sample(fuzzCase, { seed, numRuns: Math.min(batch, total - run * batch) })
      const faults = await Promise.all(cases.map((c) => trial(via, c, tally)))
      const i = faults.findIndex((f) => f !== null)
      if (i >= 0) {
        const shrunk = await shrink(via, seed, i)
        throw new Error(`POST /event (${via}) failed on body ${run * batch + i} (FUZZ_SEED=${SEED}, run seed ${seed}, index ${i}):\n${describeCase(cases[i]!)}\n→ ${faults[i]}\n\nShrunk by fast-check:\n${shrunk}`)
      }
    }
    return tally
  }

  const report = (via: Via, t: Tally, ms: number) =>
    console.log(`fuzz ${via} on ${backend}: ${t.sent} bodies in ${(ms / 1000).toFixed(1)} s (${Math.round(t.sent / (ms / 1000))}/s), seed ${SEED}; statuses ${JSON.stringify(t.statuses)}; kinds ${JSON.stringify(t.kinds)}`)

  test(`${BODIES} generated bodies through app.handle get 200, 400 or 413 as predicted, and every 200 is stored`, async () => {
    const stored = await countEvents(h, ws.name)
    const started = performance.now()
    const t = await fuzz('handle', BODIES, BATCH, SEED)
    report('handle', t, performance.now() - started)
    expect(t.sent).toBe(BODIES)
    expect(Object.keys(t.statuses).sort()).toEqual(['200', '400', '413'])
    // Every generator was drawn from (the kinds are prefixed by generator).
    const generators = new Set(Object.keys(t.kinds).map((k) => k.split(':')[0]))
    expect([...generators].sort()).toEqual(['content-type', 'deep', 'duplicate', 'fields', 'garbage', 'link', 'number', 'proto', 'size', 'utf8', 'valid'])
    // A 200 means the event is durable; a refusal stores nothing.
    expect(await countEvents(h, ws.name)).toBe(stored + t.accepted)
  }, 600_000)

  test(`${SOCKET_BODIES} generated bodies over the socket get 200, 400 or 413 as predicted`, async () => {
    const stored = await countEvents(h, ws.name)
    const started = performance.now()
    const t = await fuzz('socket', SOCKET_BODIES, SOCKET_BATCH, SEED + 1_000_000)
    report('socket', t, performance.now() - started)
    expect(t.sent).toBe(SOCKET_BODIES)
    expect(await countEvents(h, ws.name)).toBe(stored + t.accepted)
  }, 300_000)

  test('no body polluted a prototype', () => {
    expect(prototypes()).toEqual(before)
    expect(Object.fromEntries(POLLUTION_PROBES.map((k) => [k, ({} as Record<string, unknown>)[k]]))).toEqual(probesBefore)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf({})).toBe(Object.prototype)
  })

  // Found by fuzzing the HTTP layer: a client that hangs up mid-body made the
  // read reject, which became a 500 logged as an error. It is now a 400.
  test.each(['length', 'stream'] as const)('a body cut short (%s) is a 400, not a 500', async (transfer) => {
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('{"message":"cut'))
        controller.error(new DOMException('The connection was closed.', 'AbortError'))
      },
    })
    const headers: Record<string, string> = { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json', ...(transfer === 'length' ? { 'content-length': '1000' } : {}) }
    const res = await h.app.handle(new Request('http://localhost/event', { method: 'POST', headers, body: failing, duplex: 'half' } as RequestInit))
    expect(res.status).toBe(400)
    expect(problemFault(400, res.headers.get('content-type') ?? '', await res.json())).toBeNull()
  })

  test('Herald still answers afterwards', async () => {
    const res = await h.post(ws.apiKey, { message: 'after the fuzzing' })
    expect(res.status).toBe(200)
    expect((await fetch(h.url + '/healthz')).status).toBe(200)
  })
})
