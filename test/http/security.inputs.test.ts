// The inputs an outside probe turned into 500s, and the bodies PATCH took as
// "nothing to change", on every backend: each is a 400 problem that names
// the parameter or field, and nothing changes. Also the sign-in and sign-up
// forms another site could post (login CSRF): JSON only, 415 otherwise.
import { beforeAll, describe, expect, test } from 'bun:test'
import { ADMIN_TOKEN, backends, useTestHerald } from '../harness'
import { bearerCall, newEmail, PASSWORD, type Call } from '../users'
import { expectProblem } from '../support'

// A UUIDv7 whose 48-bit time is past anything PostgreSQL's timestamps hold.
const FAR_FUTURE_ID = 'ffffffff-ffff-7fff-bfff-ffffffffffff'

for (const backend of backends) {
  describe(`inputs that once were 500s (${backend})`, () => {
    const h = useTestHerald(backend)
    let ws: { name: string; apiKey: string }
    let owner: Call
    let ownerToken: string
    let routerId: string
    /** A request with a body sent as it is, as the owner or (for /admin paths) the operator. */
    const raw = (method: string, path: string, body: string) =>
      fetch(h.url + path, { method, headers: { authorization: `Bearer ${path.startsWith('/admin') ? ADMIN_TOKEN : ownerToken}`, 'content-type': 'application/json' }, body })

    beforeAll(async () => {
      ws = await h.workspace()
      const res = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: newEmail('owner'), role: 'owner' })
      ownerToken = ((await res.json()) as { userToken: string }).userToken
      owner = bearerCall(h, ownerToken)
      const router = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'r', pattern: '*', destination: { type: 'webhook', url: 'https://example.com/hook' } })
      routerId = ((await router.json()) as { id: string }).id
    }, 30_000)

    /** A 400 problem whose errors name `name` (a parameter, or a body pointer's first field). */
    async function refused(res: Response, name: string) {
      const p = await expectProblem(res, 400)
      const named = (p.errors ?? []).some((e) => e.parameter === name || e.pointer === `/${name}` || e.pointer?.startsWith(`/${name}/`) || (name === '' && e.pointer === ''))
      expect({ detail: p.detail, errors: p.errors, named }).toMatchObject({ named: true })
      return p
    }

    describe('U+0000 and other unstorable text in the path and the query', () => {
      test.each([
        ['GET', '/v1/workspaces/%00', 'workspace'],
        ['GET', '/v1/workspaces/a%00b/channels', 'workspace'],
        ['PUT', '/v1/workspaces/WS/channels/%00/mute', 'channel'],
        ['DELETE', '/v1/workspaces/WS/channels/%00/mute', 'channel'],
        ['PATCH', '/v1/workspaces/WS/channels/%00', 'channel'],
        ['GET', '/v1/workspaces/WS/routers/%00', 'id'],
        ['GET', '/v1/invitations/%00', 'token'],
        ['GET', '/admin/workspaces/%00', 'workspace'],
        ['GET', '/admin/workspaces/%ED%A0%80', 'workspace'],
        ['DELETE', '/admin/workspaces/WS/members/%00', 'userId'],
      ])('%s %s', async (method, path, name) => {
        const res = path.startsWith('/admin') ? await h.admin(method, path.replace('WS', ws.name)) : await owner(method, path.replace('WS', ws.name), method === 'PATCH' ? { default: true } : undefined)
        await refused(res, name)
      })

      test.each(['tag', 'channel', 'event', 'q'])('the feed filter %s with U+0000 or an unpaired surrogate', async (filter) => {
        for (const value of ['%00', 'a%00', '%E2%80%8B%00']) {
          await refused(await owner('GET', `/v1/feed?workspace=${ws.name}&${filter}=${value}`), filter)
        }
      })

      test('an API key name with U+0000 is a 400; nothing is created', async () => {
        const before = await h.db.sql`SELECT count(*)::int AS n FROM api_keys`
        await refused(await owner('POST', `/v1/workspaces/${ws.name}/keys`, { name: 'a\u0000b' }), 'name')
        await refused(await h.admin('POST', `/admin/workspaces/${ws.name}/keys`, { name: '\u0000' }), 'name')
        expect(await h.db.sql`SELECT count(*)::int AS n FROM api_keys`).toEqual(before)
      })

      test('a router template with a lone surrogate is a 400, on create, change and preview', async () => {
        const bad = { name: 'lone', pattern: '*', destination: { type: 'webhook', url: 'https://example.com/x' }, template: { body: 'a\ud800b' } }
        await refused(await owner('POST', `/v1/workspaces/${ws.name}/routers`, bad), 'template')
        await refused(await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, bad), 'template')
        await refused(await owner('PATCH', `/v1/workspaces/${ws.name}/routers/${routerId}`, { template: { title: '\udfff' } }), 'template')
        await refused(await owner('POST', `/v1/workspaces/${ws.name}/routers/preview`, { destination: { type: 'slack' }, template: { body: '\ud83d' } }), 'template')
      })
    })

    describe('ids, numbers and timestamps out of range', () => {
      test('an event id whose time is past the year 9999', async () => {
        await refused(await fetch(`${h.url}/events/${FAR_FUTURE_ID}`, { headers: { authorization: `Bearer ${ws.apiKey}` } }), 'eventId')
        await refused(await owner('GET', `/v1/workspaces/${ws.name}/events/${FAR_FUTURE_ID}`), 'eventId')
        await refused(await owner('GET', `/v1/feed?workspace=${ws.name}&before=${FAR_FUTURE_ID}`), 'before')
      })

      test.each(['1.5', '0', '-1', '1e9', 'abc', '', '99999999999999999999', 'Infinity', 'NaN', '%00'])('?limit=%s', async (limit) => {
        await refused(await owner('GET', `/v1/feed?workspace=${ws.name}&limit=${limit}`), 'limit')
        await refused(await h.admin('GET', `/admin/workspaces/${ws.name}/deliveries?limit=${limit}`), 'limit')
      })

      test.each(['99999999999999999999', '1.5', 'Infinity', '-1', '0', 'NaN', '1e300', 'abc', '%00'])('the key id %s', async (id) => {
        await refused(await owner('DELETE', `/v1/workspaces/${ws.name}/keys/${id}`), 'id')
        await refused(await h.admin('DELETE', `/admin/workspaces/${ws.name}/keys/${id}`), 'id')
      })

      test.each([
        ['2^63', '9223372036854775808'],
        ['2^53', '9007199254740992'],
        ['1e308', '1e308'],
        ['-1', '-1'],
        ['1.5', '1.5'],
      ])('monthlyQuota of %s on the operator API', async (_, quota) => {
        await refused(await raw('POST', '/admin/workspaces', `{"name":"q-${Date.now().toString(36)}","monthlyQuota":${quota}}`), 'monthlyQuota')
        await refused(await raw('PATCH', `/admin/workspaces/${ws.name}`, `{"monthlyQuota":${quota}}`), 'monthlyQuota')
      })

      test('rate limits past what the columns hold', async () => {
        await refused(await h.admin('PATCH', `/admin/workspaces/${ws.name}`, { rateLimit: { burst: 2 ** 31 } }), 'rateLimit')
        await refused(await h.admin('PATCH', `/admin/workspaces/${ws.name}`, { rateLimit: { perSecond: 0 } }), 'rateLimit')
        await refused(await h.admin('PATCH', `/admin/workspaces/${ws.name}`, { rateLimit: { perSecond: 1e308 } }), 'rateLimit')
      })
    })

    describe('values that cannot be made text', () => {
      // Elysia writes a refused value into its message as text; an object
      // whose own toString is not a function has none (found by fuzzing).
      test.each([
        ['POST', '/v1/workspaces', '{"name":{"toString":1}}'],
        ['POST', '/v1/auth/password-reset', '{"email":{"toString":1}}'],
        ['POST', '/v1/auth/signin', '{"email":{"toString":1,"valueOf":2},"password":"x"}'],
        ['POST', '/v1/workspaces/WS/keys', '{"name":{"toString":"x"}}'],
        ['POST', '/admin/workspaces', '{"name":{"toString":1}}'],
        ['POST', '/v1/workspaces/WS/routers/preview', '{"destination":{"type":"slack"},"sample":{"title":{"toString":1}}}'],
      ])('%s %s with %s is a 400', async (method, path, body) => {
        const res = await raw(method, path.replace('WS', ws.name), body)
        await expectProblem(res, 400)
        // Over the socket too, where Bun would answer a thrown error with its own 500.
        expect((await raw(method, path.replace('WS', ws.name), body)).status).toBe(400)
      })
    })

    describe('PATCH takes an object that names something to change', () => {
      const nonsense: [string, string][] = [
        ['an array', '[]'],
        ['a string', '"x"'],
        ['a number', '123'],
        ['true', 'true'],
        ['null', 'null'],
        ['an empty object', '{}'],
        ['an unknown field', '{"monthly_quota":5}'],
      ]
      test.each(nonsense)('%s to PATCH /admin/workspaces/{ws} is a 400, and nothing changes', async (_, body) => {
        const before = await (await h.admin('GET', `/admin/workspaces/${ws.name}`)).json()
        const p = await expectProblem(await raw('PATCH', `/admin/workspaces/${ws.name}`, body), 400)
        if (body.startsWith('{"')) expect(p.detail).toContain('monthly_quota')
        expect(await (await h.admin('GET', `/admin/workspaces/${ws.name}`)).json()).toEqual(before)
      })

      test.each(nonsense)('%s to PATCH …/routers/{id} is a 400, on both APIs, and nothing changes', async (_, body) => {
        const path = `/workspaces/${ws.name}/routers/${routerId}`
        const before = await (await h.admin('GET', `/admin${path}`)).json()
        for (const res of [await raw('PATCH', `/admin${path}`, body), await raw('PATCH', `/v1${path}`, body)]) {
          const p = await expectProblem(res, 400)
          if (body.startsWith('{"')) expect(p.detail).toContain('monthly_quota')
        }
        expect(await (await h.admin('GET', `/admin${path}`)).json()).toEqual(before)
      })

      test('PATCH of a channel or a member with nothing to change is a 400', async () => {
        await expectProblem(await owner('PATCH', `/v1/workspaces/${ws.name}/channels/general`, {}), 400)
        await expectProblem(await owner('PATCH', `/v1/workspaces/${ws.name}/channels/general`, { name: 'x' }), 400)
        const [me] = (await (await owner('GET', `/v1/workspaces/${ws.name}/members`)).json()) as { userId: string }[]
        await expectProblem(await owner('PATCH', `/v1/workspaces/${ws.name}/members/${me!.userId}`, {}), 400)
        await expectProblem(await owner('PATCH', `/v1/workspaces/${ws.name}/members/${me!.userId}`, { role: 'king' }), 400)
      })
    })

    describe('sign-in and sign-up take JSON only (login CSRF)', () => {
      const form = (path: string, fields: Record<string, string>, type = 'application/x-www-form-urlencoded') =>
        fetch(h.url + path, { method: 'POST', headers: { 'content-type': type }, body: new URLSearchParams(fields).toString(), redirect: 'manual' })

      test.each(['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain'])('a %s sign-in or sign-up is 415 and sets no cookie', async (type) => {
        const email = newEmail('csrf')
        // A real account, so that a form that got through would succeed.
        await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email, role: 'member' })
        for (const path of ['/v1/auth/signin', '/v1/auth/signup', '/v1/auth/password-reset', '/v1/auth/signup/confirm']) {
          const res = await form(path, { email, password: PASSWORD, client: 'web' }, type)
          expect(res.headers.get('set-cookie')).toBeNull()
          await expectProblem(res, 415, 'unsupported-media-type')
        }
      })
    })
  })
}
