// The operator API's minimum contract (docs/operating.md): POST /admin/workspaces
// with only `name` required, 201 with workspace/defaultChannel/apiKey, 409 on a
// duplicate, slug names, the admin token on every call, and PATCH of quota and
// rate limit taking effect on POST /event.
import { describe, expect, test } from 'bun:test'
import { ADMIN_TOKEN, backends, useTestHerald } from '../harness'
import { accepted, expectProblem, postEvent, send, vias, type Via } from '../support'

let seq = 0
const uniqueName = () => `adm-${process.pid}-${Date.now().toString(36)}-${++seq}`

describe.each(backends)('operator API on %s', (backend) => {
  const h = useTestHerald(backend)

  const admin = (via: Via, method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN) =>
    send(h, via, path, {
      method,
      headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })

  describe.each(vias)('via %s', (via) => {
    describe('POST /admin/workspaces', () => {
      test('only name is required: 201 with workspace, defaultChannel "general" and a working apiKey', async () => {
        const name = uniqueName()
        const res = await admin(via, 'POST', '/admin/workspaces', { name })
        expect(res.status).toBe(201)
        const body = await res.json()
        expect(body).toEqual({ workspace: name, defaultChannel: 'general', apiKey: expect.any(String) })
        expect(body.apiKey.length).toBeGreaterThanOrEqual(20)
        const r = await accepted(h, via, body.apiKey, { message: 'first event' })
        expect(r).toMatchObject({ workspace: name, channel: 'general' })
      })

      test('takes monthlyQuota and rateLimit', async () => {
        const name = uniqueName()
        const res = await admin(via, 'POST', '/admin/workspaces', { name, monthlyQuota: 10000, rateLimit: { perSecond: 100, burst: 200 } })
        expect(res.status).toBe(201)
        const { apiKey } = await res.json()
        const ev = await postEvent(h, via, apiKey, { message: 'hi' })
        expect((await ev.json()).remainingQuota).toBe(9999)
        expect(ev.headers.get('ratelimit-limit')).toBe('200')
      })

      test('the limits it is given are the ones applied', async () => {
        const name = uniqueName()
        const { apiKey } = await (await admin(via, 'POST', '/admin/workspaces', { name, monthlyQuota: 2, rateLimit: { perSecond: 0.01, burst: 5 } })).json()
        const ev = await postEvent(h, via, apiKey, { message: 'hi' })
        expect((await ev.json()).remainingQuota).toBe(1)
        expect(ev.headers.get('ratelimit-limit')).toBe('5')
      })

      test('a duplicate name is 409', async () => {
        const name = uniqueName()
        expect((await admin(via, 'POST', '/admin/workspaces', { name })).status).toBe(201)
        const p = await expectProblem(await admin(via, 'POST', '/admin/workspaces', { name, monthlyQuota: 5 }), 409)
        expect(p.detail).toContain(name)
      })

      test.each([{}, { name: 5 }, { name: null }, { monthlyQuota: 10 }])('a body without a string name (%j) is 400', async (body) => {
        await expectProblem(await admin(via, 'POST', '/admin/workspaces', body), 400)
      })

      test.each(['a', 'acme', 'a-b_c', '0day', 'long'])('accepts a slug name shaped like %p', async (shape) => {
        // Made unique per run while keeping the shape under test; "long" is exactly 64 characters.
        const suffix = `${++seq}${Date.now().toString(36)}`
        const name = shape === 'long' ? 'x'.repeat(64 - suffix.length) + suffix : `${shape}${suffix}`
        const res = await admin(via, 'POST', '/admin/workspaces', { name })
        expect(res.status).toBe(201)
        expect((await res.json()).workspace).toBe(name)
      })

      test.each(['', ' ', 'has space', '-dash', '_under', 'dot.ted', 'sl/ash', 'émoji', 'tab\t', 'a!'])('rejects the non-slug name %p with 400', async (name) => {
        await expectProblem(await admin(via, 'POST', '/admin/workspaces', { name }), 400)
      })

      test('an upper-case name is never stored as such', async () => {
        const name = `UP-${++seq}-${Date.now().toString(36)}`
        const res = await admin(via, 'POST', '/admin/workspaces', { name })
        expect([201, 400]).toContain(res.status)
        if (res.status === 201) expect((await res.json()).workspace).toBe(name.toLowerCase())
      })

      test('the API key is shown once: the key list does not contain it', async () => {
        const name = uniqueName()
        const { apiKey } = await (await admin(via, 'POST', '/admin/workspaces', { name })).json()
        const list = await admin(via, 'GET', `/admin/workspaces/${name}/keys`)
        expect(list.status).toBe(200)
        const text = await list.text()
        expect(JSON.parse(text)).toHaveLength(1)
        expect(text).not.toContain(apiKey)
      })
    })

    describe('admin token', () => {
      // Three entries each: bun:test would take a missing third one for a done callback.
      const calls: [string, string, unknown][] = [
        ['POST', '/admin/workspaces', { name: 'never-created' }],
        ['POST', '/admin/workspaces', { name: 'Not a slug!', monthlyQuota: 'x' }],
        ['GET', '/admin/workspaces/never-created/keys', undefined],
        ['DELETE', '/admin/workspaces/never-created/keys/1', undefined],
        ['PATCH', '/admin/workspaces/never-created', { monthlyQuota: 5 }],
      ]

      test.each(calls)('%s %s without a token is 401', async (method, path, body) => {
        await expectProblem(await admin(via, method, path, body, null), 401)
      })

      test.each(calls)('%s %s with a wrong token is 401, and the token is not echoed', async (method, path, body) => {
        const res = await admin(via, method, path, body, 'wrong-token-0123456789-wrong')
        const p = await expectProblem(res, 401)
        expect(JSON.stringify(p)).not.toContain('wrong-token')
      })

      test('a workspace API key is not an admin token', async () => {
        const { apiKey } = await h.workspace()
        await expectProblem(await admin(via, 'POST', '/admin/workspaces', { name: uniqueName() }, apiKey), 401)
      })

      test('nothing was created by the refused calls', async () => {
        await expectProblem(await admin(via, 'GET', '/admin/workspaces/never-created/keys'), 404)
      })
    })

    describe('PATCH /admin/workspaces/{workspace}', () => {
      test('a new monthlyQuota takes effect at once', async () => {
        const ws = await h.workspace({ monthlyQuota: 1 })
        expect((await accepted(h, via, ws.apiKey, { message: 'a' })).remainingQuota).toBe(0)
        await expectProblem(await postEvent(h, via, ws.apiKey, { message: 'b' }), 429, 'quota-exceeded')
        expect((await admin(via, 'PATCH', `/admin/workspaces/${ws.name}`, { monthlyQuota: 3 })).status).toBe(200)
        expect((await accepted(h, via, ws.apiKey, { message: 'c' })).remainingQuota).toBe(1)
        expect((await admin(via, 'PATCH', `/admin/workspaces/${ws.name}`, { monthlyQuota: 2 })).status).toBe(200)
        await expectProblem(await postEvent(h, via, ws.apiKey, { message: 'd' }), 429, 'quota-exceeded')
      })

      test('a higher rate limit takes effect', async () => {
        const ws = await h.workspace({ rateLimit: { perSecond: 0.01, burst: 1 } })
        expect((await postEvent(h, via, ws.apiKey, { message: 'a' })).status).toBe(200)
        await expectProblem(await postEvent(h, via, ws.apiKey, { message: 'b' }), 429, 'rate-limited')
        expect((await admin(via, 'PATCH', `/admin/workspaces/${ws.name}`, { rateLimit: { perSecond: 1000, burst: 5 } })).status).toBe(200)
        await Bun.sleep(50)
        const res = await postEvent(h, via, ws.apiKey, { message: 'c' })
        expect(res.status).toBe(200)
        expect(res.headers.get('ratelimit-limit')).toBe('5')
      })

      test('a lower rate limit takes effect', async () => {
        const ws = await h.workspace()
        expect((await admin(via, 'PATCH', `/admin/workspaces/${ws.name}`, { rateLimit: { perSecond: 0.01, burst: 2 } })).status).toBe(200)
        const statuses: number[] = []
        for (let i = 0; i < 4; i++) statuses.push((await postEvent(h, via, ws.apiKey, { message: `${i}` })).status)
        expect(statuses).toEqual([200, 200, 429, 429])
      })

      test('an unknown workspace is 404', async () => {
        await expectProblem(await admin(via, 'PATCH', '/admin/workspaces/no-such-workspace', { monthlyQuota: 5 }), 404)
      })

      test.each([{ monthlyQuota: -1 }, { monthlyQuota: 'many' }, { rateLimit: { perSecond: 0 } }, { rateLimit: { burst: 0 } }])('an invalid change %j is 400', async (body) => {
        const ws = await h.workspace()
        await expectProblem(await admin(via, 'PATCH', `/admin/workspaces/${ws.name}`, body), 400)
      })
    })
  })
})

describe.each(backends)('operator API without HERALD_ADMIN_TOKEN on %s', (backend) => {
  const h = useTestHerald(backend, { HERALD_ADMIN_TOKEN: '' })

  test.each(vias)('is off via %s: even the test token creates nothing', async (via) => {
    const res = await send(h, via, '/admin/workspaces', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'should-not-exist' }),
    })
    expect(res.status).toBe(404)
    await expectProblem(res, 404)
  })

  test('POST /event still works: nothing else depends on the operator API', async () => {
    const res = await postEvent(h, 'socket', 'hrld_nope', { message: 'hi' })
    expect(res.status).toBe(401)
  })
})
