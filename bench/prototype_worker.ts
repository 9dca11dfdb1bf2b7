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
// With PROTOTYPE_BATCH=1 it is the batched design's worker (--mode
// prototype-batch): a message carries a committed batch's events (one outbox
// row, or a chunk of it); their webhooks go out at once, and one statement
// writes one row per delivery (a first attempt that succeeded has no attempt
// row: the delivery row holds its start and duration), clears the ledger
// (deletes the outbox row when the message carried all of it, else sets its
// bits), then the message is acknowledged. The same guarantees, the same
// omissions.
//
//   DATABASE_URL=… NATS_URL=… NATS_STREAM=… RECEIVER_URL=… [PROTOTYPE_BATCH=1|lean] bun bench/prototype_worker.ts
import postgres from 'postgres'
import { createHash, createHmac } from 'node:crypto'
import { connect } from '@nats-io/transport-node'
import { AckPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream'
import { ledgerMasks } from '../src/delivery/relay'
import type { OutboxRef } from '../src/delivery/bus'

const sql = postgres(process.env.DATABASE_URL!, { max: 4, onnotice: () => {}, connection: { jit: 'off', application_name: 'prototype_worker' } })
const STREAM = process.env.NATS_STREAM ?? 'PROTOTYPE'
const RECEIVER = process.env.RECEIVER_URL!
const SECRET = Buffer.from('prototype-signing-secret-32bytes')
const BATCHES_AT_ONCE = 4
const LEAN = process.env.PROTOTYPE_BATCH === 'lean'
const BATCHED = process.env.PROTOTYPE_BATCH === '1' || LEAN

// The router of each workspace (bench/fanout.ts makes one per workspace).
const routerOf = new Map((await sql<{ ws: number; id: string }[]>`SELECT workspace_id::int AS ws, id::text FROM routers`).map((r) => [r.ws, r.id]))

// PROTOTYPE_BATCH=lean: the worker of a design with fewer rows still. A
// message carries ids only, so the views are read from PostgreSQL, and the
// deliveries whose first attempt succeeded are recorded as ONE row per
// handled group of messages, in arrays (prototype_delivery_batches, with the
// GIN indexes that reading an event's or a workspace's deliveries would
// need); a failed one is still a deliveries row. Herald's reads (the delivery
// log, lists, counts, replays, retention) do not exist for this layout: it
// measures the floor of the problem, not a design ready to build.
const nameOf = new Map((await sql<{ id: number; name: string }[]>`SELECT id::int, name FROM workspaces`).map((w) => [w.id, w.name]))
if (LEAN) {
  await sql`CREATE TABLE IF NOT EXISTS prototype_delivery_batches (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, recorded_at timestamptz NOT NULL DEFAULT now(),
    delivery_ids uuid[] NOT NULL, event_ids uuid[] NOT NULL, workspace_ids bigint[] NOT NULL, router_ids uuid[] NOT NULL,
    started_ms float8[] NOT NULL, duration_ms int[] NOT NULL, status int[] NOT NULL)`
  await sql`CREATE INDEX IF NOT EXISTS prototype_delivery_batches_events ON prototype_delivery_batches USING gin (event_ids)`
  await sql`CREATE INDEX IF NOT EXISTS prototype_delivery_batches_workspaces ON prototype_delivery_batches USING gin (workspace_ids)`
}

// The delivery row's first attempt (sql/0025): written when the columns
// exist; before that migration the batched prototype leaves them out (and
// writes a few bytes a row less than the design will).
const timed = (await sql`SELECT 1 FROM information_schema.columns WHERE table_name = 'deliveries' AND column_name IN ('first_started_at', 'first_duration_ms')`).length === 2

/** Herald's delivery id: the event's timestamp, then a SHA-256 of event, kind and target (workers/send.ts). */
function deliveryId(eventId: string, target: string): string {
  const h = createHash('sha256').update(`${eventId}/router/${target}`).digest()
  Buffer.from(eventId.replace(/-/g, '').slice(0, 12), 'hex').copy(h, 0)
  h[6] = (h[6]! & 0x0f) | 0x80
  h[8] = (h[8]! & 0x3f) | 0x80
  const x = h.toString('hex', 0, 16)
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`
}

/** What one first attempt did: delivery id, event, workspace, router, start (ms), duration (ms), HTTP status, ok. */
interface Sent {
  i: string
  e: string
  w: number
  t: string
  s: number
  u: number
  h: number
  o: boolean
}

/** POSTs an event's webhook to its workspace's router, signed as Herald signs it. */
async function send(eventId: string, ws: number, view: string): Promise<Sent> {
  const router = routerOf.get(ws)!
  const id = deliveryId(eventId, router)
  const ts = Math.floor(Date.now() / 1000)
  const body = `{"type":"event.created","timestamp":"${new Date().toISOString()}","data":${view}}`
  const signature = createHmac('sha256', SECRET).update(`${id}.${ts}.${body}`).digest('base64')
  const started = Date.now()
  let status = 0
  try {
    const res = await fetch(RECEIVER, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': `v1,${signature}` }, body })
    await res.text()
    status = res.status
  } catch {}
  return { i: id, e: eventId, w: ws, t: router, s: started, u: Date.now() - started, h: status, o: status >= 200 && status < 300 }
}

// ---------------------------------------------------------------- one message per event

async function post(m: JsMsg) {
  const ws = Number(m.subject.slice(m.subject.lastIndexOf('.') + 1))
  const sent = await send(m.headers!.get('Nats-Msg-Id'), ws, m.string())
  const [o, index, size] = m.headers!.get('Outbox').split('.').map(Number) as [number, number, number]
  return { ...sent, outbox: { id: o, index, size } }
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

// ---------------------------------------------------------------- one message per committed batch

/** A batch message (bench/prototype_server.ts publishBatch): outbox id, row size, events with their index in the row. */
interface BatchBody {
  o: number
  n: number
  e: { i: number; w: number; v: { eventId: string } }[]
}

async function handleBatches(batch: JsMsg[]) {
  const whole: number[] = [] // outbox rows a message carried entirely
  const parts: OutboxRef[] = []
  const sends: Promise<Sent>[] = []
  for (const m of batch) {
    const b = m.json<BatchBody>()
    if (b.e.length === b.n) whole.push(b.o)
    else for (const e of b.e) parts.push({ id: b.o, index: e.i, size: b.n })
    for (const e of b.e) sends.push(send(e.v.eventId, e.w, JSON.stringify(e.v)))
  }
  await record(await Promise.all(sends), whole, ledgerMasks(parts))
  for (const m of batch) m.ack()
}

/**
 * One statement: a row per delivery, an attempt row only for a first attempt
 * that failed, and the ledger cleared. A row whose events all came in one
 * message is deleted (no other message owes anything on it); a row split
 * into chunks gets its bits set, as the per-event worker does.
 */
function record(rows: Sent[], whole: number[], ledger: { id: number; mask: string }[]) {
  const col = <K extends keyof Sent>(k: K) => rows.map((r) => r[k])
  return sql`
    WITH r AS MATERIALIZED (
      SELECT i, e, w, t, s, u, h, h BETWEEN 200 AND 299 AS o
      FROM unnest(${col('i')}::uuid[], ${col('e')}::uuid[], ${col('w')}::bigint[], ${col('t')}::text[], ${col('s')}::float8[], ${col('u')}::int[], ${col('h')}::int[]) AS r(i, e, w, t, s, u, h)
    ), d AS (
      INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts, next_attempt_at, last_status${timed ? sql`, first_started_at, first_duration_ms` : sql``})
      SELECT i, e, uuidv7_time(e), w, 'router', t::uuid, t, CASE WHEN o THEN 'succeeded' ELSE 'failed' END, 1, now(), h${timed ? sql`, to_timestamp(s / 1000), u` : sql``} FROM r
      ON CONFLICT DO NOTHING RETURNING id
    ), gone AS (
      DELETE FROM outbox WHERE id = ANY(${whole}::bigint[])
    ), owed AS (
      UPDATE outbox o SET done = CASE WHEN o.done IS NULL THEN m.mask::varbit ELSE o.done | m.mask::varbit END
      FROM unnest(${ledger.map((l) => l.id)}::bigint[], ${ledger.map((l) => l.mask)}::text[]) AS m(id, mask)
      WHERE o.id = ANY(${ledger.map((l) => l.id)}::bigint[]) AND o.id = m.id
    )
    INSERT INTO delivery_attempts (delivery_id, event_at, attempt, started_at, duration_ms, status, ok)
    SELECT r.i, uuidv7_time(r.e), 1, to_timestamp(r.s / 1000), r.u, r.h, r.o FROM r JOIN d ON d.id = r.i WHERE NOT r.o`
}

// ---------------------------------------------------------------- ids only, one row per group (PROTOTYPE_BATCH=lean)

/** A lean message (bench/prototype_server.ts publishBatch): outbox id, row size, `[index in the row, workspace id, event id]` per event. */
interface LeanBody {
  o: number
  n: number
  e: [number, number, string][]
}

const timeOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16)

async function handleLean(batch: JsMsg[]) {
  const whole: number[] = []
  const parts: OutboxRef[] = []
  const refs: [number, number, string][] = []
  for (const m of batch) {
    const b = m.json<LeanBody>()
    if (b.e.length === b.n) whole.push(b.o)
    else for (const [i] of b.e) parts.push({ id: b.o, index: i, size: b.n })
    refs.push(...b.e)
  }
  const ids = refs.map((r) => r[2])
  const times = ids.map(timeOf)
  // By the primary key (workspace_id, id, created_at), in the months the ids name.
  const events = await sql<{ id: string; w: number; channel: string; event: string | null; title: string | null; message: string; link: string | null; tags: string[]; data: unknown; at: Date }[]>`
    SELECT id::text, workspace_id::int AS w, channel, event, title, message, link, tags, data, created_at AS at FROM events
    WHERE workspace_id = ANY(${[...new Set(refs.map((r) => r[1]))]}::bigint[]) AND id = ANY(${ids}::uuid[])
      AND created_at BETWEEN ${new Date(Math.min(...times))} AND ${new Date(Math.max(...times))}`
  const sent = await Promise.all(events.map((e) => send(e.id, e.w, JSON.stringify({
    eventId: e.id, workspace: nameOf.get(e.w), channel: e.channel, event: e.event, title: e.title, message: e.message, link: e.link, tags: e.tags, data: e.data, createdAt: e.at.toISOString(),
  }))))
  await recordLean(sent, whole, ledgerMasks(parts))
  for (const m of batch) m.ack()
}

/** One statement: one row for the group's succeeded first attempts, a deliveries row and its attempt row per failure, and the ledger cleared. */
function recordLean(rows: Sent[], whole: number[], ledger: { id: number; mask: string }[]) {
  const ok = rows.filter((r) => r.o)
  const failed = rows.filter((r) => !r.o)
  const col = <K extends keyof Sent>(list: Sent[], k: K) => list.map((r) => r[k])
  return sql`
    WITH f AS MATERIALIZED (
      SELECT * FROM unnest(${col(failed, 'i')}::uuid[], ${col(failed, 'e')}::uuid[], ${col(failed, 'w')}::bigint[], ${col(failed, 't')}::text[], ${col(failed, 'h')}::int[],
        ${col(failed, 's')}::float8[], ${col(failed, 'u')}::int[]) AS r(i, e, w, t, h, s, u)
    ), b AS (
      INSERT INTO prototype_delivery_batches (delivery_ids, event_ids, workspace_ids, router_ids, started_ms, duration_ms, status)
      SELECT ${col(ok, 'i')}::uuid[], ${col(ok, 'e')}::uuid[], ${col(ok, 'w')}::bigint[], ${col(ok, 't')}::uuid[], ${col(ok, 's')}::float8[], ${col(ok, 'u')}::int[], ${col(ok, 'h')}::int[]
      WHERE ${ok.length} > 0
    ), d AS (
      INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts, next_attempt_at, last_status)
      SELECT i, e, uuidv7_time(e), w, 'router', t::uuid, t, 'failed', 1, now(), h FROM f
      ON CONFLICT DO NOTHING RETURNING id
    ), a AS (
      INSERT INTO delivery_attempts (delivery_id, event_at, attempt, started_at, duration_ms, status, ok)
      SELECT f.i, uuidv7_time(f.e), 1, to_timestamp(f.s / 1000), f.u, f.h, false FROM f JOIN d ON d.id = f.i
    ), gone AS (
      DELETE FROM outbox WHERE id = ANY(${whole}::bigint[])
    )
    UPDATE outbox o SET done = CASE WHEN o.done IS NULL THEN m.mask::varbit ELSE o.done | m.mask::varbit END
    FROM unnest(${ledger.map((l) => l.id)}::bigint[], ${ledger.map((l) => l.mask)}::text[]) AS m(id, mask)
    WHERE o.id = ANY(${ledger.map((l) => l.id)}::bigint[]) AND o.id = m.id`
}

// ---------------------------------------------------------------- consuming

const nc = await connect({ servers: process.env.NATS_URL! })
const jsm = await jetstreamManager(nc)
// A batch message holds up to 200 events: fewer of them in flight.
const pending = BATCHED ? { ack: 256, pull: 16, take: 4 } : { ack: 4096, pull: 200, take: 200 }
await jsm.consumers.add(STREAM, { durable_name: 'prototype', ack_policy: AckPolicy.Explicit, max_ack_pending: pending.ack })
const messages = await (await jetstream(nc).consumers.get(STREAM, 'prototype')).consume({ max_messages: pending.pull })
// Whatever arrived while the batches ahead ran goes as the next batch, a few batches at once.
const work = LEAN ? handleLean : BATCHED ? handleBatches : handle
let waiting: JsMsg[] = []
let running = 0
const next = () => {
  while (running < BATCHES_AT_ONCE && waiting.length) {
    const batch = waiting.splice(0, pending.take)
    running++
    work(batch).catch((err) => console.error(err)).finally(() => (running--, next()))
  }
}
console.log(JSON.stringify({ ready: true, routers: routerOf.size, batched: BATCHED, lean: LEAN, timed }))
for await (const m of messages) {
  waiting.push(m)
  queueMicrotask(next)
}
