import { describe, expect, test } from 'bun:test'
import { backends, startTestHerald, useTestHerald } from '../harness'

describe.each(backends)('smoke on %s', (backend) => {
  const h = useTestHerald(backend)
  test('post and read back', async () => {
    const { apiKey } = await h.workspace({ monthlyQuota: 3 })
    const r = await h.post(apiKey, { message: 'hi' })
    expect(r.status).toBe(200)
    const body = await r.json()
    expect(body.remainingQuota).toBe(2)
    const g = await fetch(`${h.url}/events/${body.eventId}`, { headers: { authorization: `Bearer ${apiKey}` } })
    expect(g.status).toBe(200)
    expect((await g.json()).message).toBe('hi')
  })
})

describe.each(backends)('API-key last use on %s', (backend) => {
  test('is written in the background and flushed on stop', async () => {
    const h = await startTestHerald(backend)
    try {
      const { name, apiKey } = await h.workspace()
      const before = (await (await h.admin('GET', `/admin/workspaces/${name}/keys`)).json()) as { lastUsedAt: string | null }[]
      expect(before[0]!.lastUsedAt).toBeNull()
      const t0 = Date.now()
      expect((await h.post(apiKey, { message: 'x' })).status).toBe(200)
      // The shutdown path writes pending last-use times; read them back through SQL.
      await h.stop()
      if (backend === 'postgres') {
        const { default: postgres } = await import('postgres')
        const sql = postgres(h.databaseUrl!, { max: 1 })
        const [row] = await sql<{ t: Date }[]>`SELECT last_used_at AS t FROM api_keys`
        await sql.end()
        expect(row!.t.getTime()).toBeGreaterThanOrEqual(t0 - 1000)
      }
    } finally {
      await h.close()
    }
  }, 30_000)
})
