// One workspace's dead destination against another workspace's retries
// (issue 30, item 5). Herald (`herald start`, PostgreSQL, the in-process bus)
// with two workspaces:
// - B posts --rate-b events/s to a healthy webhook that refuses the first
//   attempt of 1 delivery in 10 with a 503: its retry is due 5 s later
//   (HERALD_RETRY_SCHEDULE 0s,5s,5m);
// - A, during the noisy phase only, posts --rate-a events/s to a webhook that
//   accepts connections and never answers: its deliveries pile up, held by
//   the circuit.
// First a quiet phase (B alone), then a noisy one (A and B). Reported per
// phase: B's retry lateness (arrival − (first attempt + 5 s)) p50/p99, and
// B's first attempts' latency (arrival − post) p50/p99; the noisy/quiet
// ratio of that p99; and A's deliveries still pending at the end.
//
//   bun bench/dead_destination.ts [--quiet 20] [--noisy 60] [--rate-a 200] [--rate-b 20]
//
// Run it from the tree whose Herald it measures (the script starts
// src/cli/main.ts next to it): copy it into a worktree of another commit to
// compare.
import { parseArgs } from 'node:util'
import { createServer, type Socket } from 'node:net'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { ADMIN_TOKEN, DATABASE_URL, createWebhookRouter, createWorkspace, harness, intFlag, now, stampOf } from './harness'
import { dist, machine, round } from './proc'
import { loadavg } from 'node:os'

const h = harness('dead_destination')
const { values: flags } = parseArgs({
  options: {
    quiet: { type: 'string', default: '20' },
    noisy: { type: 'string', default: '60' },
    'rate-a': { type: 'string', default: '200' },
    'rate-b': { type: 'string', default: '20' },
  },
})
const RETRY_MS = 5000
const TAIL_S = 12 // after the noisy phase: B's last retries come in
const TICK_MS = 20

interface Phase { first: number[]; late: number[] }

/** B's receiver: refuses the first attempt of every tenth event with a 503; times first attempts and retries. */
function startB(phaseOf: () => Phase | null) {
  const firstAt = new Map<string, { at: number; phase: Phase }>()
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const at = now()
      const id = req.headers.get('webhook-id') ?? ''
      const m = /"message":"b (\d+) (\d+(?:\.\d+)?)"/.exec(await req.text())
      if (!m) return new Response('ok')
      const seen = firstAt.get(id)
      if (seen) {
        seen.phase.late.push(at - seen.at - RETRY_MS)
        firstAt.delete(id)
        return new Response('ok')
      }
      const phase = phaseOf()
      if (!phase) return new Response('ok')
      phase.first.push(at - Number(m[2]))
      if (Number(m[1]) % 10 === 0) {
        firstAt.set(id, { at, phase })
        return new Response('refused on purpose', { status: 503 })
      }
      return new Response('ok')
    },
  })
  h.cleanups.push(() => server.stop(true))
  return { url: `http://127.0.0.1:${server.port}/b`, waiting: () => firstAt.size }
}

/** A's receiver: accepts every connection and never answers. */
async function startA() {
  const sockets: Socket[] = []
  const server = createServer((s) => {
    sockets.push(s)
    s.on('error', () => {})
  })
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res))
  h.cleanups.push(() => {
    for (const s of sockets) s.destroy()
    server.close()
  })
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/a`
}

/** Posts `rate` events/s with `message(i)` until `stop()`; counts the answers that were not 200. */
function load(base: string, key: string, rate: number, message: (i: number) => string) {
  let i = 0
  let errors = 0
  const start = now()
  const timer = setInterval(() => {
    const due = Math.floor(((now() - start) / 1000) * rate)
    for (; i < due; i++) {
      fetch(`${base}/event`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: message(i) }) })
        .then((r) => (r.status === 200 ? r.arrayBuffer() : (errors++, r.arrayBuffer())))
        .catch(() => errors++)
    }
  }, TICK_MS)
  return { stop: () => clearInterval(timer), sent: () => i, errors: () => errors }
}

const figures = (p: Phase) => ({
  first_attempts: p.first.length,
  first_ms: dist(p.first.sort((a, b) => a - b)),
  retries: p.late.length,
  retry_late_ms: dist(p.late.sort((a, b) => a - b)),
})

await h.run(async () => {
  const started = new Date()
  const params = { quiet_s: intFlag(flags, 'quiet', 1), noisy_s: intFlag(flags, 'noisy', 1), rate_a: intFlag(flags, 'rate-a', 1), rate_b: intFlag(flags, 'rate-b', 1), retry_schedule: '0s,5s,5m' }
  const load1m = loadavg()[0]!
  const db = await h.createDatabase(DATABASE_URL, `herald_bench_dd_${stampOf(started)}`)
  const tmp = h.tempDir('herald-bench-dead-')
  const env: Record<string, string | undefined> = {
    ...process.env, HOST: '127.0.0.1', DATABASE_URL: db.url, NATS_URL: undefined, HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
    LOG_LEVEL: 'warn', HERALD_SECRET_KEY: randomBytes(32).toString('base64'), HERALD_DATA_DIR: join(tmp, 'data'), HERALD_RETRY_SCHEDULE: params.retry_schedule,
  }
  const { base } = await h.startApi('start', env, join(tmp, 'start.log'))
  let phase: Phase | null = null
  const b = startB(() => phase)
  const aUrl = await startA()
  const keyA = await createWorkspace(base, 'ws-a')
  const keyB = await createWorkspace(base, 'ws-b')
  await createWebhookRouter(base, 'ws-a', 'dead', aUrl)
  await createWebhookRouter(base, 'ws-b', 'healthy', b.url)

  const quiet: Phase = { first: [], late: [] }
  const noisy: Phase = { first: [], late: [] }
  h.progress(`quiet: B alone at ${params.rate_b}/s for ${params.quiet_s} s`)
  phase = quiet
  const loadB = load(base, keyB, params.rate_b, (i) => `b ${i} ${now()}`)
  await Bun.sleep(params.quiet_s * 1000 + RETRY_MS) // the quiet phase's last retries come in before A starts
  h.progress(`noisy: A at ${params.rate_a}/s to a receiver that never answers, for ${params.noisy_s} s`)
  phase = noisy
  const loadA = load(base, keyA, params.rate_a, (i) => `a ${i}`)
  await Bun.sleep(params.noisy_s * 1000)
  loadA.stop()
  phase = null
  h.progress(`tail: ${TAIL_S} s for B's last retries`)
  await Bun.sleep(TAIL_S * 1000)
  loadB.stop()
  const [pending] = await db.sql<{ a: number; b: number; a_attempted: number }[]>`
    SELECT count(*) FILTER (WHERE w.name = 'ws-a')::int AS a, count(*) FILTER (WHERE w.name = 'ws-b')::int AS b,
      count(*) FILTER (WHERE w.name = 'ws-a' AND d.attempts > 0)::int AS a_attempted
    FROM deliveries d JOIN workspaces w ON w.id = d.workspace_id WHERE d.status = 'pending'`
  const q = figures(quiet)
  const n = figures(noisy)
  h.saveReport(started, {
    benchmark: 'dead_destination',
    started: started.toISOString(),
    machine: machine(load1m),
    note: 'shared machine: other processes may take the cores; compare runs made side by side',
    params,
    quiet: q,
    noisy: n,
    b_first_p99_noisy_vs_quiet: round(n.first_ms.p99 / q.first_ms.p99, 2),
    b_retries_unanswered: b.waiting(),
    pending_at_end: pending,
    post_errors: { a: loadA.errors(), b: loadB.errors() },
    targets: { b_retry_late_p99_ms: { target: '< 2000', value: n.retry_late_ms.p99, pass: n.retry_late_ms.p99 < 2000 && b.waiting() === 0 } },
  })
})
