#!/usr/bin/env bun
// Write-path benchmark: the batch transaction of POST /event (src/ingest/batcher.ts
// writeEventBatch) driven directly, without HTTP, on real PostgreSQL with 100
// workspaces. It shows what the database side of ingest can do at each batch
// size and number of concurrent batches ("lanes"), and what each event costs
// in CPU time, in PostgreSQL's backends and in this process. Prints JSON.
//
//   npx bun bench/write_path.ts [--seconds 5] [--sizes 8,16,32,64,128] [--lanes 1,2]
//
// DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/postgres);
// the run creates herald_bench_wp_<ts> there and drops it at the end.
import postgres from 'postgres'
import { parseArgs } from 'node:util'
import { migrate } from '../src/core/migrate'
import { ensurePartitions } from '../src/core/partitions'
import { writeEventBatch } from '../src/ingest/statement'
import type { Submission } from '../src/ingest/submission'
import { backendPids, cpuSeconds, machine, round } from './proc'
import { loadavg } from 'node:os'

const { values: flags } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, sizes: { type: 'string', default: '8,16,32,64,128' }, lanes: { type: 'string', default: '1,2' } },
})
const seconds = Number(flags.seconds)
const sizes = flags.sizes!.split(',').map(Number)
const laneCounts = flags.lanes!.split(',').map(Number)
const WORKSPACES = 100

const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const dbName = `herald_bench_wp_${Date.now()}`
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
await admin.unsafe(`CREATE DATABASE ${dbName}`)
const url = new URL(adminUrl)
url.pathname = `/${dbName}`
const types = { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } }
const sql = postgres(url.toString(), { max: Math.max(...laneCounts), onnotice: () => {}, types }) as any

try {
  await migrate(sql)
  await ensurePartitions(sql)
  const ids: number[] = []
  for (let i = 0; i < WORKSPACES; i++) {
    const [w] = await sql`INSERT INTO workspaces (name, monthly_quota, rate_per_second, rate_burst, tokens)
      VALUES (${`wp-${i}`}, 1000000000, 1e9, 1000000000, 1e9) RETURNING id`
    ids.push(Number(w.id))
  }
  const event = (ws: number): Submission => {
    const id = Bun.randomUUIDv7()
    return {
      principal: { workspaceId: ws, workspace: 'wp', keyId: 1, defaultChannel: 'general' } as Submission['principal'],
      id, createdAt: new Date(), channel: 'general', changes: [],
      event: { event: 'user.signup', channel: null, title: 'New signup', message: 'alice@example.com signed up for the Pro plan', link: 'https://example.com/users/42', tags: ['signup', 'pro'], data: { plan: 'pro', seats: 3 } } as unknown as Submission['event'],
    }
  }
  const runs = []
  for (const lanes of laneCounts) {
    for (const size of sizes) {
      await sql`SELECT 1` // every connection of the pool is open before the CPU meters start
      await Promise.all(Array.from({ length: lanes }, () => sql`SELECT pg_sleep(0.01)`))
      const pids = backendPids(dbName)
      const pg0 = pids.reduce((a, p) => a + cpuSeconds(p), 0)
      const me0 = process.cpuUsage()
      const lat: number[] = []
      let events = 0
      const end = performance.now() + seconds * 1000
      await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
        // Lane l writes only workspaces with index ≡ l (mod lanes), as Herald's batcher does.
        const mine = ids.filter((_, i) => i % lanes === lane)
        while (performance.now() < end) {
          const batch = Array.from({ length: size }, () => event(mine[Math.floor(Math.random() * mine.length)]!))
          const t = performance.now()
          await writeEventBatch(sql, batch, [])
          lat.push(performance.now() - t)
          events += size
        }
      }))
      const pg = pids.reduce((a, p) => a + cpuSeconds(p), 0) - pg0
      const me = process.cpuUsage(me0)
      lat.sort((a, b) => a - b)
      runs.push({
        lanes, batch_size: size, events_per_s: Math.round(events / seconds),
        batch_p50_ms: round(lat[lat.length >> 1]!, 2), batch_p99_ms: round(lat[Math.floor(lat.length * 0.99)]!, 2),
        postgres_us_per_event: round((pg * 1e6) / events, 1), bun_us_per_event: round((me.user + me.system) / events, 1),
      })
    }
  }
  const [{ sc }] = await sql`SELECT current_setting('synchronous_commit') AS sc`
  console.log(JSON.stringify({ benchmark: 'write_path', machine: machine(loadavg()[0]!), workspaces: WORKSPACES, seconds_per_run: seconds, synchronous_commit: sc, runs }, null, 2))
} finally {
  await sql.end()
  await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
  await admin.end()
}
