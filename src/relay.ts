// The outbox relay: publishes committed events to the bus and deletes their
// outbox rows once the bus has them. Several processes may relay at once:
// rows are leased with FOR UPDATE SKIP LOCKED, so each is taken by one relay
// at a time. While the bus is down, rows stay in the outbox, POST /event keeps
// answering 200, and the relay retries with a growing pause.
import type { Sql } from './db'
import type { Logger } from './log'
import type { BusEvent, EventBus } from './bus'

export interface RelayOptions {
  intervalMs: number // how often to look for rows committed by other processes
  leaseMs: number // a row whose relay died is taken again after this
  rowsPerRound: number
}

/**
 * Leases up to `limit` outbox rows and returns them with their events, each as
 * GET /events/{id} shows it. An event that is gone (retention dropped its
 * partition) is simply absent.
 */
export function claimOutbox(sql: Sql, limit: number, leaseMs: number) {
  return sql<{ id: number; events: BusEvent[] }[]>`
    WITH c AS (
      UPDATE outbox o SET claimed_until = now() + ${leaseMs} * interval '1 ms'
      FROM (SELECT id FROM outbox WHERE claimed_until IS NULL OR claimed_until < now() ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED) s
      WHERE o.id = s.id
      RETURNING o.id, o.event_ids, o.workspace_ids
    )
    SELECT c.id, coalesce((
      SELECT json_agg(json_build_object('workspaceId', e.workspace_id, 'view', json_build_object(
        'eventId', e.id, 'workspace', w.name, 'channel', e.channel, 'event', e.event, 'title', e.title, 'message', e.message,
        'link', e.link, 'tags', e.tags, 'data', e.data, 'createdAt', to_json(e.created_at)#>>'{}')))
      FROM unnest(c.event_ids, c.workspace_ids) AS u(event_id, ws)
      JOIN events e ON e.workspace_id = u.ws AND e.id = u.event_id AND e.created_at = uuidv7_time(u.event_id)
      JOIN workspaces w ON w.id = e.workspace_id), '[]'::json) AS events
    FROM c`
}

export const deleteOutbox = (sql: Sql, ids: number[]) => sql`DELETE FROM outbox WHERE id = ANY(${ids}::bigint[])`
export const releaseOutbox = (sql: Sql, ids: number[]) => sql`UPDATE outbox SET claimed_until = NULL WHERE id = ANY(${ids}::bigint[])`

export function createRelay(sql: Sql, bus: EventBus, log: Logger, opts: RelayOptions) {
  let stopped = false
  let wake: (() => void) | null = null
  let pending = false // a nudge arrived while a round ran
  let failures = 0

  const sleep = (ms: number) =>
    new Promise<void>((res) => {
      const t = setTimeout(() => ((wake = null), res()), ms)
      wake = () => (clearTimeout(t), (wake = null), res())
    })

  /** One round: lease, publish, delete. Returns the number of events published. */
  async function round(): Promise<number> {
    const rows = await claimOutbox(sql, opts.rowsPerRound, opts.leaseMs)
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
      pending = false
      try {
        const n = await round()
        failures = 0
        if (n > 0 || pending) continue
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
    /** Called after a batch commits in this process: relay at once instead of at the next interval. */
    nudge() {
      pending = true
      if (failures === 0) wake?.()
    },
    async stop() {
      stopped = true
      wake?.()
      await done
    },
  }
}
export type Relay = ReturnType<typeof createRelay>
