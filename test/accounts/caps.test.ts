// What one member or key holder can make is capped, so that nobody exhausts
// what the others share: channels per workspace (an event naming one past the
// cap is a 422 and is not stored), routers per workspace and workspaces per
// person (409), live API keys per workspace (409), each held under two
// requests at once; and a channel list is
// paged and searchable.
import { describe, expect, test } from 'bun:test'
import { backends, startTestHerald, useTestHerald } from '../harness'
import { signUp } from '../users'

const CHANNELS = 6 // general + 5
const ROUTERS = 3
const WORKSPACES = 2 // the one sign-up makes, and one more
const KEYS = 4

async function expectProblem(res: Response, status: number, type: string, mentions: string) {
  const body = (await res.json()) as { type: string; detail: string }
  expect({ status: res.status, type: body.type }).toEqual({ status, type: `https://herald.dev/problems/${type}` })
  expect(body.detail).toContain(mentions)
}

const router = (name: string) => ({ name, pattern: '*', destination: { type: 'webhook', url: 'https://receiver.invalid/hook' } })

for (const backend of backends) {
  describe(`caps on ${backend}`, () => {
    const h = useTestHerald(backend, {
      HERALD_MAX_CHANNELS_PER_WORKSPACE: String(CHANNELS),
      HERALD_MAX_ROUTERS_PER_WORKSPACE: String(ROUTERS),
      HERALD_MAX_WORKSPACES_PER_USER: String(WORKSPACES),
      HERALD_MAX_API_KEYS_PER_WORKSPACE: String(KEYS),
      HERALD_DEFAULT_RATE_BURST: '10000',
      HERALD_DEFAULT_RATE_PER_SECOND: '10000',
    })

    const channelCount = async (ws: string) => {
      let n = 0
      for (let cursor: string | null = ''; cursor !== null; ) {
        const page = (await (await h.admin('GET', `/admin/workspaces/${ws}/channels?limit=500${cursor ? `&cursor=${cursor}` : ''}`)).json()) as { channels: unknown[]; nextCursor: string | null }
        n += page.channels.length
        cursor = page.nextCursor
      }
      return n
    }

    test('an event naming a channel past the cap is a 422 naming the cap, and is not stored; existing channels still take events', async () => {
      const ws = await h.workspace({ rateLimit: { perSecond: 10000, burst: 10000 } })
      for (let i = 1; i < CHANNELS; i++) expect((await h.post(ws.apiKey, { message: `m${i}`, channel: `c${i}` })).status).toBe(200)
      const refused = await h.post(ws.apiKey, { message: 'one too many', channel: 'c-extra' })
      const remaining = (await (await h.post(ws.apiKey, { message: 'to an existing one', channel: 'c1' })).json()) as { remainingQuota: number }
      await expectProblem(refused, 422, 'channel-limit', `limit of ${CHANNELS} channels (HERALD_MAX_CHANNELS_PER_WORKSPACE)`)
      expect(await channelCount(ws.name)).toBe(CHANNELS)
      // Not stored, and no quota spent: CHANNELS events in all (CHANNELS - 1 new ones and 1 to c1).
      const usage = (await (await h.admin('GET', `/admin/workspaces/${ws.name}`)).json()) as { usage: { used: number } }
      expect(usage.usage.used).toBe(CHANNELS)
      expect(remaining.remainingQuota).toBe(100000 - CHANNELS)
      // In a batch, only the event naming the new channel is refused.
      const batch = await fetch(`${h.url}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ message: 'a' }, { message: 'b', channel: 'c-new' }, { message: 'c', channel: 'c2' }] }),
      })
      const { results } = (await batch.json()) as { results: { eventId?: string; type?: string; status?: number }[] }
      expect(results.map((r) => r.eventId ? 200 : r.status)).toEqual([200, 422, 200])
      expect(results[1]!.type).toBe('https://herald.dev/problems/channel-limit')
      // The API's own channel creation is held to the cap too; deleting one makes room.
      await expectProblem(await h.admin('POST', `/admin/workspaces/${ws.name}/channels`, { slug: 'by-hand' }), 409, 'limit-reached', 'HERALD_MAX_CHANNELS_PER_WORKSPACE')
      const owner = await signUp(h)
      await expectProblem(await owner.call('POST', `/v1/workspaces/${owner.workspace}/channels`, { slug: 'x' }).then(async (r) => {
        // The owner's own workspace has room: fill it, then try once more.
        expect(r.status).toBe(201)
        for (let i = 0; i < CHANNELS - 2; i++) expect((await owner.call('POST', `/v1/workspaces/${owner.workspace}/channels`, { slug: `y${i}` })).status).toBe(201)
        return owner.call('POST', `/v1/workspaces/${owner.workspace}/channels`, { slug: 'z' })
      }), 409, 'limit-reached', `limit of ${CHANNELS} channels`)
      expect((await owner.call('DELETE', `/v1/workspaces/${owner.workspace}/channels/y0`)).status).toBe(204)
      expect((await owner.call('POST', `/v1/workspaces/${owner.workspace}/channels`, { slug: 'z' })).status).toBe(201)
    }, 60_000)

    test('events racing for the last channel place: exactly one new channel is made', async () => {
      const ws = await h.workspace({ rateLimit: { perSecond: 10000, burst: 10000 } })
      for (let i = 1; i < CHANNELS - 1; i++) expect((await h.post(ws.apiKey, { message: 'm', channel: `c${i}` })).status).toBe(200)
      // One place left; 20 requests at once, each naming a channel of its own.
      const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => h.post(ws.apiKey, { message: 'race', channel: `r${i}` }).then((r) => r.status)))
      expect(statuses.filter((s) => s === 200).length).toBe(1)
      expect(statuses.filter((s) => s === 422).length).toBe(19)
      expect(await channelCount(ws.name)).toBe(CHANNELS)
    }, 60_000)

    test('the channel list is paged and searchable, on the member API and the operator API', async () => {
      const big = await startTestHerald(backend, { HERALD_MAX_CHANNELS_PER_WORKSPACE: '1000', HERALD_DEFAULT_RATE_BURST: '10000', HERALD_DEFAULT_RATE_PER_SECOND: '10000' })
      try {
        const owner = await signUp(big)
        const key = (await (await owner.call('POST', `/v1/workspaces/${owner.workspace}/keys`, { name: 'k' })).json()) as { apiKey: string }
        const events = Array.from({ length: 250 }, (_, i) => ({ message: 'm', channel: `ch-${String(i).padStart(3, '0')}` }))
        const res = await fetch(`${big.url}/events`, { method: 'POST', headers: { authorization: `Bearer ${key.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ events }) })
        expect(res.status).toBe(200)
        const seen: string[] = []
        let pages = 0
        for (let cursor: string | null = ''; cursor !== null; pages++) {
          const r = await owner.call('GET', `/v1/workspaces/${owner.workspace}/channels${cursor ? `?cursor=${cursor}` : ''}`)
          const page = (await r.json()) as { channels: { slug: string }[]; nextCursor: string | null }
          expect(page.channels.length).toBeLessThanOrEqual(100)
          seen.push(...page.channels.map((c) => c.slug))
          cursor = page.nextCursor
        }
        expect(pages).toBe(3)
        expect(seen.length).toBe(251)
        expect(seen).toEqual([...seen].sort())
        expect(new Set(seen).size).toBe(251)
        const found = (await (await owner.call('GET', `/v1/workspaces/${owner.workspace}/channels?q=ch-24`)).json()) as { channels: { slug: string }[]; nextCursor: null }
        expect(found.channels.map((c) => c.slug)).toEqual(Array.from({ length: 10 }, (_, i) => `ch-24${i}`))
        expect(found.nextCursor).toBeNull()
        const op = (await (await big.admin('GET', `/admin/workspaces/${owner.workspace}/channels?limit=2&q=ch-1`)).json()) as { channels: { slug: string; mutedBy: string[] }[]; nextCursor: string }
        expect(op.channels.map((c) => c.slug)).toEqual(['ch-100', 'ch-101'])
        expect(op.nextCursor).toBe('ch-101')
        for (const bad of ['limit=0', 'limit=501', 'q=UPPER', 'cursor=%00']) {
          expect((await owner.call('GET', `/v1/workspaces/${owner.workspace}/channels?${bad}`)).status).toBe(400)
        }
      } finally {
        await big.close()
      }
    }, 60_000)

    test('routers per workspace: the one past the cap is a 409 naming it, also when created at once', async () => {
      const ws = await h.workspace()
      for (let i = 0; i < ROUTERS - 1; i++) expect((await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, router(`r${i}`))).status).toBe(201)
      const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => h.admin('POST', `/admin/workspaces/${ws.name}/routers`, router(`race${i}`)).then((r) => r.status)))
      expect(statuses.sort()).toEqual([201, ...Array(9).fill(409)])
      const routers = (await (await h.admin('GET', `/admin/workspaces/${ws.name}/routers`)).json()) as unknown[]
      expect(routers.length).toBe(ROUTERS)
      await expectProblem(await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, router('more')), 409, 'limit-reached', `limit of ${ROUTERS} routers (HERALD_MAX_ROUTERS_PER_WORKSPACE)`)
      // A taken name is still said as such, and the member API is held to the same cap.
      const owner = await signUp(h)
      for (let i = 0; i < ROUTERS; i++) expect((await owner.call('POST', `/v1/workspaces/${owner.workspace}/routers`, router(`m${i}`))).status).toBe(201)
      await expectProblem(await owner.call('POST', `/v1/workspaces/${owner.workspace}/routers`, router('m0')), 409, 'limit-reached', 'HERALD_MAX_ROUTERS_PER_WORKSPACE')
    }, 60_000)

    test('live API keys per workspace: the one past the cap is a 409 naming it, also when created at once, on both APIs; a revoked key makes room', async () => {
      type Key = { id: number; revokedAt: string | null }
      const live = async (res: Promise<Response>) => ((await (await res).json()) as Key[]).filter((k) => k.revokedAt === null)
      const ws = await h.workspace() // with its first key
      for (let i = 1; i < KEYS - 1; i++) expect((await h.admin('POST', `/admin/workspaces/${ws.name}/keys`, { name: `k${i}` })).status).toBe(201)
      const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => h.admin('POST', `/admin/workspaces/${ws.name}/keys`, { name: `race${i}` }).then((r) => r.status)))
      expect(statuses.sort()).toEqual([201, ...Array(9).fill(409)])
      const keys = await live(h.admin('GET', `/admin/workspaces/${ws.name}/keys`))
      expect(keys.length).toBe(KEYS)
      await expectProblem(await h.admin('POST', `/admin/workspaces/${ws.name}/keys`, { name: 'more' }), 409, 'limit-reached', `limit of ${KEYS} live API keys (HERALD_MAX_API_KEYS_PER_WORKSPACE)`)
      // Revoked keys do not count: revoking one makes room for one.
      expect((await h.admin('DELETE', `/admin/workspaces/${ws.name}/keys/${keys[0]!.id}`)).status).toBe(204)
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/keys`, { name: 'rotated' })).status).toBe(201)
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/keys`, { name: 'more' })).status).toBe(409)
      // The member API is held to the same cap, with many at once.
      const owner = await signUp(h)
      const path = `/v1/workspaces/${owner.workspace}/keys`
      const had = (await live(owner.call('GET', path))).length
      const made = await Promise.all(Array.from({ length: 12 }, (_, i) => owner.call('POST', path, { name: `m${i}` }).then((r) => r.status)))
      expect(made.sort()).toEqual([...Array(KEYS - had).fill(201), ...Array(12 - KEYS + had).fill(409)])
      expect((await live(owner.call('GET', path))).length).toBe(KEYS)
      await expectProblem(await owner.call('POST', path, { name: 'one more' }), 409, 'limit-reached', 'HERALD_MAX_API_KEYS_PER_WORKSPACE')
    }, 60_000)

    test('workspaces per person: the one past the cap is a 409 naming it, also when created at once', async () => {
      const person = await signUp(h) // owns the workspace sign-up made
      const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => person.call('POST', '/v1/workspaces', { name: `own-${process.pid}-${Date.now().toString(36)}-${i}` }).then((r) => r.status)))
      expect(statuses.sort()).toEqual([201, ...Array(9).fill(409)])
      const mine = (await (await person.call('GET', '/v1/workspaces')).json()) as { role: string }[]
      expect(mine.filter((w) => w.role === 'owner').length).toBe(WORKSPACES)
      await expectProblem(await person.call('POST', '/v1/workspaces', { name: `one-more-${Date.now().toString(36)}` }), 409, 'limit-reached', `You own ${WORKSPACES} workspaces`)
      // The operator is not bound by it.
      expect((await h.admin('POST', '/admin/workspaces', { name: `op-${Date.now().toString(36)}` })).status).toBe(201)
    }, 60_000)
  })
}
