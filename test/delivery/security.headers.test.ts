// A webhook's extra headers go into every request it makes. A value with a
// CR or LF (or NUL, or another control character) was once accepted; fetch
// then refused it ("Header 'x-foo' has invalid value") on every delivery, and
// each was retried, for as long as the router existed, and a raw control
// character that did go out garbled the request. Now the destination's
// schema refuses such a value, and a header name that is not a token, with a
// 400 naming the field in words: on create and on PATCH, through the
// operator API and the API of signed-in people alike. Valid headers still
// reach a real receiver.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { backends, useTestHerald, ADMIN_TOKEN } from '../harness'
import { expectProblem } from '../support'
import { newEmail } from '../users'
import { eventually, startReceiver, type Receiver } from '../receiver'

setDefaultTimeout(30_000)

const escapePointer = (k: string) => k.replaceAll('~', '~0').replaceAll('/', '~1')

// [what, header name, header value]
const REFUSED: [string, string, string][] = [
  ['a value with CR LF (a second header smuggled in)', 'X-Foo', 'a\r\nX-Injected: 1'],
  ['a value with a bare LF', 'X-Foo', 'a\nb'],
  ['a value with a bare CR', 'X-Foo', 'a\rb'],
  ['a value with NUL', 'X-Foo', 'a\u0000b'],
  ['a value with another control character', 'X-Foo', 'a\u0001b'],
  ['a value with DEL', 'X-Foo', 'a\u007fb'],
  ['a value with a character fetch cannot send', 'X-Foo', 'price in €'],
  ['a value over 1024 characters', 'X-Foo', 'x'.repeat(1025)],
  ['a name with a space', 'X Foo', 'a'],
  ['a name with a colon', 'X-Foo:', 'a'],
  ['a name with CR LF', 'X-Foo\r\nX-Injected', 'a'],
  ['a name with a slash', 'X/Foo', 'a'],
  ['an empty name', '', 'a'],
]

for (const backend of backends) {
  describe(`webhook headers are checked when a router is made or changed (${backend})`, () => {
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,100ms' })
    let rx: Receiver
    let ws: string
    let apiKey: string
    let adminToken: string

    beforeAll(async () => {
      rx = startReceiver()
      const created = await h.workspace()
      ws = created.name
      apiKey = created.apiKey
      // A workspace admin: the least a person needs to make and change routers.
      const res = await h.admin('POST', `/admin/workspaces/${ws}/members`, { email: newEmail('admin'), role: 'admin' })
      adminToken = ((await res.json()) as { userToken: string }).userToken
    })
    afterAll(() => rx?.stop())

    const apis = [
      ['the operator API', () => ({ path: `/admin/workspaces/${ws}/routers`, token: ADMIN_TOKEN })],
      ['the API of signed-in people', () => ({ path: `/v1/workspaces/${ws}/routers`, token: adminToken })],
    ] as const
    const call = (api: (typeof apis)[number], method: string, suffix: string, body?: unknown) => {
      const { path, token } = api[1]()
      return fetch(h.url + path + suffix, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    }
    let n = 0
    const webhook = (headers: Record<string, string>) => ({ type: 'webhook', url: `${rx.url}/hook`, headers })

    /** A 400 whose error points at the header and says what is wrong in words (no regex). */
    async function expectHeaderRefused(res: Response, name: string) {
      const problem = await expectProblem(res, 400, 'validation-failed')
      const pointer = `/destination/headers/${escapePointer(name)}`
      const entry = problem.errors?.find((e) => e.pointer === pointer)
      expect({ pointers: problem.errors?.map((e) => e.pointer), found: !!entry }).toMatchObject({ found: true })
      // The rule in words ("Unexpected property" or a length alone does not say what a header may hold).
      expect(entry!.detail).toMatch(/^destination\.headers\.[\s\S]*(a header (name|value) must|must not contain U\+0000)/)
      for (const regex of ['^[', '\\x', '\\t', ']*$', '{1,64}']) expect(entry!.detail).not.toContain(regex)
      expect(problem.detail).toContain(entry!.detail)
    }

    for (const api of apis) {
      test.each(REFUSED)(`${api[0]}: create with %s is 400 naming the header, and makes no router`, async (_what, name, value) => {
        const before = await (await call(api, 'GET', '')).json()
        await expectHeaderRefused(await call(api, 'POST', '', { name: `r${++n}`, pattern: '*', destination: webhook({ [name]: value }) }), name)
        expect(await (await call(api, 'GET', '')).json()).toEqual(before)
      })

      test.each(REFUSED)(`${api[0]}: PATCH with %s is 400 naming the header, and changes nothing`, async (_what, name, value) => {
        const res = await call(api, 'POST', '', { name: `r${++n}`, pattern: 'never.*', destination: webhook({ Authorization: 'Bearer ok' }) })
        expect(res.status).toBe(201)
        const { id } = (await res.json()) as { id: string }
        const before = await (await call(api, 'GET', `/${id}`)).json()
        await expectHeaderRefused(await call(api, 'PATCH', `/${id}`, { destination: webhook({ [name]: value }) }), name)
        expect(await (await call(api, 'GET', `/${id}`)).json()).toEqual(before)
      })
    }

    test('a token name and a value with spaces and tabs are accepted, and reach the receiver as given', async () => {
      const headers = { 'X_Api-Key.v2': 'k e\ty!#~', Authorization: 'Bearer abc' }
      const res = await call(apis[1], 'POST', '', { name: `r${++n}`, pattern: 'hdr.*', destination: webhook(headers) })
      expect(res.status).toBe(201)
      const { id } = (await res.json()) as { id: string }
      const patched = await call(apis[0], 'PATCH', `/${id}`, { destination: webhook({ ...headers, 'X-Extra': 'one two' }) })
      expect(patched.status).toBe(200)
      rx.received.length = 0
      expect((await h.post(apiKey, { event: 'hdr.check', message: 'headers' })).status).toBe(200)
      const [req] = await eventually(async () => (rx.received.length > 0 ? rx.received : null), 15_000, 'the delivery')
      expect(req!.headers['x_api-key.v2']).toBe('k e\ty!#~')
      expect(req!.headers['authorization']).toBe('Bearer abc')
      expect(req!.headers['x-extra']).toBe('one two')
    })
  })
}
