// The fan-out's cache of enabled routers per workspace (src/delivery/
// worker_state.ts routerCache), against a real database on both backends:
// a hit is the set loaded before, a workspace is forgotten alone when its
// routers change, at most `max` workspaces are kept (the least recently used
// go first), and an entry is trusted CACHE_MAX_AGE_MS while every change is
// announced here, only `fallbackMs` while announcements may not arrive. A
// load that fails is not kept.
import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { createSecretBox } from '../../src/core/secrets'
import { routerCache, type CacheAge } from '../../src/delivery/worker_state'
import { backends, useTestHerald, type TestHerald } from '../harness'

const KEY = randomBytes(32)
const box = createSecretBox(KEY)
const env = { HERALD_SECRET_KEY: KEY.toString('base64'), HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' }
const age = (over: Partial<CacheAge> = {}): CacheAge => ({ maxAgeMs: 60_000, fallbackMs: 60_000, announced: () => true, max: 100, ...over })

async function workspaceId(h: TestHerald): Promise<{ id: number; name: string }> {
  const { name } = await h.workspace()
  const [row] = await h.db.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${name}`
  return { id: Number(row!.id), name }
}

async function makeRouter(h: TestHerald, workspace: string, name: string) {
  const res = await h.admin('POST', `/admin/workspaces/${workspace}/routers`, { name, pattern: 'deploy.*', destination: { type: 'webhook', url: `http://127.0.0.1:9/${name}` } })
  expect(res.status).toBe(201)
  return ((await res.json()) as { id: string }).id
}

for (const backend of backends) {
  describe(`the router cache (${backend})`, () => {
    const h = useTestHerald(backend, env)

    test('a hit is the set loaded before; a router made meanwhile shows once its workspace is forgotten', async () => {
      const ws = await workspaceId(h)
      const cache = routerCache(h.db.sql, box, age())
      const first = cache.get(ws.id)
      expect((await first).records).toEqual([])
      const id = await makeRouter(h, ws.name, 'hook')
      expect(cache.get(ws.id)).toBe(first)
      cache.forget(ws.id)
      const again = await cache.get(ws.id)
      expect(again.records.map((r) => r.id)).toEqual([id])
      expect(again.byId.get(id)?.name).toBe('hook')
      expect(again.match('deploy.done').map((r) => r.id)).toEqual([id]) // decrypted and indexed
      expect(again.match('build.done')).toEqual([])
    })

    test('forget(ws) forgets that workspace only; clear() every one', async () => {
      const [a, b] = [await workspaceId(h), await workspaceId(h)]
      const cache = routerCache(h.db.sql, box, age())
      const [pa, pb] = [cache.get(a.id), cache.get(b.id)]
      await Promise.all([pa, pb])
      cache.forget(a.id)
      expect(cache.get(a.id)).not.toBe(pa)
      expect(cache.get(b.id)).toBe(pb)
      cache.clear()
      expect(cache.get(b.id)).not.toBe(pb)
    })

    test('at most `max` workspaces are kept, the least recently used dropped first', async () => {
      const [a, b, c] = [await workspaceId(h), await workspaceId(h), await workspaceId(h)]
      const cache = routerCache(h.db.sql, box, age({ max: 2 }))
      const pa = cache.get(a.id)
      const pb = cache.get(b.id)
      expect(cache.get(a.id)).toBe(pa) // a used last: b is the oldest
      const pc = cache.get(c.id) // past max: b goes
      await Promise.all([pa, pb, pc])
      expect(cache.get(a.id)).toBe(pa)
      expect(cache.get(c.id)).toBe(pc)
      expect(cache.get(b.id)).not.toBe(pb)
    })

    test('an entry is trusted maxAgeMs while changes are announced here, fallbackMs while they may not be', async () => {
      const ws = await workspaceId(h)
      let announced = true
      const cache = routerCache(h.db.sql, box, age({ maxAgeMs: 60_000, fallbackMs: 50, announced: () => announced }))
      const first = cache.get(ws.id)
      await first
      await Bun.sleep(80) // older than fallbackMs, younger than maxAgeMs
      expect(cache.get(ws.id)).toBe(first)
      announced = false
      const reloaded = cache.get(ws.id)
      expect(reloaded).not.toBe(first)
      expect(cache.get(ws.id)).toBe(reloaded) // younger than fallbackMs: still trusted
      await reloaded
      // And with announcements, past maxAgeMs the entry is loaded again.
      const short = routerCache(h.db.sql, box, age({ maxAgeMs: 30, fallbackMs: 60_000 }))
      const one = short.get(ws.id)
      await one
      await Bun.sleep(50)
      expect(short.get(ws.id)).not.toBe(one)
    })

    test('a load that fails is not kept: the next get tries again', async () => {
      const ws = await workspaceId(h)
      await makeRouter(h, ws.name, 'sealed')
      const wrongKey = createSecretBox(randomBytes(32))
      const cache = routerCache(h.db.sql, wrongKey, age())
      const failed = cache.get(ws.id)
      await expect(failed).rejects.toThrow('cannot decrypt the secrets of router')
      const retried = cache.get(ws.id)
      expect(retried).not.toBe(failed)
      await expect(retried).rejects.toThrow('cannot decrypt')
    })
  })
}
