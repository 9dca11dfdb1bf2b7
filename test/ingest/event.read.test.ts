// The 200 body of POST /event (SPEC 2.2) and reading an event back with
// GET /events/{eventId} (DECISIONS "Reading back"): the event as stored, after
// truncation, scoped to the API key's workspace.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { accepted, expectProblem, postEvent, readEvent, send, stored, UUIDV7, eventVias } from '../support'

describe.each(backends)('submission result and GET /events/{id} on %s', (backend) => {
  const h = useTestHerald(backend)
  let ws: { name: string; apiKey: string }
  beforeAll(async () => {
    ws = await h.workspace({ monthlyQuota: 1000 })
  }, 30_000)

  const channelExists = async (workspace: string, slug: string) => {
    const rows = await h.db.sql`SELECT 1 FROM channels c JOIN workspaces w ON w.id = c.workspace_id WHERE w.name = ${workspace} AND c.slug = ${slug}`
    return rows.length === 1
  }

  describe.each(eventVias)('via %s', (via) => {
    test('the 200 body holds workspace, channel, eventId and remainingQuota, as JSON', async () => {
      const res = await postEvent(h, via, ws.apiKey, { message: 'hello' })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toStartWith('application/json')
      const body = await res.json()
      expect(body).toEqual({ workspace: ws.name, channel: 'general', eventId: expect.stringMatching(UUIDV7), remainingQuota: expect.any(Number) })
      expect(Number.isInteger(body.remainingQuota)).toBe(true)
    })

    test('eventId is a UUIDv7 whose timestamp is now, unique and sortable by time', async () => {
      const before = Date.now()
      const ids: string[] = []
      for (let i = 0; i < 5; i++) {
        ids.push((await accepted(h, via, ws.apiKey, { message: `n${i}` })).eventId)
        await Bun.sleep(3)
      }
      const after = Date.now()
      for (const id of ids) {
        expect(id).toMatch(UUIDV7)
        const ms = parseInt(id.replaceAll('-', '').slice(0, 12), 16)
        expect(ms).toBeGreaterThanOrEqual(before - 1000)
        expect(ms).toBeLessThanOrEqual(after + 1000)
      }
      expect(new Set(ids).size).toBe(ids.length)
      expect([...ids].sort()).toEqual(ids)
    })

    test('an event without channel goes to the default channel, "general" (SPEC 4.1 rules 1, 2)', async () => {
      const { result, event } = await stored(h, via, ws.apiKey, { message: 'default' })
      expect(result.channel).toBe('general')
      expect(event.channel).toBe('general')
    })

    test('a channel that does not exist yet is created on first use', async () => {
      const slug = `new-${crypto.randomUUID().slice(0, 8)}`
      expect(await channelExists(ws.name, slug)).toBe(false)
      const { result, event } = await stored(h, via, ws.apiKey, { message: 'first', channel: slug.toUpperCase() })
      expect(result.channel).toBe(slug)
      expect(event.channel).toBe(slug)
      expect(await channelExists(ws.name, slug)).toBe(true)
      // Using it again is fine and keeps one channel.
      expect((await accepted(h, via, ws.apiKey, { message: 'second', channel: slug })).channel).toBe(slug)
      expect(await channelExists(ws.name, slug)).toBe(true)
    })

    test('a refused event creates no channel', async () => {
      const slug = `refused-${crypto.randomUUID().slice(0, 8)}`
      const empty = await h.workspace({ monthlyQuota: 0 })
      expect((await postEvent(h, via, empty.apiKey, { message: 'x', channel: slug })).status).toBe(429)
      expect((await postEvent(h, via, ws.apiKey, { message: '', channel: slug })).status).toBe(400)
      expect(await channelExists(empty.name, slug)).toBe(false)
      expect(await channelExists(ws.name, slug)).toBe(false)
    })

    test('GET returns every field as stored, with createdAt', async () => {
      const body = { message: 'Jane signed up', event: 'user.signup', channel: 'signups', title: 'New user', link: 'https://example.com/u/1', tags: ['web', 'web', 'pro'], data: { plan: 'pro', seats: 3, nested: { ok: true } } }
      const before = Date.now()
      const { result, event } = await stored(h, via, ws.apiKey, body)
      expect(event).toMatchObject({ ...body, eventId: result.eventId, channel: 'signups' })
      const created = Date.parse(event.createdAt)
      expect(event.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/)
      expect(created).toBeGreaterThanOrEqual(before - 2000)
      expect(created).toBeLessThanOrEqual(Date.now() + 2000)
      expect(JSON.stringify(event)).not.toContain(ws.apiKey)
    })

    test('GET returns the event after truncation and without dropped properties', async () => {
      const body = { message: 'm'.repeat(600), event: 'e'.repeat(200), title: '😀'.repeat(129), channel: 'C'.repeat(80), tags: [...Array(12).keys()].map((i) => `${i}`.repeat(60)), colour: 'red' }
      const { event } = await stored(h, via, ws.apiKey, body)
      expect(event.message).toBe('m'.repeat(500))
      expect(event.event).toBe('e'.repeat(128))
      expect(event.title).toBe('😀'.repeat(128))
      expect(event.channel).toBe('c'.repeat(64))
      expect(event.tags).toHaveLength(10)
      expect(event.tags[0]).toBe('0'.repeat(50))
      expect(event.tags[9]).toBe('9'.repeat(50))
      expect(event).not.toHaveProperty('colour')
    })

    test("another workspace's event is 404", async () => {
      const other = await h.workspace()
      const { eventId } = await accepted(h, via, other.apiKey, { message: 'private' })
      await expectProblem(await readEvent(h, via, ws.apiKey, eventId), 404)
      expect((await readEvent(h, via, other.apiKey, eventId)).status).toBe(200)
    })

    test('an unknown event id is 404', async () => {
      const { eventId } = await accepted(h, via, ws.apiKey, { message: 'x' })
      const unknown = eventId.slice(0, -4) + (eventId.endsWith('0000') ? '1111' : '0000')
      await expectProblem(await readEvent(h, via, ws.apiKey, unknown), 404)
      await expectProblem(await readEvent(h, via, ws.apiKey, '01890000-0000-7000-8000-000000000000'), 404)
    })

    test('GET without a valid key is 401', async () => {
      const { eventId } = await accepted(h, via, ws.apiKey, { message: 'x' })
      await expectProblem(await send(h, via, `/events/${eventId}`), 401)
      await expectProblem(await readEvent(h, via, 'hrld_not_a_key', eventId), 401)
      await expectProblem(await send(h, via, `/events/${eventId}`, { headers: { authorization: `Basic ${btoa('a:b')}` } }), 401)
    })
  })
})
