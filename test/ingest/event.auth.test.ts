// Authentication of POST /event (SPEC 5, 7; DECISIONS validation order step 1):
// 401 for a missing, malformed, unknown or revoked key; the event belongs to
// the key's workspace (SPEC 4.1 rule 7); no body ever echoes the key.
import { describe, expect, test } from 'bun:test'
import { generateApiKey } from '../../src/core/keys'
import { backends, useTestHerald } from '../harness'
import { accepted, bodyOfSize, expectProblem, MAX_BODY, postEvent, readEvent, send, eventVias } from '../support'

describe.each(backends)('POST /event authentication on %s', (backend) => {
  const h = useTestHerald(backend)

  const keysOf = async (workspace: string) => {
    const res = await h.admin('GET', `/admin/workspaces/${workspace}/keys`)
    expect(res.status).toBe(200)
    return (await res.json()) as { id: number; revokedAt: string | null }[]
  }

  const eventuallyStatus = async (f: () => Promise<Response>, status: number, ms = 6000) => {
    const until = Date.now() + ms
    let last = 0
    while (Date.now() < until) {
      last = (await f()).status
      if (last === status) return
      await Bun.sleep(100)
    }
    expect(last).toBe(status)
  }

  describe.each(eventVias)('via %s', (via) => {
    const withAuth = (authorization: string | undefined) =>
      send(h, via, via === 'batch' ? '/events' : '/event', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
        body: JSON.stringify(via === 'batch' ? { events: [{ message: 'hi' }] } : { message: 'hi' }),
      })

    test('no Authorization header is 401', async () => {
      await expectProblem(await withAuth(undefined), 401)
    })

    test.each([
      ['empty', ''],
      ['scheme only', 'Bearer'],
      ['scheme and space', 'Bearer '],
      ['Basic auth', `Basic ${btoa('user:pass')}`],
      ['another scheme', 'Token hrld_abc'],
      ['a key without scheme', '__KEY__'],
      ['a malformed key', 'Bearer hrld_short'],
      ['a key with a bad checksum', '__SPOILED__'],
      ['a key plus garbage', 'Bearer __KEY__ extra'],
      ['a well-formed key that does not exist', '__UNKNOWN__'],
    ])('%s is 401 and its secret is not echoed', async (_, template) => {
      const { apiKey } = await h.workspace()
      const spoiled = apiKey.slice(0, 10) + (apiKey[10] === 'A' ? 'B' : 'A') + apiKey.slice(11)
      const unknown = generateApiKey()
      const header = template
        .replace('__KEY__', apiKey)
        .replace('__SPOILED__', `Bearer ${spoiled}`)
        .replace('__UNKNOWN__', `Bearer ${unknown}`)
      const res = await withAuth(header)
      const p = await expectProblem(res, 401)
      const echoed = JSON.stringify(p) + JSON.stringify([...res.headers])
      for (const secret of [apiKey, spoiled, unknown, btoa('user:pass')]) expect(echoed).not.toContain(secret)
    })

    test('a revoked key is 401 on POST /event and GET /events/{id}', async () => {
      const ws = await h.workspace()
      const { eventId } = await accepted(h, via, ws.apiKey, { message: 'before revocation' })
      const [key] = await keysOf(ws.name)
      expect(key!.revokedAt).toBeNull()
      const del = await h.admin('DELETE', `/admin/workspaces/${ws.name}/keys/${key!.id}`)
      expect(del.status).toBeGreaterThanOrEqual(200)
      expect(del.status).toBeLessThan(300)
      await eventuallyStatus(() => postEvent(h, via, ws.apiKey, { message: 'after revocation' }), 401)
      await expectProblem(await postEvent(h, via, ws.apiKey, { message: 'after revocation' }), 401)
      await expectProblem(await readEvent(h, via, ws.apiKey, eventId), 401)
      expect((await keysOf(ws.name))[0]!.revokedAt).not.toBeNull()
    })

    test('revoking one key leaves the workspace\'s other keys working', async () => {
      const ws = await h.workspace()
      const created = await h.admin('POST', `/admin/workspaces/${ws.name}/keys`, { name: 'second' })
      expect(created.status).toBe(201)
      const second = (await created.json()).apiKey as string
      const [first] = await keysOf(ws.name)
      expect((await h.admin('DELETE', `/admin/workspaces/${ws.name}/keys/${first!.id}`)).status).toBe(204)
      await eventuallyStatus(() => postEvent(h, via, ws.apiKey, { message: 'x' }), 401)
      expect((await accepted(h, via, second, { message: 'second key' })).workspace).toBe(ws.name)
    })

    test('the event goes to the workspace its key belongs to (SPEC 4.1 rule 7)', async () => {
      const a = await h.workspace()
      const b = await h.workspace()
      const ea = await accepted(h, via, a.apiKey, { message: 'to a' })
      const eb = await accepted(h, via, b.apiKey, { message: 'to b' })
      expect(ea.workspace).toBe(a.name)
      expect(eb.workspace).toBe(b.name)
      expect((await (await readEvent(h, via, a.apiKey, ea.eventId)).json()).workspace ?? a.name).toBe(a.name)
      expect((await readEvent(h, via, b.apiKey, ea.eventId)).status).toBe(404)
    })

    test('an admin token is not an API key', async () => {
      const res = await withAuth('Bearer test-admin-token-0123456789')
      const p = await expectProblem(res, 401)
      expect(JSON.stringify(p)).not.toContain('test-admin-token')
    })

    test('no answer echoes the API key: 200, 400, 413, 429', async () => {
      const ws = await h.workspace({ monthlyQuota: 1 })
      const answers = [
        await postEvent(h, via, ws.apiKey, { message: 'hi' }),
        await postEvent(h, via, ws.apiKey, { message: 5 }),
        await postEvent(h, via, ws.apiKey, '{"message":'),
        await postEvent(h, via, ws.apiKey, bodyOfSize(MAX_BODY + 1)),
        await postEvent(h, via, ws.apiKey, { message: 'over quota' }),
      ]
      expect(answers.map((r) => r.status)).toEqual([200, 400, 400, 413, 429])
      for (const r of answers) {
        expect(await r.text()).not.toContain(ws.apiKey)
        expect(JSON.stringify([...r.headers])).not.toContain(ws.apiKey)
      }
    })
  })
})
