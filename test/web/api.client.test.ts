// The dashboard's API client (src/web/api.ts) against a real Herald: typed
// calls fill in their path and query, send the CSRF token, and turn every
// failure into one ApiError with the problem's detail, code and field
// errors. The calls are typed from clients/typescript/src/openapi.ts: the
// `@ts-expect-error` lines below are wrong calls that `tsc --noEmit` must
// reject (an unused one fails type-checking).
import { afterAll, describe, expect, test } from 'bun:test'
import { ApiError, createApi, urlOf, type Api } from '../../src/web/api'
import { OFFLINE_HEADER } from '../../src/web/offline'
import { useTestHerald } from '../harness'
import { signUpWeb } from './signed_in'

describe('urlOf', () => {
  test('fills in each path parameter, encoded, and keeps only the non-empty query values', () => {
    expect(urlOf('/v1/workspaces/{workspace}/channels/{channel}/mute', { path: { workspace: 'a b', channel: 'x/y' } })).toBe('/v1/workspaces/a%20b/channels/x%2Fy/mute')
    expect(urlOf('/v1/feed', { query: { workspace: 'acme', tag: '', channel: undefined, limit: 50 } })).toBe('/v1/feed?workspace=acme&limit=50')
    expect(urlOf('/v1/workspaces/{workspace}/keys/{id}', { path: { workspace: 'acme', id: 7 } })).toBe('/v1/workspaces/acme/keys/7')
  })

  test('refuses a path whose parameter has no value, rather than call /v1/workspaces/undefined', () => {
    expect(() => urlOf('/v1/workspaces/{workspace}/usage', { path: {} })).toThrow('no value for {workspace}')
  })
})

describe('the client against Herald', () => {
  const h = useTestHerald('embedded')

  test('typed calls reach their routes with the session and the CSRF token', async () => {
    const { api, me, workspace, email } = await signUpWeb(h, 'client')
    expect(me.email).toBe(email)
    expect(me.workspaces.map((w) => w.role)).toEqual(['owner'])
    const created = await api.post('/v1/workspaces/{workspace}/channels', { path: { workspace }, body: { slug: 'ops' } })
    expect(created.slug).toBe('ops')
    const page = await api.get('/v1/workspaces/{workspace}/channels', { path: { workspace }, query: { q: 'op', limit: 10 } })
    expect(page.channels.map((c) => c.slug)).toEqual(['ops'])
    // 204: no body.
    expect(await api.put('/v1/workspaces/{workspace}/channels/{channel}/mute', { path: { workspace, channel: 'ops' } })).toBeUndefined()
  })

  test('a failure is an ApiError with the problem\'s status, code, detail and field errors', async () => {
    const { api, workspace } = await signUpWeb(h, 'client-err')
    const bad = await api.post('/v1/workspaces/{workspace}/channels', { path: { workspace }, body: { slug: 'Not A Slug!' } }).catch((e: unknown) => e)
    expect(bad).toBeInstanceOf(ApiError)
    const err = bad as ApiError
    expect(err.status).toBe(400)
    expect(err.code).toBe('validation-failed')
    expect(err.errors.map((e) => e.pointer)).toContain('/slug')
    // Without the CSRF token a change from a web session is refused.
    api.setCsrf(undefined)
    const refused = (await api.post('/v1/workspaces/{workspace}/channels', { path: { workspace }, body: { slug: 'ok' } }).catch((e: unknown) => e)) as ApiError
    expect(refused.status).toBe(403)
    const missing = (await api.get('/v1/workspaces/{workspace}/usage', { path: { workspace: 'not-mine' } }).catch((e: unknown) => e)) as ApiError
    expect(missing.status).toBe(404)
    expect(missing.detail.length).toBeGreaterThan(0)
  })
})

describe('transport', () => {
  // A stand-in for the service worker: it answers with a saved copy's header.
  const saved = '2025-01-02T03:04:05.000Z'
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json({ userId: 'u', email: 'e', workspaces: [] }, { headers: { [OFFLINE_HEADER]: saved } }) })
  afterAll(() => server.stop(true))

  test('notes answers given from saved copies, until reset', async () => {
    const api = createApi((url, init) => fetch(server.url.origin + url, init))
    expect(api.offlineSince()).toBeNull()
    await api.get('/v1/me')
    expect(api.offlineSince()).toBe(saved)
    api.resetOffline()
    expect(api.offlineSince()).toBeNull()
  })

  test('an unreachable Herald is status 0, in words', async () => {
    const down = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const origin = down.url.origin
    await down.stop(true)
    const err = (await createApi((url, init) => fetch(origin + url, init)).get('/v1/me').catch((e: unknown) => e)) as ApiError
    expect(err.status).toBe(0)
    expect(err.detail).toContain('could not be reached')
  })
})

/** Wrong calls, each rejected by the types generated from the OpenAPI document (checked by tsc, never run). */
export function wrongCalls(api: Api) {
  // @ts-expect-error a path the API does not have
  void api.get('/v1/workspaces/{workspace}/nothing', { path: { workspace: 'w' } })
  // @ts-expect-error a method the path does not answer
  void api.post('/v1/me')
  // @ts-expect-error a missing path parameter
  void api.get('/v1/workspaces/{workspace}/usage')
  // @ts-expect-error a body field the schema does not have
  void api.post('/v1/workspaces/{workspace}/channels', { path: { workspace: 'w' }, body: { slug: 's', colour: 'red' } })
  // @ts-expect-error a body without its required field
  void api.post('/v1/workspaces/{workspace}/keys', { path: { workspace: 'w' }, body: {} })
  // @ts-expect-error a role that does not exist
  void api.patch('/v1/workspaces/{workspace}/members/{userId}', { path: { workspace: 'w', userId: 'u' }, body: { role: 'king' } })
  // @ts-expect-error the feed requires its workspace
  void api.get('/v1/feed', { query: { limit: 5 } })
  // @ts-expect-error a query parameter of the wrong type
  void api.get('/v1/workspaces/{workspace}/channels', { path: { workspace: 'w' }, query: { limit: 'ten' } })
  // The answer is the schema's: a field it lacks is an error.
  void api.get('/v1/workspaces/{workspace}/usage', { path: { workspace: 'w' } }).then((u) => {
    const used: number = u.used
    // @ts-expect-error Usage has no `spent`
    return used + u.spent
  })
}
