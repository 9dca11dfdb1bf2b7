// The write path of POST /event. Accepted events gather while the previous
// batch commits, in lanes (src/ingest/lane.ts: a workspace's batches, on a
// connection of their own, pipelined and watched). Each batch is one statement
// (src/ingest/statement.ts), so one round trip and one commit, that applies
// every workspace's monthly quota and token bucket and inserts the events that
// fit with their outbox row; a batch with idempotency keys or new channels
// takes the serial path (src/ingest/serial.ts). A request is answered only
// after its batch has committed.
import type { Sql } from '../core/db'
import { isConnectionError } from '../core/db'
import { DATABASE_DOWN_NOT_STORED } from '../core/errors'
import type { Outcome, Submission } from './submission'
import type { Logger } from '../core/log'
import type { BusEvent } from '../delivery/bus'
import { batchCommitted, batchFailed } from './metrics'
import { missingChannels } from '../accounts/channels'
import { createLru } from '../core/lru'
import { channelKey, type ChannelKey, type ChannelRef } from '../core/channel_key'
import { createOutage, type Outage } from '../core/outage'
import { Lane } from './lane'
import { writeSerialBatch, replayKeyed } from './serial'
import { writeEventBatch } from './statement'

/**
 * What goes through the serial path (src/ingest/serial.ts), alone in its
 * batch's lane. Not a scheduled event: its cap is applied by the one
 * statement, under the workspace row lock (src/ingest/statement.ts).
 */
const serialOnly = (it: Submission) => !!it.idempotency || !!it.event.ack

interface Item extends Submission {
  resolve(o: Outcome): void
  reject(e: unknown): void
}

/** A committed event as the bus carries it: as GET /events/{id} shows it, without reading it back. */
const busEvent = (s: Submission): BusEvent => ({
  workspaceId: s.principal.workspaceId,
  view: {
    eventId: s.id, workspace: s.principal.workspace, channel: s.channel, event: s.event.event, title: s.event.title,
    message: s.event.message, link: s.event.link, tags: s.event.tags, data: s.event.data, createdAt: s.createdAt.toISOString(),
    priority: s.event.priority, ttl: s.event.ttl, collapseKey: s.event.collapseKey, receipt: s.receipt ?? null,
    to: s.recipients ?? null,
  },
})

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
  /** The channels this process remembers as existing (see knownChannels below); default: 200,000 for a minute. */
  channelCache?: { max: number; maxAgeMs: number; fallbackMs: number; announced: () => boolean }
  /** Most pending receipts a workspace may have: an event with `ack` past it is refused (default 1,000). */
  maxPendingReceipts?: number
  /** Most scheduled events a workspace may have: a scheduled event past it is refused (default 10,000). */
  maxScheduled?: number
  /** Called after a batch with scheduled events commits, with the soonest of their times: the release wakes for it. */
  onScheduled?: (at: Date) => void
  /** The process's account of a database outage (src/core/outage.ts), shared with the HTTP app; default: the batcher's own. */
  outage?: Outage
}

export function createBatcher(sql: Sql, connect: () => Sql, log: Logger, opts: BatcherOptions) {
  const maxChannels = opts.maxChannels ?? Number.MAX_SAFE_INTEGER
  const maxPendingReceipts = opts.maxPendingReceipts ?? 1000
  const maxScheduled = opts.maxScheduled ?? 10_000
  const outage = opts.outage ?? createOutage(log)
  const lanes: Lane<Item>[] = Array.from({ length: opts.lanes ?? 1 }, () => new Lane<Item>({
    maxEvents: opts.maxEvents,
    windowMs: opts.windowMs,
    pipeline: opts.pipeline ?? 1,
    timeoutMs: opts.timeoutMs ?? 10_000,
    connect,
    keyed: serialOnly,
    write: run,
    fail,
    onIdle: () => {
      if (!lanes.some((l) => l.busy)) for (const f of idle) f()
    },
  }))
  // A workspace always goes to the same lane (src/ingest/lane.ts).
  const laneOf = (it: Item) => lanes[it.principal.workspaceId % lanes.length]!
  const idle = new Set<() => void>()
  // Channels this process has seen committed (channelKey →
  // when), so that their rows are neither looked up nor inserted again by
  // every batch: a bounded LRU, so that it holds every active channel of
  // 50,000 workspaces without growing past its size. A channel renamed or
  // deleted is announced (bus.ts `channels`) and forgotten, so that its next
  // event makes it again; while announcements may not reach this process an
  // entry is trusted only `fallbackMs`.
  const cache = opts.channelCache ?? { max: 200_000, maxAgeMs: 60_000, fallbackMs: 60_000, announced: () => true }
  const known = createLru<ChannelKey, number>(cache.max)
  const knownChannels = {
    has(k: ChannelKey) {
      const at = known.get(k)
      return at !== undefined && Date.now() - at < (cache.announced() ? cache.maxAgeMs : cache.fallbackMs)
    },
    add: (k: ChannelKey) => known.set(k, Date.now()),
  }

  async function run(lane: Lane<Item>, items: Item[]) {
    // A second use of one idempotency key waits for the next batch, where it
    // finds the first one's committed answer.
    const seen = new Set<string>()
    const now: Item[] = []
    for (const it of items) {
      const k = it.idempotency && `${it.principal.workspaceId}:${it.idempotency.key}`
      if (k && seen.has(k)) lane.requeue(it)
      else {
        if (k) seen.add(k)
        now.push(it)
      }
    }
    // Channels this process has not seen committed are looked up; a batch
    // that would make one goes through a transaction, under the limit.
    const fresh = newChannels(now)
    const missing = fresh.length ? await lane.settled((conn) => missingChannels(conn, fresh)) : []
    for (const c of fresh) if (!missing.some((m) => m.ws === c.ws && m.channel === c.channel)) knownChannels.add(channelKey(c.ws, c.channel))
    // Keyed batches run on a pooled connection, and the lane sends nothing
    // beside them; one that makes a channel runs on the lane's own
    // connection, so that the batches sent after it still commit after it.
    // So do batches with `ack`: their receipts are counted, under their
    // cap, in the events' transaction.
    if (now.some(serialOnly)) return await lane.settled(() => serial(sql, now))
    if (missing.length) return await lane.settled((conn) => serial(conn, now))
    const startedAt = performance.now()
    const { outcomes: res, outboxId } = await lane.settled((conn) => writeEventBatch(conn, now, fresh, maxScheduled))
    batchCommitted(startedAt, res)
    outage.recovered()
    remember(now, res, outboxId)
    now.forEach((it, i) => it.resolve(res[i]!))
  }

  /** A batch through the serial path (src/ingest/serial.ts), answered. */
  async function serial(conn: Sql, items: Item[]) {
    const startedAt = performance.now()
    const w = await writeSerialBatch(conn, items, newChannels(items), { maxChannels, maxPendingReceipts, maxScheduled })
    if (w.written.length) batchCommitted(startedAt, w.outcomes)
    outage.recovered()
    remember(w.written, w.outcomes, w.outboxId)
    w.written.forEach((it, i) => it.resolve(w.outcomes[i]!))
    w.refused.forEach((it) => it.resolve({ kind: 'channel-limit', max: maxChannels }))
    w.capped.forEach(({ item, outcome }) => item.resolve(outcome))
    if (!w.losers.length) return
    const replayed = await replayKeyed(sql, w.losers)
    w.losers.forEach((it, i) => {
      const o = replayed[i]
      if (o) it.resolve(o)
      else laneOf(it).add(it) // claimed and released meanwhile: try again
    })
  }

  function newChannels(items: Item[]) {
    const out = new Map<ChannelKey, ChannelRef>()
    for (const it of items) {
      const k = channelKey(it.principal.workspaceId, it.channel)
      if (!knownChannels.has(k)) out.set(k, { ws: it.principal.workspaceId, channel: it.channel })
    }
    return [...out.values()]
  }

  function remember(items: Item[], res: Outcome[], outboxId: number | null) {
    const accepted: BusEvent[] = []
    let soonest: Date | null = null
    items.forEach((it, i) => {
      if (res[i]?.kind !== 'accepted') return
      // Its time is when it was last seen in the database: an entry trusted
      // from memory is not made younger by the events that trusted it.
      const k = channelKey(it.principal.workspaceId, it.channel)
      if (!knownChannels.has(k)) knownChannels.add(k)
      // A scheduled event is published by the release, at its time.
      if (it.event.scheduledFor) soonest = soonest && soonest <= it.createdAt ? soonest : it.createdAt
      else accepted.push(busEvent(it))
    })
    if (accepted.length && outboxId !== null) opts.onCommit?.(outboxId, accepted)
    if (soonest) opts.onScheduled?.(soonest)
  }

  async function fail(lane: Lane<Item>, items: Item[], err: unknown) {
    if (isConnectionError(err)) {
      batchFailed('unavailable')
      // Counted and logged once in a while, not per batch; Retry-After follows the outage's age.
      const e = outage.unavailable(items.length, err, DATABASE_DOWN_NOT_STORED)
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
      return new Promise((resolve, reject) => {
        const it: Item = { ...s, resolve, reject }
        laneOf(it).add(it)
      })
    },
    /** Forgets which channels of a workspace exist (one was renamed or deleted), or of every workspace (`null`). */
    forgetChannels(workspaceId: number | null) {
      if (workspaceId === null) known.clear()
      else known.prune((_at, k) => k.startsWith(`${workspaceId}/`))
    },
    /** Resolves once every queued and running batch has settled. */
    drain(): Promise<void> {
      lanes.forEach((l) => l.flush())
      if (!lanes.some((l) => l.busy)) return Promise.resolve()
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
