// Scale-out, as compose.yaml runs it: two API processes and two worker
// processes (real child processes, on ports chosen at random) on one
// PostgreSQL and one NATS JetStream. 20,000 events across 50 workspaces, sent
// to both APIs at once; every workspace has a webhook router, ten also have a
// member with an iPhone and an Android phone, ten have a quota smaller than
// what is sent. Then: every accepted event is stored once; every router
// delivery and every push happened; the quotas are exact; and no delivery was
// made twice, except at-least-once copies that carry the same delivery id.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import postgres from 'postgres'
import { ADMIN_TOKEN, NATS_URL, PG_URL, createTestDatabase, deleteStream, describePg, testStream } from '../harness'
import { spawnHerald, type HeraldProcess } from '../processes'
import { eventually } from '../receiver'
import { CA_FILE, TEAM, TOPIC, startApns, startGoogle, writeCredentials, type ApnsStandIn, type GoogleStandIn } from '../stand_ins'

setDefaultTimeout(240_000)

const WORKSPACES = 50
const PER_WORKSPACE = 400 // 20,000 in all
const LIMITED = 10 // workspaces whose quota is below what they are sent
const QUOTA = 300
const WITH_DEVICES = 10
const CLIENTS = 48
const KID = 'SCALEKEY01'

const describeScale = PG_URL && NATS_URL ? describePg : describePg.skip

describeScale('two API and two worker processes on one PostgreSQL and one JetStream', () => {
  const procs: HeraldProcess[] = []
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let stream: string
  let apns: ApnsStandIn
  let google: GoogleStandIn
  let dir: string
  // What the webhook receiver got: per event id, the webhook-ids it came with.
  const webhooks = new Map<string, string[]>()
  let receiver: ReturnType<typeof Bun.serve>

  beforeAll(async () => {
    receiver = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(req) {
        const { data } = (await req.json()) as { data: { eventId: string } }
        const ids = webhooks.get(data.eventId) ?? []
        ids.push(req.headers.get('webhook-id')!)
        webhooks.set(data.eventId, ids)
        return new Response('ok')
      },
    })
    apns = await startApns()
    apns.kid = KID
    google = startGoogle()
    dir = mkdtempSync(join(tmpdir(), 'herald-scale-'))
    const creds = writeCredentials(dir, `${google.url}/token`)
    db = await createTestDatabase()
    stream = testStream()
    const env = {
      DATABASE_URL: db.url, NATS_URL: NATS_URL!, NATS_STREAM: stream, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: CA_FILE,
      APNS_KEY_FILE: creds.p8, APNS_KEY_ID: KID, APNS_TEAM_ID: TEAM, APNS_TOPIC: TOPIC, APNS_ORIGIN: apns.origin,
      FCM_SERVICE_ACCOUNT_FILE: creds.account, FCM_ORIGIN: google.url, GOOGLE_OAUTH_TOKEN_URL: `${google.url}/token`,
    }
    for (const cmd of ['serve', 'serve', 'worker', 'worker']) procs.push(await spawnHerald(env, cmd))
  }, 120_000)

  afterAll(async () => {
    for (const p of procs) await p.kill('SIGTERM').catch(() => {})
    receiver?.stop(true)
    await apns?.close()
    google?.stop()
    if (stream) await deleteStream(stream)
    await db?.drop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  test('20,000 events across 50 workspaces: stored once, every delivery and push made, quotas exact, duplicates only under one id', async () => {
    const [api1, api2] = procs
    const admin = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(api1!.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
      return res.json() as Promise<Record<string, string>>
    }
    // --- the workspaces, their routers, and the people with phones
    const spaces: { name: string; key: string; quota: number; tokens: string[] }[] = []
    for (let i = 0; i < WORKSPACES; i++) {
      const name = `scale-${i}`
      const quota = i < LIMITED ? QUOTA : 1_000_000
      const { apiKey } = await admin('POST', '/admin/workspaces', { name, monthlyQuota: quota, rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } })
      await admin('POST', `/admin/workspaces/${name}/routers`, { name: 'all', pattern: '*', destination: { type: 'webhook', url: `http://127.0.0.1:${receiver.port}/${name}` } })
      const tokens: string[] = []
      if (i >= WORKSPACES - WITH_DEVICES) {
        const { userToken } = await admin('POST', `/admin/workspaces/${name}/members`, { email: `phone-${i}@example.com` })
        const ios = randomBytes(32).toString('hex')
        const android = `fcm-${i}-${randomBytes(6).toString('hex')}`
        for (const body of [{ platform: 'ios', provider: 'apns', token: ios }, { platform: 'android', provider: 'fcm', token: android }]) {
          const res = await fetch(api2!.url + '/v1/devices', { method: 'POST', headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
          expect(res.status).toBe(201)
        }
        tokens.push(ios, android)
      }
      spaces.push({ name, key: apiKey!, quota, tokens })
    }

    // --- 20,000 events, round robin over the workspaces, to both APIs at once
    const jobs = Array.from({ length: WORKSPACES * PER_WORKSPACE }, (_, n) => ({ space: spaces[n % WORKSPACES]!, n }))
    const accepted = new Map<string, string[]>() // workspace → event ids answered 200
    const remaining = new Map<string, number[]>()
    const refused = new Map<string, number>()
    const other: string[] = []
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const api = c % 2 ? api1! : api2!
        while (next < jobs.length) {
          const { space, n } = jobs[next++]!
          const res = await fetch(api.url + '/event', {
            method: 'POST',
            headers: { authorization: `Bearer ${space.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ message: `event ${n}`, event: 'scale.test', tags: ['scale'], data: { n } }),
          })
          const body = (await res.json()) as { eventId: string; remainingQuota: number; type?: string }
          if (res.status === 200) {
            accepted.set(space.name, [...(accepted.get(space.name) ?? []), body.eventId])
            remaining.set(space.name, [...(remaining.get(space.name) ?? []), body.remainingQuota])
          } else if (res.status === 429 && body.type?.endsWith('/quota-exceeded')) {
            refused.set(space.name, (refused.get(space.name) ?? 0) + 1)
          } else other.push(`${res.status} ${JSON.stringify(body)}`)
        }
      }),
    )
    const ingestS = (performance.now() - started) / 1000
    expect(other).toEqual([])
    const allIds = [...accepted.values()].flat()
    const expectedTotal = LIMITED * QUOTA + (WORKSPACES - LIMITED) * PER_WORKSPACE
    expect(allIds).toHaveLength(expectedTotal)
    expect(new Set(allIds).size).toBe(expectedTotal)

    // --- quotas are exact: each limited workspace got exactly QUOTA, answered QUOTA-1 … 0 once each
    for (const s of spaces.slice(0, LIMITED)) {
      expect(accepted.get(s.name)).toHaveLength(QUOTA)
      expect(refused.get(s.name)).toBe(PER_WORKSPACE - QUOTA)
      expect([...remaining.get(s.name)!].sort((a, b) => a - b)).toEqual(Array.from({ length: QUOTA }, (_, i) => i))
    }
    for (const s of spaces.slice(LIMITED)) expect(refused.get(s.name) ?? 0).toBe(0)

    // --- every accepted event is stored exactly once, and nothing else is
    const sql = postgres(db.url, { max: 2, onnotice: () => {} })
    try {
      const { n, distinct } = (await sql<{ n: number; distinct: number }[]>`SELECT count(*)::int AS n, count(DISTINCT id)::int AS distinct FROM events`)[0]!
      expect(n).toBe(expectedTotal)
      expect(distinct).toBe(expectedTotal)
      const used = await sql<{ name: string; used: number }[]>`SELECT name, quota_used::int AS used FROM workspaces`
      for (const u of used) expect(u.used).toBe(accepted.get(u.name)!.length)

      // --- every router delivery and every push happened
      const pushes = spaces.slice(WORKSPACES - WITH_DEVICES).reduce((sum, s) => sum + accepted.get(s.name)!.length * 2, 0)
      await eventually(async () => webhooks.size >= expectedTotal && apns.seen.length + google.sends.length >= pushes, 180_000, 'every webhook and push')
      const deliverS = (performance.now() - started) / 1000
      for (const id of allIds) expect(webhooks.has(id)).toBe(true)
      for (const s of spaces.slice(WORKSPACES - WITH_DEVICES)) {
        const ids = new Set(accepted.get(s.name))
        const [ios, android] = s.tokens
        const iosGot = apns.seen.filter((p) => p.token === ios).map((p) => JSON.parse(p.body).eventId as string)
        const androidGot = google.sends.filter((p) => p.deviceToken === android).map((p) => JSON.parse(p.body).message.data.eventId as string)
        expect(new Set(iosGot)).toEqual(ids)
        expect(new Set(androidGot)).toEqual(ids)
      }
      expect(apns.problems).toEqual([])
      expect(google.problems).toEqual([])

      // --- no delivery twice, except copies of one delivery (same id); one row per delivery, all succeeded
      let copies = 0
      for (const [, ids] of webhooks) {
        expect(new Set(ids).size).toBe(1)
        copies += ids.length - 1
      }
      const rows = await sql<{ kind: string; status: string; n: number }[]>`SELECT kind, status, count(*)::int AS n FROM deliveries GROUP BY 1, 2 ORDER BY 1, 2`
      expect([...rows]).toEqual([
        { kind: 'push', status: 'succeeded', n: pushes },
        { kind: 'router', status: 'succeeded', n: expectedTotal },
      ])
      const apnsIds = new Map<string, Set<string>>()
      for (const p of apns.seen) {
        const k = `${p.token}/${JSON.parse(p.body).eventId}`
        apnsIds.set(k, (apnsIds.get(k) ?? new Set()).add(String(p.headers['apns-id'])))
      }
      for (const ids of apnsIds.values()) expect(ids.size).toBe(1)
      console.log(JSON.stringify({ events: expectedTotal, pushes, ingest_s: Math.round(ingestS * 10) / 10, all_delivered_s: Math.round(deliverS * 10) / 10, webhook_copies: copies, push_copies: apns.seen.length + google.sends.length - pushes }))
    } finally {
      await sql.end()
    }
  })
})
