// The quota and the rate limit hold when two API processes share one
// PostgreSQL database: the counters live in the workspace row, and every batch
// takes its row lock.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import postgres from 'postgres'
import { ADMIN_TOKEN, createTestDatabase, describePg } from '../harness'
import { spawnHerald, type HeraldProcess } from '../processes'

describePg('two API processes on one PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let a: HeraldProcess
  let b: HeraldProcess
  beforeAll(async () => {
    db = await createTestDatabase()
    a = await spawnHerald({ DATABASE_URL: db.url })
    b = await spawnHerald({ DATABASE_URL: db.url })
  }, 60_000)
  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill()])
    await db?.drop()
  })

  async function workspace(monthlyQuota: number, rateLimit = { perSecond: 1e6, burst: 1e6 }) {
    const res = await fetch(`${a.url}/admin/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `c${Date.now()}${Math.floor(Math.random() * 1e6)}`, monthlyQuota, rateLimit }),
    })
    expect(res.status).toBe(201)
    return ((await res.json()) as { apiKey: string }).apiKey
  }

  const post = (url: string, key: string, i: number) =>
    fetch(`${url}/event`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: `event ${i}` }),
    })

  test('quota N, 5N concurrent requests across both: exactly N accepted, remainingQuota N-1..0 once each', async () => {
    const N = 200
    const key = await workspace(N)
    const responses = await Promise.all(Array.from({ length: 5 * N }, (_, i) => post(i % 2 ? a.url : b.url, key, i)))
    const ok = responses.filter((r) => r.status === 200)
    const limited = responses.filter((r) => r.status === 429)
    expect(ok.length).toBe(N)
    expect(limited.length).toBe(4 * N)
    const remaining = (await Promise.all(ok.map((r) => r.json()))).map((j: any) => j.remainingQuota).sort((x, y) => x - y)
    expect(remaining).toEqual(Array.from({ length: N }, (_, i) => i))
    for (const r of limited) {
      expect((await r.json()).type).toBe('https://herald.dev/problems/quota-exceeded')
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    const sql = postgres(db.url, { max: 1 })
    const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events` as unknown as [{ n: number }]
    await sql.end()
    expect(n).toBe(N)
  }, 60_000)

  test('the token bucket is shared: burst B across both processes admits B', async () => {
    const burst = 50
    const key = await workspace(1_000_000, { perSecond: 0.001, burst })
    const responses = await Promise.all(Array.from({ length: 4 * burst }, (_, i) => post(i % 2 ? a.url : b.url, key, i)))
    const statuses = responses.map((r) => r.status)
    expect(statuses.filter((s) => s === 200).length).toBe(burst)
    expect(statuses.filter((s) => s === 429).length).toBe(3 * burst)
    const limited = responses.find((r) => r.status === 429)!
    expect((await limited.json()).type).toBe('https://herald.dev/problems/rate-limited')
    expect(limited.headers.get('ratelimit-remaining')).toBe('0')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
  }, 60_000)

  test('a key revoked through one process stops working on the other within 5 s', async () => {
    const name = `r${Date.now()}`
    const created = await fetch(`${a.url}/admin/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    })
    const { apiKey } = (await created.json()) as { apiKey: string }
    expect((await post(b.url, apiKey, 0)).status).toBe(200) // now cached on b
    const keys = (await (await fetch(`${a.url}/admin/workspaces/${name}/keys`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { id: number }[]
    const revoked = await fetch(`${a.url}/admin/workspaces/${name}/keys/${keys[0]!.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    expect(revoked.status).toBe(204)
    const t0 = Date.now()
    expect((await post(a.url, apiKey, 1)).status).toBe(401) // the revoking process forgets at once
    let status = 200
    while (status === 200 && Date.now() - t0 < 6000) {
      status = (await post(b.url, apiKey, 2)).status
      if (status === 200) await Bun.sleep(100)
    }
    expect(status).toBe(401)
    expect(Date.now() - t0).toBeLessThan(5000)
  }, 20_000)
})

describePg('graceful shutdown', () => {
  test('SIGTERM under load: every request is answered, every 200 is committed, exit code 0', async () => {
    const db = await createTestDatabase()
    const server = await spawnHerald({ DATABASE_URL: db.url, BATCH_WINDOW_MS: '20' })
    try {
      const res = await fetch(`${server.url}/admin/workspaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'drain', rateLimit: { perSecond: 1e6, burst: 1e6 } }),
      })
      const { apiKey } = (await res.json()) as { apiKey: string }
      // Requests sit in the 20 ms batch window when SIGTERM arrives.
      const inflight = Array.from({ length: 200 }, (_, i) =>
        fetch(`${server.url}/event`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: `m${i}` }),
        }).then(async (r) => (r.status === 200 ? ((await r.json()) as { eventId: string }).eventId : r.status), () => 'refused'),
      )
      await Bun.sleep(5)
      server.proc.kill('SIGTERM')
      const results = await Promise.all(inflight)
      expect(await server.proc.exited).toBe(0)
      const ids = results.filter((r): r is string => typeof r === 'string' && r !== 'refused')
      expect(ids.length).toBeGreaterThan(0)
      const sql = postgres(db.url, { max: 1 })
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events WHERE id = ANY(${ids}::uuid[])`
      await sql.end()
      expect(row!.n).toBe(ids.length)
      expect(server.output.some((l) => l.includes('Herald stopped'))).toBe(true)
    } finally {
      await server.kill('SIGKILL')
      await db.drop()
    }
  }, 60_000)
})
