// Fuzzes POST /events with batches of the bodies that fuzz POST /event
// (test/fuzz_bodies.ts), their bytes set side by side in the `events` array:
// deep nesting, huge numbers, invalid UTF-8, prototype-pollution keys, odd
// lengths and sizes around 256 KiB. Every batch gets 200, 400 or 413, never
// a 5xx; a 200 holds one well-formed result per event, and each event whose
// bytes are JSON gets what POST /event answers it (its case's statuses); every
// accepted event is in the database. FUZZ_BATCHES and FUZZ_SEED as usual.
import { beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { PG_URL, useTestHerald } from '../harness'
import { countEvents, MAX_BODY, UUIDV7 } from '../support'
import { describeCase, fuzzCase, type FuzzCase } from '../fuzz_bodies'

const BATCHES = Number(process.env.FUZZ_BATCHES ?? 2_000)
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)
const IN_FLIGHT = 16
const backend = PG_URL ? 'postgres' : 'embedded'
const JSON_TYPE = /^application\/json\s*(;|$)/i

/** The JSON value of a case's bytes, when POST /event would have judged them as an event (rather than refused the request around them). */
function eventOf(c: FuzzCase): { value: unknown } | undefined {
  if (c.idempotencyKeyLength !== undefined || c.contentType === null || !JSON_TYPE.test(c.contentType)) return undefined
  try {
    return { value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(c.body)) }
  } catch {
    return undefined
  }
}
const judgedAsEvent = (c: FuzzCase) => eventOf(c) !== undefined

/** How many events a batch's bytes hold, as a JSON parser reads them (invalid UTF-8 only ever inside a string). */
function itemsIn(bytes: Uint8Array): number {
  const events = (JSON.parse(new TextDecoder().decode(bytes)) as { events: unknown[] }).events
  return events.length
}

/**
 * What POST /events may answer for this case's event: what POST /event
 * answers, except that an event is measured as compact JSON, so one padded
 * past 256 KiB with whitespace alone is taken (it could be sent compact).
 */
function expected(c: FuzzCase): readonly number[] {
  const e = eventOf(c)!
  if (!c.expect.includes(413) || Buffer.byteLength(JSON.stringify(e.value) ?? '') > MAX_BODY) return c.expect
  return [...c.expect, 200, 400]
}

describe(`POST /events fuzzing on ${backend}`, () => {
  const h = useTestHerald(backend, {}, 60_000)
  let ws: { name: string; apiKey: string }
  beforeAll(async () => {
    ws = await h.workspace({ rateLimit: { perSecond: 1e6, burst: 1e6 }, monthlyQuota: 1e9 })
  }, 60_000)

  /** Sends one batch of cases and checks the answer: what is wrong, or null; counts what was accepted. */
  async function trial(cases: FuzzCase[], tally: { accepted: number; statuses: Record<number, number> }): Promise<string | null> {
    const parts = [Buffer.from('{"events":[')]
    cases.forEach((c, i) => parts.push(...(i ? [Buffer.from(','), Buffer.from(c.body)] : [Buffer.from(c.body)])))
    parts.push(Buffer.from(']}'))
    const res = await h.app.handle(new Request('http://localhost/events', {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' },
      body: Buffer.concat(parts),
    }))
    const text = await res.text()
    tally.statuses[res.status] = (tally.statuses[res.status] ?? 0) + 1
    if (![200, 400, 413].includes(res.status)) return `got ${res.status}: ${text.slice(0, 400)}`
    const body = JSON.parse(text)
    if (res.status !== 200) return body.type?.startsWith('https://herald.dev/problems/') && body.status === res.status ? null : `bad problem ${text.slice(0, 200)}`
    // A case's bytes need not be one JSON value: "1,5" set among the others is two events.
    const items = itemsIn(Buffer.concat(parts))
    if (!Array.isArray(body.results) || body.results.length !== items) return `${body.results?.length} results for ${items} events`
    const oneEach = items === cases.length
    for (const [i, r] of (body.results as Record<string, any>[]).entries()) {
      const status = typeof r.status === 'number' ? r.status : 200
      if (status === 200) {
        if (!UUIDV7.test(r.eventId) || r.workspace !== ws.name) return `result ${i}: ${JSON.stringify(r).slice(0, 200)}`
        tally.accepted++
      } else if (!r.type?.startsWith('https://herald.dev/problems/') || !r.title || !r.detail) return `result ${i}: ${JSON.stringify(r).slice(0, 200)}`
      else if (r.errors?.some((e: { pointer?: string }) => !e.pointer?.startsWith(`/events/${i}`))) return `result ${i} points elsewhere: ${JSON.stringify(r.errors).slice(0, 200)}`
      if (oneEach && judgedAsEvent(cases[i]!) && !expected(cases[i]!).includes(status)) return `event ${i} got ${status}, POST /event gives ${cases[i]!.expect.join(' or ')}:\n${describeCase(cases[i]!)}`
    }
    return null
  }

  test(`${BATCHES} batches of generated events get 200, 400 or 413, each event as POST /event would`, async () => {
    const stored = await countEvents(h, ws.name)
    const tally = { accepted: 0, statuses: {} as Record<number, number> }
    const sizes = fc.sample(fc.integer({ min: 1, max: 12 }), { seed: SEED, numRuns: BATCHES })
    for (let at = 0; at < BATCHES; at += IN_FLIGHT) {
      // Every other batch holds only the events POST /event would judge, so that most batches get per-event results.
      const runs = sizes.slice(at, at + IN_FLIGHT).map((n, j) => {
        const cases = fc.sample(fuzzCase, { seed: (SEED + at + j) % 2 ** 31, numRuns: n })
        const judged = cases.filter(judgedAsEvent)
        return j % 2 && judged.length ? judged : cases
      })
      const faults = await Promise.all(runs.map((cases) => trial(cases, tally)))
      const i = faults.findIndex((f) => f !== null)
      if (i >= 0) throw new Error(`POST /events failed on batch ${at + i} (FUZZ_SEED=${SEED}): ${faults[i]}`)
    }
    console.log(`fuzz POST /events on ${backend}: ${BATCHES} batches, seed ${SEED}; statuses ${JSON.stringify(tally.statuses)}; ${tally.accepted} events accepted`)
    expect(tally.statuses[200]).toBeGreaterThan(0)
    expect(await countEvents(h, ws.name)).toBe(stored + tally.accepted)
  }, 600_000)

  test('Herald still answers afterwards', async () => {
    const res = await h.post(ws.apiKey, { message: 'after the fuzzing' })
    expect(res.status).toBe(200)
  })
})
