// An ingest lane whose connection stops answering. postgres.js 3.4.9 never
// settles a statement on a connection that the server closes during start-up
// (porsager/postgres#1214: it reconnects in a loop), nor the statements a
// lost connection still held (#1186). A lane that waited on them would hold
// its events, and every later one, for ever: PostgreSQL restarted under load
// left POST /event unanswered. The lane gives such a connection up after its
// timeout, answers 503, and goes on with a new connection.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import postgres from 'postgres'
import { describePg, useTestHerald } from '../harness'
import { createBatcher } from '../../src/ingest/batcher'
import type { Submission } from '../../src/ingest/submission'
import { createLogger } from '../../src/core/log'
import { HeraldError } from '../../src/core/problems'
import type { Sql } from '../../src/core/db'

describePg('an ingest lane whose connection hangs (PostgreSQL)', () => {
  let ws: number
  // A server that closes every connection as soon as the client speaks: a
  // PostgreSQL that is still starting up.
  let attempts = 0
  const closing = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { open: () => void attempts++, data: (s) => void s.end() } })
  const made: Sql[] = []

  // Registered before the Herald's own afterAll, so that these go before Herald closes.
  afterAll(async () => {
    closing.stop(true)
    await Promise.all(made.map((c) => c.end({ timeout: 0 })))
  })
  const h = useTestHerald('postgres', {}, 60_000)
  beforeAll(async () => {
    const { name } = await h.workspace({ rateLimit: { perSecond: 1e6, burst: 1e6 }, monthlyQuota: 1e6 })
    ws = (await h.db.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${name}`)[0]!.id
  }, 60_000)

  const submission = (i: number): Submission => {
    const id = Bun.randomUUIDv7()
    return {
      principal: { workspaceId: ws, workspace: 'w', keyId: 1, defaultChannel: 'general' },
      id, createdAt: new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)), channel: 'general', changes: [],
      event: { message: `lane ${i}`, event: null, channel: null, title: null, link: null, tags: [], data: null, priority: 3, ttl: null, collapseKey: null, ack: null, to: null, scheduledFor: null },
    }
  }

  test('answers 503 within its timeout, gives the connection up, and writes the next batch on a new one', async () => {
    const connections: string[] = []
    const connect = () => {
      const first = !connections.length
      connections.push(first ? 'closing' : 'postgres')
      const url = first ? `postgres://postgres@127.0.0.1:${closing.port}/postgres` : h.databaseUrl!
      const c = postgres(url, { max: 1, connect_timeout: 5, types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } } }) as unknown as Sql
      made.push(c)
      return c
    }
    const batcher = createBatcher(h.db.sql, connect, createLogger('silent'), { maxEvents: 10, windowMs: 0, timeoutMs: 500 })

    const started = performance.now()
    const first = await batcher.submit(submission(1)).then(() => 'answered', (err) => err)
    const waitedMs = performance.now() - started
    expect(first).toBeInstanceOf(HeraldError)
    expect((first as HeraldError).code).toBe('unavailable')
    expect((first as HeraldError).headers?.['retry-after']).toBe('1') // a young outage (src/core/outage.ts)
    expect(waitedMs).toBeLessThan(5_000) // the lane's timeout, not postgres.js's connect_timeout
    expect(attempts).toBeGreaterThan(1) // postgres.js kept reconnecting to the closing server
    expect(connections).toEqual(['closing', 'postgres'])

    const second = submission(2)
    const outcome = await batcher.submit(second)
    expect(outcome.kind).toBe('accepted')
    expect((await h.db.sql<{ message: string }[]>`SELECT message FROM events WHERE id = ${second.id}`).map((r) => r.message)).toEqual(['lane 2'])
    const seenBefore = attempts
    await Bun.sleep(200)
    expect(attempts).toBe(seenBefore) // the given-up client was ended, not left reconnecting
    await batcher.drain()
  }, 30_000)
})
