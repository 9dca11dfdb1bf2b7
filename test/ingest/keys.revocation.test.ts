// What an instance caches changes on another. A revoked API key stops
// working on every instance, although each caches
// verified keys for up to CACHE_MAX_AGE_MS (10 min) so that look-ups stay rare
// at any number of workspaces: the revocation is announced over NATS and
// every process drops the workspace's keys. Two real `herald serve` processes
// on one PostgreSQL database and a nats-server of the test's own:
// - with NATS up, the other instance refuses the key within a second;
// - with NATS down, an instance that cannot hear falls back to
//   API_KEY_CACHE_TTL_MS, so the key stops within that;
// - when NATS is back, what was announced meanwhile is not trusted: the
//   instance drops its cache and trusts keys long again.
// And on one process of the embedded default, at once. A channel renamed
// (or deleted) is forgotten by the instances that knew it existed, so that its
// next event makes it again; one that cannot hear (NATS down) trusts what it
// knew only API_KEY_CACHE_TTL_MS.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ADMIN_TOKEN, createTestDatabase, describePg, startTestHerald } from '../harness'
import { spawnHerald, type HeraldProcess } from '../processes'
import { privateNats, type PrivateNats } from '../faults/private_nats'
import { eventually } from '../receiver'

const post = (url: string, key: string) =>
  fetch(`${url}/event`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hi' }) }).then((r) => r.status)
const admin = (url: string, method: string, path: string, body?: unknown) =>
  fetch(url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })

/** A workspace with a second key, made through `url`: [name, first key, second key's id, second key]. */
async function workspace(url: string) {
  const name = `rv-${Math.random().toString(36).slice(2, 9)}`
  const made = (await (await admin(url, 'POST', '/admin/workspaces', { name, rateLimit: { perSecond: 1000, burst: 1000 } })).json()) as { apiKey: string }
  const second = (await (await admin(url, 'POST', `/admin/workspaces/${name}/keys`, { name: 'second' })).json()) as { id: number; apiKey: string }
  return { name, key: made.apiKey, secondId: second.id, second: second.apiKey }
}

describePg('revoking an API key, across instances', () => {
  let nats: PrivateNats
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let a: HeraldProcess
  let b: HeraldProcess
  const TTL_MS = 5000 // the most it may be: a refusal within a second is the announcement, not the TTL
  beforeAll(async () => {
    nats = await privateNats()
    db = await createTestDatabase()
    const env = { DATABASE_URL: db.url, NATS_URL: nats.url, API_KEY_CACHE_TTL_MS: String(TTL_MS) }
    a = await spawnHerald(env)
    b = await spawnHerald(env)
  }, 60_000)
  afterAll(async () => {
    await a?.kill('SIGKILL')
    await b?.kill('SIGKILL')
    await nats?.close()
    await db?.drop()
  }, 30_000)

  test('with NATS up: the other instance refuses the key within a second, though it would trust it for 10 minutes', async () => {
    const w = await workspace(a.url)
    expect(await post(b.url, w.second)).toBe(200) // cached on b
    await Bun.sleep(TTL_MS + 200)
    expect(await post(b.url, w.second)).toBe(200) // still cached: NATS is up, the TTL does not apply
    const revoked = Date.now()
    expect((await admin(a.url, 'DELETE', `/admin/workspaces/${w.name}/keys/${w.secondId}`)).status).toBe(204)
    expect(await post(a.url, w.second)).toBe(401) // at once where it was revoked
    await eventually(async () => (await post(b.url, w.second)) === 401, 1000, 'b to refuse the revoked key')
    expect(Date.now() - revoked).toBeLessThan(1000)
    expect(await post(b.url, w.key)).toBe(200) // the workspace's other key still works
  }, 30_000)

  test('with NATS down: an instance that cannot hear trusts a key only API_KEY_CACHE_TTL_MS; once NATS is back, long again', async () => {
    const w = await workspace(a.url)
    expect(await post(b.url, w.second)).toBe(200)
    await nats.kill('SIGKILL')
    const revoked = Date.now()
    expect((await admin(a.url, 'DELETE', `/admin/workspaces/${w.name}/keys/${w.secondId}`)).status).toBe(204)
    await eventually(async () => (await post(b.url, w.second)) === 401, TTL_MS + 3000, 'b to refuse the revoked key without NATS')
    expect(Date.now() - revoked).toBeLessThan(TTL_MS + 3000)
    await nats.start()
    const again = await workspace(a.url)
    // Reconnected (the client retries every half second): keys are trusted past the TTL again, and a revocation is heard.
    await eventually(async () => {
      const status = await post(b.url, again.second)
      await Bun.sleep(TTL_MS + 200)
      return status === 200 && (await post(b.url, again.second)) === 200
    }, 20_000, 'b to reconnect to NATS')
    expect((await admin(a.url, 'DELETE', `/admin/workspaces/${again.name}/keys/${again.secondId}`)).status).toBe(204)
    await eventually(async () => (await post(b.url, again.second)) === 401, 1000, 'b to hear the revocation after the reconnect')
  }, 60_000)

  test('a new default channel is heard too: events without a channel go to it on the other instance at once', async () => {
    const w = await workspace(a.url)
    const channelOf = async () => ((await (await fetch(`${b.url}/event`, { method: 'POST', headers: { authorization: `Bearer ${w.key}`, 'content-type': 'application/json' }, body: '{"message":"x"}' })).json()) as { channel: string }).channel
    expect(await channelOf()).toBe('general')
    expect((await admin(a.url, 'POST', `/admin/workspaces/${w.name}/channels`, { slug: 'ops' })).status).toBe(201)
    expect((await admin(a.url, 'PATCH', `/admin/workspaces/${w.name}/channels/general`, { slug: 'main' })).status).toBe(200)
    await eventually(async () => (await channelOf()) === 'main', 1000, 'b to use the renamed default channel')
  }, 30_000)

  test('a channel renamed on one instance is made again by its next event on the other, which knew it', async () => {
    const w = await workspace(a.url)
    const send = (channel: string) => fetch(`${b.url}/event`, { method: 'POST', headers: { authorization: `Bearer ${w.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'x', channel }) })
    expect((await send('ops')).status).toBe(200) // b made #ops, and remembers it exists
    expect((await send('ops')).status).toBe(200)
    expect((await admin(a.url, 'PATCH', `/admin/workspaces/${w.name}/channels/ops`, { slug: 'ops-old' })).status).toBe(200)
    const slugs = async () => ((await (await admin(a.url, 'GET', `/admin/workspaces/${w.name}/channels`)).json()) as { channels: { slug: string }[] }).channels.map((c) => c.slug).sort()
    expect(await slugs()).toEqual(['general', 'ops-old'])
    await Bun.sleep(200) // the announcement crosses NATS
    expect((await send('ops')).status).toBe(200)
    expect(await slugs()).toEqual(['general', 'ops', 'ops-old'])
  }, 30_000)

  test('with NATS down, a channel renamed on one instance is made again on the other within API_KEY_CACHE_TTL_MS, not a minute', async () => {
    const w = await workspace(a.url)
    const send = (channel: string) => fetch(`${b.url}/event`, { method: 'POST', headers: { authorization: `Bearer ${w.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'x', channel }) })
    expect((await send('ops')).status).toBe(200) // b made #ops, and remembers it exists
    await nats.kill('SIGKILL')
    try {
      expect((await admin(a.url, 'PATCH', `/admin/workspaces/${w.name}/channels/ops`, { slug: 'ops-old' })).status).toBe(200)
      const renamed = Date.now()
      const slugs = async () => ((await (await admin(a.url, 'GET', `/admin/workspaces/${w.name}/channels`)).json()) as { channels: { slug: string }[] }).channels.map((c) => c.slug).sort()
      // b cannot hear the rename: its events land in #ops, which has no row, until it looks again.
      // Within the TTL (5 s) as a rule; once, on a loaded CI machine, 10 s.
      // Either is far from the 10 minutes b would trust #ops while hearing.
      await eventually(async () => (await send('ops')).status === 200 && (await slugs()).includes('ops'), 3 * TTL_MS, 'b to make #ops again')
      expect(Date.now() - renamed).toBeLessThan(3 * TTL_MS)
      expect(await slugs()).toEqual(['general', 'ops', 'ops-old'])
    } finally {
      await nats.start()
    }
  }, 60_000)
})

describe('revoking an API key on the embedded default', () => {
  test('the one process refuses it at once, though it trusts keys for 10 minutes', async () => {
    const h = await startTestHerald('embedded')
    try {
      const w = await workspace(h.url)
      expect(await post(h.url, w.second)).toBe(200)
      expect((await admin(h.url, 'DELETE', `/admin/workspaces/${w.name}/keys/${w.secondId}`)).status).toBe(204)
      expect(await post(h.url, w.second)).toBe(401)
    } finally {
      await h.close()
    }
  }, 30_000)
})
