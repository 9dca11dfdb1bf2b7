// Scheduled events: 10,000 events scheduled for the same second, and the same
// 10,000 sent unscheduled, each twice (unscheduled, scheduled, scheduled,
// unscheduled), in one run against PostgreSQL (a database of the
// run's own). Reports how late the scheduled ones reach a member's live
// stream (p50/p99/max after their time; target p99 ≤ 1 s), and the CPU of the
// Herald process and of PostgreSQL's backends per scheduled event against
// per unscheduled event (target ≤ 1.3×): ingest, release and publish against
// ingest and publish. Herald runs in this process (in-process bus, no
// routers), so the generator's and the stream reader's CPU is in both
// phases alike.
//   bun bench/schedule.ts [--events 10000] [--batch 500]
import postgres from 'postgres'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/core/config'
import { createLogger } from '../src/core/log'
import { startHerald } from '../src/server'
import { backendPids, cpuSeconds, dist, machine, round } from './proc'

const { values } = parseArgs({ options: { events: { type: 'string', default: '10000' }, batch: { type: 'string', default: '500' } } })
const N = Number(values.events)
const BATCH = Number(values.batch)
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const TOKEN = 'bench-schedule-admin-token-0123456789'

const dbName = `herald_bench_sched_${Date.now().toString(36)}`
const root = postgres(PG_URL, { max: 1, onnotice: () => {} })
await root.unsafe(`CREATE DATABASE ${dbName}`)
const url = new URL(PG_URL)
url.pathname = `/${dbName}`
const config = loadConfig({
  PORT: '0', HOST: '127.0.0.1', HERALD_ADMIN_TOKEN: TOKEN, HERALD_DATA_DIR: 'memory://', HERALD_DEMO_WORKSPACE: 'false', LOG_LEVEL: 'error',
  DATABASE_URL: url.toString(), HERALD_MAX_SCHEDULED_EVENTS: String(N * 2),
})
const herald = await startHerald(config, createLogger('error'), 'all', { banner: false })
try {
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(herald.url + path, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })
    return res.json() as Promise<any>
  }
  const ws = await admin('POST', '/admin/workspaces', { name: 'bench', monthlyQuota: 10_000_000, rateLimit: { perSecond: 100_000, burst: 100_000 } })
  const member = await admin('POST', '/admin/workspaces/bench/members', { email: 'reader@example.com' })

  // The member's live stream: when each event reached it.
  const seen = new Map<string, number>()
  const res = await fetch(`${herald.url}/v1/feed/stream?workspace=bench`, { headers: { authorization: `Bearer ${member.userToken}` } })
  const reader = res.body!.getReader()
  void (async () => {
    const decoder = new TextDecoder()
    let rest = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      const at = Date.now()
      const lines = (rest + decoder.decode(value, { stream: true })).split('\n')
      rest = lines.pop()!
      for (const l of lines) {
        const m = /"eventId":"([0-9a-f-]{36})"/.exec(l)
        if (m) seen.set(m[1]!, at)
      }
    }
  })()
  await Bun.sleep(500)

  const pgPids = () => backendPids(dbName)
  const meter = () => ({ self: process.cpuUsage(), pg: pgPids().reduce((a, p) => a + cpuSeconds(p), 0) })
  const post = (events: Record<string, unknown>[]) =>
    fetch(`${herald.url}/events`, { method: 'POST', headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ events }) })
      .then((r) => r.json() as Promise<{ results: { eventId?: string }[] }>)
  async function phase(extra: Record<string, unknown>, settle: () => Promise<void>) {
    const before = meter()
    const ids: string[] = []
    for (let i = 0; i < N; i += BATCH) {
      const r = await post(Array.from({ length: Math.min(BATCH, N - i) }, (_, k) => ({ message: `event ${i + k}`, event: 'bench.event', ...extra })))
      for (const x of r.results) if (x.eventId) ids.push(x.eventId)
    }
    if (ids.length !== N) throw new Error(`${ids.length} of ${N} events accepted`)
    const posted = meter()
    await settle()
    while (!ids.every((id) => seen.has(id))) await Bun.sleep(20)
    const after = meter()
    // The idle wait between posting and the due time is not the events' cost: only the release onwards is added.
    const selfS = (posted.self.user + posted.self.system - before.self.user - before.self.system + after.self.user + after.self.system - releaseStart.self.user - releaseStart.self.system) / 1e6
    const pgS = posted.pg - before.pg + after.pg - releaseStart.pg
    return { ids, selfUsPerEvent: (selfS * 1e6) / N, pgUsPerEvent: (pgS * 1e6) / N }
  }
  let releaseStart = meter()

  const plainPhase = () => phase({}, async () => {
    releaseStart = meter()
  })
  const late: number[] = []
  const scheduledPhase = async () => {
    const due = Math.ceil((Date.now() + 15_000) / 1000) * 1000
    const r = await phase({ deliverAt: new Date(due).toISOString() }, async () => {
      await Bun.sleep(Math.max(0, due - 200 - Date.now()))
      releaseStart = meter()
    })
    for (const id of r.ids) late.push(seen.get(id)! - due)
    return r
  }
  // In the order plain, scheduled, scheduled, plain: the tables grow through
  // the run, so a later phase writes into larger indexes; the mirrored order
  // gives both kinds the same average place.
  const phases = [await plainPhase(), await scheduledPhase(), await scheduledPhase(), await plainPhase()]
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  const plain = { selfUsPerEvent: mean([phases[0]!.selfUsPerEvent, phases[3]!.selfUsPerEvent]), pgUsPerEvent: mean([phases[0]!.pgUsPerEvent, phases[3]!.pgUsPerEvent]) }
  const scheduled = { selfUsPerEvent: mean([phases[1]!.selfUsPerEvent, phases[2]!.selfUsPerEvent]), pgUsPerEvent: mean([phases[1]!.pgUsPerEvent, phases[2]!.pgUsPerEvent]) }
  late.sort((a, b) => a - b)
  const d = dist(late)
  const out = {
    bench: 'schedule',
    events: N,
    batch: BATCH,
    lateness_ms: { p50: d.p50, p99: d.p99, max: late[late.length - 1], min: late[0] },
    unscheduled: { herald_cpu_us_per_event: round(plain.selfUsPerEvent, 1), postgres_cpu_us_per_event: round(plain.pgUsPerEvent, 1) },
    scheduled: { herald_cpu_us_per_event: round(scheduled.selfUsPerEvent, 1), postgres_cpu_us_per_event: round(scheduled.pgUsPerEvent, 1) },
    phases: phases.map((p, i) => ({ kind: i === 1 || i === 2 ? 'scheduled' : 'unscheduled', herald_cpu_us_per_event: round(p.selfUsPerEvent, 1), postgres_cpu_us_per_event: round(p.pgUsPerEvent, 1) })),
    ratio: {
      herald_cpu: round(scheduled.selfUsPerEvent / plain.selfUsPerEvent, 2),
      postgres_cpu: round(scheduled.pgUsPerEvent / plain.pgUsPerEvent, 2),
      total_cpu: round((scheduled.selfUsPerEvent + scheduled.pgUsPerEvent) / (plain.selfUsPerEvent + plain.pgUsPerEvent), 2),
    },
    targets: { lateness_p99_ms: 1000, cpu_ratio: 1.3 },
    machine: machine(0),
    runtime: `bun ${Bun.version}`,
    postgres: (await root`SHOW server_version`)[0]!.server_version,
  }
  console.log(JSON.stringify(out, null, 2))
  void reader.cancel().catch(() => {})
} finally {
  await herald.stop()
  await root.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {})
  await root.end()
}
