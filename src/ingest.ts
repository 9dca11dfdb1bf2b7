// The write path of POST /event. Accepted events wait a few milliseconds in a
// micro-batch; each batch is one transaction that applies every workspace's
// monthly quota and token bucket (under row locks, so the limits hold across
// API instances), then inserts the events and their outbox rows. A request is
// answered only after its batch has committed.
import type { Sql, Tx } from './db'
import { connectionLost, isConnectionError, reserve, settledOrLost } from './db'
import type { NormalizedEvent } from './event'
import type { Principal } from './auth'
import { HeraldError } from './problems'
import type { Logger } from './log'
import type { BusEvent } from './bus'
import { batchCommitted, batchFailed } from './metrics'

export interface Submission {
  principal: Principal
  id: string // UUIDv7
  createdAt: Date // the timestamp inside the UUIDv7
  channel: string
  event: NormalizedEvent
  changes: string[]
  idempotency?: { key: string; hash: string } // hash: hex SHA-256 of the raw body
}

export interface SubmitResult {
  workspace: string
  channel: string
  eventId: string
  remainingQuota: number
  errors?: string[]
}

export interface RateState {
  limit: number // the bucket's burst
  remaining: number // whole tokens left
  reset: number // seconds until the bucket is full again
}

export type Outcome =
  | { kind: 'accepted'; body: SubmitResult; rate: RateState }
  | { kind: 'replayed'; body: SubmitResult; rate: RateState }
  | { kind: 'limited'; reason: 'quota' | 'rate'; retryAfter: number; rate: RateState }
  | { kind: 'idempotency-mismatch' }
  | { kind: 'unknown-workspace' }

interface Item extends Submission {
  resolve(o: Outcome): void
  reject(e: unknown): void
}

interface Grant {
  outbox_id: number | null // the batch's outbox row, when it accepted any event
  id: number
  used: number
  granted: number
  quota: number
  tokens: number
  rate: number
  burst: number
  quota_reset_s: number
}

export function resultBody(s: Submission, remainingQuota: number): SubmitResult {
  const body: SubmitResult = { workspace: s.principal.workspace, channel: s.channel, eventId: s.id, remainingQuota }
  if (s.changes.length) body.errors = s.changes
  return body
}

const rateState = (tokens: number, rate: number, burst: number): RateState => ({
  limit: burst,
  remaining: Math.max(0, Math.floor(tokens)),
  reset: Math.max(0, Math.ceil((burst - tokens) / rate)),
})

/**
 * A PostgreSQL array literal of `tags`. Converting a JSON array to text[]
 * inside json_to_recordset costs several times more than array_in on this.
 */
export const textArray = (tags: string[]) =>
  `{${tags.map((t) => `"${t.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`

/**
 * Sends the two statements of a batch on `tx`, a connection inside a
 * transaction, without waiting in between (they are pipelined), and resolves
 * to the outcome of each event. The first inserts the events, without any
 * lock, so concurrent batches of this and other instances overlap there. The
 * second locks the batch's workspace rows, in id order so that no two batches
 * deadlock, spends quota and tokens, writes one outbox row listing the events
 * that fit, and deletes the others again. The row locks are thus held for one
 * short statement and the commit only. If the first statement fails, the
 * second fails too and the transaction rolls back.
 */
export function sendEventBatch(tx: Tx, items: Submission[], newChannels: { ws: number; channel: string }[]): Promise<Written> {
  const ord = new Map<number, number>()
  const cols = { id: [] as string[], ws: [] as number[], ord: [] as number[], at: [] as string[], channel: [] as string[] }
  const rows = items.map((s) => {
    const ws = s.principal.workspaceId
    const n = ord.get(ws) ?? 0
    ord.set(ws, n + 1)
    cols.id.push(s.id), cols.ws.push(ws), cols.ord.push(n), cols.at.push(s.createdAt.toISOString()), cols.channel.push(s.channel)
    const e = s.event
    return { id: s.id, ws, channel: s.channel, created_at: cols.at[cols.at.length - 1], event: e.event, title: e.title, message: e.message, link: e.link, tags: textArray(e.tags), data: e.data }
  })
  const inserted = tx`
    INSERT INTO events (id, workspace_id, channel, created_at, event, title, message, link, tags, data)
    SELECT id, ws, channel, created_at, event, title, message, link, tags::text[], data
    FROM json_to_recordset(${JSON.stringify(rows)}::text::json) AS e(
      id uuid, ws bigint, channel text, created_at timestamptz, event text, title text, message text, link text, tags text, data json)`.execute()
  const channels = newChannels.length
    ? tx`, ch AS (
        INSERT INTO channels (workspace_id, slug)
        SELECT DISTINCT c.ws, c.slug FROM unnest(${newChannels.map((c) => c.ws)}::bigint[], ${newChannels.map((c) => c.channel)}::text[]) AS c(ws, slug)
        WHERE EXISTS (SELECT 1 FROM verdict v WHERE v.ok AND v.ws = c.ws AND v.channel = c.slug)
        ON CONFLICT DO NOTHING)`
    : tx``
  const granted = tx<Grant[]>`
    WITH ev AS MATERIALIZED (
      SELECT * FROM unnest(${cols.id}::uuid[], ${cols.ws}::bigint[], ${cols.ord}::int[], ${cols.at}::timestamptz[], ${cols.channel}::text[])
        AS e(id, ws, ord, created_at, channel)
    ), req AS (
      SELECT ws AS id, count(*) AS n FROM ev GROUP BY ws
    ), locked AS MATERIALIZED (
      SELECT w.* FROM workspaces w WHERE w.id IN (SELECT id FROM req) ORDER BY w.id FOR NO KEY UPDATE
    ), cur AS MATERIALIZED (
      SELECT l.id, r.n, l.monthly_quota AS quota, l.rate_per_second AS rate, l.rate_burst AS burst,
        CASE WHEN l.quota_period < date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN 0 ELSE l.quota_used END AS used,
        LEAST(l.rate_burst::float8, l.tokens + GREATEST(0, extract(epoch FROM now() - l.tokens_at)::float8) * l.rate_per_second) AS tokens
      FROM locked l JOIN req r ON r.id = l.id
    ), g AS MATERIALIZED (
      SELECT *, GREATEST(0, LEAST(n, quota - used, floor(tokens)::bigint)) AS granted FROM cur
    ), upd AS (
      UPDATE workspaces w SET quota_used = g.used + g.granted,
        quota_period = date_trunc('month', now() AT TIME ZONE 'UTC')::date,
        tokens = g.tokens - g.granted, tokens_at = now()
      FROM g WHERE w.id = g.id
    ), daily AS (
      -- Under the workspace row locks taken above, so batches of one
      -- workspace on several instances add up here one after the other.
      INSERT INTO usage_daily (workspace_id, day, events)
      SELECT id, (now() AT TIME ZONE 'UTC')::date, granted FROM g WHERE granted > 0
      ON CONFLICT (workspace_id, day) DO UPDATE SET events = usage_daily.events + excluded.events
    ), verdict AS MATERIALIZED (
      SELECT ev.*, g.id IS NOT NULL AND ev.ord < g.granted AS ok FROM ev LEFT JOIN g ON g.id = ev.ws
    ), ob AS (
      INSERT INTO outbox (event_ids, workspace_ids)
      SELECT array_agg(id ORDER BY id), array_agg(ws ORDER BY id) FROM verdict WHERE ok HAVING count(*) > 0
      RETURNING id
    ), refused AS (
      -- Usually empty. ANY(ARRAY(...)) keeps this an index look-up per row.
      DELETE FROM events WHERE workspace_id = ANY(ARRAY(SELECT ws FROM verdict WHERE NOT ok))
        AND id = ANY(ARRAY(SELECT id FROM verdict WHERE NOT ok))
        AND created_at = ANY(ARRAY(SELECT created_at FROM verdict WHERE NOT ok))
    )${channels}
    SELECT (SELECT id FROM ob) AS outbox_id, id, used, granted, quota, tokens, rate, burst,
      extract(epoch FROM date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month' - (now() AT TIME ZONE 'UTC'))::float8 AS quota_reset_s
    FROM g`.execute()
  return Promise.all([inserted, granted]).then(([, grants]) => ({ outcomes: outcomes(items, grants), outboxId: grants[0]?.outbox_id ?? null }))
}

/** What a batch wrote: an outcome per submission, and the outbox row of the accepted ones. */
export interface Written {
  outcomes: Outcome[]
  outboxId: number | null
}

/** Writes a batch in a transaction of its own: BEGIN, both statements and COMMIT in one round trip. */
export async function writeEventBatch(sql: Sql, items: Submission[], newChannels: { ws: number; channel: string }[]): Promise<Written> {
  const conn = await reserve(sql)
  let lost = false
  try {
    const begin = conn`BEGIN`.execute()
    const written = sendEventBatch(conn, items, newChannels)
    const commit = conn`COMMIT`.execute()
    const [b, w, c] = await settledOrLost([begin, written, commit] as const)
    for (const r of [b, w, c]) if (r.status === 'rejected') throw r.reason
    // COMMIT in a failed transaction answers ROLLBACK; a statement has thrown then.
    if ((c as PromiseFulfilledResult<{ command: string }>).value.command !== 'COMMIT') throw new Error('batch transaction rolled back')
    return (w as PromiseFulfilledResult<Written>).value
  } catch (err) {
    lost = connectionLost(err)
    throw err
  } finally {
    // postgres.js 3.4.9 puts a released connection back in the pool even when
    // its socket is gone, and the next query on it throws from a timer, which
    // kills the process (porsager/postgres#1208). Left unreleased, the pool
    // reconnects it like any other closed connection.
    if (!lost) conn.release()
  }
}

/** A committed event as the bus carries it: as GET /events/{id} shows it, without reading it back. */
const busEvent = (s: Submission): BusEvent => ({
  workspaceId: s.principal.workspaceId,
  view: {
    eventId: s.id, workspace: s.principal.workspace, channel: s.channel, event: s.event.event, title: s.event.title,
    message: s.event.message, link: s.event.link, tags: s.event.tags, data: s.event.data, createdAt: s.createdAt.toISOString(),
  },
})

/** Settles each submission of a batch from its workspace's grant. */
function outcomes(items: Submission[], grants: Grant[]): Outcome[] {
  const byWs = new Map(grants.map((g) => [g.id, g]))
  const ord = new Map<number, number>()
  return items.map((s) => {
    const g = byWs.get(s.principal.workspaceId)
    if (!g) return { kind: 'unknown-workspace' }
    const i = ord.get(g.id) ?? 0
    ord.set(g.id, i + 1)
    if (i < g.granted) {
      return { kind: 'accepted', body: resultBody(s, g.quota - g.used - i - 1), rate: rateState(g.tokens - i - 1, g.rate, g.burst) }
    }
    const left = g.tokens - g.granted
    const rate = rateState(left, g.rate, g.burst)
    if (i >= g.quota - g.used) return { kind: 'limited', reason: 'quota', retryAfter: Math.max(1, Math.ceil(g.quota_reset_s)), rate }
    return { kind: 'limited', reason: 'rate', retryAfter: Math.max(1, Math.ceil((1 - left) / g.rate)), rate }
  })
}

export interface BatcherOptions {
  maxEvents: number
  windowMs: number
  concurrency: number
  /** Called after a batch with accepted events commits, with its outbox row and those events: the relay publishes them at once. */
  onCommit?: (outboxId: number, events: BusEvent[]) => void
}

export function createBatcher(sql: Sql, log: Logger, opts: BatcherOptions) {
  // One lane per concurrent batch. A workspace always goes to the same lane, so
  // two batches in flight never lock the same workspace row and never wait on
  // each other; each lane commits one batch at a time and gathers the next
  // meanwhile.
  interface Lane {
    queue: Item[]
    timer: ReturnType<typeof setTimeout> | null
    busy: boolean
  }
  const lanes: Lane[] = Array.from({ length: opts.concurrency }, () => ({ queue: [], timer: null, busy: false }))
  const laneOf = (it: Item) => lanes[it.principal.workspaceId % lanes.length]!
  const idle = new Set<() => void>()
  // Channels this process has seen committed, so that their rows are not
  // inserted again by every batch. Forgotten every minute: a channel deleted
  // in the dashboard is created again by its next event.
  const knownChannels = new Set<string>()
  setInterval(() => knownChannels.clear(), 60_000).unref()
  const pending = () => lanes.some((l) => l.busy || l.queue.length)

  function enqueue(it: Item) {
    const lane = laneOf(it)
    lane.queue.push(it)
    if (lane.busy) return
    if (lane.queue.length >= opts.maxEvents || opts.windowMs === 0) return flush(lane)
    lane.timer ??= setTimeout(() => flush(lane), opts.windowMs)
  }

  function flush(lane: Lane) {
    if (lane.timer) clearTimeout(lane.timer)
    lane.timer = null
    if (!lane.queue.length || lane.busy) return
    const items = lane.queue.splice(0, opts.maxEvents)
    lane.busy = true
    run(items)
      .catch((err) => fail(items, err))
      .finally(() => {
        lane.busy = false
        // Whatever arrived while this batch committed has waited long enough.
        if (lane.queue.length) flush(lane)
        else if (!pending()) for (const f of idle) f()
      })
  }

  async function run(items: Item[]) {
    // A second use of one idempotency key waits for the next batch, where it
    // finds the first one's committed answer.
    const seen = new Set<string>()
    const now: Item[] = []
    for (const it of items) {
      const k = it.idempotency && `${it.principal.workspaceId}:${it.idempotency.key}`
      if (k && seen.has(k)) laneOf(it).queue.push(it)
      else {
        if (k) seen.add(k)
        now.push(it)
      }
    }
    const fresh = newChannels(now)
    if (!now.some((i) => i.idempotency)) {
      const startedAt = performance.now()
      const { outcomes: res, outboxId } = await writeEventBatch(sql, now, fresh)
      batchCommitted(startedAt, res)
      remember(now, res, outboxId)
      return now.forEach((it, i) => it.resolve(res[i]!))
    }
    await runIdempotent(now, fresh)
  }

  async function runIdempotent(items: Item[], fresh: { ws: number; channel: string }[]) {
    const claims = items.filter((i) => i.idempotency)
    let losers: Item[] = []
    let writes: Item[] = []
    let res: Outcome[] = []
    let outboxId: number | null = null
    const startedAt = performance.now()
    await sql.begin(async (tx) => {
      const won = new Set(
        (await claimIdempotencyKeys(tx, claims)).map((r) => `${r.ws}:${r.key}`),
      )
      losers = claims.filter((i) => !won.has(`${i.principal.workspaceId}:${i.idempotency!.key}`))
      writes = items.filter((i) => !losers.includes(i))
      const written = writes.length ? await sendEventBatch(tx, writes, fresh) : { outcomes: [], outboxId: null }
      res = written.outcomes
      outboxId = written.outboxId
      await settleIdempotencyKeys(tx, writes, res)
    })
    if (writes.length) batchCommitted(startedAt, res)
    remember(writes, res, outboxId)
    writes.forEach((it, i) => it.resolve(res[i]!))
    if (losers.length) await replay(losers)
  }

  async function replay(losers: Item[]) {
    const stored = await findIdempotencyKeys(sql, losers)
    for (const it of losers) {
      const row = stored.find((r) => r.ws === it.principal.workspaceId && r.key === it.idempotency!.key)
      if (!row?.response) enqueue(it) // claimed and released meanwhile: try again
      else if (row.hash !== it.idempotency!.hash) it.resolve({ kind: 'idempotency-mismatch' })
      else it.resolve({ kind: 'replayed', body: row.response, rate: rateState(row.tokens, row.rate, row.burst) })
    }
  }

  function newChannels(items: Item[]) {
    const out = new Map<string, { ws: number; channel: string }>()
    for (const it of items) {
      const k = `${it.principal.workspaceId}/${it.channel}`
      if (!knownChannels.has(k)) out.set(k, { ws: it.principal.workspaceId, channel: it.channel })
    }
    return [...out.values()]
  }

  function remember(items: Item[], res: Outcome[], outboxId: number | null) {
    const accepted: BusEvent[] = []
    items.forEach((it, i) => {
      if (res[i]?.kind !== 'accepted') return
      knownChannels.add(`${it.principal.workspaceId}/${it.channel}`)
      accepted.push(busEvent(it))
    })
    if (accepted.length && outboxId !== null) opts.onCommit?.(outboxId, accepted)
  }

  async function fail(items: Item[], err: unknown) {
    if (isConnectionError(err)) {
      batchFailed('unavailable')
      log.warn({ err, events: items.length }, 'batch not written: database unavailable')
      const e = new HeraldError('unavailable', 'The database is unavailable; the event was not stored. Retry later.', undefined, { 'retry-after': '5' })
      return items.forEach((it) => it.reject(e))
    }
    batchFailed('error')
    if (items.length > 1) {
      // One bad row must not sink its neighbours: write each on its own.
      log.warn({ err, events: items.length }, 'batch failed; retrying its events one by one')
      for (const it of items) await run([it]).catch((e) => fail([it], e))
      return
    }
    log.error({ err, eventId: items[0]?.id }, 'event could not be written')
    items.forEach((it) => it.reject(err))
  }

  return {
    submit(s: Submission): Promise<Outcome> {
      return new Promise((resolve, reject) => enqueue({ ...s, resolve, reject }))
    },
    /** Resolves once every queued and running batch has settled. */
    drain(): Promise<void> {
      lanes.forEach(flush)
      if (!pending()) return Promise.resolve()
      return new Promise((res) => {
        const f = () => {
          idle.delete(f)
          res()
        }
        idle.add(f)
      })
    },
  }
}
export type Batcher = ReturnType<typeof createBatcher>

export async function claimIdempotencyKeys(tx: Tx, items: Submission[]) {
  const claims = items.map((i) => ({ ws: i.principal.workspaceId, key: i.idempotency!.key, hash: i.idempotency!.hash }))
  return tx<{ ws: number; key: string }[]>`
    INSERT INTO idempotency_keys (workspace_id, key, request_hash)
    SELECT ws, key, decode(hash, 'hex') FROM json_to_recordset(${JSON.stringify(claims)}::text::json) AS c(ws bigint, key text, hash text)
    ON CONFLICT (workspace_id, key) DO UPDATE SET request_hash = excluded.request_hash, response = NULL, created_at = now()
      WHERE idempotency_keys.created_at < now() - interval '24 hours'
    RETURNING workspace_id AS ws, key`
}

/** Stores the 200 body of accepted keyed events; releases the keys of refused ones. */
export async function settleIdempotencyKeys(tx: Tx, items: Submission[], res: Outcome[]) {
  const keep: { ws: number; key: string; response: SubmitResult }[] = []
  const drop: { ws: number; key: string }[] = []
  items.forEach((it, i) => {
    if (!it.idempotency) return
    const o = res[i]!
    const ref = { ws: it.principal.workspaceId, key: it.idempotency.key }
    if (o.kind === 'accepted') keep.push({ ...ref, response: o.body })
    else drop.push(ref)
  })
  if (keep.length) {
    await tx`UPDATE idempotency_keys i SET response = k.response
      FROM json_to_recordset(${JSON.stringify(keep)}::text::json) AS k(ws bigint, key text, response jsonb)
      WHERE i.workspace_id = k.ws AND i.key = k.key`
  }
  if (drop.length) {
    await tx`DELETE FROM idempotency_keys i USING json_to_recordset(${JSON.stringify(drop)}::text::json) AS k(ws bigint, key text)
      WHERE i.workspace_id = k.ws AND i.key = k.key`
  }
}

export async function findIdempotencyKeys(sql: Sql, items: Submission[]) {
  const refs = items.map((i) => ({ ws: i.principal.workspaceId, key: i.idempotency!.key }))
  return sql<{ ws: number; key: string; hash: string; response: SubmitResult | null; tokens: number; rate: number; burst: number }[]>`
    SELECT i.workspace_id AS ws, i.key, encode(i.request_hash, 'hex') AS hash, i.response,
      LEAST(w.rate_burst::float8, w.tokens + GREATEST(0, extract(epoch FROM now() - w.tokens_at)::float8) * w.rate_per_second) AS tokens,
      w.rate_per_second AS rate, w.rate_burst AS burst
    FROM idempotency_keys i
    JOIN json_to_recordset(${JSON.stringify(refs)}::text::json) AS k(ws bigint, key text) ON i.workspace_id = k.ws AND i.key = k.key
    JOIN workspaces w ON w.id = i.workspace_id`
}

/** Deletes idempotency keys older than 24 h; they no longer deduplicate anything. */
export const deleteExpiredIdempotencyKeys = (sql: Sql) =>
  sql`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`
