// Receipts are rows in PostgreSQL, and their repeats are claimed there: two
// API and two worker processes on one PostgreSQL and one JetStream send each
// repeat once; a Herald stopped in the middle of a receipt's life and started
// again goes on with it (on the embedded default and on PostgreSQL); and a
// NATS outage does not stop the repeats, nor the acknowledgement.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ADMIN_TOKEN, NATS_URL, PG_URL, backends, createTestDatabase } from '../harness'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { startHerald, type Herald } from '../../src/server'
import { eventually } from '../receiver'
import { caseProcesses, caseSetup, cleanups, query } from '../faults/fixture'
import postgres from 'postgres'
import { fireDueReceipts } from '../../src/delivery/receipt_timer'
import { apnsToken, pushStandIns } from './receipts_fixture'

setDefaultTimeout(120_000)

/** What a test does through a Herald's HTTP API: the operator, a key, a person. */
function api(url: string) {
  const call = (method: string, path: string, token: string, body?: unknown) =>
    fetch(url + path, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) })
  return {
    call,
    async workspace(name: string) {
      const res = await call('POST', '/admin/workspaces', ADMIN_TOKEN, { name, rateLimit: { perSecond: 1000, burst: 1000 } })
      expect(res.status).toBe(201)
      return ((await res.json()) as { apiKey: string }).apiKey
    },
    async memberWithPhone(ws: string, email: string) {
      const res = await call('POST', `/admin/workspaces/${ws}/members`, ADMIN_TOKEN, { email })
      expect(res.status).toBe(201)
      const m = (await res.json()) as { userId: string; userToken: string }
      const device = apnsToken()
      expect((await call('POST', '/v1/devices', m.userToken, { platform: 'ios', provider: 'apns', token: device, environment: 'sandbox' })).status).toBe(201)
      return { ...m, device }
    },
    async send(key: string, body: Record<string, unknown>) {
      const res = await call('POST', '/event', key, { message: 'pager', ack: { retry: 30, expire: 3600 }, ...body })
      expect(res.status).toBe(200)
      return (await res.json()) as { eventId: string; receipt: string }
    },
  }
}

/** `seconds` pass for every pending receipt (their rows' times move back). */
const ELAPSE = `UPDATE receipts SET created_at = created_at - $1 * interval '1 s', expires_at = expires_at - $1 * interval '1 s',
  next_repeat_at = next_repeat_at - $1 * interval '1 s', next_push_at = next_push_at - $1 * interval '1 s' WHERE status = 'pending'`

const describeJs = PG_URL && NATS_URL ? describe : describe.skip

describeJs('two API and two worker processes on PostgreSQL and NATS', () => {
  const c = cleanups(60_000)
  let push: Awaited<ReturnType<typeof pushStandIns>>
  beforeAll(async () => {
    push = await pushStandIns()
    c.add(() => push.close())
  }, 30_000)

  test('each repeat of each receipt goes out once, whichever worker claims it', async () => {
    const { db, env } = await caseSetup(c, { nats: 'shared', env: { ...push.env } })
    const { apis } = await caseProcesses(c, env, { apis: 2, workers: 2 })
    const [a, b] = apis.map((p) => api(p.url))
    const key = await a!.workspace('twice')
    const phones = await Promise.all([0, 1, 2].map((i) => a!.memberWithPhone('twice', `p${i}@example.com`)))
    const sent = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a! : b!).send(key, { message: `alert ${i}` })))
    const ids = new Set(sent.map((s) => s.eventId))
    const ours = () => push.apns.seen.filter((s) => ids.has(JSON.parse(s.body).eventId))
    await eventually(async () => ours().length === 90, 30_000, 'the first pushes')
    for (let n = 1; n <= 3; n++) {
      await query(db.url, ELAPSE, [30])
      await eventually(async () => ours().length >= 90 * (n + 1), 30_000, `repeat ${n}`)
    }
    await Bun.sleep(2000)
    const seen = ours()
    expect(seen).toHaveLength(360) // 30 events × 3 phones × (1 + 3 repeats): none twice
    expect(new Set(seen.map((s) => String(s.headers['apns-id']))).size).toBe(360)
    for (const s of sent) {
      for (const p of phones) expect(seen.filter((x) => x.token === p.device && JSON.parse(x.body).eventId === s.eventId)).toHaveLength(4)
    }
    const [row] = await query<{ n: number }>(db.url, `SELECT count(*)::int AS n FROM deliveries WHERE kind = 'push' AND repeat > 0 AND status = 'succeeded'`)
    expect(row!.n).toBe(270)
  })
})

describeJs('a NATS outage during repeats', () => {
  const c = cleanups(60_000)
  let push: Awaited<ReturnType<typeof pushStandIns>>
  beforeAll(async () => {
    push = await pushStandIns()
    c.add(() => push.close())
  }, 30_000)

  test('with NATS down, the repeats go on from PostgreSQL, and the acknowledgement stops them', async () => {
    const setup = await caseSetup(c, { nats: 'private', stream: 'HERALD_RECEIPTS', env: { ...push.env } })
    const { db, env } = setup
    const nats = setup.nats!
    const { api: proc } = await caseProcesses(c, env)
    const h = api(proc.url)
    const key = await h.workspace('outage')
    const phone = await h.memberWithPhone('outage', 'oncall@example.com')
    const { eventId, receipt } = await h.send(key, {})
    const ours = () => push.apns.seen.filter((s) => JSON.parse(s.body).eventId === eventId)
    await eventually(async () => ours().length === 1, 20_000, 'the first push')
    await nats.kill('SIGKILL')
    for (let n = 1; n <= 2; n++) {
      await query(db.url, ELAPSE, [30])
      await eventually(async () => ours().length === n + 1, 20_000, `repeat ${n} with NATS down`)
    }
    const res = await h.call('POST', `/v1/workspaces/outage/receipts/${receipt}/ack`, phone.userToken)
    expect(res.status).toBe(200)
    await query(db.url, ELAPSE, [60])
    await Bun.sleep(2500)
    expect(ours()).toHaveLength(3)
    await nats.start()
    await Bun.sleep(2000)
    expect(ours()).toHaveLength(3)
    const [r] = await query<{ status: string }>(db.url, 'SELECT status FROM receipts WHERE id = $1', [receipt])
    expect(r!.status).toBe('acknowledged')
  })
})

for (const backend of backends) {
  describe(`a restart in the middle of a receipt's life (${backend})`, () => {
    let push: Awaited<ReturnType<typeof pushStandIns>>
    let dir: string
    let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined
    beforeAll(async () => {
      push = await pushStandIns()
      dir = mkdtempSync(join(tmpdir(), 'herald-receipt-restart-'))
      if (backend === 'postgres') db = await createTestDatabase()
    }, 30_000)
    afterAll(async () => {
      await push?.close()
      await db?.drop()
      rmSync(dir, { recursive: true, force: true })
    }, 30_000)

    const start = (): Promise<Herald> => startHerald(loadConfig({
      PORT: '0', HOST: '127.0.0.1', HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_DATA_DIR: dir, HERALD_DEMO_WORKSPACE: 'false', LOG_LEVEL: 'silent',
      ...(db ? { DATABASE_URL: db.url } : {}), ...push.env,
    }), createLogger('silent'), 'all', { banner: false })

    test('repeats go on after the restart, numbered on, once each; the acknowledgement then stops them', async () => {
      let herald = await start()
      let h = api(herald.url)
      const key = await h.workspace('restart')
      const phone = await h.memberWithPhone('restart', 'oncall@example.com')
      const { eventId, receipt } = await h.send(key, {})
      const ours = () => push.apns.seen.filter((s) => JSON.parse(s.body).eventId === eventId)
      await eventually(async () => ours().length === 1, 15_000, 'the first push')
      await herald.db.sql.unsafe(ELAPSE, [30])
      await eventually(async () => ours().length === 2, 10_000, 'repeat 1')
      await herald.stop()
      herald = await start()
      h = api(herald.url)
      const read = async () => (await (await h.call('GET', `/receipts/${receipt}`, key)).json()) as Record<string, unknown>
      expect(await read()).toMatchObject({ status: 'pending', pushes: 2 })
      await herald.db.sql.unsafe(ELAPSE, [30])
      await eventually(async () => ours().length === 3, 10_000, 'repeat 2, after the restart')
      await Bun.sleep(1000)
      expect(ours()).toHaveLength(3)
      expect(new Set(ours().map((s) => String(s.headers['apns-id']))).size).toBe(3)
      expect((await h.call('POST', `/v1/workspaces/restart/receipts/${receipt}/ack`, phone.userToken)).status).toBe(200)
      await herald.db.sql.unsafe(ELAPSE, [30])
      await Bun.sleep(1500)
      expect(ours()).toHaveLength(3)
      expect(await read()).toMatchObject({ status: 'acknowledged', pushes: 3 })
      await herald.stop()
    })

    if (backend === 'postgres') {
      test('a worker that queued a repeat leased to itself and died: another sends it once its lease runs out', async () => {
        let herald = await start()
        const h = api(herald.url)
        const key = await h.workspace('died')
        await h.memberWithPhone('died', 'oncall-died@example.com')
        const { eventId, receipt } = await h.send(key, {})
        const ours = () => push.apns.seen.filter((s) => JSON.parse(s.body).eventId === eventId)
        await eventually(async () => ours().length === 1, 15_000, 'the first push')
        await herald.stop()
        // The dead worker: it claimed the receipt and queued its repeat, leased to itself for 6 s, and sent nothing.
        const sql = postgres(db!.url, { max: 1, onnotice: () => {} })
        let firedAt = 0
        try {
          await sql.unsafe(ELAPSE, [30])
          firedAt = Date.now()
          const fired = await fireDueReceipts(sql as never, 100, () => true, 6000)
          expect(fired.leased).toHaveLength(1)
          const [row] = await sql<{ status: string; attempts: number }[]>`SELECT status, attempts FROM deliveries WHERE id = ${fired.leased[0]!.id}`
          expect(row).toEqual({ status: 'pending', attempts: 0 })
        } finally {
          await sql.end()
        }
        herald = await start()
        await Bun.sleep(Math.max(0, firedAt + 4000 - Date.now()))
        expect(ours()).toHaveLength(1) // still leased to the dead worker
        await eventually(async () => ours().length === 2, 15_000, 'the repeat, sent by the next worker')
        await Bun.sleep(1500)
        expect(ours()).toHaveLength(2)
        expect((await (await api(herald.url).call('GET', `/receipts/${receipt}`, key)).json()).pushes).toBe(2)
        await herald.stop()
      })
    }
  })
}
