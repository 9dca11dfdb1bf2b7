// Web Push devices: the VAPID key pair (configured, or generated once into
// the data directory and kept), GET /v1/push/vapid-public-key, and what
// POST /v1/devices takes of a browser's PushSubscription: every way a
// careless client or an attacker can get one wrong is a 400 that names the
// field, an endpoint at a private address is refused, a re-subscription
// replaces the keys, and one person's devices are bounded, also when two
// registrations race for the last place.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createECDH, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import webpush from 'web-push'
import { ConfigError, loadConfig } from '../../src/core/config'
import { MAX_DEVICES_PER_USER } from '../../src/delivery/push/devices'
import { loadWebPushConfig, vapidAuthorization, vapidPairProblem } from '../../src/delivery/push/vapid'
import { backends, useTestHerald } from '../harness'
import { expectProblem } from '../support'

const b64 = (b: Buffer) => b.toString('base64url')
const p256dh = () => {
  const e = createECDH('prime256v1')
  e.generateKeys()
  return b64(e.getPublicKey())
}
const subscription = (over: { endpoint?: string; p256dh?: string; auth?: string } = {}) => ({
  endpoint: over.endpoint ?? `https://push.example.com/wpush/v2/${b64(randomBytes(24))}`,
  expirationTime: null,
  keys: { p256dh: over.p256dh ?? p256dh(), auth: over.auth ?? b64(randomBytes(16)) },
})

describe('the VAPID key pair', () => {
  const base = { WEB_PUSH_TTL_S: 86400, HERALD_PUBLIC_URL: undefined, DATABASE_URL: undefined, WEB_PUSH_SUBJECT: 'mailto:ops@example.com' }
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'herald-vapid-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('unset: generated into the data directory once (mode 0600), and the same on the next start', () => {
    const settings = { ...base, HERALD_DATA_DIR: join(dir, 'data'), WEB_PUSH_VAPID_PUBLIC_KEY: undefined, WEB_PUSH_VAPID_PRIVATE_KEY: undefined }
    const first = loadWebPushConfig(settings)
    expect(vapidPairProblem(first.publicKey, first.privateKey)).toBeNull()
    const file = join(dir, 'data', 'vapid.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ publicKey: first.publicKey, privateKey: first.privateKey })
    const again = loadWebPushConfig(settings)
    expect(again.publicKey).toBe(first.publicKey)
    expect(again.subject).toBe('mailto:ops@example.com')
  })

  test('configured: used as given; half a pair or a mismatched pair stops Herald, naming the key', () => {
    const a = webpush.generateVAPIDKeys()
    const b = webpush.generateVAPIDKeys()
    const settings = { ...base, HERALD_DATA_DIR: join(dir, 'unused') }
    expect(loadWebPushConfig({ ...settings, WEB_PUSH_VAPID_PUBLIC_KEY: a.publicKey, WEB_PUSH_VAPID_PRIVATE_KEY: a.privateKey }).publicKey).toBe(a.publicKey)
    expect(() => loadWebPushConfig({ ...settings, WEB_PUSH_VAPID_PUBLIC_KEY: a.publicKey, WEB_PUSH_VAPID_PRIVATE_KEY: undefined })).toThrow(/WEB_PUSH_VAPID_PRIVATE_KEY is required/)
    expect(() => loadWebPushConfig({ ...settings, WEB_PUSH_VAPID_PUBLIC_KEY: a.publicKey, WEB_PUSH_VAPID_PRIVATE_KEY: b.privateKey })).toThrow(ConfigError)
    expect(() => loadWebPushConfig({ ...settings, WEB_PUSH_VAPID_PUBLIC_KEY: a.publicKey, WEB_PUSH_VAPID_PRIVATE_KEY: b.privateKey })).toThrow(/not the private key's/)
  })

  test('the config schema refuses malformed keys and subjects before anything starts', () => {
    expect(() => loadConfig({ WEB_PUSH_VAPID_PUBLIC_KEY: 'not-a-key' })).toThrow(/WEB_PUSH_VAPID_PUBLIC_KEY/)
    // A private key is never echoed, even a malformed one.
    expect(() => loadConfig({ WEB_PUSH_VAPID_PRIVATE_KEY: 'secret-material!' })).toThrow(/WEB_PUSH_VAPID_PRIVATE_KEY=\(hidden\)/)
    expect(() => loadConfig({ WEB_PUSH_SUBJECT: 'ops@example.com' })).toThrow(/WEB_PUSH_SUBJECT/)
    expect(() => loadConfig({ WEB_PUSH_SUBJECT: 'http://example.com' })).toThrow(/WEB_PUSH_SUBJECT/)
    expect(loadConfig({ WEB_PUSH_SUBJECT: 'https://example.com/contact' }).WEB_PUSH_SUBJECT).toBe('https://example.com/contact')
  })

  test('one signed JWT per push service origin, reused, for at most 24 hours', () => {
    const config = loadWebPushConfig({ ...base, HERALD_DATA_DIR: 'memory://', WEB_PUSH_VAPID_PUBLIC_KEY: undefined, WEB_PUSH_VAPID_PRIVATE_KEY: undefined })
    const now = Date.now()
    const a = vapidAuthorization(config, 'https://fcm.googleapis.com', now)
    expect(vapidAuthorization(config, 'https://fcm.googleapis.com', now + 1000)).toBe(a)
    const b = vapidAuthorization(config, 'https://updates.push.services.mozilla.com', now)
    expect(b).not.toBe(a)
    const [, jwt, k] = /^vapid t=([^,]+), k=(.+)$/.exec(a)!
    expect(k).toBe(config.publicKey)
    const claims = JSON.parse(Buffer.from(jwt!.split('.')[1]!, 'base64url').toString())
    expect(claims.aud).toBe('https://fcm.googleapis.com')
    expect(claims.exp * 1000 - now).toBeLessThanOrEqual(24 * 3600_000)
    expect(claims.exp * 1000 - now).toBeGreaterThan(11 * 3600_000)
    // An hour on, a fresh one: a push never carries a JWT near its end.
    expect(vapidAuthorization(config, 'https://fcm.googleapis.com', now + 3600_001)).not.toBe(a)
  })
})

for (const backend of backends) {
  describe(`Web Push devices (${backend})`, () => {
    const herald = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '10.9.0.0/16' })
    let token: string
    let userId: string

    beforeAll(async () => {
      const ws = await herald.workspace()
      const res = await herald.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: `web-${Date.now()}@example.com` })
      ;({ userToken: token, userId } = (await res.json()) as { userToken: string; userId: string })
    }, 30_000)

    const call = (method: string, path: string, body?: unknown, as = token) =>
      fetch(herald.url + path, {
        method,
        headers: { authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const register = (body: Record<string, unknown>, as?: string) => call('POST', '/v1/devices', body, as)

    test('GET /v1/push/vapid-public-key answers the public key, without signing in', async () => {
      const res = await fetch(`${herald.url}/v1/push/vapid-public-key`)
      expect(res.status).toBe(200)
      const { publicKey } = (await res.json()) as { publicKey: string }
      const point = Buffer.from(publicKey, 'base64url')
      expect(point.length).toBe(65)
      expect(point[0]).toBe(4)
      expect(publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/)
    })

    test('a subscription registers as a webpush device; the same endpoint again replaces its keys, same device', async () => {
      const sub = subscription()
      const first = await register({ provider: 'webpush', platform: 'web', subscription: sub })
      expect(first.status).toBe(201)
      const { id } = (await first.json()) as { id: string }
      // platform may be left out; a browser's toJSON() is taken as it is.
      const renewed = { ...sub, keys: { p256dh: p256dh(), auth: b64(randomBytes(16)) } }
      const again = await register({ provider: 'webpush', subscription: renewed })
      expect(((await again.json()) as { id: string }).id).toBe(id)
      const list = (await (await call('GET', '/v1/devices')).json()) as { id: string; provider: string; platform: string; endpoint: string | null }[]
      expect(list.filter((d) => d.id === id)).toEqual([expect.objectContaining({ provider: 'webpush', platform: 'web', endpoint: sub.endpoint })])
      const [row] = await herald.db.sql<{ p256dh: string; auth: string }[]>`SELECT p256dh, auth FROM devices WHERE id = ${id}`
      expect(row).toEqual({ p256dh: renewed.keys.p256dh, auth: renewed.keys.auth })
      expect((await call('DELETE', `/v1/devices/${id}`)).status).toBe(204)
    })

    test('padded base64url keys are accepted and stored unpadded', async () => {
      const sub = subscription()
      const padded = { ...sub, keys: { p256dh: sub.keys.p256dh + '=', auth: sub.keys.auth + '==' } }
      const res = await register({ provider: 'webpush', subscription: padded })
      expect(res.status).toBe(201)
      const { id } = (await res.json()) as { id: string }
      const [row] = await herald.db.sql<{ p256dh: string; auth: string }[]>`SELECT p256dh, auth FROM devices WHERE id = ${id}`
      expect(row).toEqual(sub.keys)
      await call('DELETE', `/v1/devices/${id}`)
    })

    const bad: [string, Record<string, unknown>, string][] = [
      ['an http endpoint', { provider: 'webpush', subscription: subscription({ endpoint: 'http://push.example.com/x' }) }, '/subscription/endpoint'],
      ['an endpoint that is not a URL', { provider: 'webpush', subscription: subscription({ endpoint: 'https://' }) }, '/subscription/endpoint'],
      ['a loopback endpoint', { provider: 'webpush', subscription: subscription({ endpoint: 'https://127.0.0.1:8443/push/x' }) }, '/subscription/endpoint'],
      ['an IPv6 loopback endpoint', { provider: 'webpush', subscription: subscription({ endpoint: 'https://[::1]/push/x' }) }, '/subscription/endpoint'],
      ['a private endpoint', { provider: 'webpush', subscription: subscription({ endpoint: 'https://192.168.1.1/push/x' }) }, '/subscription/endpoint'],
      ['cloud metadata', { provider: 'webpush', subscription: subscription({ endpoint: 'https://169.254.169.254/latest' }) }, '/subscription/endpoint'],
      ['localhost by name', { provider: 'webpush', subscription: subscription({ endpoint: 'https://localhost/push/x' }) }, '/subscription/endpoint'],
      ['credentials in the endpoint', { provider: 'webpush', subscription: subscription({ endpoint: 'https://a:b@push.example.com/x' }) }, '/subscription/endpoint'],
      ['a p256dh of 64 bytes', { provider: 'webpush', subscription: subscription({ p256dh: b64(randomBytes(64)) }) }, '/subscription/keys/p256dh'],
      ['a p256dh that is not on the curve', { provider: 'webpush', subscription: subscription({ p256dh: b64(Buffer.concat([Buffer.from([4]), randomBytes(64)])) }) }, '/subscription/keys/p256dh'],
      ['a compressed p256dh', { provider: 'webpush', subscription: subscription({ p256dh: b64(Buffer.concat([Buffer.from([2]), randomBytes(32)])) }) }, '/subscription/keys/p256dh'],
      ['an auth of 15 bytes', { provider: 'webpush', subscription: subscription({ auth: b64(randomBytes(15)) }) }, '/subscription/keys/auth'],
      ['an auth in standard base64', { provider: 'webpush', subscription: subscription({ auth: 'ab+/ab+/ab+/ab+/ab+/ab' }) }, '/subscription/keys/auth'],
      ['no subscription', { provider: 'webpush', platform: 'web' }, '/subscription'],
      ['a token instead', { provider: 'webpush', token: 'https://push.example.com/x' }, '/token'],
      ['platform ios', { provider: 'webpush', platform: 'ios', subscription: subscription() }, '/platform'],
      ['a subscription for fcm', { provider: 'fcm', platform: 'android', token: 'abc', subscription: subscription() }, '/subscription'],
      ['fcm without platform', { provider: 'fcm', token: 'abc' }, '/platform'],
      ['fcm without token', { provider: 'fcm', platform: 'android' }, '/token'],
      ['platform web for apns', { provider: 'apns', platform: 'web', token: 'abc' }, '/platform'],
      ['an unknown key field', { provider: 'webpush', subscription: { ...subscription(), keys: { ...subscription().keys, extra: 'x' } } }, '/subscription/keys/extra'],
      ['keys missing', { provider: 'webpush', subscription: { endpoint: 'https://push.example.com/x' } }, '/subscription/keys'],
      ['an endpoint of 3000 characters', { provider: 'webpush', subscription: subscription({ endpoint: `https://push.example.com/${'a'.repeat(3000)}` }) }, '/subscription/endpoint'],
    ]
    for (const [what, body, pointer] of bad) {
      test(`400 naming the field: ${what}`, async () => {
        const problem = await expectProblem(await register(body), 400)
        expect(problem.errors?.map((e) => e.pointer)).toContain(pointer)
      })
    }

    test('a refused endpoint says how to allow a push service of your own', async () => {
      const byAddress = await expectProblem(await register({ provider: 'webpush', subscription: subscription({ endpoint: 'https://127.0.0.1:8443/push/x' }) }), 400)
      expect(byAddress.detail).toContain('HERALD_OUTBOUND_ALLOW=127.0.0.1/32')
      const byName = await expectProblem(await register({ provider: 'webpush', subscription: subscription({ endpoint: 'https://autopush:8443/push/x' }) }), 400)
      expect(byName.detail).toContain('by its IP address (allowed by HERALD_OUTBOUND_ALLOW) or a full domain name')
    })

    test('an endpoint in HERALD_OUTBOUND_ALLOW is taken (an on-premise push service)', async () => {
      const res = await register({ provider: 'webpush', subscription: subscription({ endpoint: 'https://10.9.1.2/push/x' }) })
      expect(res.status).toBe(201)
      await call('DELETE', `/v1/devices/${((await res.json()) as { id: string }).id}`)
    })

    test('without signing in: 401, and nothing is stored', async () => {
      const sub = subscription()
      const res = await fetch(`${herald.url}/v1/devices`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ provider: 'webpush', subscription: sub }) })
      expect(res.status).toBe(401)
      expect(await herald.db.sql`SELECT 1 FROM devices WHERE token = ${sub.endpoint}`).toHaveLength(0)
    })

    test(`at most ${MAX_DEVICES_PER_USER} devices per person, also when two registrations race for the last place`, async () => {
      const have = (await herald.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM devices WHERE user_id = ${userId}`)[0]!.n
      await herald.db.sql`INSERT INTO devices (id, user_id, platform, provider, token, p256dh, auth)
        SELECT gen_random_uuid(), ${userId}, 'web', 'webpush', 'https://push.example.com/fill/' || i, ${p256dh()}, ${b64(randomBytes(16))}
        FROM generate_series(1, ${MAX_DEVICES_PER_USER - 1 - have}) i`
      const [a, b] = await Promise.all([register({ provider: 'webpush', subscription: subscription() }), register({ provider: 'webpush', subscription: subscription() })])
      expect([a.status, b.status].sort()).toEqual([201, 409])
      const refused = a.status === 409 ? a : b
      expect((await expectProblem(refused, 409)).detail).toContain('delete one')
      expect((await herald.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM devices WHERE user_id = ${userId}`)[0]!.n).toBe(MAX_DEVICES_PER_USER)
      // Refreshing a device one already has is not a new place.
      const [known] = await herald.db.sql<{ token: string; p256dh: string; auth: string }[]>`SELECT token, p256dh, auth FROM devices WHERE user_id = ${userId} AND provider = 'webpush' LIMIT 1`
      expect((await register({ provider: 'webpush', subscription: { endpoint: known!.token, keys: { p256dh: known!.p256dh, auth: known!.auth } } })).status).toBe(201)
      await herald.db.sql`DELETE FROM devices WHERE user_id = ${userId}`
    })
  })
}
