// One time format across the API: RFC 3339 in UTC with a Z and milliseconds,
// as JavaScript's toISOString writes it, whatever PostgreSQL's own JSON would
// say (+00:00, microseconds). Every `…At` field of every answer a person,
// an app and an operator read is walked and checked.
import { beforeAll, describe, expect, test } from 'bun:test'
import { createECDH, randomBytes } from 'node:crypto'
import { backends, useTestHerald } from '../harness'
import { signUp, type Person } from '../users'

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** Every string under a key ending in "At", with its path. */
function times(value: unknown, path = ''): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => times(v, `${path}/${i}`))
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([k, v]) => [...(/At$/.test(k) && v !== null ? [[`${path}/${k}`, v] as [string, unknown]] : []), ...times(v, `${path}/${k}`)])
}

for (const backend of backends) {
  describe(`timestamps (${backend})`, () => {
    const herald = useTestHerald(backend)
    let owner: Person
    beforeAll(async () => {
      owner = await signUp(herald)
    }, 30_000)

    test('every …At field of the API is RFC 3339 with a Z', async () => {
      const ws = owner.workspace
      const key = (await (await owner.call('POST', `/v1/workspaces/${ws}/keys`, { name: 'ts' })).json()) as { apiKey: string }
      await owner.call('DELETE', `/v1/workspaces/${ws}/keys/${((await (await owner.call('POST', `/v1/workspaces/${ws}/keys`, { name: 'revoked' })).json()) as { id: number }).id}`)
      const e = createECDH('prime256v1')
      e.generateKeys()
      await owner.call('POST', '/v1/devices', { provider: 'webpush', subscription: { endpoint: 'https://push.example.com/x', keys: { p256dh: e.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } } })
      await owner.call('POST', `/v1/workspaces/${ws}/routers`, { name: 'hook', pattern: '*', destination: { type: 'webhook', url: 'https://hooks.example.com/x' } })
      const posted = (await (await herald.post(key.apiKey, { message: 'hello' })).json()) as { eventId: string }
      await Bun.sleep(300) // its delivery is attempted (and fails: no such host)
      const answers = await Promise.all(
        [`/v1/workspaces/${ws}`, `/v1/workspaces/${ws}/keys`, `/v1/workspaces/${ws}/members`, `/v1/workspaces/${ws}/channels`, `/v1/workspaces/${ws}/routers`,
          `/v1/workspaces/${ws}/events/${posted.eventId}`, `/v1/feed?workspace=${ws}`, '/v1/devices', '/v1/me']
          .map(async (path) => [path, await (await owner.call('GET', path)).json()] as const),
      )
      const admin = await Promise.all([`/admin/workspaces/${ws}`, `/admin/workspaces/${ws}/keys`, `/admin/workspaces/${ws}/members`, `/admin/workspaces/${ws}/routers`, `/events/${posted.eventId}`]
        .map(async (path) => [path, await (await (path.startsWith('/events') ? fetch(herald.url + path, { headers: { authorization: `Bearer ${key.apiKey}` } }) : herald.admin('GET', path))).json()] as const))
      const found = [...answers, ...admin].flatMap(([path, body]) => times(body).map(([at, v]) => [`${path}${at}`, v] as const))
      expect(found.length).toBeGreaterThan(10)
      expect(found.filter(([, v]) => typeof v !== 'string' || !ISO_Z.test(v))).toEqual([])
    })
  })
}
