// The reference for POST /event: the smallest server that keeps the write
// path's guarantees, so that every run of bench/ingest.ts shows how far
// Herald is from what this machine can do. It writes Herald's own tables
// (migrated by Herald, with every index of `events`) and keeps what Herald
// promises of a 200:
// - the event is committed (synchronous_commit as the server has it) before
//   the answer;
// - the monthly quota and the token bucket of the workspace are spent under
//   its row lock, in id order, so they hold across processes;
// - remainingQuota is exact per event; refused events are never written;
// - usage_daily and one outbox row per batch are written with the events.
// It leaves out everything else: validation beyond `message`, truncation,
// idempotency, channels, the relay, metrics and logs. Events wait while the
// previous batch commits, then go together as one statement: no BEGIN or
// COMMIT round trip.
//
// With NATS_URL and NATS_STREAM it is also the first half of the fan-out's
// prototype (bench/prototype_worker.ts is the other): once a batch has
// committed, each event is published to JetStream with its place in the
// batch's outbox row (the ledger the worker clears), as Herald's relay does
// after its commit.
//
// With PROTOTYPE_BATCH=1 it is the first half of the batched fan-out's
// prototype instead: once a batch has committed, it publishes ONE message
// for the batch's outbox row, carrying every event with its place in the row
// (split into chunks under a size and a count cap), so that JetStream stores,
// acknowledges and redelivers per batch rather than per event. With
// PROTOTYPE_BATCH=lean the message carries each event's place, workspace and
// id only (`[index, workspace id, event id]`), and the worker reads the
// events themselves from PostgreSQL: fewer bytes through JetStream for one
// more read of PostgreSQL.
//
//   PORT=0 DATABASE_URL=… KEYS_FILE=… [NATS_URL=… NATS_STREAM=… PROTOTYPE_BATCH=1|lean] bun bench/prototype_server.ts
import postgres from 'postgres'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

import { connect, headers as natsHeaders } from '@nats-io/transport-node'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'

const MAX_BATCH = 1000
const LANES = Number(process.env.PROTOTYPE_LANES ?? 1)
const types = { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } }
const sql = postgres(process.env.DATABASE_URL!, { max: LANES, types, onnotice: () => {}, connection: { jit: 'off', application_name: 'prototype_server' } })

// The fan-out's half: a stream of the run's own, one subject per workspace
// (prototype.<stream>.<workspace id>), or prototype.<stream>.batch.
const nats = process.env.NATS_URL ? await connect({ servers: process.env.NATS_URL }) : null
const js = nats ? jetstream(nats) : null
const STREAM = process.env.NATS_STREAM ?? 'PROTOTYPE'
// One message per event, or (PROTOTYPE_BATCH=1) per outbox row: a chunk stays
// well under nats-server's max_payload (1 MiB by default) and holds at most
// as many events as the worker sends at once.
const BATCHED = process.env.PROTOTYPE_BATCH === '1' || process.env.PROTOTYPE_BATCH === 'lean'
// PROTOTYPE_BATCH=lean: a batch's message carries each event's place,
// workspace and id only, not its view; the worker reads the views from
// PostgreSQL (bench/prototype_worker.ts).
const LEAN = process.env.PROTOTYPE_BATCH === 'lean'
const CHUNK_MAX_BYTES = 256 * 1024
const CHUNK_MAX_EVENTS = 200
if (nats) await (await jetstreamManager(nats)).streams.add({ name: STREAM, subjects: [`prototype.${STREAM}.>`] })

interface Workspace {
  id: number
  name: string
  channel: string
}
// Bearer header → workspace, for the keys of the run, read once (in one query: a run may have 50,000).
const byHeader = new Map<string, Workspace>()
{
  const keys = readFileSync(process.env.KEYS_FILE!, 'utf8').split('\n').filter(Boolean)
  const byHash = new Map(keys.map((key) => [createHash('sha256').update(key).digest('hex'), key]))
  const rows = await sql<(Workspace & { hash: string })[]>`SELECT encode(k.hash, 'hex') AS hash, w.id, w.name, w.default_channel AS channel
    FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.hash = ANY(SELECT decode(h, 'hex') FROM unnest(${[...byHash.keys()]}::text[]) AS h)`
  for (const { hash, ...w } of rows) byHeader.set(`Bearer ${byHash.get(hash)}`, w)
}

interface Pending {
  ws: Workspace
  id: string
  at: string
  channel: string
  body: { message: string; event?: string; channel?: string; title?: string; link?: string; tags?: string[]; data?: unknown }
  done(r: Response): void
}

interface Lane {
  queue: Pending[]
  writing: number // batches in flight on the lane's connection
}
// A workspace always goes to the same lane: two lanes never wait on one row.
const lanes: Lane[] = Array.from({ length: LANES }, () => ({ queue: [], writing: 0 }))

const arrayLiteral = (tags: string[] | undefined) => `{${(tags ?? []).map((t) => `"${t.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`

const PIPELINE = Number(process.env.PROTOTYPE_PIPELINE ?? 1)
const MIN_PIPELINED = Number(process.env.PROTOTYPE_MIN ?? 1)
async function write(lane: Lane) {
  lane.writing++
  while (lane.queue.length) {
    const batch = lane.queue.splice(0, MAX_BATCH)
    const ord = new Map<number, number>()
    const cols = { id: [] as string[], ws: [] as number[], ord: [] as number[], at: [] as string[], channel: [] as string[], event: [] as (string | null)[], title: [] as (string | null)[], message: [] as string[], link: [] as (string | null)[], tags: [] as string[], data: [] as (string | null)[] }
    for (const p of batch) {
      const n = ord.get(p.ws.id) ?? 0
      ord.set(p.ws.id, n + 1)
      cols.id.push(p.id), cols.ws.push(p.ws.id), cols.ord.push(n), cols.at.push(p.at), cols.channel.push(p.channel)
      cols.event.push(p.body.event ?? null), cols.title.push(p.body.title ?? null), cols.message.push(p.body.message), cols.link.push(p.body.link ?? null)
      cols.tags.push(arrayLiteral(p.body.tags)), cols.data.push(p.body.data === undefined ? null : JSON.stringify(p.body.data))
    }
    const ids = [...ord.keys()].sort((a, b) => a - b)
    try {
      const grants = await sql<{ id: number; used: number; granted: number; quota: number; outbox: number | null; event_ids: string[] | null }[]>`
        WITH req AS (
          SELECT ws AS id, count(*)::int AS n FROM unnest(${cols.ws}::bigint[]) AS ws GROUP BY ws
        ), locked AS MATERIALIZED (
          SELECT w.id, w.monthly_quota, w.quota_used, w.quota_period, w.tokens, w.tokens_at, w.rate_per_second, w.rate_burst
          FROM workspaces w WHERE w.id = ANY(${ids}::bigint[]) ORDER BY w.id FOR NO KEY UPDATE
        ), g AS MATERIALIZED (
          SELECT l.id, r.n, l.monthly_quota AS quota,
            CASE WHEN l.quota_period < date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN 0 ELSE l.quota_used END AS used,
            LEAST(l.rate_burst::float8, l.tokens + GREATEST(0, extract(epoch FROM now() - l.tokens_at)::float8) * l.rate_per_second) AS tokens
          FROM locked l JOIN req r ON r.id = l.id
        ), gr AS MATERIALIZED (
          SELECT *, GREATEST(0, LEAST(n, quota - used, floor(tokens)::bigint))::int AS granted FROM g
        ), upd AS (
          UPDATE workspaces w SET quota_used = gr.used + gr.granted, quota_period = date_trunc('month', now() AT TIME ZONE 'UTC')::date,
            tokens = gr.tokens - gr.granted, tokens_at = now()
          FROM gr WHERE w.id = ANY(${ids}::bigint[]) AND w.id = gr.id
        ), daily AS (
          INSERT INTO usage_daily (workspace_id, day, events)
          SELECT id, (now() AT TIME ZONE 'UTC')::date, granted FROM gr WHERE granted > 0
          ON CONFLICT (workspace_id, day) DO UPDATE SET events = usage_daily.events + excluded.events
        ), ins AS (
          INSERT INTO events (id, workspace_id, channel, created_at, event, title, message, link, tags, data)
          SELECT e.id, e.ws, e.channel, e.at, e.event, e.title, e.message, e.link, e.tags::text[], e.data::json
          FROM unnest(${cols.id}::uuid[], ${cols.ws}::bigint[], ${cols.ord}::int[], ${cols.at}::timestamptz[], ${cols.channel}::text[],
            ${cols.event}::text[], ${cols.title}::text[], ${cols.message}::text[], ${cols.link}::text[], ${cols.tags}::text[], ${cols.data}::text[])
            AS e(id, ws, ord, at, channel, event, title, message, link, tags, data)
          JOIN gr ON gr.id = e.ws WHERE e.ord < gr.granted
          RETURNING id, workspace_id
        ), ob AS (
          INSERT INTO outbox (event_ids, workspace_ids) SELECT array_agg(id), array_agg(workspace_id) FROM ins HAVING count(*) > 0
          RETURNING id, event_ids
        )
        SELECT id, used, granted, quota, (SELECT id FROM ob) AS outbox, (SELECT event_ids FROM ob) AS event_ids FROM gr`
      if (js && grants[0]?.outbox) (BATCHED ? publishBatch : publish)(grants[0].outbox, grants[0].event_ids!, batch)
      const byWs = new Map(grants.map((g) => [g.id, g]))
      const seen = new Map<number, number>()
      for (const p of batch) {
        const g = byWs.get(p.ws.id)!
        const i = seen.get(p.ws.id) ?? 0
        seen.set(p.ws.id, i + 1)
        p.done(i < g.granted
          ? Response.json({ workspace: p.ws.name, channel: p.channel, eventId: p.id, remainingQuota: g.quota - g.used - i - 1 })
          : new Response('{"title":"Too Many Requests"}', { status: 429 }))
      }
    } catch (err) {
      console.error(err)
      for (const p of batch) p.done(new Response('{"title":"Service Unavailable"}', { status: 503 }))
    }
  }
  lane.writing--
}

/** The event as Herald's webhooks carry it (the `data` of the body), as JSON. */
const viewOf = (p: Pending) =>
  JSON.stringify({ eventId: p.id, workspace: p.ws.name, channel: p.channel, event: p.body.event ?? null, title: p.body.title ?? null, message: p.body.message, link: p.body.link ?? null, tags: p.body.tags ?? [], data: p.body.data ?? null, createdAt: p.at })

/** After the commit: each stored event to JetStream, with its place in the outbox row; not awaited by the answers. */
function publish(outbox: number, eventIds: string[], batch: Pending[]) {
  const byId = new Map(batch.map((p) => [p.id, p]))
  eventIds.forEach((id, index) => {
    const p = byId.get(id)!
    const h = natsHeaders()
    h.set('Nats-Msg-Id', id)
    h.set('Outbox', `${outbox}.${index}.${eventIds.length}`)
    js!.publish(`prototype.${STREAM}.${p.ws.id}`, viewOf(p), { headers: h }).catch((err) => console.error('publish', err))
  })
}

/**
 * After the commit: the outbox row's events to JetStream as few messages, each
 * `{"o": outbox id, "n": row size, "e": [{"i": index in the row, "w": workspace id, "v": view}…]}`.
 * The split depends only on the row, so `<outbox>.<chunk>` is the same message id
 * however often the row is published: JetStream drops the repeats.
 */
function publishBatch(outbox: number, eventIds: string[], batch: Pending[]) {
  const byId = new Map(batch.map((p) => [p.id, p]))
  const head = `{"o":${outbox},"n":${eventIds.length},"e":[`
  let chunk: string[] = []
  let bytes = head.length + 2
  let n = 0
  const flush = () => {
    const h = natsHeaders()
    h.set('Nats-Msg-Id', `${outbox}.${n++}`)
    js!.publish(`prototype.${STREAM}.batch`, `${head}${chunk.join(',')}]}`, { headers: h }).catch((err) => console.error('publish', err))
    chunk = []
    bytes = head.length + 2
  }
  eventIds.forEach((id, index) => {
    const p = byId.get(id)!
    const e = LEAN ? `[${index},${p.ws.id},"${id}"]` : `{"i":${index},"w":${p.ws.id},"v":${viewOf(p)}}`
    const size = Buffer.byteLength(e) + 1
    if (chunk.length && (chunk.length >= CHUNK_MAX_EVENTS || bytes + size > CHUNK_MAX_BYTES)) flush()
    chunk.push(e)
    bytes += size
  })
  flush()
}

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  development: false,
  async fetch(req) {
    const ws = byHeader.get(req.headers.get('authorization') ?? '')
    if (!ws) return new Response('{"title":"Unauthorized"}', { status: 401 })
    const body = (await req.json().catch(() => null)) as Pending['body'] | null
    if (!body || typeof body.message !== 'string') return new Response('{"title":"Bad Request"}', { status: 400 })
    const id = Bun.randomUUIDv7()
    return new Promise<Response>((done) => {
      const lane = lanes[ws.id % LANES]!
      lane.queue.push({ ws, id, at: new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toISOString(), channel: body.channel ?? ws.channel, body, done })
      if (lane.writing === 0 || (lane.writing < PIPELINE && lane.queue.length >= MIN_PIPELINED)) void write(lane)
    })
  },
})
console.log(JSON.stringify({ port: server.port, keys: byHeader.size }))
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => (server.stop(true), process.exit(0)))
