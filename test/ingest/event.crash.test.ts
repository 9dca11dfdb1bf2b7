// kill -9 during a load: every event that got a 200 is in the database, once.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { ADMIN_TOKEN, backends, createTestDatabase, type Backend } from '../harness'
import { spawnHerald } from '../processes'

async function countStored(backend: Backend, where: { url?: string; dir?: string }, ids: string[]) {
  const query = `SELECT count(*)::int AS total, count(DISTINCT id)::int AS distinct_ids,
    count(*) FILTER (WHERE id = ANY($1::uuid[]))::int AS acked FROM events`
  if (backend === 'postgres') {
    const sql = postgres(where.url!, { max: 1, onnotice: () => {} })
    const [row] = await sql.unsafe(query, [ids])
    await sql.end()
    return row as unknown as { total: number; distinct_ids: number; acked: number }
  }
  const { PGlite } = await import('@electric-sql/pglite')
  const db = await PGlite.create(join(where.dir!, 'pgdata'))
  const { rows } = await db.query<{ total: number; distinct_ids: number; acked: number }>(query, [ids])
  await db.close()
  return rows[0]!
}

describe.each(backends)('kill -9 under load on %s', (backend) => {
  const cleanups: (() => unknown)[] = []
  afterAll(async () => {
    for (const c of cleanups) await c()
  })

  test('every acknowledged event survives, none is stored twice', async () => {
    const where: { url?: string; dir?: string } = {}
    if (backend === 'postgres') {
      const db = await createTestDatabase()
      cleanups.push(() => db.drop())
      where.url = db.url
    } else {
      where.dir = mkdtempSync(join(tmpdir(), 'herald-crash-'))
      cleanups.push(() => rmSync(where.dir!, { recursive: true, force: true }))
    }
    const server = await spawnHerald(where.url ? { DATABASE_URL: where.url } : { HERALD_DATA_DIR: where.dir!, HERALD_DEMO_WORKSPACE: 'false' })
    cleanups.push(() => server.kill('SIGKILL'))
    const res = await fetch(`${server.url}/admin/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'crash', monthlyQuota: 10_000_000, rateLimit: { perSecond: 1e9, burst: 1e9 } }),
    })
    expect(res.status).toBe(201)
    const { apiKey } = (await res.json()) as { apiKey: string }

    const acked: string[] = []
    let failures = 0
    let stop = false
    const client = async () => {
      while (!stop) {
        try {
          const r = await fetch(`${server.url}/event`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ message: 'load', data: { n: acked.length } }),
          })
          if (r.status === 200) acked.push(((await r.json()) as { eventId: string }).eventId)
        } catch {
          failures++ // the connection died with the process: not acknowledged
          stop = true
        }
      }
    }
    const clients = Array.from({ length: 32 }, client)
    for (let waited = 0; acked.length < 500 && waited < 30_000; waited += 5) await Bun.sleep(5)
    server.proc.kill('SIGKILL')
    await server.proc.exited
    stop = true
    await Promise.all(clients)

    const stored = await countStored(backend, where, acked)
    expect(acked.length).toBeGreaterThanOrEqual(500)
    expect(stored.acked).toBe(acked.length) // nothing acknowledged was lost
    expect(stored.distinct_ids).toBe(stored.total) // nothing stored twice
    expect(failures).toBeGreaterThan(0) // the kill really happened mid-load
  }, 90_000)
})
