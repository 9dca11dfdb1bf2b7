// POST /event answers 400 for every body docs/events.md calls invalid, with an
// RFC 9457 problem that names the field, and accepts what it calls valid.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { accepted, eventVias, expectFieldError, expectProblem, postEvent, send, stored } from '../support'
import { LIMITS } from '../../src/ingest/event'

describe.each(backends)('POST /event validation on %s', (backend) => {
  const h = useTestHerald(backend)
  let apiKey: string
  beforeAll(async () => {
    ;({ apiKey } = await h.workspace())
  }, 30_000)

  // Via 'batch' each body is the one event of a POST /events; the Content-Type
  // and the bytes belong to the whole batch (test/ingest/events.batch.test.ts).
  describe.each(eventVias)('via %s', (via) => {
    if (via !== 'batch') describe('Content-Type', () => {
      const post = (contentType: string | null, body = '{"message":"hi"}') =>
        send(h, via, '/event', {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, ...(contentType === null ? {} : { 'content-type': contentType }) },
          body: new TextEncoder().encode(body),
        })

      test.each(['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON'])(
        'accepts %p',
        async (ct) => {
          expect((await post(ct)).status).toBe(200)
        },
      )

      test('rejects a missing Content-Type', async () => {
        await expectProblem(await post(null), 400)
      })

      test.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/xml'])(
        'rejects %p with 400 even when the body is valid JSON',
        async (ct) => {
          const p = await expectProblem(await post(ct), 400)
          expect(p.detail.toLowerCase()).toContain('content-type')
        },
      )
    })

    describe('JSON', () => {
      test.each(['', '{', '{"message":"hi",}', "{'message':'hi'}", 'message=hi', '{"message":"hi"} trailing'])('rejects invalid JSON %p', async (raw) => {
        await expectProblem(await postEvent(h, via, apiKey, raw), 400)
      })

      test.each(['[]', '[{"message":"hi"}]', '"hi"', '42', 'true', 'null'])('rejects the non-object JSON %p', async (raw) => {
        await expectProblem(await postEvent(h, via, apiKey, raw), 400)
      })

      if (via !== 'batch') test('rejects a body that is not UTF-8', async () => {
        const body = new Uint8Array([0x7b, 0x22, 0x6d, 0x65, 0x73, 0x73, 0x61, 0x67, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) // {"message":"\xff\xfe"}
        const res = await send(h, via, '/event', { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body })
        await expectProblem(res, 400)
      })
    })

    describe('message', () => {
      test('the smallest valid request holds only message (SPEC 4.1 rule 1)', async () => {
        const r = await accepted(h, via, apiKey, { message: 'hello' })
        expect(r.channel).toBe('general')
        expect(r).not.toHaveProperty('errors')
      })

      test.each([
        ['missing', {}],
        ['null', { message: null }],
        ['a number', { message: 42 }],
        ['a boolean', { message: true }],
        ['an object', { message: { text: 'hi' } }],
        ['an array', { message: ['hi'] }],
        ['empty', { message: '' }],
        ['blank', { message: '   ' }],
        ['whitespace only', { message: '\n\t \r\n' }],
      ])('rejects message %s', async (_, body) => {
        await expectFieldError(await postEvent(h, via, apiKey, { title: 't', ...body }), '/message')
      })
    })

    describe('field types', () => {
      test.each([
        ['event', 1],
        ['event', true],
        ['event', ['a']],
        ['channel', 5],
        ['channel', false],
        ['title', {}],
        ['title', 12.5],
        ['link', 5],
        ['link', { href: 'https://x.dev' }],
        ['tags', 'a,b'],
        ['tags', { 0: 'a' }],
        ['tags', 3],
        ['tags', [1]],
        ['tags', ['a', null]],
        ['tags', ['a', ['b']]],
        ['tags', [{ name: 'a' }]],
        ['data', []],
        ['data', [1, 2]],
        ['data', 'string'],
        ['data', 5],
        ['data', true],
      ])('rejects %s = %j', async (field, value) => {
        await expectFieldError(await postEvent(h, via, apiKey, { message: 'hi', [field]: value }), `/${field}`)
      })

      test('reports every invalid field at once', async () => {
        const res = await postEvent(h, via, apiKey, { message: 'hi', title: 1, data: [] })
        const p = await expectProblem(res, 400)
        const pointers = p.errors!.map((e) => e.pointer)
        expect(pointers).toContain('/title')
        expect(pointers).toContain('/data')
      })

      test('accepts data as any JSON object, nested', async () => {
        const data = { plan: 'pro', n: 3, ok: true, none: null, list: [1, 'two', { three: 3 }], nested: { deep: { x: 'y' } } }
        const { event } = await stored(h, via, apiKey, { message: 'hi', data })
        expect(event.data).toEqual(data)
      })

      test(`accepts data nested ${LIMITS.dataDepth} levels deep, and refuses one level more with a 400 naming data (README)`, async () => {
        let data: Record<string, unknown> = { leaf: true }
        for (let i = 1; i < LIMITS.dataDepth; i++) data = { d: data }
        const { event } = await stored(h, via, apiKey, { message: 'deep', data })
        expect(event.data).toEqual(data)
        const p = await expectProblem(await postEvent(h, via, apiKey, { message: 'deeper', data: { d: data } }), 400)
        expect(p.errors!.map((e) => e.pointer).some((x) => x?.startsWith('/data'))).toBe(true)
      })

      test('data nested as deep as 256 KiB allows is never a server error', async () => {
        const depth = 40_000
        const raw = '{"message":"deeper","data":' + '{"d":'.repeat(depth) + '1' + '}'.repeat(depth) + '}'
        const res = await postEvent(h, via, apiKey, raw)
        expect([200, 400]).toContain(res.status)
      })

      test.each([
        ['U+0000 in message', '{"message":"a\\u0000b"}', 'message'],
        ['an unpaired surrogate in message', '{"message":"a\\ud83d"}', 'message'],
        ['an unpaired surrogate in a tag', '{"message":"hi","tags":["\\udc00"]}', 'tags'],
        ['U+0000 inside data', '{"message":"hi","data":{"k":"a\\u0000"}}', 'data'],
        ['U+0000 in a data key', '{"message":"hi","data":{"a\\u0000":1}}', 'data'],
      ])('%s is refused with 400 or stored as valid text, never a 500', async (_, raw, field) => {
        const res = await postEvent(h, via, apiKey, raw)
        expect([200, 400]).toContain(res.status)
        if (res.status === 400) {
          await expectFieldError(res, `/${field}`)
          return
        }
        const got = await (await send(h, via, `/events/${(await res.json()).eventId}`, { headers: { authorization: `Bearer ${apiKey}` } })).text()
        expect(got.isWellFormed()).toBe(true)
        expect(got).not.toContain('\\u0000')
      })

      test('accepts an empty tags array and an empty data object', async () => {
        const { result, event } = await stored(h, via, apiKey, { message: 'hi', tags: [], data: {} })
        expect(result).not.toHaveProperty('errors')
        expect(event.tags).toEqual([])
        expect(event.data).toEqual({})
      })
    })

    describe('null means absent', () => {
      test('null for every optional field is accepted, unreported, and stored as absent', async () => {
        const body = { message: 'hi', event: null, channel: null, title: null, link: null, tags: null, data: null }
        const { result, event } = await stored(h, via, apiKey, body)
        expect(result).not.toHaveProperty('errors')
        expect(result.channel).toBe('general')
        expect(event.channel).toBe('general')
        expect(event.event ?? null).toBeNull()
        expect(event.title ?? null).toBeNull()
        expect(event.link ?? null).toBeNull()
        expect(event.tags ?? []).toEqual([])
        expect(event.data ?? null).toBeNull()
      })

      test.each(['event', 'channel', 'title', 'link', 'tags', 'data'])('%s: null gives the same answer as omitting it', async (field) => {
        const r = await accepted(h, via, apiKey, { message: 'hi', [field]: null })
        expect(r).not.toHaveProperty('errors')
        expect(r.channel).toBe('general')
      })
    })

    describe('link', () => {
      test.each([
        'http://example.com',
        'https://example.com/a?b=c#d',
        'mailto:someone@example.com',
        'tel:+15551234567',
        'HTTPS://EXAMPLE.COM',
        'Http://example.com',
        'MAILTO:a@b.c',
        'Tel:123',
      ])('accepts %p and stores it unchanged', async (link) => {
        const { result, event } = await stored(h, via, apiKey, { message: 'hi', link })
        expect(result).not.toHaveProperty('errors')
        expect(event.link).toBe(link)
      })

      test.each([
        'javascript:alert(1)',
        'JavaScript:alert(1)',
        'data:text/html,<script>alert(1)</script>',
        'ftp://example.com/file',
        'file:///etc/passwd',
        'example.com',
        '//example.com',
        'http:example.com',
        'https:/example.com',
        'sms:123',
        '',
      ])('rejects %p', async (link) => {
        const e = await expectFieldError(await postEvent(h, via, apiKey, { message: 'hi', link }), '/link')
        expect(e.pointer).toBe('/link')
      })

      test('accepts exactly 1000 characters', async () => {
        const link = 'https://example.com/' + 'a'.repeat(1000 - 20)
        expect(link.length).toBe(1000)
        const { result, event } = await stored(h, via, apiKey, { message: 'hi', link })
        expect(result).not.toHaveProperty('errors')
        expect(event.link).toBe(link)
      })

      test('rejects 1001 characters rather than truncating (SPEC 4.1 rule 4)', async () => {
        const link = 'https://example.com/' + 'a'.repeat(1001 - 20)
        const e = await expectFieldError(await postEvent(h, via, apiKey, { message: 'hi', link }), '/link')
        expect(e.detail).toContain('1000')
      })

      test('counts code points: 1000 code points of emoji (2000 UTF-16 units) are accepted', async () => {
        const link = 'https://x.dev/' + '😀'.repeat(1000 - 14)
        expect([...link].length).toBe(1000)
        const { event } = await stored(h, via, apiKey, { message: 'hi', link })
        expect(event.link).toBe(link)
      })

      test('counts code points: 1001 code points of emoji are rejected', async () => {
        const link = 'https://x.dev/' + '😀'.repeat(1001 - 14)
        await expectFieldError(await postEvent(h, via, apiKey, { message: 'hi', link }), '/link')
      })
    })

    describe('channel slug', () => {
      test.each([
        ['signups', 'signups'],
        ['Signups', 'signups'],
        ['BILLING-Alerts_2', 'billing-alerts_2'],
        ['0day', '0day'],
        ['a', 'a'],
      ])('accepts %p as %p', async (channel, slug) => {
        const { result, event } = await stored(h, via, apiKey, { message: 'hi', channel })
        expect(result.channel).toBe(slug)
        expect(event.channel).toBe(slug)
      })

      test.each(['', ' ', 'has space', '-leading-dash', '_leading_underscore', 'dot.ted', 'slash/ed', 'émoji', '😀', 'tab\t', 'a!'])(
        'rejects %p with a message that says it must be a slug',
        async (channel) => {
          const e = await expectFieldError(await postEvent(h, via, apiKey, { message: 'hi', channel }), '/channel')
          expect(e.detail.toLowerCase()).toContain('slug')
        },
      )

      test('checks the slug after truncation: a bad character beyond 64 is cut off, not rejected', async () => {
        const r = await accepted(h, via, apiKey, { message: 'hi', channel: 'a'.repeat(64) + '!' })
        expect(r.channel).toBe('a'.repeat(64))
        expect(r.errors).toEqual(['channel was truncated to 64 characters'])
      })
    })

    describe('unknown properties', () => {
      test('are dropped and the event is still accepted', async () => {
        const { event } = await stored(h, via, apiKey, { message: 'hi', color: 'red', nested: { a: 1 } })
        expect(event).not.toHaveProperty('color')
        expect(event).not.toHaveProperty('nested')
      })

      test('"__proto__" and "constructor" are ordinary unknown properties: dropped and reported', async () => {
        const { result, event } = await stored(h, via, apiKey, '{"message":"hi","__proto__":{"polluted":1},"constructor":"x"}')
        expect(result.errors).toHaveLength(2)
        expect(result.errors!.some((e) => e.includes('__proto__'))).toBe(true)
        expect(result.errors!.some((e) => e.includes('constructor'))).toBe(true)
        expect(event).not.toHaveProperty('polluted')
        expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      })
    })
  })
})
