// The second half of the fan-out's prototype (bench/prototype_server.ts is
// the first): the smallest worker that keeps what Herald's keeps of a
// delivery, so that bench/fanout.ts --mode prototype shows how far Herald's
// fan-out is from what this machine can do. For every event JetStream hands
// it, it POSTs the webhook of its workspace's router (Standard Webhooks:
// webhook-id derived from event and router, a timestamp, an HMAC-SHA256
// signature, the body Herald sends), then writes the delivery row and its
// attempt row and sets the event's bit in its outbox row (the ledger) in one
// statement, and only then acknowledges the messages. It leaves out
// everything else: templates, patterns, pushes, retries, circuits, the SSRF
// checks, the pool, metrics and logs.
//
//   DATABASE_URL=… NATS_URL=… NATS_STREAM=… RECEIVER_URL=… bun bench/prototype_worker.ts
import postgres from 'postgres'
import { createHash, createHmac } from 'node:crypto'
import { connect } from '@nats-io/transport-node'
import { AckPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream'
import { ledgerMasks } from '../src/delivery/relay'

const sql = postgres(process.env.DATABASE_URL!, { max: 4, onnotice: () => {}, connection: { jit: 'off' } })
const STREAM = process.env.NATS_STREAM ?? 'PROTOTYPE'
const RECEIVER = process.env.RECEIVER_URL!
const SECRET = Buffer.from('prototype-signing-secret-32bytes')
const BATCHES_AT_ONCE = 4

// The router of each workspace (bench/fanout.ts makes one per workspace).
const routerOf = new Map((await sql<{ ws: number; id: string }[]>`SELECT workspace_id::int AS ws, id::text FROM routers`).map((r) => [r.ws, r.id]))

/** Herald's delivery id: the event's timestamp, then a SHA-256 of event, kind and target (workers/send.ts). */
function deliveryId(eventId: string, target: string): string {
  const h = createHash('sha256').update(`${eventId}/router/${target}`).digest()
  Buffer.from(eventId.replace(/-/g, '').slice(0, 12), 'hex').copy(h, 0)
  h[6] = (h[6]! & 0x0f) | 0x80
  h[8] = (h[8]! & 0x3f) | 0x80
  const x = h.toString('hex', 0, 16)
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`
}

async function post(m: JsMsg) {
  const ws = Number(m.subject.slice(m.subject.lastIndexOf('.') + 1))
  const eventId = m.headers!.get('Nats-Msg-Id')
  const router = routerOf.get(ws)!
  const id = deliveryId(eventId, router)
  const ts = Math.floor(Date.now() / 1000)
  const body = `{"type":"event.created","timestamp":"${new Date().toISOString()}","data":${m.string()}}`
  const signature = createHmac('sha256', SECRET).update(`${id}.${ts}.${body}`).digest('base64')
  const started = Date.now()
  let status = 0
  try {
    const res = await fetch(RECEIVER, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': `v1,${signature}` }, body })
    await res.text()
    status = res.status
  } catch {}
  const [o, index, size] = m.headers!.get('Outbox').split('.').map(Number) as [number, number, number]
  return { i: id, e: eventId, w: ws, t: router, s: started, u: Date.now() - started, h: status, o: status >= 200 && status < 300, outbox: { id: o, index, size } }
}

async function handle(batch: JsMsg[]) {
  const rows = await Promise.all(batch.map(post))
  const ledger = ledgerMasks(rows.map((r) => r.outbox))
  await sql`
    WITH r AS MATERIALIZED (
      SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::text::json) AS r(i uuid, e uuid, w bigint, t text, s float8, u int, h int, o bool)
    ), d AS (
      INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts, next_attempt_at, last_status)
      SELECT i, e, uuidv7_time(e), w, 'router', t::uuid, t, CASE WHEN o THEN 'succeeded' ELSE 'failed' END, 1, now(), h FROM r
      ON CONFLICT DO NOTHING RETURNING id
    ), owed AS (
      UPDATE outbox o SET done = CASE WHEN o.done IS NULL THEN m.mask::varbit ELSE o.done | m.mask::varbit END
      FROM unnest(${ledger.map((l) => l.id)}::bigint[], ${ledger.map((l) => l.mask)}::text[]) AS m(id, mask)
      WHERE o.id = ANY(${ledger.map((l) => l.id)}::bigint[]) AND o.id = m.id
    )
    INSERT INTO delivery_attempts (delivery_id, event_at, attempt, started_at, duration_ms, status, ok)
    SELECT r.i, uuidv7_time(r.e), 1, to_timestamp(r.s / 1000), r.u, r.h, r.o FROM r JOIN d ON d.id = r.i`
  for (const m of batch) m.ack()
}

const nc = await connect({ servers: process.env.NATS_URL! })
const jsm = await jetstreamManager(nc)
await jsm.consumers.add(STREAM, { durable_name: 'prototype', ack_policy: AckPolicy.Explicit, max_ack_pending: 4096 })
const messages = await (await jetstream(nc).consumers.get(STREAM, 'prototype')).consume({ max_messages: 200 })
// Whatever arrived while the batches ahead ran goes as the next batch, a few batches at once.
let waiting: JsMsg[] = []
let running = 0
const next = () => {
  while (running < BATCHES_AT_ONCE && waiting.length) {
    const batch = waiting.splice(0, 200)
    running++
    handle(batch).catch((err) => console.error(err)).finally(() => (running--, next()))
  }
}
console.log(JSON.stringify({ ready: true, routers: routerOf.size }))
for await (const m of messages) {
  waiting.push(m)
  queueMicrotask(next)
}
