// `herald status`, run as a subprocess against real PostgreSQL and NATS: the
// JetStream stream and consumer, the outbox, deliveries by state and the
// workspaces nearest their quota, as text and as JSON; without NATS; and the
// exit codes when PostgreSQL or NATS cannot be reached. Without DATABASE_URL
// (the embedded default), or with --url, it asks the running server instead
// (GET /admin/status) and prints the same.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ADMIN_TOKEN, NATS_URL, describeJs, usePipelineHerald, testStream, useTestHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'
import type { Status } from '../../src/cli/status'

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli', 'main.ts')

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Runs the CLI with exactly the given configuration keys (DATABASE_URL and NATS_URL are not inherited). */
async function herald(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const { DATABASE_URL: _d, NATS_URL: _n, NATS_STREAM: _s, ...inherited } = process.env
  const proc = Bun.spawn([process.execPath, CLI, ...args], { env: { ...inherited, LOG_LEVEL: 'silent', ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

describeJs('herald status', () => {
  // A failed attempt waits an hour for the next: it stays "pending, later".
  const h = usePipelineHerald('jetstream', { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,1h' })
  let rx: Receiver
  let env: Record<string, string>
  beforeAll(async () => {
    rx = startReceiver()
    env = { DATABASE_URL: h.databaseUrl!, NATS_URL: NATS_URL!, NATS_STREAM: h.stream! }
    const rate = { perSecond: 1000, burst: 1000 }
    const near = await h.workspace({ name: 'near', monthlyQuota: 10, rateLimit: rate })
    const half = await h.workspace({ name: 'half', monthlyQuota: 4, rateLimit: rate })
    const low = await h.workspace({ name: 'low', monthlyQuota: 1000, rateLimit: rate })
    await h.workspace({ name: 'idle', monthlyQuota: 100, rateLimit: rate })
    expect((await h.admin('POST', '/admin/workspaces/near/routers', { name: 'hook', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/s` } })).status).toBe(201)
    rx.script = [{ status: 500 }, { status: 400 }] // one retried later, one failed; the other seven succeed
    const post = async (key: string, n: number) => {
      for (let i = 0; i < n; i++) expect((await h.post(key, { message: `m${i}` })).status).toBe(200)
    }
    await post(near.apiKey, 9)
    await post(half.apiKey, 2)
    await post(low.apiKey, 1)
    await rx.waitFor(9)
  }, 30_000)
  afterAll(() => rx?.stop())

  /** `herald status --json` once the pipeline has settled: every event recorded and acknowledged. */
  const settled = () =>
    eventually(async () => {
      const r = await herald(['status', '--json'], env)
      if (r.code !== 0) throw new Error(r.stderr)
      const s = JSON.parse(r.stdout) as Status
      const d = s.deliveries
      return d.succeeded + d.failed + d.pendingLater === 9 && s.jetstream?.consumer?.ackPending === 0 && s.outbox.rows === 0 && s
    }, 15_000, 'the deliveries to be recorded and acknowledged')

  test('--json: stream, consumer, outbox, deliveries by state and the nearest quotas', async () => {
    const s = await settled()
    expect(s.bus).toBe('jetstream')
    expect(s.jetstream!.stream).toMatchObject({ name: h.stream, messages: 0, events: 0, consumers: 1 })
    expect(s.jetstream!.stream.lastSeq).toBe(12)
    expect(s.jetstream!.consumer).toMatchObject({ name: 'herald-workers', pending: 0, ackPending: 0, redelivered: 0 })
    expect(s.jetstream!.consumer!.waiting).toBeGreaterThanOrEqual(0)
    expect(s.outbox).toEqual({ rows: 0, events: 0, oldestAgeSeconds: 0 })
    expect(s.deliveries).toEqual({ pendingDue: 0, pendingLater: 1, succeeded: 7, failed: 1 })
    expect(s.nearestQuota).toEqual([
      { workspace: 'near', used: 9, quota: 10, percent: 90 },
      { workspace: 'half', used: 2, quota: 4, percent: 50 },
      { workspace: 'low', used: 1, quota: 1000, percent: 0.1 },
      { workspace: 'idle', used: 0, quota: 100, percent: 0 },
    ])
  })

  test('text: one section each, the quota table ordered by share used', async () => {
    await settled()
    const r = await herald(['status'], env)
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const out = r.stdout
    expect(out).toContain(`JetStream (${NATS_URL})`)
    expect(out).toMatch(new RegExp(`stream ${h.stream}:\\s+0 messages \\(batches\\) carrying 0 events, 0 B, last sequence 12, 1 consumer\\(s\\)`))
    expect(out).toMatch(/consumer herald-workers:\s+messages: 0 pending, 0 ack pending, 0 redelivered; \d+ waiting pull requests/)
    expect(out).toMatch(/Outbox\n\s+rows:\s+0\n\s+events:\s+0\n\s+oldest:\s+-/)
    expect(out).toMatch(/pending, due now:\s+0\n\s+pending, later:\s+1\n\s+succeeded:\s+7\n\s+failed:\s+1/)
    const table = out.slice(out.indexOf('Nearest their monthly quota')).split('\n').slice(1).map((l) => l.trim().split(/\s+/))
    expect(table.slice(0, 5)).toEqual([
      ['WORKSPACE', 'USED', 'QUOTA', 'PERCENT'],
      ['near', '9', '10', '90.0%'],
      ['half', '2', '4', '50.0%'],
      ['low', '1', '1000', '0.1%'],
      ['idle', '0', '100', '0.0%'],
    ])
  })

  test('a stream no Herald has created yet is reported, not an error', async () => {
    const r = await herald(['status'], { ...env, NATS_STREAM: testStream() })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('does not exist yet')
    expect(r.stdout).toContain('Nearest their monthly quota')
  })

  test('without NATS_URL it prints the rest and says the bus is in-process', async () => {
    const r = await herald(['status'], { DATABASE_URL: env.DATABASE_URL! })
    expect(r.code).toBe(0)
    expect(r.stdout).toStartWith('Bus: in-process')
    expect(r.stdout).toContain('near')
    const s = JSON.parse((await herald(['status', '--json'], { DATABASE_URL: env.DATABASE_URL! })).stdout) as Status
    expect(s).toMatchObject({ bus: 'in-process', jetstream: null })
  })

  test('--url asks the server instead, and prints the same numbers', async () => {
    const direct = await settled()
    const r = await herald(['status', '--url', h.url, '--json'], { ...env, HERALD_ADMIN_TOKEN: ADMIN_TOKEN })
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout) as Status
    expect(s).toMatchObject({ bus: 'jetstream', outbox: direct.outbox, deliveries: direct.deliveries, nearestQuota: direct.nearestQuota })
    // This server consumes too (herald start): it reads the workers' consumer.
    expect(s.jetstream).toMatchObject({ stream: { name: h.stream, lastSeq: 12 }, consumer: { name: 'herald-workers', pending: 0, ackPending: 0 } })
    const text = await herald(['status', '--url', h.url], { HERALD_ADMIN_TOKEN: ADMIN_TOKEN })
    expect(text.stdout).toStartWith(`JetStream (as ${h.url} sees it)\n`)
    expect(text.stdout).toMatch(/pending, due now:\s+0\n\s+pending, later:\s+1\n\s+succeeded:\s+7\n\s+failed:\s+1/)
  })

  test('NATS that cannot be reached: exit 1 and a message naming it', async () => {
    const r = await herald(['status'], { ...env, NATS_URL: 'nats://127.0.0.1:1' })
    expect(r.code).toBe(1)
    expect(r.stderr).toStartWith('error: cannot reach NATS at nats://127.0.0.1:1')
  }, 30_000)

  test('PostgreSQL that cannot be reached: exit 1 and a message naming it, without the password', async () => {
    const r = await herald(['status'], { ...env, DATABASE_URL: 'postgres://herald:s3cret@127.0.0.1:1/none' })
    expect(r.code).toBe(1)
    expect(r.stderr).toStartWith('error: cannot reach PostgreSQL at postgres://127.0.0.1:1/none')
    expect(r.stderr).not.toContain('s3cret')
  }, 30_000)
})

describe('herald status without a database', () => {
  test('no DATABASE_URL and no server: exit 1, naming the server and DATABASE_URL', async () => {
    const r = await herald(['status'], { HERALD_URL: 'http://127.0.0.1:1', HERALD_ADMIN_TOKEN: 'any-token' })
    expect(r.code).toBe(1)
    expect(r.stderr).toStartWith('error: cannot reach Herald at http://127.0.0.1:1')
    expect(r.stderr).toContain('set DATABASE_URL')
  })

  test('usage errors exit 2', async () => {
    expect((await herald(['status', 'now'])).code).toBe(2)
    expect((await herald(['status', '--quota', '3'])).code).toBe(2)
  })
})

describe('herald status on the embedded default, through the API', () => {
  const h = useTestHerald('embedded')
  beforeAll(async () => {
    const near = await h.workspace({ name: 'emb-near', monthlyQuota: 4 })
    await h.workspace({ name: 'emb-idle', monthlyQuota: 100 })
    for (let i = 0; i < 3; i++) expect((await h.post(near.apiKey, { message: `m${i}` })).status).toBe(200)
  }, 30_000)
  const env = () => ({ HERALD_URL: h.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN })

  test('--json: what GET /admin/status answers', async () => {
    const r = await herald(['status', '--json'], env())
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout) as Status
    expect(s).toMatchObject({ bus: 'in-process', jetstream: null, deliveries: { pendingDue: 0, pendingLater: 0, succeeded: 0, failed: 0 } })
    expect(s.outbox.rows).toBeGreaterThanOrEqual(0)
    expect(s.nearestQuota.slice(0, 2)).toEqual([
      { workspace: 'emb-near', used: 3, quota: 4, percent: 75 },
      { workspace: 'emb-idle', used: 0, quota: 100, percent: 0 },
    ])
    expect(await (await h.admin('GET', '/admin/status')).json()).toMatchObject({ bus: 'in-process', nearestQuota: s.nearestQuota })
  })

  test('text: the same sections as with DATABASE_URL', async () => {
    const r = await herald(['status'], env())
    expect(r.code).toBe(0)
    expect(r.stdout).toStartWith('Bus: in-process')
    expect(r.stdout).toMatch(/Outbox\n\s+rows:/)
    expect(r.stdout).toMatch(/Deliveries \(pending: all; succeeded and failed: of the last 24 h's events\)\n/)
    expect(r.stdout).toMatch(/Nearest their monthly quota\n\s+WORKSPACE\s+USED\s+QUOTA\s+PERCENT\n\s+emb-near\s+3\s+4\s+75\.0%/)
  })

  test('the operator token is checked: a wrong one exits 1 with the server\'s words', async () => {
    const r = await herald(['status'], { HERALD_URL: h.url, HERALD_ADMIN_TOKEN: 'wrong-token-abcdefghijklmnop' })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('error: The admin token is wrong: it is not the HERALD_ADMIN_TOKEN this server was started with.\n')
  })
})
