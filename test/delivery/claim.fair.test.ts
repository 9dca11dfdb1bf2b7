// The retry scheduler's claim (claimDueDeliveries), on the embedded default
// and on PostgreSQL: fair across workspaces (one workspace's backlog of due
// retries, all older, does not hold another's behind it), and a router whose
// circuit is open (router_health) parked as a whole: none of its rows is
// claimed or touched until its open time is over, then one, its trial.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomUUID } from 'node:crypto'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { openDatabase, type Database, type Sql } from '../../src/core/db'
import { migrate } from '../../src/core/migrate'
import { ensurePartitions } from '../../src/core/partitions'
import { createWorkspaceRow } from '../../src/accounts/workspaces'
import { claimDueDeliveries } from '../../src/delivery/deliveries'
import { deliveryId } from '../../src/delivery/send_task'
import { backends, createTestDatabase } from '../harness'

const limits = { monthlyQuota: 1_000_000, rateLimit: { perSecond: 100, burst: 100 } }

/** A workspace with one router, and `n` pending deliveries to it due `agoMs` ago (events that long ago, a millisecond apart). */
async function backlog(sql: Sql, name: string, n: number, agoMs: number) {
  const ws = (await createWorkspaceRow(sql, name, limits))!
  const router = Bun.randomUUIDv7()
  await sql`INSERT INTO routers (id, workspace_id, name, pattern, destination_type, destination_view, secrets)
    VALUES (${router}, ${ws.id}, 'r', '*', 'webhook', '{}'::jsonb, '\\x00'::bytea)`
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const eventId = Bun.randomUUIDv7("hex", Date.now() - agoMs + i)
    const id = deliveryId(eventId, 'router', router)
    ids.push(id)
    await sql`INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts, next_attempt_at)
      VALUES (${id}, ${eventId}, uuidv7_time(${eventId}::uuid), ${ws.id}, 'router', ${router}, ${router}, 'pending', 1, now() - ${agoMs - i} * interval '1 ms')`
  }
  return { workspaceId: ws.id, router, ids }
}

const rowsOf = (sql: Sql, router: string) =>
  sql<{ id: string; next: string; attempts: number; updated: string }[]>`
    SELECT id, next_attempt_at::text AS next, attempts, updated_at::text AS updated FROM deliveries WHERE target = ${router} ORDER BY id`

for (const backend of backends) {
  describe(`the retry claim (${backend})`, () => {
    let db: Database
    let drop: (() => Promise<void>) | undefined
    let sql: Sql
    beforeAll(async () => {
      const pg = backend === 'postgres' ? await createTestDatabase() : undefined
      drop = pg?.drop
      const config = loadConfig({ HERALD_DATA_DIR: 'memory://', HERALD_ADMIN_TOKEN: 'x'.repeat(32), ...(pg ? { DATABASE_URL: pg.url } : {}) })
      db = await openDatabase(config, createLogger('silent'))
      sql = db.sql
      await migrate(sql)
      await ensurePartitions(sql)
    }, 30_000)
    afterAll(async () => {
      await db?.close()
      await drop?.()
    })

    test("one workspace's older backlog does not hold another's due retries behind it", async () => {
      const a = await backlog(sql, `a-${randomUUID().slice(0, 8)}`, 60, 60_000)
      const b = await backlog(sql, `b-${randomUUID().slice(0, 8)}`, 2, 1_000)
      const claimed = await claimDueDeliveries(sql, 6, 60_000)
      expect(claimed).toHaveLength(6)
      // Turn by turn: B's two are in the first claim although A's 60 are all older.
      expect(claimed.filter((c) => c.workspaceId === b.workspaceId).map((c) => c.id).sort()).toEqual([...b.ids].sort())
      // A's oldest first among its own.
      expect(claimed.filter((c) => c.workspaceId === a.workspaceId).map((c) => c.id).sort()).toEqual(a.ids.slice(0, 4))
      await sql`DELETE FROM deliveries WHERE workspace_id IN (${a.workspaceId}, ${b.workspaceId})`
    })

    test("a router whose circuit is open is parked: its rows are not read or touched; after its open time, one trial", async () => {
      const a = await backlog(sql, `a-${randomUUID().slice(0, 8)}`, 40, 30_000)
      const b = await backlog(sql, `b-${randomUUID().slice(0, 8)}`, 1, 1_000)
      await sql`INSERT INTO router_health (router_id, open_until, last_error) VALUES (${a.router}, now() + interval '1 hour', 'HTTP 503')`
      const before = await rowsOf(sql, a.router)
      const first = await claimDueDeliveries(sql, 100, 60_000)
      expect(first.map((c) => c.id)).toEqual(b.ids)
      expect(await claimDueDeliveries(sql, 100, 60_000)).toEqual([])
      expect(await rowsOf(sql, a.router)).toEqual(before) // not one of A's rows changed

      // Its open time over: one delivery, the trial, and the router stays parked while it is under way.
      await sql`UPDATE router_health SET open_until = now() - interval '1 ms' WHERE router_id = ${a.router}`
      const trial = await claimDueDeliveries(sql, 100, 60_000)
      expect(trial.map((c) => c.id)).toEqual([a.ids[0]!])
      const [h] = await sql<{ later: boolean }[]>`SELECT open_until > now() + interval '30 s' AS later FROM router_health WHERE router_id = ${a.router}`
      expect(h!.later).toBe(true)
      expect(await claimDueDeliveries(sql, 100, 60_000)).toEqual([])

      // Back (the row deleted by a success): the rest is claimed.
      await sql`DELETE FROM router_health WHERE router_id = ${a.router}`
      expect(await claimDueDeliveries(sql, 100, 60_000)).toHaveLength(39)
    })
  })
}
