// The outbox relay: publishes committed events to the bus and deletes their
// outbox rows once the bus has them. Two paths:
// - The API process hands each batch it has just committed straight to the
//   relay (handoff), with the events it still holds in memory: publish, then
//   delete the row. Nothing is read back from PostgreSQL. The delete rides
//   on the next batch's statement (src/ingest/batcher.ts), so that it costs no
//   commit of its own; with no batch coming, the relay deletes it itself.
// - A scan takes the rows that path did not finish within GRACE_MS: the bus
//   was down, or the process that wrote them died. Several processes may scan
//   at once: rows are leased with FOR UPDATE SKIP LOCKED. Their events are
//   marked as possibly redelivered, so the worker checks which deliveries
//   already exist, and JetStream drops copies it has seen (Nats-Msg-Id).
// While the bus is down, rows stay in the outbox, POST /event keeps answering
// 200, and the scan retries with a growing pause.
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import type { BusEvent, EventBus } from './bus'

/** Outbox rows the relay has published, deleted by the next batch's statement (see src/delivery/relay.ts). */
export interface RelayedRows {
  take(): number[]
  /** The batch that took them failed: they go back, for the next batch or the relay's own delete. */
  giveBack(ids: number[]): void
}

export interface RelayOptions {
  intervalMs: number // how often to look for rows committed by other processes
  leaseMs: number // a row whose relay died is taken again after this
  rowsPerRound: number
  graceMs: number // a row this young belongs to its writer's handoff; the scan leaves it alone
}

// The handoff publishes and deletes a row within milliseconds; five seconds
// is far beyond that even under load, and short enough that the events of a
// crashed process are not left waiting long.
export const GRACE_MS = 5_000

/**
 * Leases up to `limit` outbox rows and returns them with their events, each as
 * GET /events/{id} shows it. An event that is gone (retention dropped its
 * partition) is simply absent.
 */
export function claimOutbox(sql: Sql, limit: number, leaseMs: number, graceMs = 0) {
  return sql<{ id: number; events: BusEvent[] }[]>`
    WITH c AS (
      UPDATE outbox o SET claimed_until = now() + ${leaseMs} * interval '1 ms'
      FROM (SELECT id FROM outbox WHERE (claimed_until IS NULL OR claimed_until < now()) AND created_at < now() - ${graceMs} * interval '1 ms'
        ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED) s
      WHERE o.id = s.id
      RETURNING o.id, o.event_ids, o.workspace_ids
    )
    SELECT c.id, coalesce((
      SELECT json_agg(json_build_object('workspaceId', e.workspace_id, 'redelivered', true, 'view', json_build_object(
        'eventId', e.id, 'workspace', w.name, 'channel', e.channel, 'event', e.event, 'title', e.title, 'message', e.message,
        'link', e.link, 'tags', e.tags, 'data', e.data, 'createdAt', iso_time(e.created_at))))
      FROM unnest(c.event_ids, c.workspace_ids) AS u(event_id, ws)
      JOIN events e ON e.workspace_id = u.ws AND e.id = u.event_id AND e.created_at = uuidv7_time(u.event_id)
      JOIN workspaces w ON w.id = e.workspace_id), '[]'::json) AS events
    FROM c`
}

export const deleteOutbox = (sql: Sql, ids: number[]) => sql`DELETE FROM outbox WHERE id = ANY(${ids}::bigint[])`
export const releaseOutbox = (sql: Sql, ids: number[]) => sql`UPDATE outbox SET claimed_until = NULL WHERE id = ANY(${ids}::bigint[])`

/** What waits in the outbox: rows and their events (over the oldest `cap` rows), and the oldest row's age. */
export interface OutboxBacklog {
  rows: number
  events: number
  oldestAgeSeconds: number
}

/** Counts the backlog; reads at most `cap` rows (by the primary key), so it stays cheap however far behind the relay is. */
export async function countOutbox(sql: Sql, cap: number): Promise<OutboxBacklog> {
  const [row] = await sql<{ rows: number; events: number; oldest: number }[]>`
    SELECT count(*)::int AS rows, coalesce(sum(cardinality(event_ids)), 0)::int8 AS events,
      coalesce(extract(epoch FROM now() - (SELECT created_at FROM outbox ORDER BY id LIMIT 1)), 0)::float8 AS oldest
    FROM (SELECT event_ids FROM outbox ORDER BY id LIMIT ${cap}) o`
  return { rows: row!.rows, events: Number(row!.events), oldestAgeSeconds: Math.max(0, row!.oldest) }
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
  const deletions = relayedRows(sql, log)

  /** Publishes a batch this process has just committed, then deletes its outbox row. */
  function handoff(outboxId: number, events: BusEvent[]) {
    // While the bus fails, the scan alone retries, with its pauses.
    if (stopped || failures > 0) return
    const p = bus.publish(events).then(
      () => deletions.add(outboxId),
      (err) => {
        if (failures++ === 0) log.warn({ err }, 'outbox relay: the bus refused events; they stay in the outbox until it takes them')
        wake?.()
      },
    )
    handoffs.add(p)
    void p.finally(() => handoffs.delete(p))
  }

  // ---------------------------------------------------------------- scan

  /** One round: lease, publish, delete. Returns the number of events published. */
  async function round(): Promise<number> {
    const rows = await claimOutbox(sql, opts.rowsPerRound, opts.leaseMs, opts.graceMs)
    if (!rows.length) return 0
    const events = rows.flatMap((r) => r.events)
    const ids = rows.map((r) => r.id)
    try {
      if (events.length) await bus.publish(events)
    } catch (err) {
      // Give the rows back at once rather than at the end of the lease; the
      // next round (after a pause) publishes them again, and Nats-Msg-Id
      // drops whatever the failed round did get through.
      await releaseOutbox(sql, ids).catch(() => {})
      throw err
    }
    await deleteOutbox(sql, ids)
    return Math.max(events.length, 1)
  }

  const done = (async () => {
    while (!stopped) {
      try {
        const n = await round()
        if (failures > 0) log.info('outbox relay: the bus takes events again')
        failures = 0
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
    /** Published rows for the next batch to delete. */
    relayed: deletions as RelayedRows,
    async stop() {
      stopped = true
      wake?.()
      await done
      await Promise.allSettled([...handoffs])
      await deletions.flush()
    },
  }
}
export type Relay = ReturnType<typeof createRelay>

// A published row waits this long for a batch to delete it: under load, the
// next batch comes within a few milliseconds; with no traffic, the relay
// deletes it itself rather than leave it to the scan.
const DELETE_FALLBACK_MS = 100

/**
 * Outbox rows whose events are published, until they are deleted: taken by
 * the next batch (RelayedRows), or deleted here, a batch at a time, when no
 * batch took them within DELETE_FALLBACK_MS.
 */
function relayedRows(sql: Sql, log: Logger) {
  let ids: number[] = []
  let timer: ReturnType<typeof setTimeout> | null = null
  let writing: Promise<void> | null = null
  const arm = () => {
    timer ??= setTimeout(() => {
      timer = null
      void flush()
    }, DELETE_FALLBACK_MS)
  }
  async function write() {
    while (ids.length) {
      const batch = ids
      ids = []
      // A failed delete only means the scan publishes those events again
      // after GRACE_MS, and they are dropped as duplicates.
      await deleteOutbox(sql, batch).catch((err) => log.warn({ err, rows: batch.length }, 'outbox relay: could not delete relayed rows'))
    }
  }
  const flush = (): Promise<void> => (writing ??= write().finally(() => (writing = null)))
  return {
    add(id: number) {
      ids.push(id)
      arm()
    },
    take(): number[] {
      const taken = ids
      ids = []
      return taken
    },
    giveBack(back: number[]) {
      ids.push(...back)
      arm()
    },
    async flush() {
      if (timer) clearTimeout(timer)
      timer = null
      await flush()
    },
  }
}
