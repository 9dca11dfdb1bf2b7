// Over-length fields are truncated, not rejected (SPEC 4.1 rule 3), counting
// Unicode code points and never splitting a surrogate pair; every change is
// reported in `errors`, and `errors` is absent when nothing changed.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { accepted, codePoints, stored, eventVias } from '../support'

const FIELDS = [
  ['message', 500],
  ['event', 128],
  ['title', 128],
] as const

describe.each(backends)('POST /event truncation on %s', (backend) => {
  const h = useTestHerald(backend)
  let apiKey: string
  beforeAll(async () => {
    ;({ apiKey } = await h.workspace())
  }, 30_000)

  describe.each(eventVias)('via %s', (via) => {
    const base = { message: 'hi' }

    describe.each(FIELDS)('%s (limit %i)', (field, max) => {
      test('exactly at the limit is kept whole and unreported', async () => {
        const value = 'x'.repeat(max)
        const { result, event } = await stored(h, via, apiKey, { ...base, [field]: value })
        expect(result).not.toHaveProperty('errors')
        expect(event[field]).toBe(value)
      })

      test('one over the limit is truncated and reported with the exact message', async () => {
        const value = 'x'.repeat(max) + 'y'
        const { result, event } = await stored(h, via, apiKey, { ...base, [field]: value })
        expect(result.errors).toEqual([`${field} was truncated to ${max} characters`])
        expect(event[field]).toBe('x'.repeat(max))
      })

      test('far over the limit is truncated to the limit', async () => {
        const { event } = await stored(h, via, apiKey, { ...base, [field]: 'z'.repeat(max * 10) })
        expect(event[field]).toBe('z'.repeat(max))
      })

      test('the limit counts code points: that many emoji (twice as many UTF-16 units) are kept whole', async () => {
        const value = '😀'.repeat(max)
        const { result, event } = await stored(h, via, apiKey, { ...base, [field]: value })
        expect(result).not.toHaveProperty('errors')
        expect(event[field]).toBe(value)
      })

      test('truncating emoji keeps whole code points', async () => {
        const { result, event } = await stored(h, via, apiKey, { ...base, [field]: '😀'.repeat(max + 1) })
        expect(result.errors).toEqual([`${field} was truncated to ${max} characters`])
        expect(event[field]).toBe('😀'.repeat(max))
        expect(event[field].isWellFormed()).toBe(true)
      })

      test('a cut that falls inside a surrogate pair keeps the whole pair', async () => {
        // max - 1 ASCII characters, then two emoji: the limit lands after the first emoji.
        const value = 'a'.repeat(max - 1) + '🎉🎉'
        const { event } = await stored(h, via, apiKey, { ...base, [field]: value })
        expect(event[field]).toBe('a'.repeat(max - 1) + '🎉')
        expect(codePoints(event[field])).toBe(max)
        expect(event[field].isWellFormed()).toBe(true)
      })

      test('mixed scripts and astral characters are cut at exactly the limit', async () => {
        const value = 'é中😀𝄞'.repeat(Math.ceil(max / 4) + 5)
        const { event } = await stored(h, via, apiKey, { ...base, [field]: value })
        expect(event[field]).toBe([...value].slice(0, max).join(''))
      })
    })

    describe('channel (limit 64)', () => {
      test('is lowercased, then truncated to 64 and reported', async () => {
        const { result, event } = await stored(h, via, apiKey, { ...base, channel: 'AB' + 'c'.repeat(70) })
        const slug = 'ab' + 'c'.repeat(62)
        expect(result.channel).toBe(slug)
        expect(event.channel).toBe(slug)
        expect(result.errors).toEqual(['channel was truncated to 64 characters'])
      })

      test('exactly 64 is kept whole and unreported', async () => {
        const channel = 'c'.repeat(64)
        const r = await accepted(h, via, apiKey, { ...base, channel })
        expect(r.channel).toBe(channel)
        expect(r).not.toHaveProperty('errors')
      })
    })

    describe('tags', () => {
      const tags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`)

      test('ten tags are kept, unreported', async () => {
        const { result, event } = await stored(h, via, apiKey, { ...base, tags: tags(10) })
        expect(result).not.toHaveProperty('errors')
        expect(event.tags).toEqual(tags(10))
      })

      test('tags beyond the tenth are dropped, with the exact message', async () => {
        const { result, event } = await stored(h, via, apiKey, { ...base, tags: tags(12) })
        expect(result.errors).toEqual(['tags beyond the first 10 were dropped (12 sent)'])
        expect(event.tags).toEqual(tags(10))
      })

      test('eleven tags: the message counts what was sent', async () => {
        const r = await accepted(h, via, apiKey, { ...base, tags: tags(11) })
        expect(r.errors).toEqual(['tags beyond the first 10 were dropped (11 sent)'])
      })

      test('each tag is truncated to 50 code points and reported by its index', async () => {
        const sent = ['ok', 'fine', 'good', 'L'.repeat(51), 'also', '😀'.repeat(60)]
        const { result, event } = await stored(h, via, apiKey, { ...base, tags: sent })
        expect(result.errors).toEqual(['tags[3] was truncated to 50 characters', 'tags[5] was truncated to 50 characters'])
        expect(event.tags).toEqual(['ok', 'fine', 'good', 'L'.repeat(50), 'also', '😀'.repeat(50)])
      })

      test('a tag of exactly 50 code points (emoji) is kept whole', async () => {
        const { result, event } = await stored(h, via, apiKey, { ...base, tags: ['😀'.repeat(50), 'q'.repeat(50)] })
        expect(result).not.toHaveProperty('errors')
        expect(event.tags).toEqual(['😀'.repeat(50), 'q'.repeat(50)])
      })

      test('a tag cut inside a surrogate pair keeps the whole pair', async () => {
        const { event } = await stored(h, via, apiKey, { ...base, tags: ['a'.repeat(49) + '🎉🎉'] })
        expect(event.tags).toEqual(['a'.repeat(49) + '🎉'])
      })

      test('duplicate tags are kept as sent', async () => {
        const sent = ['dup', 'dup', 'x', 'dup']
        const { result, event } = await stored(h, via, apiKey, { ...base, tags: sent })
        expect(result).not.toHaveProperty('errors')
        expect(event.tags).toEqual(sent)
      })

      test('dropping and truncation are both reported; only the kept tags are truncated', async () => {
        const sent = [...tags(9), 'k'.repeat(55), 'dropped-' + 'd'.repeat(60)]
        const { result, event } = await stored(h, via, apiKey, { ...base, tags: sent })
        expect(result.errors).toHaveLength(2)
        expect(result.errors).toContain('tags beyond the first 10 were dropped (11 sent)')
        expect(result.errors).toContain('tags[9] was truncated to 50 characters')
        expect(event.tags).toEqual([...tags(9), 'k'.repeat(50)])
      })
    })

    describe('unknown properties', () => {
      test('each one dropped is reported, naming it', async () => {
        const r = await accepted(h, via, apiKey, { ...base, colour: 'red', urgency: 5 })
        expect(r.errors).toHaveLength(2)
        expect(r.errors!.some((e) => e.includes('colour'))).toBe(true)
        expect(r.errors!.some((e) => e.includes('urgency'))).toBe(true)
      })

      test('an unknown property whose value is null is still reported', async () => {
        const r = await accepted(h, via, apiKey, { ...base, extra: null })
        expect(r.errors).toHaveLength(1)
        expect(r.errors![0]).toContain('extra')
      })
    })

    describe('the errors array', () => {
      test('lists every change at once', async () => {
        const body = {
          message: 'm'.repeat(501),
          event: 'e'.repeat(129),
          title: 't'.repeat(129),
          channel: 'c'.repeat(65),
          tags: ['g'.repeat(51), ...Array.from({ length: 11 }, (_, i) => `t${i}`)],
          link: 'https://example.com',
          data: { keep: 'x'.repeat(5000) },
          surprise: true,
        }
        const { result, event } = await stored(h, via, apiKey, body)
        expect(result.errors).toHaveLength(7)
        expect(result.errors).toEqual(
          expect.arrayContaining([
            'message was truncated to 500 characters',
            'event was truncated to 128 characters',
            'title was truncated to 128 characters',
            'channel was truncated to 64 characters',
            'tags[0] was truncated to 50 characters',
            'tags beyond the first 10 were dropped (12 sent)',
          ]),
        )
        expect(result.errors!.some((e) => e.includes('surprise'))).toBe(true)
        // link and data are never truncated
        expect(event.link).toBe('https://example.com')
        expect(event.data).toEqual({ keep: 'x'.repeat(5000) })
      })

      test('is absent, not empty, when nothing was changed', async () => {
        const res = await accepted(h, via, apiKey, {
          message: 'm'.repeat(500),
          event: 'user.signup',
          title: 'Title',
          channel: 'general',
          link: 'https://example.com',
          tags: ['a', 'b'],
          data: { a: 1 },
        })
        expect(Object.keys(res).sort()).toEqual(['channel', 'eventId', 'remainingQuota', 'workspace'])
      })
    })
  })
})
