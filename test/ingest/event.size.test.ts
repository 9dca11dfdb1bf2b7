// The 256 KiB body limit (SPEC 7 and 8: 413) and the order of the checks
// (DECISIONS: 401, then 413, then 400, then 429; the first failure decides).
// 413 is decided from Content-Length before the body is read, and a chunked
// body is refused as soon as it passes the limit, never buffered whole.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import {
  LAST_CHUNK, MAX_BODY, bodyOfSize, chunk, eventVias, expectProblem, postEvent, rawHead, rawRequest, send, vias,
} from '../support'

/** A stream that yields `total` bytes of `body` in `size`-byte pieces and counts what was pulled. */
function countingStream(body: Uint8Array | null, size = 16_384) {
  const stats = { pulled: 0 }
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (body && stats.pulled >= body.length) return c.close()
      const piece = body ? body.subarray(stats.pulled, stats.pulled + size) : new Uint8Array(size).fill(0x61)
      stats.pulled += piece.length
      c.enqueue(piece)
    },
  })
  return { stream, stats }
}

describe.each(backends)('POST /event body size on %s', (backend) => {
  const h = useTestHerald(backend)
  let apiKey: string
  const json = (key: string | null = apiKey) => ({ ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' })
  beforeAll(async () => {
    ;({ apiKey } = await h.workspace())
  }, 30_000)

  test('the size helper builds bodies of exact byte lengths', () => {
    expect(Buffer.byteLength(bodyOfSize(MAX_BODY))).toBe(MAX_BODY)
    expect(() => JSON.parse(bodyOfSize(MAX_BODY + 1))).not.toThrow()
  })

  describe.each(vias)('via %s, with Content-Length', (via) => {
    const post = (body: string, headers = json()) =>
      send(h, via, '/event', { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, body })

    test('a body of exactly 262,144 bytes is accepted', async () => {
      const res = await post(bodyOfSize(MAX_BODY))
      expect(res.status).toBe(200)
    })

    test('a body of 262,145 bytes gets 413 Payload Too Large', async () => {
      const p = await expectProblem(await post(bodyOfSize(MAX_BODY + 1)), 413)
      expect(p.title).toBe('Payload Too Large')
    })

    test('a body of 1 MiB gets 413', async () => {
      await expectProblem(await post(bodyOfSize(1 << 20)), 413)
    })
  })

  describe.each(vias)('via %s, as a stream without Content-Length', (via) => {
    const post = (body: ReadableStream, headers = json()) => send(h, via, '/event', { method: 'POST', headers, body, duplex: 'half' } as RequestInit)

    test('exactly 262,144 bytes are accepted', async () => {
      const { stream } = countingStream(new TextEncoder().encode(bodyOfSize(MAX_BODY)), 10_000)
      expect((await post(stream)).status).toBe(200)
    })

    test('262,145 bytes get 413', async () => {
      const { stream } = countingStream(new TextEncoder().encode(bodyOfSize(MAX_BODY + 1)), 10_000)
      await expectProblem(await post(stream), 413)
    })
  })

  describe('via handle: never reads more than the limit', () => {
    test('an endless body with a large Content-Length is refused before it is read', async () => {
      const { stream, stats } = countingStream(null)
      const res = await h.app.handle(new Request('http://localhost/event', {
        method: 'POST', headers: { ...json(), 'content-length': '10000000' }, body: stream, duplex: 'half',
      } as RequestInit))
      await expectProblem(res, 413)
      expect(stats.pulled).toBeLessThanOrEqual(64 * 1024)
    })

    test('an endless body without Content-Length is refused once it passes the limit', async () => {
      const { stream, stats } = countingStream(null)
      const res = await h.app.handle(new Request('http://localhost/event', { method: 'POST', headers: json(), body: stream, duplex: 'half' } as RequestInit))
      await expectProblem(res, 413)
      expect(stats.pulled).toBeGreaterThan(MAX_BODY)
      expect(stats.pulled).toBeLessThanOrEqual(MAX_BODY + 4 * 16_384)
    })
  })

  describe('over a raw HTTP/1.1 socket', () => {
    test('Content-Length over the limit gets 413 before any body byte is sent', async () => {
      const r = await rawRequest(h.port, [rawHead({ ...json(), 'content-length': '10000000' })])
      expect(r.status).toBe(413)
      expect(JSON.parse(r.body).status).toBe(413)
    })

    test('a chunked body is refused as soon as it passes the limit, without its end', async () => {
      const piece = 'a'.repeat(16_384)
      const parts = [rawHead({ ...json(), 'transfer-encoding': 'chunked' }), chunk('{"message":"x","data":{"pad":"')]
      for (let sent = 0; sent < MAX_BODY + 4 * piece.length; sent += piece.length) parts.push(chunk(piece))
      // No terminating chunk: Herald must answer without waiting for the end.
      const r = await rawRequest(h.port, parts)
      expect(r.status).toBe(413)
      expect(r.headers['content-type']).toStartWith('application/problem+json')
    })

    test('a chunked body of exactly 262,144 bytes is accepted', async () => {
      const body = Buffer.from(bodyOfSize(MAX_BODY))
      const parts: (string | Uint8Array)[] = [rawHead({ ...json(), 'transfer-encoding': 'chunked' })]
      for (let at = 0; at < body.length; at += 50_000) parts.push(chunk(body.subarray(at, at + 50_000)))
      const r = await rawRequest(h.port, [...parts, LAST_CHUNK])
      expect(r.status).toBe(200)
      expect(JSON.parse(r.body).eventId).toBeString()
    })

    test('a chunked body of 262,145 bytes gets 413', async () => {
      const body = Buffer.from(bodyOfSize(MAX_BODY + 1))
      const parts: (string | Uint8Array)[] = [rawHead({ ...json(), 'transfer-encoding': 'chunked' })]
      for (let at = 0; at < body.length; at += 50_000) parts.push(chunk(body.subarray(at, at + 50_000)))
      const r = await rawRequest(h.port, [...parts, LAST_CHUNK])
      expect(r.status).toBe(413)
    })

    test('401 is decided from the headers alone, before the body arrives', async () => {
      const r = await rawRequest(h.port, [rawHead({ 'content-type': 'application/json', 'content-length': '100' })])
      expect(r.status).toBe(401)
    })

    test('an unknown key with an oversized Content-Length gets 401, not 413', async () => {
      const r = await rawRequest(h.port, [rawHead({ authorization: 'Bearer hrld_nope', 'content-type': 'application/json', 'content-length': '10000000' })])
      expect(r.status).toBe(401)
    })
  })

  describe.each(eventVias)('order of checks via %s', (via) => {
    const big = bodyOfSize(MAX_BODY + 1)
    const garbageBig = '{' + 'x'.repeat(MAX_BODY + 10)

    test('401 before 413: no key and an oversized body', async () => {
      await expectProblem(await postEvent(h, via, null, big), 401)
      await expectProblem(await postEvent(h, via, 'hrld_wrong', big), 401)
    })

    test('401 before 400: no key and an invalid body or Content-Type', async () => {
      await expectProblem(await postEvent(h, via, null, '{not json'), 401)
      await expectProblem(await postEvent(h, via, null, { title: 'no message' }), 401)
      await expectProblem(await postEvent(h, via, null, '{"message":"hi"}', { 'content-type': 'text/plain' }), 401)
    })

    // Via 'batch' 256 KiB is far from the batch's 4 MiB (test/ingest/events.batch.test.ts).
    if (via !== 'batch') test('413 before 400: an oversized body that is not JSON, sent as text/plain', async () => {
      await expectProblem(await postEvent(h, via, apiKey, garbageBig), 413)
      await expectProblem(await postEvent(h, via, apiKey, garbageBig, { 'content-type': 'text/plain' }), 413)
    })

    test('400 and 413 before 429: a workspace out of quota', async () => {
      const ws = await h.workspace({ monthlyQuota: 0 })
      await expectProblem(await postEvent(h, via, ws.apiKey, { title: 'no message' }), 400)
      await expectProblem(await postEvent(h, via, ws.apiKey, '{"message":"hi"}', { 'content-type': 'text/plain' }), 400)
      await expectProblem(await postEvent(h, via, ws.apiKey, big), 413)
      await expectProblem(await postEvent(h, via, ws.apiKey, { message: 'hi' }), 429, 'quota-exceeded')
    })

    test('400 before 429: a workspace out of rate budget', async () => {
      const ws = await h.workspace({ rateLimit: { perSecond: 0.01, burst: 1 } })
      expect((await postEvent(h, via, ws.apiKey, { message: 'hi' })).status).toBe(200)
      await expectProblem(await postEvent(h, via, ws.apiKey, { message: 42 }), 400)
      await expectProblem(await postEvent(h, via, ws.apiKey, { message: 'hi' }), 429, 'rate-limited')
    })
  })
})
