// The client across a crash: a real `herald serve` on PostgreSQL, behind a
// stand-in that keeps the URL stable, is killed (SIGKILL) while events stream
// in through enqueue, and started again on the same database. The batches
// that failed meanwhile go again with their idempotency keys, so the
// workspace ends with every event exactly once: the 100,000 events
// (HERALD_RESTART_EVENTS to change it), in about 10 s on 2 cores; the test
// prints its figures as JSON.
import { expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { Herald } from '../../clients/typescript/src/index'
import { ADMIN_TOKEN, createTestDatabase, describePg } from '../harness'
import { spawnHerald } from '../processes'
import { waitFor } from '../support'
import { standIn } from './proxy'

const EVENTS = Number(process.env.HERALD_RESTART_EVENTS ?? 100_000)

describePg('enqueue across a restart (PostgreSQL, a real process)', () => {
  test(`SIGKILL mid-stream: all ${EVENTS} events stored, none twice`, async () => {
    const db = await createTestDatabase()
    // Both processes share the data directory (its secret key) and the database.
    const env = { DATABASE_URL: db.url, HERALD_DATA_DIR: mkdtempSync(join(os.tmpdir(), 'herald-restart-')) }
    let server = await spawnHerald(env)
    const proxy = standIn(server.url)
    const sql = postgres(db.url, { max: 1, onnotice: () => {} })
    try {
      const res = await fetch(`${server.url}/admin/workspaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        // No limit in the way: this test is about the crash, not the rate limit.
        body: JSON.stringify({ name: 'restart', monthlyQuota: EVENTS * 2, rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } }),
      })
      expect(res.status).toBe(201)
      const { apiKey } = (await res.json()) as { apiKey: string }
      // Restarting takes a few seconds: enough tries, a short first wait.
      let retriedRequests = 0
      const herald = new Herald({ apiKey, url: proxy.url, retry: { baseDelayMs: 100, maxDelayMs: 2_000, maxAttempts: 40 }, onRetry: () => retriedRequests++ })
      const started = performance.now()
      const producing = (async () => {
        for (let i = 0; i < EVENTS; i++) await herald.enqueue({ message: `restart ${i}`, data: { i } })
      })()
      await waitFor(() => herald.stats.sent >= EVENTS / 3, 120_000, 'a third of the events')
      const sentBeforeKill = herald.stats.sent
      const killedAt = performance.now()
      await server.kill('SIGKILL')
      server = await spawnHerald(env)
      proxy.state.target = server.url
      const restartMs = performance.now() - killedAt
      await producing
      await herald.close()
      const elapsedMs = performance.now() - started
      const [row] = await sql<{ n: number; messages: number }[]>`SELECT count(*)::int AS n, count(DISTINCT message)::int AS messages FROM events`
      const batches = proxy.batches()
      console.log(JSON.stringify({
        test: 'client.restart', events: EVENTS, stored: row!.n, distinct: row!.messages, sentBeforeKill, stats: herald.stats,
        requests: batches.length, retriedRequests, restartMs: Math.round(restartMs), elapsedMs: Math.round(elapsedMs),
        eventsPerSecond: Math.round(EVENTS / (elapsedMs / 1000)), cpus: os.cpus().length, cpu: os.cpus()[0]?.model, runtime: `bun ${Bun.version}`,
      }))
      expect(row).toEqual({ n: EVENTS, messages: EVENTS })
      expect(herald.stats).toMatchObject({ sent: EVENTS, failed: 0, dropped: 0, rateLimited: 0 })
      expect(herald.stats.retried).toBeGreaterThan(0)
    } finally {
      proxy.stop()
      await server.kill('SIGKILL').catch(() => {})
      await sql.end()
      await db.drop()
      rmSync(env.HERALD_DATA_DIR, { recursive: true, force: true })
    }
  }, 180_000)
})
