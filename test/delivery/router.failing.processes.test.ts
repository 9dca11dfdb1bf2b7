// Two Herald processes (`herald start`, real child processes) on one
// PostgreSQL, both sweeping router health: a router whose destination fails
// for ROUTER_FAILING_AFTER_MS gets one e-mail per owner or admin, not one per
// process, and one more when it is disabled. Each transition is claimed by
// one SQL statement (src/delivery/health.ts), whichever process sweeps first.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { createTestDatabase, describePg } from '../harness'
import { adminPost, spawnHerald, type HeraldProcess } from '../processes'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { startSmtp, type Mail } from '../smtp'
import { newEmail } from '../users'

describePg('router health across two processes', () => {
  const procs: HeraldProcess[] = []
  const mails: Mail[] = []
  const dirs: string[] = []
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let dead: Receiver

  beforeAll(async () => {
    db = await createTestDatabase()
    smtp = await startSmtp(mails)
    dead = startReceiver()
    dead.fallback = { status: 503, body: 'down' }
    const key = randomBytes(32).toString('base64')
    for (let i = 0; i < 2; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'herald-health-'))
      dirs.push(dir)
      procs.push(await spawnHerald({
        DATABASE_URL: db.url, HERALD_DATA_DIR: dir, HERALD_SECRET_KEY: key, SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,1s,1s', CIRCUIT_FAILURES: '2', CIRCUIT_COOLDOWN_MS: '1000', CIRCUIT_COOLDOWN_MAX_MS: '1000',
        DELIVERY_SWEEP_INTERVAL_MS: '100', ROUTER_FAILING_AFTER_MS: '1000', ROUTER_DISABLE_AFTER_MS: '4000', HERALD_DEMO_WORKSPACE: 'false',
      }, 'start'))
    }
  }, 60_000)
  afterAll(async () => {
    for (const p of procs) await p.kill()
    dead?.stop()
    await smtp?.close()
    await db?.drop()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }, 30_000)

  test('one failing e-mail and one disabled e-mail per owner or admin, whatever the number of processes', async () => {
    const [a, b] = procs as [HeraldProcess, HeraldProcess]
    const created = await adminPost(a)('/admin/workspaces', { name: 'health-two' })
    expect(created.status).toBe(201)
    const { apiKey } = (await created.json()) as { apiKey: string }
    const owner = newEmail('owner')
    const admin = newEmail('admin')
    expect((await adminPost(a)('/admin/workspaces/health-two/members', { email: owner, role: 'owner' })).status).toBe(201)
    expect((await adminPost(b)('/admin/workspaces/health-two/members', { email: admin, role: 'admin' })).status).toBe(201)
    expect((await adminPost(a)('/admin/workspaces/health-two/routers', { name: 'dead', pattern: '*', destination: { type: 'webhook', url: dead.url } })).status).toBe(201)
    // Events through both processes: each one's threads see the destination fail.
    for (let i = 0; i < 10; i++) {
      for (const p of procs) {
        const res = await fetch(`${p.url}/event`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: `m${i}` }) })
        expect(res.status).toBe(200)
      }
    }
    const to = (who: string, what: RegExp) => mails.filter((m) => m.to.includes(who) && what.test(m.headers.subject ?? ''))
    await eventually(async () => [owner, admin].every((w) => to(w, /was disabled/).length > 0), 20_000, 'the disabled e-mails')
    await Bun.sleep(1500) // many more sweeps of both processes
    for (const w of [owner, admin]) {
      expect(to(w, /is failing/)).toHaveLength(1)
      expect(to(w, /was disabled/)).toHaveLength(1)
    }
  }, 60_000)
})
