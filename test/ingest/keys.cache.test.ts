// The API-key cache (src/ingest/auth.ts) on a real database: bounded (least
// recently used dropped first, so memory does not grow with the number of
// workspaces), trusted long while announcements reach this process and
// briefly otherwise, and emptied of a workspace's keys when a change of them
// is announced, also one that arrives while a look-up is under way.
import { describe, expect, test } from 'bun:test'
import { createLru } from '../../src/core/lru'
import { createApiKeyAuth, type ApiKeyCacheOptions } from '../../src/ingest/auth'
import { backends, useTestHerald, type TestHerald } from '../harness'

describe('createLru', () => {
  test('holds at most max entries, dropping the least recently used', () => {
    const lru = createLru<string, number>(3)
    for (const [k, v] of [['a', 1], ['b', 2], ['c', 3]] as const) lru.set(k, v)
    expect(lru.get('a')).toBe(1) // a is now the most recent
    lru.set('d', 4)
    expect([lru.get('b'), lru.get('a'), lru.get('c'), lru.get('d'), lru.size]).toEqual([undefined, 1, 3, 4, 3])
    lru.set('c', 30) // a set refreshes too
    lru.set('e', 5)
    expect([lru.get('a'), lru.get('c'), lru.get('d'), lru.get('e')]).toEqual([undefined, 30, 4, 5])
  })

  test('prune drops what it is told to; clear drops everything', () => {
    const lru = createLru<number, { ws: number }>(100)
    for (let i = 0; i < 50; i++) lru.set(i, { ws: i % 5 })
    lru.prune((v) => v.ws === 2)
    expect(lru.size).toBe(40)
    expect(lru.get(2)).toBeUndefined()
    expect(lru.get(3)).toEqual({ ws: 3 })
    lru.clear()
    expect(lru.size).toBe(0)
  })
})

/** An auth whose database look-ups are counted. */
function countedAuth(h: TestHerald, opts: Partial<ApiKeyCacheOptions> = {}) {
  let queries = 0
  const sql = new Proxy(h.db.sql, {
    apply(target, self, args) {
      queries++
      return Reflect.apply(target, self, args)
    },
  })
  const auth = createApiKeyAuth(sql, { ttlMs: 50, maxAgeMs: 600_000, max: 1000, announced: () => true, ...opts })
  return { auth, queries: () => queries }
}

for (const backend of backends) {
  describe(`the API-key cache (${backend})`, () => {
    const h = useTestHerald(backend)
    const bearer = (key: string) => `Bearer ${key}`

    test('bounded: with room for 3 keys, the 4th drops the least recently used, which is looked up again', async () => {
      const { auth, queries } = countedAuth(h, { max: 3 })
      const keys = await Promise.all(Array.from({ length: 4 }, () => h.workspace().then((w) => w.apiKey)))
      try {
        for (const k of keys.slice(0, 3)) expect(await auth.verify(bearer(k))).not.toBeNull()
        expect(queries()).toBe(3)
        await auth.verify(bearer(keys[0]!)) // keys[1] is now the least recently used
        await auth.verify(bearer(keys[3]!))
        expect([auth.size(), queries()]).toEqual([3, 4])
        await auth.verify(bearer(keys[0]!))
        expect(queries()).toBe(4)
        await auth.verify(bearer(keys[1]!))
        expect(queries()).toBe(5)
      } finally {
        await auth.stop()
      }
    })

    test('while announcements reach this process a key is trusted past API_KEY_CACHE_TTL_MS; while they may not, it is looked up again after it', async () => {
      let announced = true
      const { auth, queries } = countedAuth(h, { ttlMs: 50, announced: () => announced })
      const { apiKey } = await h.workspace()
      try {
        await auth.verify(bearer(apiKey))
        await Bun.sleep(120)
        expect(await auth.verify(bearer(apiKey))).not.toBeNull()
        expect(queries()).toBe(1)
        announced = false // NATS went away: what was cached is trusted only as long as the TTL
        expect(await auth.verify(bearer(apiKey))).not.toBeNull()
        expect(queries()).toBe(2)
      } finally {
        await auth.stop()
      }
    })

    test("forget(workspace) drops that workspace's keys only; forget(null) drops every key", async () => {
      const { auth, queries } = countedAuth(h)
      const [a, b] = await Promise.all([h.workspace(), h.workspace()])
      try {
        const pa = (await auth.verify(bearer(a.apiKey)))!
        await auth.verify(bearer(b.apiKey))
        auth.forget(pa.workspaceId)
        await auth.verify(bearer(b.apiKey))
        expect(queries()).toBe(2)
        await auth.verify(bearer(a.apiKey))
        expect(queries()).toBe(3)
        auth.forget(null)
        await auth.verify(bearer(a.apiKey))
        await auth.verify(bearer(b.apiKey))
        expect(queries()).toBe(5)
      } finally {
        await auth.stop()
      }
    })

    test('a change announced while the key is being looked up: the answer serves its request and is not cached', async () => {
      const { auth, queries } = countedAuth(h)
      const { apiKey } = await h.workspace()
      try {
        const pending = auth.verify(bearer(apiKey))
        auth.forget(null) // a revocation elsewhere, heard before the look-up answered
        expect(await pending).not.toBeNull()
        await auth.verify(bearer(apiKey))
        expect(queries()).toBe(2)
      } finally {
        await auth.stop()
      }
    })
  })
}
