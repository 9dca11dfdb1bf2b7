// Where a delivery's attempts live. Most deliveries succeed at their first
// attempt, and that attempt is kept in the delivery's own row (its start,
// duration, status and response: sql/0025), so that the commonest delivery
// costs one row, not two. Every other attempt (a failure, a retry, any
// attempt after a replay) is a row of delivery_attempts. An attempt not
// made (held back by the circuit, expired, suppressed) has neither. The
// delivery log reads both places as one list (attemptLog).
import type postgres from 'postgres'
import type { Sql, Tx } from '../core/db'

export interface AttemptRecord {
  deliveryId: string
  attempt: number
  startedAt: Date
  durationMs: number
  ok: boolean
  status?: number
  error?: string
  response?: string
  next: 'succeeded' | 'failed' | 'pending' | 'expired' | 'suppressed' // expired: not sent, its event outlived its ttl; suppressed: not sent, a preference of the device's member (first attempts only; neither has an attempt row)
  delayMs: number // until the next attempt, when next is pending
  unregisteredDevice?: string // a device APNs or FCM no longer knows: removed with this record
  held?: boolean // not sent (the circuit held it back): only next_attempt_at changes, see holdDeliveries
}

/** Where an attempt is recorded: nowhere (not made), in its delivery's row, or in a row of its own. */
export type AttemptPlace = 'none' | 'inline' | 'row'

/**
 * Where an attempt goes: a delivery's first attempt, when it succeeded
 * without an error, is kept in the delivery's row; a first attempt after a
 * replay is not a first (the caller of recordAttempts cannot know it: the
 * statement checks attempts_before). An attempt not made has no record.
 */
export function attemptPlace(r: AttemptRecord): AttemptPlace {
  if (r.held || r.next === 'expired' || r.next === 'suppressed') return 'none'
  return r.attempt === 1 && r.ok && r.next === 'succeeded' && r.error == null ? 'inline' : 'row'
}

/** Writes a batch of attempts and the state they leave their deliveries in: one statement, or one transaction when some were held back or expired. */
export async function recordAttempts(sql: Sql, records: AttemptRecord[]) {
  if (!records.length) return
  const held = records.filter((r) => r.held)
  const expired = records.filter((r) => r.next === 'expired')
  if (!held.length && !expired.length) return writeAttempts(sql, records)
  const made = records.filter((r) => !r.held && r.next !== 'expired')
  await sql.begin(async (tx) => {
    await holdDeliveries(tx, held)
    await expireUnsent(tx, expired)
    await writeAttempts(tx, made)
  })
}

/**
 * The attempts made and the state they leave their deliveries in, in one
 * statement. Only a pending delivery changes state: one a router's disabling
 * or a receipt ended meanwhile keeps the state set there, and its attempt
 * gets a row. A first attempt that succeeded is kept in the row it updates.
 * Each other attempt goes to its delivery's month (event_at, sql/0012),
 * looked up by id in each month's primary key: a lateral look-up per attempt,
 * never a join that hashes whole months. One whose delivery retention has
 * just dropped is not recorded, rather than failing the batch.
 */
async function writeAttempts(sql: Tx, records: AttemptRecord[]) {
  if (!records.length) return
  const col = <T>(f: (r: AttemptRecord) => T) => records.map(f)
  const gone = records.flatMap((r) => (r.unregisteredDevice ? [r.unregisteredDevice] : []))
  await sql`
    WITH r AS MATERIALIZED (
      SELECT * FROM unnest(${col((r) => r.deliveryId)}::uuid[], ${col((r) => r.attempt)}::int[], ${col((r) => r.startedAt.toISOString())}::timestamptz[],
        ${col((r) => Math.round(r.durationMs))}::int[], ${col((r) => r.status ?? null)}::int[], ${col((r) => String(r.ok))}::text[]::bool[],
        ${col((r) => r.error ?? null)}::text[], ${col((r) => r.response ?? null)}::text[], ${col((r) => r.next)}::text[], ${col((r) => r.delayMs)}::float8[],
        ${col((r) => String(attemptPlace(r) === 'inline'))}::text[]::bool[])
        AS r(id, attempt, started_at, duration_ms, status, ok, error, response, next, delay_ms, first)
    ), u AS (
      UPDATE deliveries d SET status = r.next, attempts = r.attempt, last_status = r.status, last_error = r.error, updated_at = now(),
        next_attempt_at = CASE WHEN r.next = 'pending' THEN now() + r.delay_ms * interval '1 ms' ELSE d.next_attempt_at END,
        first_started_at = CASE WHEN r.first AND d.attempts_before = 0 THEN r.started_at ELSE d.first_started_at END,
        first_duration_ms = CASE WHEN r.first AND d.attempts_before = 0 THEN r.duration_ms ELSE d.first_duration_ms END,
        first_response = CASE WHEN r.first AND d.attempts_before = 0 THEN r.response ELSE d.first_response END
      FROM r WHERE d.id = r.id AND d.status = 'pending'
      RETURNING d.id, r.first AND d.attempts_before = 0 AS inline
    )${gone.length ? sql`, gone AS (DELETE FROM devices WHERE id = ANY(${gone}::uuid[]))` : sql``}
    INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status, ok, error, response, event_at)
    SELECT r.id, d.attempts_before + r.attempt, r.started_at, r.duration_ms, r.status, r.ok, r.error, r.response, d.event_at FROM r
    CROSS JOIN LATERAL (SELECT event_at, attempts_before FROM deliveries WHERE id = r.id LIMIT 1) d
    WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.id = r.id AND u.inline)
    ON CONFLICT DO NOTHING`
}

/**
 * Puts off deliveries their destination's circuit held back: due again after
 * their `delayMs`, with no attempt row and no attempt counted, so that an
 * outage costs a delivery none of its schedule's attempts and costs the
 * database no row per delivery per cool-down. Their last status and error
 * stay those of their last real attempt.
 */
export async function holdDeliveries(sql: Tx, held: Pick<AttemptRecord, 'deliveryId' | 'delayMs'>[]) {
  if (!held.length) return
  await sql`
    UPDATE deliveries d SET next_attempt_at = now() + r.delay_ms * interval '1 ms'
    FROM unnest(${held.map((r) => r.deliveryId)}::uuid[], ${held.map((r) => r.delayMs)}::float8[]) AS r(id, delay_ms)
    WHERE d.id = r.id AND d.status = 'pending'`
}

/**
 * Ends deliveries that were not sent because their event outlived its ttl:
 * `expired`, with no attempt row and no attempt counted, the reason as their
 * last error. Only those still pending: one settled meanwhile keeps its state.
 */
export async function expireUnsent(sql: Tx, expired: Pick<AttemptRecord, 'deliveryId' | 'error'>[]) {
  if (!expired.length) return
  await sql`
    UPDATE deliveries d SET status = 'expired', last_error = r.error, updated_at = now()
    FROM unnest(${expired.map((r) => r.deliveryId)}::uuid[], ${expired.map((r) => r.error ?? null)}::text[]) AS r(id, error)
    WHERE d.id = r.id AND d.status = 'pending'`
}

/**
 * What a replay sets so that the first attempt kept in the row keeps its
 * status: until a replay, last_status is that attempt's (nothing else
 * changes a succeeded delivery); the attempts after it overwrite last_status,
 * so the replay copies it to first_status first.
 */
export const keepFirstStatus = (sql: Tx) =>
  sql`first_status = CASE WHEN attempts_before = 0 AND first_started_at IS NOT NULL THEN last_status ELSE first_status END`

/**
 * The attempts of the delivery aliased `d`, oldest first, as JSON: the first
 * kept in its row (attempt 1), then its attempt rows, each looked up in its
 * delivery's month.
 */
export const attemptLog = (sql: Tx): postgres.PendingQuery<postgres.Row[]> => sql`COALESCE((
  SELECT json_agg(x.a ORDER BY x.at, x.n) FROM (
    SELECT d.first_started_at AS at, 1 AS n, json_build_object('attempt', 1, 'at', iso_time(d.first_started_at), 'durationMs', d.first_duration_ms,
      'ok', true, 'status', CASE WHEN d.attempts_before = 0 THEN d.last_status ELSE d.first_status END, 'error', NULL::text, 'response', d.first_response) AS a
    WHERE d.first_started_at IS NOT NULL
    UNION ALL
    SELECT a.started_at, a.attempt, json_build_object('attempt', a.attempt, 'at', iso_time(a.started_at), 'durationMs', a.duration_ms,
      'ok', a.ok, 'status', a.status, 'error', a.error, 'response', a.response)
    FROM delivery_attempts a WHERE a.delivery_id = d.id AND a.event_at = d.event_at) x), '[]'::json)`
