// A destination that never comes back, on the embedded default and on
// PostgreSQL, with a real Herald, a real receiver that answers 503 and a
// real SMTP receiver: every delivery ends failed once its retry schedule has
// run out (although the circuit held most of them without an attempt), with
// a clear error, counted in /metrics; the router shows as failing; its owner
// and admin get one e-mail each; after ROUTER_DISABLE_AFTER_MS it is
// disabled, with one more e-mail. Owners can cancel a router's pending
// deliveries at once, and a retry under way does not bring them back.
import { beforeAll, afterAll, describe, expect, test } from 'bun:test'
import { backends, useMailedHerald, type TestHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { scrapeMetrics, sample } from '../exposition'
import { newEmail } from '../users'
import { EXHAUSTED } from '../../src/delivery/health'
import { join } from 'node:path'
import { ADMIN_TOKEN } from '../harness'

/** `herald …` as a subprocess against `h`, as an operator: its stdout. */
async function cli(h: TestHerald, ...args: string[]): Promise<string> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, '..', '..', 'src', 'cli', 'main.ts'), ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', HERALD_URL: h.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN }, stdout: 'pipe', stderr: 'pipe',
  })
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
  expect(code).toBe(0)
  return out
}

const SPAN_MS = 2000 // the schedule below
const GRACE_MS = 6000 // long enough for the cancel test to find its deliveries still pending on a loaded machine
const env = {
  HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
  HERALD_RETRY_SCHEDULE: '0s,1s,1s',
  WORKER_THREADS: '1',
  CIRCUIT_FAILURES: '2',
  CIRCUIT_COOLDOWN_MS: '1000',
  CIRCUIT_COOLDOWN_MAX_MS: '1000',
  DELIVERY_EXPIRY_GRACE_MS: String(GRACE_MS),
  DELIVERY_SWEEP_INTERVAL_MS: '200',
  ROUTER_FAILING_AFTER_MS: '1500',
  ROUTER_DISABLE_AFTER_MS: '14000', // after the expiry of the first test's deliveries
}

interface Row { status: string; attempts: number; error: string | null }
const deliveriesOf = (h: TestHerald, router: string) =>
  h.db.sql<Row[]>`SELECT status, attempts, last_error AS error FROM deliveries WHERE target = ${router}`

async function makeRouter(h: TestHerald, ws: string, name: string, url: string): Promise<string> {
  const res = await h.admin('POST', `/admin/workspaces/${ws}/routers`, { name, pattern: '*', destination: { type: 'webhook', url } })
  expect(res.status).toBe(201)
  return ((await res.json()) as { id: string }).id
}

for (const backend of backends) {
  describe(`a destination that never comes back (${backend})`, () => {
    const dead: Receiver[] = []
    beforeAll(() => {
      dead.push(startReceiver(), startReceiver())
      dead[0]!.fallback = { status: 503, body: 'down' }
      dead[1]!.fallback = { status: 503, body: 'down', delayMs: 1500 } // slow: a retry is under way when its deliveries are cancelled
    })
    afterAll(() => dead.forEach((r) => r.stop()))
    const { h, smtp } = useMailedHerald(backend, env, 60_000)

    test('every delivery fails once its schedule has run out, with a clear error and counted; the router shows failing, then is disabled; one e-mail each time', async () => {
      const { name: ws, apiKey } = await h.workspace()
      const owner = newEmail('owner')
      const admin = newEmail('admin')
      expect((await h.admin('POST', `/admin/workspaces/${ws}/members`, { email: owner, role: 'owner' })).status).toBe(201)
      expect((await h.admin('POST', `/admin/workspaces/${ws}/members`, { email: admin, role: 'admin' })).status).toBe(201)
      const router = await makeRouter(h, ws, 'dead', dead[0]!.url)
      const expiredBefore = (await scrapeMetrics(h.url)).get(sample('herald_deliveries_expired_total', { kind: 'router' })) ?? 0
      for (let i = 0; i < 20; i++) expect((await h.post(apiKey, { message: `m${i}` })).status).toBe(200)
      const posted = Date.now()

      // Failing, and said so: state, since when, the last error.
      const failing = await eventually(async () => {
        const r = (await (await h.admin('GET', `/admin/workspaces/${ws}/routers/${router}`)).json()) as { enabled: boolean; health: { state: string; since: string; lastError: string } | null }
        return r.health?.state === 'failing' && r
      }, 10_000, 'the router shown as failing')
      expect(failing.enabled).toBe(true)
      expect(Date.parse(failing.health!.since)).toBeGreaterThan(posted - 30_000)
      expect(failing.health!.lastError).toContain('503')
      const listed = (await (await h.admin('GET', `/admin/workspaces/${ws}/routers`)).json()) as { id: string; health: { state: string } | null }[]
      expect(listed.find((r) => r.id === router)!.health!.state).toBe('failing')
      expect(await cli(h, 'router', 'list', ws)).toMatch(/dead .* failing since \d{4}-\d\d-\d\d/)
      expect(await cli(h, 'router', 'show', ws, 'dead')).toContain('503')

      // Every delivery failed within the span plus the grace (and the sweep's interval, with room for a loaded machine).
      const rows = await eventually(async () => {
        const rows = await deliveriesOf(h, router)
        return rows.length === 20 && rows.every((r) => r.status === 'failed') && rows
      }, SPAN_MS + GRACE_MS + 8000, 'every delivery failed')
      expect(Date.now() - posted).toBeLessThan(SPAN_MS + GRACE_MS + 8000)
      const exhausted = rows.filter((r) => r.error?.startsWith(EXHAUSTED))
      // Those the circuit held ran out of time, not attempts; at most a few made all three.
      expect(exhausted.length).toBeGreaterThanOrEqual(15)
      for (const r of rows) if (r.attempts < 3) expect(r.error).toMatch(/^retries exhausted: destination unreachable since \d{4}-\d\d-\d\dT/)
      const metrics = await scrapeMetrics(h.url)
      expect(metrics.get(sample('herald_deliveries_expired_total', { kind: 'router' }))! - expiredBefore).toBeGreaterThanOrEqual(exhausted.length)
      expect(metrics.get(sample('herald_deliveries_failed_last_hour'))).toBeGreaterThanOrEqual(20)

      // One e-mail to each of the owner and the admin, not one per delivery.
      const about = (to: string, what: RegExp) => smtp.mails.filter((m) => m.to.includes(to) && what.test(m.headers.subject ?? ''))
      await eventually(async () => about(owner, /is failing/).length > 0 && about(admin, /is failing/).length > 0, 5000, 'the failing e-mails')
      expect(about(owner, /is failing/)[0]!.body).toContain('503')

      // Disabled after ROUTER_DISABLE_AFTER_MS, with one more e-mail.
      const disabled = await eventually(async () => {
        const r = (await (await h.admin('GET', `/admin/workspaces/${ws}/routers/${router}`)).json()) as { enabled: boolean; health: { state: string } | null }
        return !r.enabled && r
      }, 20_000, 'the router disabled')
      expect(disabled.health!.state).toBe('disabled')
      await eventually(async () => about(owner, /was disabled/).length > 0 && about(admin, /was disabled/).length > 0, 5000, 'the disabled e-mails')
      await Bun.sleep(1000) // more sweeps: still one of each
      for (const to of [owner, admin]) {
        expect(about(to, /is failing/)).toHaveLength(1)
        expect(about(to, /was disabled/)).toHaveLength(1)
      }
    }, 60_000)

    test("cancelling a router's pending deliveries ends them all, and a retry under way does not bring one back", async () => {
      const { name: ws, apiKey } = await h.workspace()
      const router = await makeRouter(h, ws, 'slow', dead[1]!.url)
      const before = dead[1]!.received.length
      for (let i = 0; i < 5; i++) expect((await h.post(apiKey, { message: `m${i}` })).status).toBe(200)
      await eventually(async () => (await deliveriesOf(h, router)).length === 5, 10_000, 'the deliveries')
      // A retry (the second attempt, 1 s after the first) under way: its request arrived, its answer not yet.
      await eventually(async () => dead[1]!.received.length > before + 5, 10_000, 'a retry under way')
      expect(await cli(h, 'router', 'cancel-pending', ws, 'slow')).toContain('Cancelled 5 pending deliveries')
      await Bun.sleep(2500) // the retry under way has answered, and been recorded
      const rows = await deliveriesOf(h, router)
      expect(rows.map((r) => r.status)).toEqual(Array(5).fill('cancelled'))
      expect(rows.every((r) => r.error === 'cancelled by an owner')).toBe(true)
      const listed = await h.admin('GET', `/admin/workspaces/${ws}/deliveries?state=cancelled`)
      expect(listed.status).toBe(200)

      // Bad input: a clear 400; an unknown router: 404.
      expect((await h.admin('POST', `/admin/workspaces/${ws}/routers/${router}/deliveries/settle`, { state: 'succeeded' })).status).toBe(400)
      expect((await h.admin('POST', `/admin/workspaces/${ws}/routers/${Bun.randomUUIDv7()}/deliveries/settle`, { state: 'failed' })).status).toBe(404)
    }, 30_000)
  })
}
