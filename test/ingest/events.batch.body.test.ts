// POST /events, the whole body: 401 from the headers alone, then 413 past
// 4 MiB (decided from Content-Length, or while a chunked body streams in),
// then 400 for a body that is not a batch, then per-event results; the
// Idempotency-Key header is refused; and the route is in the OpenAPI document.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { bodyOfSize, chunk, expectProblem, LAST_CHUNK, MAX_BODY, postBatch, rawHead, rawRequest, schemaIn, send, vias } from '../support'

const MAX_BATCH = 4_194_304

/** A batch body whose UTF-8 encoding is exactly `bytes` long: events of up to 200 KiB, the last padded. */
function batchOfSize(bytes: number): string {
  const head = '{"events":['
  const tail = ']}'
  const items: string[] = []
  let left = bytes - head.length - tail.length
  while (left > 0) {
    const size = Math.min(200_000, left - (items.length ? 1 : 0))
    if (size < 60) {
      items[items.length - 1] = bodyOfSize(Buffer.byteLength(items[items.length - 1]!) + left)
      break
    }
    items.push(bodyOfSize(size))
    left -= size + (items.length > 1 ? 1 : 0)
  }
  return head + items.join(',') + tail
}

describe.each(backends)('POST /events body on %s', (backend) => {
  const h = useTestHerald(backend)
  let apiKey: string
  const json = (key: string | null = apiKey) => ({ ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' })
  beforeAll(async () => {
    ;({ apiKey } = await h.workspace())
  }, 30_000)

  test('the size helper builds batches of exact byte lengths', () => {
    for (const n of [MAX_BATCH, MAX_BATCH + 1, 300_000]) {
      const body = batchOfSize(n)
      expect(Buffer.byteLength(body)).toBe(n)
      expect(() => JSON.parse(body)).not.toThrow()
    }
  })

  describe.each(vias)('via %s', (via) => {
    test('a batch of exactly 4 MiB is accepted; one byte more is 413', async () => {
      const ws = await h.workspace()
      const ok = await postBatch(h, via, ws.apiKey, batchOfSize(MAX_BATCH))
      expect(ok.status).toBe(200)
      for (const r of (await ok.json()).results) expect(r.eventId).toBeString()
      const p = await expectProblem(await postBatch(h, via, apiKey, batchOfSize(MAX_BATCH + 1)), 413)
      expect(p.detail).toContain('4194304')
    })

    test.each([
      ['not JSON', '{"events":['],
      ['empty', ''],
      ['an array', '[{"message":"hi"}]'],
      ['a string', '"hi"'],
      ['null', 'null'],
      ['an object without events', '{"message":"hi"}'],
      ['events as an object', '{"events":{"message":"hi"}}'],
      ['events as null', '{"events":null}'],
      ['no events', '{"events":[]}'],
      ['1,001 events', JSON.stringify({ events: Array.from({ length: 1001 }, () => ({ message: 'x' })) })],
    ])('a body that is not a batch (%s) is 400', async (_, body) => {
      await expectProblem(await postBatch(h, via, apiKey, body), 400)
    })

    test('1,000 events is the most', async () => {
      const res = await postBatch(h, via, apiKey, Array.from({ length: 1000 }, () => ({ message: 'x' })))
      expect(res.status).toBe(200)
    })

    test.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx'])('Content-Type %p is 400', async (ct) => {
      const p = await expectProblem(await postBatch(h, via, apiKey, [{ message: 'hi' }], { 'content-type': ct }), 400)
      expect(p.detail.toLowerCase()).toContain('content-type')
    })

    test('a body that is not UTF-8 is 400', async () => {
      const bytes = Buffer.concat([Buffer.from('{"events":[{"message":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')])
      await expectProblem(await send(h, via, '/events', { method: 'POST', headers: json(), body: bytes }), 400)
    })

    test('events nested too deep for any event are a 400 of the whole body, never a 500', async () => {
      const depth = 200_000
      const raw = '{"events":[{"message":"deep","data":' + '{"d":'.repeat(depth) + '1' + '}'.repeat(depth) + '}]}'
      await expectProblem(await postBatch(h, via, apiKey, raw), 400)
    })

    test('the Idempotency-Key header is 400, naming idempotencyKey, and stores nothing', async () => {
      const ws = await h.workspace()
      const p = await expectProblem(await postBatch(h, via, ws.apiKey, [{ message: 'hi' }], { 'idempotency-key': 'k1' }), 400)
      expect(p.detail).toContain('idempotencyKey')
      expect((await postBatch(h, via, ws.apiKey, [{ message: 'hi' }])).status).toBe(200)
      const [row] = await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events e JOIN workspaces w ON w.id = e.workspace_id WHERE w.name = ${ws.name}`
      expect(row!.n).toBe(1)
    })

    describe('order of checks', () => {
      const big = batchOfSize(MAX_BATCH + 1)
      const garbageBig = '{' + 'x'.repeat(MAX_BATCH + 10)

      test('401 before 413 and 400', async () => {
        await expectProblem(await postBatch(h, via, null, big), 401)
        await expectProblem(await postBatch(h, via, 'hrld_wrong', '{not json'), 401)
        await expectProblem(await postBatch(h, via, null, [{ message: 'hi' }], { 'content-type': 'text/plain', 'idempotency-key': 'k' }), 401)
      })

      test('413 before 400: an oversized body that is not JSON, or carries an Idempotency-Key', async () => {
        await expectProblem(await postBatch(h, via, apiKey, garbageBig, { 'content-type': 'text/plain' }), 413)
        await expectProblem(await postBatch(h, via, apiKey, big, { 'idempotency-key': 'k' }), 413)
      })

      test('400 before 429: a workspace out of quota', async () => {
        const ws = await h.workspace({ monthlyQuota: 0 })
        await expectProblem(await postBatch(h, via, ws.apiKey, []), 400)
        await expectProblem(await postBatch(h, via, ws.apiKey, [{ message: 'hi' }], { 'idempotency-key': 'k' }), 400)
        await expectProblem(await postBatch(h, via, ws.apiKey, [{ message: 'hi' }]), 429, 'quota-exceeded')
      })
    })
  })

  describe('over a raw HTTP/1.1 socket', () => {
    const head = (headers: Record<string, string>) => rawHead(headers, '/events')

    test('Content-Length over 4 MiB gets 413 before any body byte is sent', async () => {
      const r = await rawRequest(h.port, [head({ ...json(), 'content-length': String(MAX_BATCH + 1) })])
      expect(r.status).toBe(413)
    })

    test('a chunked body is refused as soon as it passes 4 MiB, without its end', async () => {
      const piece = 'a'.repeat(65_536)
      const parts = [head({ ...json(), 'transfer-encoding': 'chunked' }), chunk('{"events":[{"message":"x","data":{"pad":"')]
      for (let sent = 0; sent < MAX_BATCH + 4 * piece.length; sent += piece.length) parts.push(chunk(piece))
      const r = await rawRequest(h.port, parts, 15_000)
      expect(r.status).toBe(413)
      expect(r.headers['content-type']).toStartWith('application/problem+json')
    })

    test('a chunked batch under the limit is accepted', async () => {
      const body = Buffer.from(batchOfSize(MAX_BODY * 2))
      const parts: (string | Uint8Array)[] = [head({ ...json(), 'transfer-encoding': 'chunked' })]
      for (let at = 0; at < body.length; at += 50_000) parts.push(chunk(body.subarray(at, at + 50_000)))
      const r = await rawRequest(h.port, [...parts, LAST_CHUNK])
      expect(r.status).toBe(200)
      expect(JSON.parse(r.body).results.length).toBeGreaterThan(1)
    })

    test('401 is decided from the headers alone, before the body arrives', async () => {
      const r = await rawRequest(h.port, [head({ 'content-type': 'application/json', 'content-length': '100' })])
      expect(r.status).toBe(401)
    })
  })

  test('never reads more than 4 MiB of an endless body', async () => {
    let pulled = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled += 65_536
        c.enqueue(new Uint8Array(65_536).fill(0x61))
      },
    })
    const res = await h.app.handle(new Request('http://localhost/events', { method: 'POST', headers: json(), body: stream, duplex: 'half' } as RequestInit))
    await expectProblem(res, 413)
    expect(pulled).toBeLessThanOrEqual(MAX_BATCH + 4 * 65_536)
  })

  test('GET /openapi.json documents POST /events with its item schema and results', async () => {
    const doc = await (await send(h, 'handle', '/openapi.json')).json()
    const post = doc.paths?.['/events']?.post
    expect(post).toBeDefined()
    expect(post.tags).toEqual(['Events'])
    const schema = schemaIn(doc, post.requestBody.content['application/json'].schema)
    expect(schema.properties.events.maxItems).toBe(1000)
    const item = schemaIn(doc, schema.properties.events.items)
    expect(Object.keys(item.properties)).toContain('idempotencyKey')
    expect(Object.keys(item.properties)).toContain('message')
    for (const code of ['200', '400', '401', '413', '429']) expect(post.responses).toHaveProperty(code)
    expect(schemaIn(doc, post.responses['200'].content['application/json'].schema).properties.results.items.anyOf).toHaveLength(2)
  })
})
