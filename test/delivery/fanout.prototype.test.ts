// The fan-out's prototypes (bench/prototype_server.ts and
// bench/prototype_worker.ts) are the floor bench/fanout.ts measures Herald
// against, so they must keep what Herald keeps of a delivery: every accepted
// event reaches its workspace's router once, signed, under the delivery id
// Herald derives; its delivery row is written; its outbox row no longer owes
// it. Both designs run on real PostgreSQL and JetStream: one message per event
// (an attempt row per delivery), and one message per committed batch
// (PROTOTYPE_BATCH=1: an attempt row only for a first attempt that failed, the
// outbox row deleted once its events are recorded); and the lean one
// (PROTOTYPE_BATCH=lean: messages of ids, the views read from PostgreSQL, the
// succeeded deliveries one row of arrays per group, a failed one a deliveries
// row).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { createHmac } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { NATS_URL, deleteStream, describeJs, testStream, useTestHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'

const ROOT = resolve(import.meta.dir, '..', '..')
const SECRET = 'prototype-signing-secret-32bytes' // bench/prototype_worker.ts
const EVENTS = 60

/** `bun <script>` from the repository, once it has printed its first line (its port, or that it is ready). */
async function spawnScript(script: string, env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, script], { cwd: ROOT, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
  let text = ''
  while (!text.includes('\n')) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`${script} exited: ${await new Response(proc.stderr as ReadableStream).text()}`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return { proc, first: JSON.parse(text.slice(0, text.indexOf('\n'))) as Record<string, unknown> }
}

describeJs('the fan-out prototypes keep what Herald keeps of a delivery', () => {
  let rx: Receiver
  const tmp = mkdtempSync(join(tmpdir(), 'herald-prototype-'))
  beforeAll(() => {
    rx = startReceiver()
  })
  const h = useTestHerald('postgres', { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' })
  // Herald makes the tables, two workspaces per design with a webhook router each, then leaves the database to the prototypes.
  const MODES = ['0', '1', 'lean'] as const
  const keysOf = new Map<string, string[]>()
  beforeAll(async () => {
    for (const batched of MODES) {
      const keys: string[] = []
      for (let i = 0; i < 2; i++) {
        const ws = await h.workspace({ rateLimit: { perSecond: 1000, burst: 1000 } })
        const res = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name: 'all', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/hook` } })
        if (res.status !== 201) throw new Error(`router: ${res.status} ${await res.text()}`)
        keys.push(ws.apiKey)
      }
      keysOf.set(batched, keys)
    }
    await h.stop()
  }, 30_000)
  afterAll(() => {
    rx.stop()
    rmSync(tmp, { recursive: true, force: true })
  })

  for (const mode of MODES) {
    const batched = mode !== '0'
    const lean = mode === 'lean'
    test(lean ? 'messages of ids, one row per group of succeeded deliveries' : batched ? 'one message per committed batch' : 'one message per event', async () => {
      const keys = keysOf.get(mode)!
      const keysFile = join(tmp, `keys-${mode}.txt`)
      writeFileSync(keysFile, keys.join('\n') + '\n')
      const stream = testStream()
      const env = { DATABASE_URL: h.databaseUrl!, NATS_URL: NATS_URL!, NATS_STREAM: stream, KEYS_FILE: keysFile, RECEIVER_URL: `${rx.url}/hook`, PORT: '0', PROTOTYPE_BATCH: mode }
      const sql = postgres(h.databaseUrl!, { max: 1, onnotice: () => {} })
      const server = await spawnScript('bench/prototype_server.ts', env)
      const worker = await spawnScript('bench/prototype_worker.ts', env)
      try {
        expect(worker.first.batched).toBe(batched)
        expect(worker.first.lean).toBe(lean)
        rx.received.length = 0
        rx.script = [{ status: 500 }] // the first webhook fails: its delivery is recorded as failed, with its attempt
        const base = `http://127.0.0.1:${server.first.port}`
        const answers = await Promise.all(Array.from({ length: EVENTS }, (_, i) =>
          fetch(`${base}/event`, { method: 'POST', headers: { authorization: `Bearer ${keys[i % 2]}` }, body: JSON.stringify({ message: `m${i}`, event: 'user.signup' }) }).then((r) => r.json() as Promise<{ eventId: string }>)))
        const ids = answers.map((a) => a.eventId)
        expect(new Set(ids).size).toBe(EVENTS)

        // Each event once, signed as Herald signs, under its delivery row's id.
        await rx.waitFor(EVENTS)
        // The lean worker's succeeded deliveries are elements of its group rows.
        const rows = await eventually(async () => {
          const r = await sql<{ id: string; event_id: string; status: string }[]>`SELECT id::text, event_id::text, status FROM deliveries WHERE event_id = ANY(${ids}::uuid[])
            ${lean ? sql`UNION ALL SELECT d::text, e::text, 'succeeded' FROM prototype_delivery_batches b, unnest(b.delivery_ids, b.event_ids) AS x(d, e) WHERE e = ANY(${ids}::uuid[])` : sql``}`
          return r.length === EVENTS && r
        }, 15_000, 'every delivery row')
        await Bun.sleep(300) // a duplicate would come now
        expect(rx.received.length).toBe(EVENTS)
        const rowOf = new Map(rows.map((r) => [r.event_id, r]))
        for (const got of rx.received) {
          const eventId = (JSON.parse(got.body) as { data: { eventId: string } }).data.eventId
          expect(got.headers['webhook-id']).toBe(rowOf.get(eventId)!.id)
          const signed = createHmac('sha256', SECRET).update(`${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`).digest('base64')
          expect(got.headers['webhook-signature']).toBe(`v1,${signed}`)
        }
        expect(rows.filter((r) => r.status === 'failed').length).toBe(1)
        expect(rows.filter((r) => r.status === 'succeeded').length).toBe(EVENTS - 1)

        // Attempt rows: every first attempt, or only the failed one.
        const attempts = await sql<{ ok: boolean }[]>`SELECT a.ok FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.event_id = ANY(${ids}::uuid[])`
        expect(attempts.filter((a) => !a.ok).length).toBe(1)
        expect(attempts.length).toBe(batched ? 1 : EVENTS)

        // The ledger: no outbox row owes any of the events.
        const owed = await eventually(async () => {
          const r = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM outbox WHERE event_ids && ${ids}::uuid[] AND (done IS NULL OR position('0' IN done::text) > 0)`
          return r[0]!.n === 0 && r
        }, 5_000, 'the ledger cleared')
        expect(owed[0]!.n).toBe(0)
        if (batched) expect((await sql`SELECT 1 FROM outbox WHERE event_ids && ${ids}::uuid[]`).length).toBe(0)
      } finally {
        server.proc.kill()
        worker.proc.kill()
        await Promise.all([server.proc.exited, worker.proc.exited])
        await sql.end()
        await deleteStream(stream)
      }
    }, 60_000)
  }
})
