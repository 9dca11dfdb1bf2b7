// The worker's share of routers' throttles and digests: the deliveries the
// pool does not make as first attempts (send_task.ts windowed) are taken out
// of a batch's targets here, and recorded in PostgreSQL in one transaction
// (throttle.ts admits, digest.ts gathers), each (router, key) group under its
// row's lock, groups in a fixed order (router, then key; digests' windows
// all in one statement) so that two workers
// never wait on each other's locks in a circle. Done before the batch's
// ledger is cleared (fanout.ts recordChunks): a worker that dies before
// has its events redelivered, and the groups skip what they recorded already.
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import type { Incoming } from './bus'
import type { RouterSpec } from './job'
import type { EventView } from './event_view'
import { deliveryId, windowed } from './send_task'
import { windowKey } from './router_windows'
import { admitThrottled, type ThrottleGroup } from './throttle'
import { gatherDigests, StaleGather, type DigestGroup } from './digest'
import { persist } from './persist'
import type { LedgerMask } from './deliveries'
import { deliveriesThrottled, digestEventsGathered, digestsMade } from './metrics'

interface Groups {
  throttles: Map<string, ThrottleGroup>
  digests: Map<string, DigestGroup>
}

/**
 * Wraps a batch's `routersOf`: each event's throttled routers, and its digest
 * routers (below their bypassPriority), are kept back and grouped by
 * (router, rendered key); the rest are answered. `record` then writes the
 * groups. The view is read only for an event a windowed router matched.
 */
export function windowedOf(routersOf: (e: Incoming) => RouterSpec[], viewOf: (e: Incoming) => EventView) {
  const groups: Groups = { throttles: new Map(), digests: new Map() }
  let any = false
  return {
    routersOf(e: Incoming): RouterSpec[] {
      const all = routersOf(e)
      if (!all.some((r) => r.throttle || r.digest)) return all
      const view = viewOf(e)
      const keep: RouterSpec[] = []
      for (const r of all) {
        if (!windowed(r, view)) {
          keep.push(r)
          continue
        }
        any = true
        // `again`: a copy that may have been recorded before (only such are looked for, as the pool's first attempts do).
        const item = { deliveryId: deliveryId(e.eventId, 'router', r.id), eventId: e.eventId, workspaceId: e.workspaceId, again: !!e.redelivered }
        if (r.throttle) {
          const key = windowKey(r.throttle.key, view)
          const k = `${r.id}\n${key}`
          let g = groups.throttles.get(k)
          if (!g) groups.throttles.set(k, (g = { routerId: r.id, key, limit: r.throttle.limit, per: r.throttle.per, items: [] }))
          g.items.push(item)
        } else if (r.digest) {
          const key = windowKey(r.digest.key, view)
          const k = `${r.id}\n${key}`
          let g = groups.digests.get(k)
          if (!g) groups.digests.set(k, (g = { routerId: r.id, workspaceId: e.workspaceId, key, window: r.digest.window, max: r.digest.max, items: [] }))
          g.items.push(item)
        }
      }
      return keep
    },
    /** Whether some event went to a windowed router (then `record` has work). */
    pending: () => any,
    /** Writes the groups in one transaction (a few tries, as the chunks' rows), clearing `ledger` in it (events with nothing else to record); answers whether deliveries became due now. */
    async record(sql: Sql, log: Logger, ledger: LedgerMask[] = []): Promise<boolean> {
      if (!any) return false
      let due = false
      await persist(async () => {
        const done = await recordGroups(sql, groups, ledger).catch((err) => {
          if (err instanceof StaleGather) return recordGroups(sql, groups, ledger, true)
          throw err
        })
        deliveriesThrottled(done.throttled)
        digestEventsGathered(done.gathered)
        digestsMade(done.fired)
        due = done.admitted > 0 || done.fired > 0
      }, groups.throttles.size + groups.digests.size, log)
      return due
    },
  }
}

const byRouterThenKey = <G extends { routerId: string; key: string }>(a: G, b: G) =>
  a.routerId < b.routerId ? -1 : a.routerId > b.routerId ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0

async function recordGroups(sql: Sql, groups: Groups, ledger: LedgerMask[], strict = false) {
  const done = { admitted: 0, throttled: 0, gathered: 0, fired: 0 }
  await sql.begin(async (tx) => {
    for (const g of [...groups.throttles.values()].sort(byRouterThenKey)) {
      const n = await admitThrottled(tx, g)
      done.admitted += n.admitted
      done.throttled += n.throttled
    }
    // All digest groups in three statements (digest.ts), their windows locked in (router, key) order.
    const n = await gatherDigests(tx, [...groups.digests.values()], strict, ledger)
    done.gathered += n.gathered
    done.fired += n.fired
  })
  return done
}
