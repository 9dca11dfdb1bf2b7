// A router's health, shared by every worker through router_health
// (sql/0015): what the pool threads' circuits (circuit.ts) report becomes a
// row while the destination fails, and the row parks the router's
// deliveries in the retry scheduler's claim (deliveries.ts
// claimDueDeliveries). The sweeps here end what an outage would otherwise
// leave for ever: deliveries past their retry schedule fail for good, a
// router failing for ROUTER_FAILING_AFTER_MS is shown as failing and its
// owners and admins get one e-mail, and one failing for
// ROUTER_DISABLE_AFTER_MS is disabled (one more e-mail). Owners can also
// fail or cancel a router's pending deliveries at once.
import type postgres from 'postgres'
import type { Sql, Tx } from '../core/db'
import type { Logger } from '../core/log'
import type { CircuitReport } from './circuit'

/**
 * What the last sends to a router said of its destination: back (ok), or
 * failing with its circuit open until then. A held send (`error` null) only
 * tells how long its thread's circuit stays open: it makes no row, and does
 * not undo a success reported with it.
 */
type Report = { ok: true } | { ok: false; openUntil: number; error: string | null }

// Reports are gathered per router and written together: one statement per
// flush, whatever the number of sends.
const FLUSH_MS = 200

/** Writes the circuits' reports to router_health in batches. */
export function routerHealthWriter(sql: Sql, log: Logger) {
  let pending = new Map<string, Report>()
  let timer: ReturnType<typeof setTimeout> | null = null
  let writing: Promise<void> = Promise.resolve()

  async function write() {
    const batch = pending
    pending = new Map()
    if (!batch.size) return
    const back = [...batch].flatMap(([id, r]) => (r.ok ? [id] : []))
    const failing = [...batch].flatMap(([id, r]) => (r.ok ? [] : [{ id, ...r }]))
    try {
      await writeRouterHealth(sql, back, failing)
    } catch (err) {
      // Parking is an optimisation and the circuits still hold the sends: a
      // lost report is made again by the next send.
      log.warn({ err, routers: batch.size }, 'could not record the health of routers')
    }
  }
  const flush = () => (writing = writing.then(write))
  return {
    /**
     * A router send's outcome and its circuit (as its thread reported it;
     * absent: closed and was); `error` undefined for a held send. A retry
     * that succeeded (`retried`) is written even from a closed circuit: it
     * may be the trial of a router parked by another thread's or process's
     * circuit, and only its success unparks the router.
     */
    report(routerId: string, ok: boolean, circuit: CircuitReport | undefined, error: string | undefined, retried = false) {
      const was = pending.get(routerId)
      if (ok) {
        if (!circuit && !was && !retried) return // healthy, and was: nothing to write (the usual case)
        pending.set(routerId, { ok: true })
      } else if (circuit && circuit.openUntil > 0) {
        const held = error === undefined
        if (held && was) {
          if (!was.ok) was.openUntil = Math.max(was.openUntil, circuit.openUntil)
          return
        }
        pending.set(routerId, { ok: false, openUntil: circuit.openUntil, error: error ?? null })
      } else return
      timer ??= setTimeout(() => {
        timer = null
        void flush()
      }, FLUSH_MS)
    },
    async flush() {
      if (timer) clearTimeout(timer)
      timer = null
      await flush()
    },
  }
}

/**
 * Deletes the rows of routers that are back, and makes or updates those of
 * routers failing: open until their circuit's time; failing since the first
 * report (kept while it fails). A held send's report (no error) only moves
 * the open time of a router already failing: a success deleted its row, and
 * another thread's circuit, still open, must not bring it back. Routers
 * deleted meanwhile are skipped.
 */
export async function writeRouterHealth(sql: Tx, back: string[], failing: { id: string; openUntil: number; error: string | null }[]) {
  if (back.length) await sql`DELETE FROM router_health WHERE router_id = ANY(${back}::uuid[])`
  const failed = failing.filter((f) => f.error !== null)
  const held = failing.filter((f) => f.error === null)
  if (held.length) {
    await sql`
      UPDATE router_health h SET open_until = to_timestamp(f.open_until / 1000.0)
      FROM unnest(${held.map((f) => f.id)}::uuid[], ${held.map((f) => f.openUntil)}::float8[]) AS f(id, open_until)
      WHERE h.router_id = f.id`
  }
  if (!failed.length) return
  await sql`
    INSERT INTO router_health (router_id, open_until, last_error)
    SELECT r.id, to_timestamp(f.open_until / 1000.0), f.error
    FROM unnest(${failed.map((f) => f.id)}::uuid[], ${failed.map((f) => f.openUntil)}::float8[], ${failed.map((f) => f.error)}::text[]) AS f(id, open_until, error)
    JOIN routers r ON r.id = f.id
    ON CONFLICT (router_id) DO UPDATE SET open_until = excluded.open_until, last_error = excluded.last_error, last_failure_at = now()`
}

// How long the fan-out trusts its list of parked routers: a router parked a
// moment ago costs at most this many first attempts sent to the pool (where
// the thread's own circuit holds them).
const PARKED_FRESH_MS = 500

/**
 * The routers parked now (open_until ahead), by id, with the time their
 * open period ends: the fan-out holds their first attempts itself, without
 * sending them to the pool, where a trial that hangs would hold back every
 * other delivery of its task until it times out.
 */
export function parkedRouters(sql: Sql, log: Logger) {
  let at = 0
  let list = new Map<string, number>()
  let loading: Promise<void> | null = null
  const load = async () => {
    try {
      const rows = await sql<{ id: string; until: number }[]>`
        SELECT router_id::text AS id, (extract(epoch FROM open_until) * 1000)::float8 AS until FROM router_health WHERE open_until > now()`
      list = new Map(rows.map((r) => [r.id, r.until]))
    } catch (err) {
      log.warn({ err }, 'could not read the parked routers; the circuits alone hold their sends')
      list = new Map()
    }
    at = Date.now()
  }
  return async (): Promise<Map<string, number>> => {
    if (Date.now() - at > PARKED_FRESH_MS) await (loading ??= load().finally(() => (loading = null)))
    return list
  }
}

/** Forgets a router's failing state: an owner mended it (a new destination, or enabled it again). */
export async function clearRouterHealth(sql: Tx, routerId: string) {
  await sql`DELETE FROM router_health WHERE router_id = ${routerId}::uuid`
}

/** How a router's health reads in the API: null while it is healthy. */
export interface RouterHealthView {
  state: 'circuit-open' | 'failing' | 'disabled'
  since: string // when its destination began to fail
  lastError: string | null
  lastFailureAt: string
  openUntil: string // no delivery is sent to it before then (but one trial)
}

/** The health column of a router view (routers.ts): a subquery on the row `routers`. */
export const healthColumn = (sql: Tx) => sql`
  (SELECT json_build_object(
      'state', CASE WHEN h.disabled_at IS NOT NULL THEN 'disabled' WHEN h.notified_at IS NOT NULL THEN 'failing' ELSE 'circuit-open' END,
      'since', iso_time(h.failing_since), 'lastError', h.last_error, 'lastFailureAt', iso_time(h.last_failure_at), 'openUntil', iso_time(h.open_until))
    FROM router_health h WHERE h.router_id = routers.id) AS health`

// ------------------------------------------------------------- expiry

/** The text a delivery failed by its schedule's end carries: since when its destination failed. */
export const EXHAUSTED = 'retries exhausted: destination unreachable since '

/**
 * Fails for good, in one statement, up to `max` pending deliveries whose
 * event (or last replay) is older than the schedule's span plus `graceMs`:
 * the circuit holds deliveries without using their attempts, so only this
 * bounds their life. The oldest go first (deliveries_pending_age); rows
 * another statement holds are left for the next sweep. Returns them by kind,
 * for the metrics.
 */
export async function expireDeliveries(sql: Tx, spanMs: number, graceMs: number, max: number): Promise<{ kind: string; n: number }[]> {
  const cutoff = sql`now() - ${spanMs + graceMs} * interval '1 ms'`
  return sql<{ kind: string; n: number }[]>`
    WITH old AS (
      SELECT id, event_at FROM deliveries
      WHERE status = 'pending' AND event_at < ${cutoff} AND (attempts_before = 0 OR updated_at < ${cutoff})
      ORDER BY event_at LIMIT ${max}
      FOR UPDATE SKIP LOCKED
    ), failed AS (
      UPDATE deliveries d SET status = 'failed', updated_at = now(),
        last_error = ${EXHAUSTED} || iso_time(COALESCE((SELECT h.failing_since FROM router_health h WHERE h.router_id = d.router_id), d.updated_at))
      FROM old WHERE d.id = old.id AND d.event_at = old.event_at AND d.status = 'pending'
      RETURNING d.kind
    )
    SELECT kind, count(*)::int AS n FROM failed GROUP BY kind`
}

/**
 * Ends `expired`, up to `max` at once, the pending deliveries of parked
 * routers whose event is older than its ttl (in whole seconds, as
 * expiry.ts counts): a parked router's deliveries are only taken one trial
 * at a time, so without this they would stay pending, never to be sent,
 * until the destination came back. Returns them by destination type, for
 * the metrics.
 */
export async function expireParkedPastTtl(sql: Tx, max: number): Promise<{ type: string; n: number }[]> {
  return sql<{ type: string; n: number }[]>`
    WITH old AS (
      SELECT d.id, d.event_at, r.destination_type AS type, e.ttl FROM router_health h
      JOIN routers r ON r.id = h.router_id
      CROSS JOIN LATERAL (
        SELECT id, event_id, event_at FROM deliveries
        WHERE workspace_id = r.workspace_id AND target = h.router_id::text AND status = 'pending'
        ORDER BY event_at LIMIT ${max}) d
      JOIN events e ON e.workspace_id = r.workspace_id AND e.id = d.event_id AND e.created_at = d.event_at
      WHERE e.ttl IS NOT NULL AND e.created_at + (e.ttl + 1) * interval '1 second' <= now()
      LIMIT ${max}
    ), expired AS (
      UPDATE deliveries d SET status = 'expired', updated_at = now(),
        last_error = 'expired: the event is older than its ttl of ' || old.ttl || ' s; not sent'
      FROM old WHERE d.id = old.id AND d.event_at = old.event_at AND d.status = 'pending'
      RETURNING old.type
    )
    SELECT type, count(*)::int AS n FROM expired GROUP BY type`
}

// ------------------------------------------------------------- owners' part

/** A router that just crossed a threshold, with who to tell. */
export interface RouterAlarm {
  id: string
  name: string
  workspaceId: number
  workspace: string
  since: string
  lastError: string | null
  to: string[] // the workspace's owners and admins
}

const alarmOf = (sql: Tx, claimed: postgres.PendingQuery<postgres.Row[]>) => sql<RouterAlarm[]>`
  WITH c AS (${claimed})
  SELECT c.id::text AS id, r.name, r.workspace_id::int AS "workspaceId", w.name AS workspace, iso_time(c.failing_since) AS since, c.last_error AS "lastError",
    COALESCE((SELECT array_agg(u.email ORDER BY u.email) FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = r.workspace_id AND m.role IN ('owner', 'admin')), '{}') AS "to"
  FROM c JOIN routers r ON r.id = c.id JOIN workspaces w ON w.id = r.workspace_id`

/**
 * The enabled routers failing for `afterMs` or more whose owners were not
 * told yet, each marked told by this very statement: of several workers
 * sweeping at once, exactly one gets each router, so one e-mail goes out.
 */
export const claimFailingRouters = (sql: Tx, afterMs: number) => alarmOf(sql, sql`
  UPDATE router_health h SET notified_at = now() FROM routers r
  WHERE r.id = h.router_id AND r.enabled AND h.notified_at IS NULL AND h.failing_since <= now() - ${afterMs} * interval '1 ms'
  RETURNING h.router_id AS id, h.failing_since, h.last_error`)

/**
 * Disables the routers failing for `afterMs` or more, once each (the
 * transition is claimed as above), and fails their pending deliveries.
 */
export async function disableFailingRouters(sql: Sql, afterMs: number): Promise<RouterAlarm[]> {
  return sql.begin(async (tx) => {
    const alarms = await alarmOf(tx, tx`
      UPDATE router_health h SET disabled_at = now() FROM routers r
      WHERE r.id = h.router_id AND r.enabled AND h.disabled_at IS NULL AND h.failing_since <= now() - ${afterMs} * interval '1 ms'
      RETURNING h.router_id AS id, h.failing_since, h.last_error`)
    if (!alarms.length) return alarms
    const ids = alarms.map((a) => a.id)
    await tx`UPDATE routers SET enabled = false, updated_at = now() WHERE id = ANY(${ids}::uuid[])`
    for (const a of alarms) await settleRouterDeliveries(tx, a.workspaceId, a.id, 'failed', `router disabled: destination unreachable since ${a.since}`)
    return alarms
  })
}

/**
 * Ends every pending delivery of a router at once, `failed` or `cancelled`,
 * in one statement. A retry under way when it runs records its attempt but
 * leaves the delivery in the state set here (recordAttempts only changes
 * pending deliveries), so each ends in one state.
 */
export async function settleRouterDeliveries(sql: Tx, workspaceId: number, routerId: string, state: 'failed' | 'cancelled', reason: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    WITH done AS (
      UPDATE deliveries SET status = ${state}, last_error = ${reason}, updated_at = now()
      WHERE workspace_id = ${workspaceId} AND target = ${routerId.toLowerCase()} AND kind = 'router' AND status = 'pending'
      RETURNING 1
    )
    SELECT count(*)::int AS n FROM done`
  return row!.n
}
