// Queries on deliveries: one row per (event, router) or (event, device) with
// a stable id, which also keeps its first attempt when that succeeded; any
// other attempt is a row of its own (attempts.ts). A first attempt is made
// before its row exists (the row is written with its outcome); a retry is a
// pending row that a worker owns while its lease runs (next_attempt_at in
// the future); a worker that dies simply lets it run out.
import type postgres from 'postgres'
import type { Sql, Tx } from '../core/db'
import { attemptLog, attemptPlace, keepFirstStatus, type AttemptRecord } from './attempts'
import { eventViewJson, type EventView } from './event_view'
import type { DeliveryKind } from './job'

export type { AttemptRecord } from './attempts'

export interface Claimed {
  id: string
  eventId: string
  workspaceId: number
  kind: DeliveryKind
  target: string // the router id, or the device id of a push
  attempts: number // attempts made before this one
}

export interface ClaimedWithEvent extends Claimed {
  event: EventView | null // null when the event is gone (retention)
}

/** A first attempt, made before its delivery had a row (src/delivery/fanout.ts). */
export interface FirstAttempt extends AttemptRecord {
  eventId: string
  workspaceId: number
  kind: DeliveryKind
  target: string
}

/**
 * Creates the rows of deliveries whose first attempt has been made, each in
 * the state that attempt left it: one statement, so one round trip and one
 * implicit transaction for a whole batch, which also sets the events' bits
 * in the ledger. A first attempt that succeeded is kept in its delivery's row
 * (attempts.ts); any other gets an attempt row. A retry is due its delay
 * after the attempt ended, not after the row is written: a pool task's rows
 * are written once its slowest send is over, which may be a time-out later.
 * A delivery that already has a row (a duplicate of a redelivered event)
 * keeps it; its duplicate attempt is not recorded. A first attempt the
 * circuit held back makes a pending row with no attempt; one whose event
 * outlived its ttl an `expired` row with no attempt; a push a member's
 * preference held back a `suppressed` row with no attempt. Devices that APNs
 * or FCM no longer know are deleted with it.
 */
export async function insertDeliveries(sql: Tx, rows: FirstAttempt[], ledger: LedgerMask[] = []): Promise<void> {
  if (!rows.length) return clearOwed(sql, ledger)
  // One JSON parameter rather than an array per column: JSON.stringify is
  // native, postgres.js escapes arrays element by element in JavaScript.
  // Absent fields (no status, error or response) are left out: NULL.
  let rowed = false
  const json = JSON.stringify(rows.map((r) => {
    const place = PLACES[attemptPlace(r)]
    if (place === 2) rowed = true
    return {
      i: r.deliveryId, e: r.eventId, w: r.workspaceId, k: r.kind, t: r.target, n: r.next, d: r.delayMs, s: r.startedAt.getTime(),
      u: Math.round(r.durationMs), h: r.status, o: r.ok, r: r.error, p: r.response, a: place,
    }
  }))
  const gone = rows.flatMap((r) => (r.unregisteredDevice ? [r.unregisteredDevice] : []))
  const also = sql`${gone.length ? sql`, gone AS (DELETE FROM devices WHERE id = ANY(${gone}::uuid[]))` : sql``}${ledger.length ? sql`, owed AS (${clearing(sql, ledger)})` : sql``}`
  // a: 0 no attempt, 1 kept in the delivery's row, 2 an attempt row.
  const insert = sql`
    INSERT INTO deliveries (id, event_id, event_at, workspace_id, kind, router_id, target, status, attempts, next_attempt_at, last_status, last_error,
      first_started_at, first_duration_ms, first_response)
    SELECT i, e, uuidv7_time(e), w, k, CASE WHEN k = 'router' THEN t::uuid END, t, n, CASE WHEN a = 0 THEN 0 ELSE 1 END,
      to_timestamp((s + u) / 1000.0) + d * interval '1 ms', h, r,
      CASE WHEN a = 1 THEN to_timestamp(s / 1000) END, CASE WHEN a = 1 THEN u END, CASE WHEN a = 1 THEN p END
    FROM r
    ON CONFLICT DO NOTHING`
  const input = sql`SELECT * FROM json_to_recordset(${json}::text::json)
    AS r(i uuid, e uuid, w bigint, k text, t text, n text, d float8, s float8, u int, h int, o bool, r text, p text, a int)`
  // When every attempt is kept in its row (or none was made), the statement
  // is that insert; otherwise the attempt rows of the deliveries it made follow.
  if (!rowed) {
    await sql`WITH r AS (${input})${also} ${insert}`
    return
  }
  await sql`
    WITH r AS MATERIALIZED (${input}), d AS (${insert} RETURNING id)${also}
    INSERT INTO delivery_attempts (delivery_id, event_at, attempt, started_at, duration_ms, status, ok, error, response)
    SELECT r.i, uuidv7_time(r.e), 1, to_timestamp(r.s / 1000), r.u, r.h, r.o, r.r, r.p FROM r JOIN d ON d.id = r.i WHERE r.a = 2`
}

const PLACES = { none: 0, inline: 1, row: 2 } as const

/** The bits of one outbox row to set: its events whose fan-out is recorded (src/delivery/relay.ts ledgerMasks). */
export interface LedgerMask {
  id: number
  mask: string
}

// Sets the recorded events' bits in the ledger. The mask has the row's size
// (its messages carry it), so the row's event_ids, a large array stored out
// of line, are never read; a mask of another size than bits already set (a
// row this Herald never made) is left alone rather than failing the statement.
// `o.id = ANY(…)` makes the rows an index look-up whatever the statistics
// say: outbox rows come and go by the thousand, and a plan that joins by
// scanning it grows with every dead row.
export const clearing = (sql: Tx, ledger: LedgerMask[]) => {
  const ids = ledger.map((l) => l.id)
  return sql`
    UPDATE outbox o SET done = CASE WHEN o.done IS NULL THEN m.mask::varbit ELSE o.done | m.mask::varbit END
    FROM unnest(${ids}::bigint[], ${ledger.map((l) => l.mask)}::text[]) AS m(id, mask)
    WHERE o.id = ANY(${ids}::bigint[]) AND o.id = m.id AND (o.done IS NULL OR length(o.done) = length(m.mask))`
}

/** Clears events that have no delivery to record (nothing matched them, or they were split over several statements) from the ledger. */
export async function clearOwed(sql: Tx, ledger: LedgerMask[]): Promise<void> {
  if (ledger.length) await clearing(sql, ledger)
}

/** The ids of the deliveries that exist for these events: a redelivered event skips them. */
export async function existingDeliveryIds(sql: Tx, eventIds: string[]): Promise<string[]> {
  if (!eventIds.length) return []
  const rows = await sql<{ id: string }[]>`SELECT id FROM deliveries WHERE event_id = ANY(${eventIds}::uuid[])`
  return rows.map((r) => r.id)
}

/**
 * Leases up to `limit` deliveries that are due, with their events, fairly
 * across workspaces: each workspace's due deliveries are ranked oldest first
 * and the claim takes the first of every workspace, then the second, and so
 * on, so that one workspace's backlog cannot hold another's retries behind
 * it. The candidates come per (workspace, target) pair, found by a skip scan
 * of deliveries_pending_target (one index probe per pair, sql/0015), each
 * pair's share of `limit` (four times its even share, at least 10), so that a
 * claim reads a bounded number of rows however many pairs there are. A router whose circuit is open (router_health, see
 * health.ts) is parked: its pair is skipped without reading its rows; once
 * its open time is over, one delivery, the trial, is taken per claim, and
 * the router stays parked `trialMs` more while it is under way.
 * The lease is set only on rows still due: a row another claim leased in
 * the meantime is skipped, not taken twice.
 */
export function claimDueDeliveries(sql: Sql, limit: number, leaseMs: number, trialMs = leaseMs): Promise<ClaimedWithEvent[]> {
  return sql<ClaimedWithEvent[]>`
    WITH RECURSIVE pairs AS (
      (SELECT workspace_id, target FROM deliveries WHERE status = 'pending' ORDER BY workspace_id, target LIMIT 1)
      UNION ALL
      SELECT n.workspace_id, n.target FROM pairs p CROSS JOIN LATERAL (
        SELECT workspace_id, target FROM deliveries
        WHERE status = 'pending' AND (workspace_id, target) > (p.workspace_id, p.target)
        ORDER BY workspace_id, target LIMIT 1) n
    ), counted AS (
      SELECT workspace_id, target, count(*) OVER () AS n FROM pairs
    ), due AS (
      SELECT c.id, c.event_at, c.workspace_id, c.next_attempt_at FROM counted p
      LEFT JOIN router_health h ON h.router_id::text = p.target
      CROSS JOIN LATERAL (
        SELECT id, event_at, workspace_id, next_attempt_at FROM deliveries d
        WHERE d.workspace_id = p.workspace_id AND d.target = p.target AND d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at LIMIT CASE WHEN h.router_id IS NULL THEN LEAST(${limit}, GREATEST(10, ceil(${limit} * 4.0 / p.n)))::int ELSE 1 END) c
      WHERE h.router_id IS NULL OR h.open_until <= now()
    ), chosen AS (
      SELECT id, event_at FROM (
        SELECT id, event_at, next_attempt_at, row_number() OVER (PARTITION BY workspace_id ORDER BY next_attempt_at) AS turn FROM due) r
      ORDER BY turn, next_attempt_at LIMIT ${limit}
    ), claimed AS (
      UPDATE deliveries d SET next_attempt_at = now() + ${leaseMs} * interval '1 ms'
      FROM chosen WHERE d.id = chosen.id AND d.event_at = chosen.event_at AND d.status = 'pending' AND d.next_attempt_at <= now()
      RETURNING d.id, d.event_id, d.workspace_id, d.kind, d.target, d.attempts
    ), trials AS (
      -- A parked router's trial is under way: no other until its outcome
      -- (which sets open_until again, or deletes the row), or for trialMs
      -- (a trial that fails without opening its thread's circuit reports
      -- nothing: the next goes then).
      UPDATE router_health h SET open_until = now() + ${trialMs} * interval '1 ms'
      FROM claimed c WHERE h.router_id::text = c.target AND h.open_until <= now()
    )
    SELECT c.id, c.event_id AS "eventId", c.workspace_id AS "workspaceId", c.kind, c.target, c.attempts,
      CASE WHEN e.id IS NULL THEN NULL ELSE ${eventViewJson(sql)} END AS event
    FROM claimed c
    JOIN workspaces w ON w.id = c.workspace_id
    LEFT JOIN events e ON e.workspace_id = c.workspace_id AND e.id = c.event_id AND e.created_at = uuidv7_time(c.event_id)`
}

export interface DeliveryView {
  id: string
  kind: DeliveryKind
  routerId: string | null
  deviceId: string | null
  status: DeliveryState
  reason: string | null // a suppressed push: which preference held it back
  digestId?: string // a digested delivery: its digest's delivery
  digestEventId?: string // … and the digest's first event (whose page shows the digest's delivery)
  digest?: DigestInfo // a digest's delivery
  attempts: { attempt: number; at: string; durationMs: number; ok: boolean; status: number | null; error: string | null; response: string | null }[]
  nextAttemptAt: string | null
  createdAt: string
  updatedAt: string
}

/** The deliveries of one event with every attempt, oldest first. */
export const listEventDeliveries = (sql: Tx, workspaceId: number, eventId: string) => sql<DeliveryView[]>`
  SELECT d.id, d.kind, d.router_id AS "routerId", CASE WHEN d.kind = 'push' THEN d.target END AS "deviceId", d.status,
    CASE WHEN d.status = 'suppressed' THEN d.last_error END AS reason,
    CASE WHEN d.status = 'pending' THEN iso_time(d.next_attempt_at) END AS "nextAttemptAt",
    iso_time(d.created_at) AS "createdAt", iso_time(d.updated_at) AS "updatedAt", ${digestColumns(sql)},
    ${attemptLog(sql)} AS attempts
  FROM deliveries d WHERE d.workspace_id = ${workspaceId} AND d.event_id = ${eventId}
  ORDER BY d.created_at, d.id`

/**
 * Whether the event of the delivery aliased `d` may be seen by the person
 * reading: SQL made by src/ingest/event_reads.ts (eventVisibleTo), `true`
 * for the operator. A person sees no delivery of an event they may not see.
 */
export type DeliveryVisible = postgres.PendingQuery<postgres.Row[]>

/** Failed deliveries of a workspace, newest first. */
export interface FailedDeliveryView {
  id: string
  eventId: string
  kind: string
  routerId: string | null
  status: 'failed'
  lastError: string | null
  attemptCount: number
  createdAt: string
  updatedAt: string
}
export const listFailedDeliveries = (sql: Tx, workspaceId: number, limit: number) => sql<FailedDeliveryView[]>`
  SELECT d.id, d.event_id AS "eventId", d.kind, d.router_id AS "routerId", d.status, d.last_error AS "lastError",
    iso_time(d.created_at) AS "createdAt", iso_time(d.updated_at) AS "updatedAt", d.attempts_before + d.attempts AS "attemptCount"
  FROM deliveries d WHERE d.workspace_id = ${workspaceId} AND d.status = 'failed'
  ORDER BY d.updated_at DESC LIMIT ${limit}`

/**
 * What a replay sets, for one delivery or many: due now, with a fresh retry
 * schedule (attempts count from 0 again), its id and attempt history kept.
 * The first attempt kept in the row keeps its status (keepFirstStatus).
 * The caller then wakes the scheduler, so that it is sent at once.
 */
const replayed = (sql: Tx) =>
  sql`status = 'pending', attempts_before = attempts_before + attempts, attempts = 0, next_attempt_at = now(), updated_at = now(), ${keepFirstStatus(sql)}`

/** Makes a finished delivery due again with a fresh schedule, keeping its id and its attempt history. */
export async function replayDelivery(sql: Tx, workspaceId: number, id: string, visible: DeliveryVisible): Promise<boolean> {
  const rows = await sql`
    UPDATE deliveries d SET ${replayed(sql)}
    WHERE d.id = ${id} AND d.workspace_id = ${workspaceId} AND d.status IN ('failed', 'succeeded') AND ${visible}
    RETURNING id`
  return rows.length > 0
}

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed', 'cancelled', 'expired', 'suppressed', 'throttled', 'digested'] as const
export type DeliveryState = (typeof DELIVERY_STATES)[number]

/** An event's deliveries by state, as the feed shows them. */
export interface DeliveryCounts {
  pending: number
  succeeded: number
  failed: number
  expired?: number // present when some expired (not sent in time: the event's ttl)
  suppressed?: number // present when some pushes were held back by members' preferences (muted, level, quiet hours)
  throttled?: number // present when a router's throttle held some back
  digested?: number // present when some went out inside a digest
}

/**
 * The deliveries of each of these events by state, in one grouped query that
 * reads the (event_id, kind, target) index: no event row is read, so no
 * partition of events either. Events without deliveries count zeros;
 * `expired` is there only for an event some of whose deliveries expired.
 */
export async function countEventDeliveries(sql: Tx, workspaceId: number, eventIds: string[], visible: DeliveryVisible | null = null): Promise<Map<string, DeliveryCounts>> {
  const counts = new Map<string, DeliveryCounts>(eventIds.map((id) => [id, { pending: 0, succeeded: 0, failed: 0 }]))
  if (!eventIds.length) return counts
  const rows = await sql<({ eventId: string } & DeliveryCounts)[]>`
    SELECT event_id AS "eventId", count(*) FILTER (WHERE status = 'pending')::int AS pending,
      count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE status = 'failed')::int AS failed,
      count(*) FILTER (WHERE status = 'expired')::int AS expired, count(*) FILTER (WHERE status = 'suppressed')::int AS suppressed,
      count(*) FILTER (WHERE status = 'throttled')::int AS throttled, count(*) FILTER (WHERE status = 'digested')::int AS digested
    FROM deliveries d WHERE event_id = ANY(${eventIds}::uuid[]) AND workspace_id = ${workspaceId} AND kind <> 'digest' ${visible ? sql`AND ${visible}` : sql``}
    GROUP BY event_id`
  for (const { eventId, expired, suppressed, throttled, digested, ...c } of rows) {
    counts.set(eventId, { ...c, ...(expired ? { expired } : {}), ...(suppressed ? { suppressed } : {}), ...(throttled ? { throttled } : {}), ...(digested ? { digested } : {}) })
  }
  return counts
}

/** Which deliveries of a workspace a list or a bulk replay takes; times are those of the events. */
export interface DeliveryFilter {
  state?: DeliveryState
  routerId?: string
  deviceId?: string
  since?: Date // events created at or after
  until?: Date // events created at or before
}

/**
 * The lowest UUID of the milliseconds `ms`: an event id (a UUIDv7) and a
 * delivery id (workers/send.ts) both begin with the event's time, so a time
 * range of events is a range of either key.
 */
export function uuidFloor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`
}

const matching = (sql: Tx, workspaceId: number, f: DeliveryFilter, visible: DeliveryVisible) => sql`
  d.workspace_id = ${workspaceId} AND ${visible}
  ${f.state ? sql`AND d.status = ${f.state}` : sql``}
  ${f.routerId ? sql`AND d.kind = 'router' AND d.router_id = ${f.routerId}::uuid` : sql``}
  ${f.deviceId ? sql`AND d.kind = 'push' AND d.target = ${f.deviceId.toLowerCase()}` : sql``}
  ${f.since ? sql`AND d.id >= ${uuidFloor(f.since.getTime())}::uuid` : sql``}
  ${f.until ? sql`AND d.id < ${uuidFloor(f.until.getTime() + 1)}::uuid` : sql``}`

/** A delivery as the list across events shows it, with what it needs of its event. */
/** What a digest's delivery carried: its key, how many events it gathered, and those retention kept (its events' digested deliveries). */
export interface DigestInfo {
  key: string
  count: number
  eventIds: string[]
}

// A digested delivery's digestId and digestEventId (the digest's first
// event, on whose page the digest's delivery sits: the digest's delivery, or
// while the window still gathers, the window's; both ids share its time, so
// one partition is read), and a digest's key, count and events (through
// deliveries_digest); stripped of nulls by withDigest.
const digestColumns = (sql: Tx) => sql`d.digest_id AS "digestId",
  CASE WHEN d.digest_id IS NOT NULL THEN coalesce(
    (SELECT x.event_id::text FROM deliveries x WHERE x.id = d.digest_id AND x.event_at = uuidv7_time(d.digest_id)),
    (SELECT o.first_event_id::text FROM digest_windows o WHERE o.router_id = d.router_id AND o.id = d.digest_id)) END AS "digestEventId",
  CASE WHEN d.kind = 'digest' THEN json_build_object('key', coalesce(d.digest_key, ''), 'count', coalesce(d.digest_count, 0),
    'eventIds', ARRAY(SELECT x.event_id FROM deliveries x WHERE x.digest_id = d.id ORDER BY x.event_id)) END AS digest`

/** A row read with digestColumns, without the fields it does not have (digestId only on a digested delivery, digest only on a digest's). */
export function withDigest<T extends { digestId?: string | null; digestEventId?: string | null; digest?: DigestInfo | null }>(row: T): T {
  if (row.digestId == null) delete row.digestId
  if (row.digestEventId == null) delete row.digestEventId
  if (row.digest == null) delete row.digest
  return row
}

export interface DeliveryListItem {
  id: string
  eventId: string
  kind: DeliveryKind
  routerId: string | null
  deviceId: string | null
  status: DeliveryState
  attemptCount: number
  lastStatus: number | null
  lastError: string | null
  nextAttemptAt: string | null
  createdAt: string
  updatedAt: string
  digestId?: string
  digestEventId?: string
  digest?: DigestInfo
  event: { title: string | null; message: string; event: string | null; channel: string; createdAt: string } | null
}

/**
 * A page of a workspace's deliveries, newest event first, after the delivery
 * `before` (a cursor: ids sort by event time, see uuidFloor). The page is cut
 * on the primary key first; only its rows look up their events, each in the
 * one partition its id names.
 */
export async function listDeliveries(sql: Tx, workspaceId: number, filter: DeliveryFilter, before: string | null, limit: number, visible: DeliveryVisible) {
  const rows = await sql<DeliveryListItem[]>`
    WITH page AS (
      SELECT d.* FROM deliveries d
      WHERE ${matching(sql, workspaceId, filter, visible)} ${before ? sql`AND d.id < ${before}::uuid` : sql``}
      ORDER BY d.id DESC LIMIT ${limit + 1}
    )
    SELECT d.id, d.event_id AS "eventId", d.kind, d.router_id AS "routerId", CASE WHEN d.kind = 'push' THEN d.target END AS "deviceId",
      d.status, d.attempts_before + d.attempts AS "attemptCount", d.last_status AS "lastStatus", d.last_error AS "lastError",
      CASE WHEN d.status = 'pending' THEN iso_time(d.next_attempt_at) END AS "nextAttemptAt",
      iso_time(d.created_at) AS "createdAt", iso_time(d.updated_at) AS "updatedAt", ${digestColumns(sql)},
      CASE WHEN e.id IS NULL THEN NULL ELSE json_build_object('title', e.title, 'message', left(e.message, 200), 'event', e.event,
        'channel', e.channel, 'createdAt', iso_time(e.created_at)) END AS event
    FROM page d
    LEFT JOIN events e ON e.workspace_id = d.workspace_id AND e.id = d.event_id AND e.created_at = uuidv7_time(d.event_id)
    ORDER BY d.id DESC`
  const deliveries = rows.slice(0, limit).map(withDigest)
  return { deliveries, nextCursor: rows.length > limit ? deliveries[deliveries.length - 1]!.id : null }
}

/** The most failed deliveries one bulk replay sends again: a bounded statement, and a bounded burst for the receivers. */
export const REPLAY_MAX = 1000

export interface BulkReplay {
  matched: number // failed deliveries that matched, counted up to REPLAY_MAX
  replayed: number // of them, made due again (0 on a dry run)
  more: boolean // more than REPLAY_MAX matched: replay again for the rest
}

/**
 * Replays the failed deliveries that match `filter`, newest first, at most
 * REPLAY_MAX, in one statement. Each is locked as it is picked and skipped
 * when another statement holds it, so two bulk replays at once send each
 * delivery again once: the second finds it no longer failed, or locked by
 * the first. A dry run only counts them.
 */
export async function replayFailedDeliveries(sql: Tx, workspaceId: number, filter: DeliveryFilter, visible: DeliveryVisible, dryRun = false): Promise<BulkReplay> {
  if (filter.state && filter.state !== 'failed') return { matched: 0, replayed: 0, more: false }
  const failed = { ...filter, state: 'failed' as const }
  if (dryRun) {
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM (SELECT 1 FROM deliveries d WHERE ${matching(sql, workspaceId, failed, visible)} LIMIT ${REPLAY_MAX + 1}) x`
    return { matched: Math.min(row!.n, REPLAY_MAX), replayed: 0, more: row!.n > REPLAY_MAX }
  }
  const [row] = await sql<{ picked: number; replayed: number }[]>`
    WITH picked AS (
      SELECT d.id FROM deliveries d WHERE ${matching(sql, workspaceId, failed, visible)}
      ORDER BY d.id DESC LIMIT ${REPLAY_MAX + 1}
      FOR UPDATE SKIP LOCKED
    ), chosen AS (
      SELECT id FROM picked ORDER BY id DESC LIMIT ${REPLAY_MAX}
    ), done AS (
      UPDATE deliveries d SET ${replayed(sql)}
      FROM chosen WHERE d.id = chosen.id AND d.status = 'failed'
      RETURNING d.id
    )
    SELECT (SELECT count(*) FROM picked)::int AS picked, (SELECT count(*) FROM done)::int AS replayed`
  return { matched: Math.min(row!.picked, REPLAY_MAX), replayed: row!.replayed, more: row!.picked > REPLAY_MAX }
}
