// The write path of POST /event. Accepted events gather while the previous
// batch commits; each batch is one statement, so one round trip and one
// commit, that applies every workspace's monthly quota and token bucket
// (under row locks, so the limits hold across API instances) and inserts the
// events that fit with their outbox row. A request is answered only after its
// batch has committed.
import type { Sql, Tx } from '../core/db'
import { connectionLost, isConnectionError } from '../core/db'
import { rateState, resultBody, type Outcome, type Submission } from './submission'
import { claimIdempotencyKeys, findIdempotencyKeys, settleIdempotencyKeys } from './idempotency'
import { HeraldError } from '../core/problems'
import type { Logger } from '../core/log'
import type { BusEvent } from '../delivery/bus'
import { batchCommitted, batchFailed } from './metrics'
import { channelsPastLimit, missingChannels } from '../accounts/channels'

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

/** A PostgreSQL array literal of `tags`: each event's tags travel as one text of an unnest array. */
export const textArray = (tags: string[]) =>
  `{${tags.map((t) => `"${t.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`

/** What a batch wrote: an outcome per submission, and the outbox row of the accepted ones. */
export interface Written {
  outcomes: Outcome[]
  outboxId: number | null
}

/**
 * Writes a batch in one statement, one round trip and one commit, with no
 * BEGIN or COMMIT of its own when `sql` is not a transaction: it locks the
 * batch's workspace rows in id order (so no two batches, on any instance,
 * deadlock) and spends quota and tokens under the lock; inserts only the
 * events that fit (none is written and then deleted); adds them to
 * usage_daily; writes one outbox row listing them (the ledger of their
 * fan-out, src/delivery/relay.ts); and creates the channels they name for
 * the first time. Every table access is an index look-up or an insert,
 * so the plan is as good on a full partition as on an empty one
 * (test/ingest/ingest.plans.test.ts).
 */
export async function writeEventBatch(sql: Tx, items: Submission[], newChannels: { ws: number; channel: string }[]): Promise<Written> {
  const ord = new Map<number, number>()
  const n = items.length
  const cols = {
    id: new Array<string>(n), ws: new Array<number>(n), ord: new Array<number>(n), at: new Array<string>(n), channel: new Array<string>(n),
    event: new Array<string | null>(n), title: new Array<string | null>(n), message: new Array<string>(n), link: new Array<string | null>(n),
    tags: new Array<string>(n), data: new Array<string | null>(n),
  }
  items.forEach((s, i) => {
    const ws = s.principal.workspaceId
    const k = ord.get(ws) ?? 0
    ord.set(ws, k + 1)
    const e = s.event
    cols.id[i] = s.id, cols.ws[i] = ws, cols.ord[i] = k, cols.at[i] = s.createdAt.toISOString(), cols.channel[i] = s.channel
    cols.event[i] = e.event, cols.title[i] = e.title, cols.message[i] = e.message, cols.link[i] = e.link
    cols.tags[i] = textArray(e.tags), cols.data[i] = e.data === null ? null : JSON.stringify(e.data)
  })
  const ids = [...ord.keys()].sort((a, b) => a - b)
  const channels = newChannels.length
    ? sql`, ch AS (
        INSERT INTO channels (workspace_id, slug)
        SELECT DISTINCT c.ws, c.slug FROM unnest(${newChannels.map((c) => c.ws)}::bigint[], ${newChannels.map((c) => c.channel)}::text[]) AS c(ws, slug)
        WHERE EXISTS (SELECT 1 FROM ins WHERE ins.workspace_id = c.ws AND ins.channel = c.slug)
        ON CONFLICT DO NOTHING)`
    : sql``
  const grants = await sql<Grant[]>`
    WITH req AS (
      SELECT ws AS id, count(*)::int AS n FROM unnest(${cols.ws}::bigint[]) AS ws GROUP BY ws
    ), locked AS MATERIALIZED (
      SELECT w.id, w.monthly_quota, w.quota_used, w.quota_period, w.tokens, w.tokens_at, w.rate_per_second, w.rate_burst
      FROM workspaces w WHERE w.id = ANY(${ids}::bigint[]) ORDER BY w.id FOR NO KEY UPDATE
    ), cur AS MATERIALIZED (
      SELECT l.id, r.n, l.monthly_quota AS quota, l.rate_per_second AS rate, l.rate_burst AS burst,
        CASE WHEN l.quota_period < date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN 0 ELSE l.quota_used END AS used,
        LEAST(l.rate_burst::float8, l.tokens + GREATEST(0, extract(epoch FROM now() - l.tokens_at)::float8) * l.rate_per_second) AS tokens
      FROM locked l JOIN req r ON r.id = l.id
    ), g AS MATERIALIZED (
      SELECT *, GREATEST(0, LEAST(n, quota - used, floor(tokens)::bigint))::int AS granted FROM cur
    ), upd AS (
      UPDATE workspaces w SET quota_used = g.used + g.granted,
        quota_period = date_trunc('month', now() AT TIME ZONE 'UTC')::date,
        tokens = g.tokens - g.granted, tokens_at = now()
      FROM g WHERE w.id = ANY(${ids}::bigint[]) AND w.id = g.id
    ), daily AS (
      -- Under the workspace row locks taken above, so batches of one
      -- workspace on several instances add up here one after the other.
      INSERT INTO usage_daily (workspace_id, day, events)
      SELECT id, (now() AT TIME ZONE 'UTC')::date, granted FROM g WHERE granted > 0
      ON CONFLICT (workspace_id, day) DO UPDATE SET events = usage_daily.events + excluded.events
    ), ins AS (
      -- The first "granted" events of each workspace, in the order they came.
      INSERT INTO events (id, workspace_id, channel, created_at, event, title, message, link, tags, data)
      SELECT e.id, e.ws, e.channel, e.at, e.event, e.title, e.message, e.link, e.tags::text[], e.data::json
      FROM unnest(${cols.id}::uuid[], ${cols.ws}::bigint[], ${cols.ord}::int[], ${cols.at}::timestamptz[], ${cols.channel}::text[],
        ${cols.event}::text[], ${cols.title}::text[], ${cols.message}::text[], ${cols.link}::text[], ${cols.tags}::text[], ${cols.data}::text[])
        AS e(id, ws, ord, at, channel, event, title, message, link, tags, data)
      JOIN g ON g.id = e.ws WHERE e.ord < g.granted
      RETURNING id, workspace_id, channel
    ), ob AS (
      INSERT INTO outbox (event_ids, workspace_ids)
      SELECT array_agg(id ORDER BY id), array_agg(workspace_id ORDER BY id) FROM ins HAVING count(*) > 0
      RETURNING id
    )${channels}
    SELECT (SELECT id FROM ob) AS outbox_id, id, used, granted, quota, tokens, rate, burst,
      extract(epoch FROM date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month' - (now() AT TIME ZONE 'UTC'))::float8 AS quota_reset_s
    FROM g`
  return { outcomes: outcomes(items, grants), outboxId: grants[0]?.outbox_id ?? null }
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
  /** Called after a batch with accepted events commits, with its outbox row and those events: the relay publishes them at once. */
  onCommit?: (outboxId: number, events: BusEvent[]) => void
  /** Lanes, each on a connection of its own (default 1). */
  lanes?: number
  /** Batches a lane may have in flight at once on its connection (1: one after the other). */
  pipeline?: number
  /** A batch not settled after this long gives up its connection and answers 503 (default 10 s; 0: never, for a connection that cannot be replaced). */
  timeoutMs?: number
  /** Most channels a workspace may have: an event naming a new one past it is refused (default: no limit). */
  maxChannels?: number
}

/** Thrown into the batches of a lane whose connection is given up. */
const laneLost = (why: string) => Object.assign(new Error(`the batch's database connection was given up: ${why}`), { code: 'CONNECTION_DESTROYED' })

export function createBatcher(sql: Sql, connect: () => Sql, log: Logger, opts: BatcherOptions) {
  // Lanes of batches, each on a connection of its own (from `connect`). A
  // workspace always goes to the same lane, so two lanes never lock the same
  // workspace row and never wait on each other. A lane has at most
  // `pipeline` batches in flight on its connection: while one commits, the
  // next is already sent, once it holds as many events as the one ahead (so
  // that batches stay full), and PostgreSQL runs it as soon as the first has
  // committed, rather than after a round trip. One connection runs one
  // statement at a time, so the second never waits on the first one's locks.
  //
  // When the connection is lost, postgres.js 3.4.9 may never settle the
  // statements it still held (porsager/postgres#1186), nor the first one on a
  // connection that the server closes while it starts up (#1214). So a lane
  // settles its batches itself: a batch that fails for a lost connection, or
  // is not settled within `timeoutMs`, gives the connection up. Every batch
  // still in flight on it answers 503, and the lane goes on with a new one.
  interface Lane {
    conn: Sql
    queue: Item[]
    timer: ReturnType<typeof setTimeout> | null
    inflight: number
    keyed: number // queued submissions with an idempotency key
    keyedInflight: number // batches in flight that hold such submissions
    last: number // events in the batch sent last
    // The batches in flight on `conn`, told when it is given up. Not a
    // promise that every batch races: a promise that stays pending keeps
    // every race's reaction, and with it every batch's outcomes, for as long
    // as the connection lives (it grew the API process by ~2 objects per
    // event, hundreds of MB under load).
    lost: Set<(err: Error) => void>
    giveUp: (err: Error) => void
  }
  const pipeline = opts.pipeline ?? 1
  const timeoutMs = opts.timeoutMs ?? 10_000
  const lanes: Lane[] = Array.from({ length: opts.lanes ?? 1 }, () => withConnection({ queue: [], timer: null, inflight: 0, keyed: 0, keyedInflight: 0, last: 0 } as unknown as Lane, connect()))
  const laneOf = (it: Item) => lanes[it.principal.workspaceId % lanes.length]!
  const idle = new Set<() => void>()
  // Channels this process has seen committed, so that their rows are not
  // inserted again by every batch. Forgotten every minute: a channel deleted
  // in the dashboard is created again by its next event.
  const knownChannels = new Set<string>()
  setInterval(() => knownChannels.clear(), 60_000).unref()
  const pending = () => lanes.some((l) => l.inflight > 0 || l.queue.length)
  // Whether the lane sends its queue now: at once when idle (or after the
  // window), alongside a batch in flight only once enough has gathered. A
  // batch with idempotency keys runs in a transaction on a pooled connection,
  // not on the lane's: it neither goes alongside another batch nor lets one
  // go alongside it, so that a lane's batches still take their workspaces'
  // quota and tokens in the order their events came (POST /events relies on it).
  const ready = (lane: Lane) =>
    lane.inflight === 0 ||
    (lane.inflight < pipeline && lane.queue.length >= lane.last && lane.keyed === 0 && lane.keyedInflight === 0)

  function queue(lane: Lane, it: Item) {
    lane.queue.push(it)
    if (it.idempotency) lane.keyed++
  }

  function enqueue(it: Item) {
    const lane = laneOf(it)
    queue(lane, it)
    if (lane.inflight > 0) return ready(lane) ? flush(lane) : undefined
    if (lane.queue.length >= opts.maxEvents || opts.windowMs === 0) return flush(lane)
    lane.timer ??= setTimeout(() => flush(lane), opts.windowMs)
  }

  function flush(lane: Lane) {
    if (lane.timer) clearTimeout(lane.timer)
    lane.timer = null
    if (!lane.queue.length || !ready(lane)) return
    const items = lane.queue.splice(0, opts.maxEvents)
    let keyed = 0
    for (const it of items) if (it.idempotency) keyed++
    lane.keyed -= keyed
    if (keyed) lane.keyedInflight++
    lane.last = items.length
    lane.inflight++
    run(lane, items)
      .catch((err) => fail(lane, items, err))
      .finally(() => {
        lane.inflight--
        if (keyed) lane.keyedInflight--
        // Whatever arrived while this batch committed has waited long enough.
        if (lane.queue.length) flush(lane)
        else if (!pending()) for (const f of idle) f()
      })
  }

  /** Sets the lane's connection, and how a batch on it learns that it was given up. */
  function withConnection(lane: Lane, conn: Sql): Lane {
    lane.conn = conn
    const inFlight = new Set<(err: Error) => void>()
    lane.lost = inFlight
    lane.giveUp = (err) => [...inFlight].forEach((tell) => tell(err))
    return lane
  }

  /** Gives up the lane's connection (once per connection) and continues on a new one. */
  function renew(lane: Lane, conn: Sql, err: Error) {
    if (lane.conn !== conn) return
    // The new connection first: a batch told of the loss renews no further.
    const giveUp = lane.giveUp
    withConnection(lane, connect())
    giveUp(err)
    if (conn !== lane.conn) conn.end({ timeout: 0 }).catch(() => {})
  }

  /** A batch's own promise, or its connection's loss or timeout, whichever comes first. */
  function settled<T>(lane: Lane, batch: Promise<T>): Promise<T> {
    const conn = lane.conn
    const inFlight = lane.lost
    return new Promise<T>((resolve, reject) => {
      const timer = timeoutMs > 0 ? setTimeout(() => renew(lane, conn, laneLost(`no answer within ${timeoutMs} ms`)), timeoutMs) : undefined
      const done = () => {
        clearTimeout(timer)
        inFlight.delete(fail)
      }
      function fail(err: Error) {
        done()
        if (connectionLost(err)) renew(lane, conn, err)
        reject(err)
      }
      inFlight.add(fail)
      batch.then((v) => {
        done()
        resolve(v)
      }, fail)
    })
  }

  async function run(lane: Lane, items: Item[]) {
    // A second use of one idempotency key waits for the next batch, where it
    // finds the first one's committed answer.
    const seen = new Set<string>()
    const now: Item[] = []
    for (const it of items) {
      const k = it.idempotency && `${it.principal.workspaceId}:${it.idempotency.key}`
      if (k && seen.has(k)) queue(lane, it)
      else {
        if (k) seen.add(k)
        now.push(it)
      }
    }
    // Channels this process has not seen committed are looked up; a batch
    // that would make one goes through a transaction, under the limit.
    const fresh = newChannels(now)
    const missing = fresh.length ? await settled(lane, missingChannels(lane.conn, fresh)) : []
    for (const c of fresh) if (!missing.some((m) => m.ws === c.ws && m.channel === c.channel)) knownChannels.add(`${c.ws}/${c.channel}`)
    // Keyed batches run on a pooled connection, and the lane sends nothing
    // beside them; one that makes a channel runs on the lane's own
    // connection, so that the batches sent after it still commit after it.
    if (now.some((i) => i.idempotency)) return await settled(lane, runSerial(sql, now))
    if (missing.length) return await settled(lane, runSerial(lane.conn, now))
    const startedAt = performance.now()
    const { outcomes: res, outboxId } = await settled(lane, writeEventBatch(lane.conn, now, fresh))
    batchCommitted(startedAt, res)
    remember(now, res, outboxId)
    now.forEach((it, i) => it.resolve(res[i]!))
  }

  /**
   * A batch with idempotency keys or channels named for the first time, in a
   * transaction on a pooled connection: the channel limits are checked under
   * the workspaces' channel locks, held until the events and their new
   * channels commit (so two batches on any instances cannot both take a
   * workspace's last channel place); the events past a limit are answered
   * 422 and take no quota; the keys are claimed, and the events written.
   */
  async function runSerial(conn: Sql, items: Item[]) {
    let losers: Item[] = []
    let writes: Item[] = []
    let refused: Item[] = []
    let res: Outcome[] = []
    let outboxId: number | null = null
    const max = opts.maxChannels ?? Number.MAX_SAFE_INTEGER
    const startedAt = performance.now()
    await conn.begin(async (tx) => {
      const fresh = newChannels(items)
      const over = new Set((fresh.length ? await channelsPastLimit(tx, fresh, max) : []).map((c) => `${c.ws}/${c.channel}`))
      refused = items.filter((i) => over.has(`${i.principal.workspaceId}/${i.channel}`))
      const admitted = refused.length ? items.filter((i) => !refused.includes(i)) : items
      const claims = admitted.filter((i) => i.idempotency)
      const won = new Set(claims.length ? (await claimIdempotencyKeys(tx, claims)).map((r) => `${r.ws}:${r.key}`) : [])
      losers = claims.filter((i) => !won.has(`${i.principal.workspaceId}:${i.idempotency!.key}`))
      writes = admitted.filter((i) => !losers.includes(i))
      const written = writes.length ? await writeEventBatch(tx, writes, fresh.filter((c) => !over.has(`${c.ws}/${c.channel}`))) : { outcomes: [], outboxId: null }
      res = written.outcomes
      outboxId = written.outboxId
      if (claims.length) await settleIdempotencyKeys(tx, writes, res)
    })
    if (writes.length) batchCommitted(startedAt, res)
    remember(writes, res, outboxId)
    writes.forEach((it, i) => it.resolve(res[i]!))
    refused.forEach((it) => it.resolve({ kind: 'channel-limit', max }))
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

  async function fail(lane: Lane, items: Item[], err: unknown) {
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
      for (const it of items) await run(lane, [it]).catch((e) => fail(lane, [it], e))
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
