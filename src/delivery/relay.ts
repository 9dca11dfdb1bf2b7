// The outbox relay: publishes committed events to the bus. The outbox is the
// ledger of the fan-out (sql/0011_ledger.sql): a row stays until a worker has
// recorded the fan-out of every event it lists, in the statement that records
// their deliveries, so JetStream is never the only record of what is owed.
// - The API process hands each batch it has just committed straight to the
//   relay (handoff), with the events it still holds in memory, each with its
//   place in the ledger. Nothing is read back from PostgreSQL, and nothing is
//   written when the bus takes them. A hand-off that fails marks its row for
//   the scan.
// - A scan takes rows that are due: those whose hand-off failed (the bus was
//   down), and those still owed 10 s after they were committed, and again
//   every FANOUT_REPLAY_AFTER_MS. The latter are published again only when
//   the bus may have lost events (JetStream holds fewer than PostgreSQL owes:
//   a limit, an age, a lost store, a deleted stream; or the process that
//   wrote them died before its hand-off), and no more of them than it lacks. Several processes may scan at once: rows are leased
//   with FOR UPDATE SKIP LOCKED. Their events go as possibly redelivered, so
//   the worker sends nothing that already has a delivery, and JetStream drops
//   copies it has seen within its duplicate window (Nats-Msg-Id).
// While the bus is down, rows stay in the outbox, POST /event keeps answering
// 200, and the scan retries with a growing pause.
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import type { BusEvent, EventBus, OutboxRef } from './bus'
import { eventViewJson } from './event_view'

export interface RelayOptions {
  intervalMs: number // how often to look for rows committed by other processes
  rowsPerRound: number
  /** A published row still owed this long is published again, when the bus may have lost events. */
  replayAfterMs: number
}

// Rows this young are not counted as owed by the bus yet (their hand-off may
// still be under way), nor looked at by the scan; past it, a row whose
// process died before its hand-off is published by another.
const SETTLE_MS = 10_000
// Fully recorded rows are deleted a second at most after the last of their
// events is: one statement for all of them, rather than one per worker batch.
const SWEEP_MS = 1_000

/** A claimed row: its events not yet recorded, each as GET /events/{id} shows it, and whether it had been published before. */
interface ClaimedRow {
  id: number
  published: boolean
  owed: number
  events: BusEvent[]
}

/**
 * Leases up to `limit` due outbox rows (see the header) for `leaseMs`, and
 * returns the events each still owes. An event that is gone (retention
 * dropped its partition) is absent.
 */
export function claimOutbox(sql: Sql, limit: number, leaseMs: number, settleMs = SETTLE_MS) {
  return sql<ClaimedRow[]>`
    WITH s AS (
      SELECT id, published FROM outbox
      WHERE (NOT published AND (claimed_until IS NULL OR claimed_until < now()))
         OR (published AND coalesce(claimed_until, created_at + ${settleMs} * interval '1 ms') < now())
      ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ), c AS (
      UPDATE outbox o SET claimed_until = now() + ${leaseMs} * interval '1 ms', published = true
      FROM s WHERE o.id = s.id
      RETURNING o.id, s.published, o.event_ids, o.workspace_ids, o.done
    )
    SELECT c.id, c.published, ${owedOf(sql, 'c')} AS owed, coalesce((
      SELECT json_agg(json_build_object('workspaceId', e.workspace_id, 'redelivered', true,
        'outbox', json_build_object('id', c.id, 'index', u.ord - 1, 'size', cardinality(c.event_ids)),
        'view', ${eventViewJson(sql)}))
      FROM unnest(c.event_ids, c.workspace_ids) WITH ORDINALITY AS u(event_id, ws, ord)
      JOIN events e ON e.workspace_id = u.ws AND e.id = u.event_id AND e.created_at = uuidv7_time(u.event_id)
      JOIN workspaces w ON w.id = e.workspace_id
      WHERE c.done IS NULL OR substring(c.done FROM u.ord::int FOR 1) = B'0'), '[]'::json) AS events
    FROM c`
}

/** A row whose hand-off failed: the scan publishes it, after its pause. */
export const unpublishedOutbox = (sql: Sql, id: number) => sql`UPDATE outbox SET published = false, claimed_until = NULL WHERE id = ${id}`
export const releaseOutbox = (sql: Sql, ids: number[]) => sql`UPDATE outbox SET published = false, claimed_until = NULL WHERE id = ANY(${ids}::bigint[])`
export const deleteOutbox = (sql: Sql, ids: number[]) => sql`DELETE FROM outbox WHERE id = ANY(${ids}::bigint[])`
/** Deletes the rows whose every event has its fan-out recorded. */
export const deleteRecordedOutbox = (sql: Sql) => sql`DELETE FROM outbox WHERE bit_count(done) = length(done)`

/** The events a row still owes: its size is the length of `done` once a worker set bits, else its event_ids' (read only then). */
const owedOf = (sql: Sql, t: string) =>
  sql`CASE WHEN ${sql(t)}.done IS NULL THEN cardinality(${sql(t)}.event_ids) ELSE length(${sql(t)}.done) - bit_count(${sql(t)}.done) END`

/** Events published (or being published) at least `settledMs` ago whose fan-out is not recorded yet. */
export async function countOwed(sql: Sql, settledMs: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT coalesce(sum(${owedOf(sql, 'outbox')}), 0)::int8 AS n
    FROM outbox WHERE published AND created_at < now() - ${settledMs} * interval '1 ms'`
  return Number(row!.n)
}

/** What waits in the outbox: rows and their events (over the oldest `cap` rows), and the oldest row's age. */
export interface OutboxBacklog {
  rows: number
  events: number
  oldestAgeSeconds: number
}

/** Counts the backlog; reads at most `cap` rows (by the primary key), so it stays cheap however far behind the relay is. */
export async function countOutbox(sql: Sql, cap: number): Promise<OutboxBacklog> {
  const [row] = await sql<{ rows: number; events: number; oldest: number }[]>`
    SELECT count(*)::int AS rows, coalesce(sum(${owedOf(sql, 'o')}), 0)::int8 AS events,
      coalesce(extract(epoch FROM now() - (SELECT created_at FROM outbox ORDER BY id LIMIT 1)), 0)::float8 AS oldest
    FROM (SELECT event_ids, done FROM outbox ORDER BY id LIMIT ${cap}) o`
  return { rows: row!.rows, events: Number(row!.events), oldestAgeSeconds: Math.max(0, row!.oldest) }
}

/** Each event's place in its outbox row, whose event_ids are in id order (the batch statement aggregates them so). */
export function withLedger(outboxId: number, events: BusEvent[]): BusEvent[] {
  const order = events.map((e) => e.view.eventId).sort()
  const at = new Map(order.map((id, i) => [id, i]))
  return events.map((e) => ({ ...e, outbox: { id: outboxId, index: at.get(e.view.eventId)!, size: order.length } }))
}

/** The bits a worker sets in `done`, per outbox row: "0…1…0" with a 1 at each recorded event's place. */
export function ledgerMasks(refs: OutboxRef[]): { id: number; mask: string }[] {
  const rows = new Map<number, { size: number; bits: Set<number> }>()
  for (const r of refs) {
    let row = rows.get(r.id)
    if (!row) rows.set(r.id, (row = { size: r.size, bits: new Set() }))
    row.bits.add(r.index)
  }
  return [...rows].map(([id, { size, bits }]) => {
    const mask = new Array<string>(size).fill('0')
    for (const i of bits) if (i < size) mask[i] = '1'
    return { id, mask: mask.join('') }
  })
}

export function createRelay(sql: Sql, bus: EventBus, log: Logger, opts: RelayOptions) {
  let stopped = false
  let wake: (() => void) | null = null
  let failures = 0

  const sleep = (ms: number) =>
    new Promise<void>((res) => {
      const t = setTimeout(() => ((wake = null), res()), ms)
      wake = () => (clearTimeout(t), (wake = null), res())
    })

  // ---------------------------------------------------------------- handoff

  const handoffs = new Set<Promise<void>>()

  /** Publishes a batch this process has just committed (on JetStream, as one message, or a few for a large one); if the bus refuses it, the scan takes its row. */
  function handoff(outboxId: number, events: BusEvent[]) {
    const unpublished = () => unpublishedOutbox(sql, outboxId).catch((err) => log.warn({ err, outboxId }, 'outbox relay: could not mark a row for the scan; it is published again after FANOUT_REPLAY_AFTER_MS'))
    // While the bus fails, the scan alone retries, with its pauses: only the
    // first failure wakes it, not every batch committed meanwhile.
    if (stopped || failures > 0) return void track(unpublished())
    track(bus.publish(withLedger(outboxId, events)).then(
      () => {},
      async (err) => {
        const first = failures++ === 0
        if (first) log.warn({ err }, 'outbox relay: the bus refused events; they stay in the outbox until it takes them')
        await unpublished()
        if (first) wake?.()
      },
    ))
  }
  function track(p: Promise<unknown>) {
    const t = p.then(() => {})
    handoffs.add(t)
    void t.finally(() => handoffs.delete(t))
  }

  // ---------------------------------------------------------------- scan

  /**
   * How many owed events the bus lacks: PostgreSQL owes more than JetStream
   * holds (it dropped some, or a process died before its hand-off). Which
   * ones is not known; the oldest owed go again, no more than that many a
   * round, so a backlog is not doubled, and the count is taken anew each round.
   */
  async function lacking(): Promise<number> {
    let state
    try {
      state = await bus.state()
    } catch {
      return 0 // the bus is unreachable: nothing can be published now anyway
    }
    if (!state) return Infinity // in-process: only a handler under way holds events, and a second copy waits for it
    // Events, not messages: a message carries a batch (readJetStreamState counts its events).
    const owed = await countOwed(sql, SETTLE_MS)
    if (state.stream.events >= owed) return 0
    log.warn({ stream: state.stream.name, holds: state.stream.events, messages: state.stream.messages, owed }, 'JetStream holds fewer events than PostgreSQL owes: publishing the owed ones again')
    return owed - state.stream.events
  }

  /** One round: lease the due rows, publish what they owe. Returns the number of events published. */
  async function round(): Promise<number> {
    const rows = await claimOutbox(sql, opts.rowsPerRound, opts.replayAfterMs)
    if (!rows.length) return 0
    // Rows owing nothing that exists (retention dropped their events) are done.
    const empty = rows.filter((r) => r.owed > 0 && !r.events.length).map((r) => r.id)
    if (empty.length) await deleteOutbox(sql, empty)
    const published = rows.filter((r) => r.published && r.events.length)
    let budget = published.length ? await lacking() : 0
    const replays: BusEvent[] = []
    for (const r of published) {
      if (budget <= 0) break
      const some = r.events.slice(0, budget)
      budget -= some.length
      for (const e of some) replays.push({ ...e, replay: true })
    }
    const toPublish = rows.filter((r) => r.events.length && !r.published)
    const events = [...toPublish.flatMap((r) => r.events), ...replays]
    try {
      if (events.length) await bus.publish(events)
    } catch (err) {
      // Give the rows back at once rather than at the end of the lease; the
      // next round (after a pause) publishes them again, and Nats-Msg-Id
      // drops whatever the failed round did get through.
      if (toPublish.length) await releaseOutbox(sql, toPublish.map((r) => r.id)).catch(() => {})
      throw err
    }
    return Math.max(events.length, 1)
  }

  let swept = Date.now()
  const done = (async () => {
    while (!stopped) {
      try {
        const n = await round()
        if (failures > 0) log.info('outbox relay: the bus takes events again')
        failures = 0
        if (Date.now() - swept > SWEEP_MS) {
          swept = Date.now()
          await deleteRecordedOutbox(sql)
        }
        if (n > 0) continue
        await sleep(opts.intervalMs)
      } catch (err) {
        failures++
        const pause = Math.min(5_000, 250 * 2 ** Math.min(failures, 5))
        log.warn({ err, pauseMs: pause }, 'outbox relay: events stay in the outbox until the bus takes them')
        await sleep(pause)
      }
    }
  })()

  return {
    handoff,
    async stop() {
      stopped = true
      wake?.()
      await done
      await Promise.allSettled([...handoffs])
    },
  }
}
export type Relay = ReturnType<typeof createRelay>

