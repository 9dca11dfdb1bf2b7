// The release of scheduled events (sql/0022_scheduled_events.sql): a loop in
// every process that runs the outbox relay. The timer is the row (STYLE 23):
// one statement claims due timer rows FOR UPDATE SKIP LOCKED, deletes them,
// writes one outbox row for their events (which the ingest statement wrote
// to events already, hidden by visibleTo until their time) and lowers the
// workspaces' scheduled_count, so an event goes out once whichever process
// claims it, and a process that dies before its hand-off leaves the outbox
// row to the relay's scan. After the commit, the events go to relay.handoff
// as ingest's do: the bus publishes them (live stream, fan-out), or the scan
// republishes them once the bus is back.
//
// The loop sleeps until the soonest due time (the first entry of the
// primary key), at most `maxSleepMs`, so that events scheduled by other
// processes go out within that; a process that schedules an event sooner
// than its sleep wakes it.
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import type { BusEvent } from './bus'
import type { EventView } from './event_view'
import { nextScheduledAt } from '../ingest/schedule'
import { latestUuidv7, uuidv7Time } from '../ingest/event'

export interface ReleaseOptions {
  /** The longest sleep: how late an event scheduled by another process may go out at worst. */
  maxSleepMs: number
  /** Most events released by one statement. */
  batch: number
}

/**
 * Releases up to `limit` due scheduled events in one statement: the outbox
 * row and their views (from their events rows), or nothing. The claim is a range of the primary key
 * (`id <= the greatest UUIDv7 of now`, in id order: due order); the
 * workspaces' scheduled_count goes down under their row locks, taken in id
 * order as the ingest statement takes them.
 */
export async function releaseDueEvents(sql: Sql, limit: number, now = Date.now()): Promise<{ outboxId: number | null; events: BusEvent[] }> {
  const rows = await sql<(Omit<EventView, 'createdAt' | 'scheduledFor'> & { outboxId: number; workspaceId: number })[]>`
    WITH due AS (
      SELECT id FROM scheduled_events WHERE id <= ${latestUuidv7(now)}::uuid
      ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ), gone AS (
      -- By the primary key: a join with \`due\` is planned as a hash of the whole table.
      DELETE FROM scheduled_events s WHERE s.id = ANY(ARRAY(SELECT id FROM due))
      RETURNING s.id, s.workspace_id
    ), ob AS (
      INSERT INTO outbox (event_ids, workspace_ids)
      SELECT array_agg(id ORDER BY id), array_agg(workspace_id ORDER BY id) FROM gone HAVING count(*) > 0
      RETURNING id
    ), n AS (
      SELECT workspace_id AS id, count(*)::int AS n FROM gone GROUP BY workspace_id
    ), locked AS MATERIALIZED (
      SELECT w.id FROM workspaces w WHERE w.id IN (SELECT id FROM n) ORDER BY w.id FOR NO KEY UPDATE
    ), counted AS (
      UPDATE workspaces w SET scheduled_count = w.scheduled_count - n.n FROM n, locked l WHERE w.id = n.id AND l.id = n.id
      RETURNING w.id, w.name
    )
    -- The views' columns (the view is put together below: json built here cost as much as the rest of the release).
    SELECT (SELECT id FROM ob) AS "outboxId", e.workspace_id AS "workspaceId", e.id AS "eventId", w.name AS workspace, e.channel, e.event, e.title,
      e.message, e.link, e.tags, e.data, e.priority, e.ttl, e.collapse_key AS "collapseKey", e.receipt, e.recipients AS to
    FROM gone g JOIN counted w ON w.id = g.workspace_id
    -- An index look-up per event, in its month's partition (LATERAL: a join is planned as a sort of every partition).
    CROSS JOIN LATERAL (SELECT * FROM events e WHERE e.workspace_id = g.workspace_id AND e.id = g.id AND e.created_at = uuidv7_time(g.id)) e
    ORDER BY e.id`
  if (!rows.length) return { outboxId: null, events: [] }
  return { outboxId: Number(rows[0]!.outboxId), events: rows.map(viewOf) }
}

/** A released event's view, as eventViewJson (event_view.ts) has it: its created_at and scheduled_for are its id's time. */
function viewOf(r: Omit<EventView, 'createdAt' | 'scheduledFor'> & { workspaceId: number }): BusEvent {
  const at = uuidv7Time(r.eventId).toISOString()
  return {
    workspaceId: Number(r.workspaceId),
    view: {
      eventId: r.eventId, workspace: r.workspace, channel: r.channel, event: r.event, title: r.title, message: r.message, link: r.link,
      tags: r.tags, data: r.data, createdAt: at, priority: r.priority, ttl: r.ttl, collapseKey: r.collapseKey, receipt: r.receipt, to: r.to, scheduledFor: at,
    },
  }
}

export function createRelease(sql: Sql, handoff: (outboxId: number, events: BusEvent[]) => void, log: Logger, opts: ReleaseOptions) {
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | null = null
  let wakeAt = Infinity // when the sleeping loop wakes; Infinity while it runs
  let wakeNow: (() => void) | null = null
  let wanted = Infinity // the soonest time a wake asked for while the loop ran (its sleep takes it into account)
  let failures = 0

  /** Releases everything due, a statement at a time; then the time of the soonest event left. */
  async function round(): Promise<Date | null> {
    for (;;) {
      const { outboxId, events } = await releaseDueEvents(sql, opts.batch)
      if (outboxId !== null) handoff(outboxId, events)
      if (events.length < opts.batch || stopped) break
    }
    return nextScheduledAt(sql)
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      wakeAt = Date.now() + ms
      wakeNow = () => {
        if (timer) clearTimeout(timer)
        timer = null
        wakeAt = Infinity
        wakeNow = null
        resolve()
      }
      timer = setTimeout(wakeNow, ms)
    })
  }

  const done = (async () => {
    while (!stopped) {
      let pause = opts.maxSleepMs
      try {
        const next = await round()
        failures = 0
        if (next) pause = Math.max(0, Math.min(pause, next.getTime() - Date.now()))
      } catch (err) {
        // The database is down or the statement failed: the rows are still
        // there, and go out on a later round.
        if (failures++ === 0) log.warn({ err }, 'releasing scheduled events failed; retrying')
        pause = Math.min(5000, opts.maxSleepMs * 2 ** Math.min(failures, 4))
      }
      if (wanted < Infinity) pause = Math.max(0, Math.min(pause, wanted - Date.now()))
      wanted = Infinity
      if (!stopped) await sleep(pause)
    }
  })()

  return {
    /** An event was scheduled for `at` by this process: wake before it if the loop sleeps past it. */
    wake(at: Date) {
      // While a round runs, its look for the soonest event may already be over: the sleep after it keeps this.
      if (!wakeNow) return void (wanted = Math.min(wanted, at.getTime()))
      if (at.getTime() >= wakeAt) return
      const ms = at.getTime() - Date.now()
      if (ms <= 0) return wakeNow()
      if (timer) clearTimeout(timer)
      wakeAt = at.getTime()
      timer = setTimeout(wakeNow, ms)
    },
    async stop() {
      stopped = true
      wakeNow?.()
      await done
    },
  }
}
export type Release = ReturnType<typeof createRelease>
