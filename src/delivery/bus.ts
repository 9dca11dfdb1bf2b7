// The bus between the outbox relay and the delivery workers. Two
// implementations with one interface: JetStream when NATS_URL is set (many
// API and worker processes), and in-process otherwise (the embedded default).
// Either way PostgreSQL stays the source of truth: the relay deletes an
// outbox row only after the bus has the row's events durably (a PubAck, or the
// in-process handler having created their deliveries).
import type { EventView } from './event_view'

/** Where an event is owed in the ledger: its outbox row, its place in the row's event_ids (from 0), and how many the row lists. */
export interface OutboxRef {
  id: number
  index: number
  size: number
}

export interface BusEvent {
  workspaceId: number
  view: EventView
  /** This copy may not be the first: the worker checks which deliveries already exist. */
  redelivered?: boolean
  /** The ledger entry the worker clears once the event's fan-out is recorded. */
  outbox?: OutboxRef
  /**
   * Published again because the bus lost it: JetStream would drop a copy with
   * the same Nats-Msg-Id within its duplicate window, even one it no longer
   * holds, so a replay goes under an id of its own (`<eventId>~<when>`).
   */
  replay?: boolean
}

/**
 * An event as a worker receives it. From JetStream the view stays the JSON
 * text it travelled as: the main thread needs only the ids (from the first
 * line of its batch message, bus_batch.ts), and the pool's thread parses the
 * text itself, which is cheaper than parsing here and copying the object across.
 */
export interface Incoming {
  workspaceId: number
  eventId: string
  channel: string
  view: EventView | string
  /** The event's key, which routers match, when known without reading `view` (a message of an older Herald has none). */
  eventKey?: string | null
  redelivered?: boolean
  outbox?: OutboxRef
}

export const incoming = (e: BusEvent): Incoming => ({
  workspaceId: e.workspaceId, eventId: e.view.eventId, channel: e.view.channel, view: e.view, eventKey: e.view.event, redelivered: e.redelivered, outbox: e.outbox,
})

/** The key routers match an incoming event on: from the message when it says, else from its view. */
export function eventKeyOf(e: Incoming): string | null {
  if (e.eventKey !== undefined) return e.eventKey
  return (typeof e.view === 'string' ? (JSON.parse(e.view) as EventView) : e.view).event
}

/** Takes a batch of events; resolves once they are handled (deliveries made and recorded). Throws to have them redelivered. */
export type EventHandler = (events: Incoming[]) => Promise<void>

export interface EventBus {
  readonly kind: 'jetstream' | 'in-process'
  /** Resolves once every event is durably handed over: on JetStream, a message per outbox row (or a few, for a large row). */
  publish(events: BusEvent[]): Promise<void>
  /** Starts delivering events to `handler` (worker processes only). */
  consume(handler: EventHandler): Promise<void>
  /**
   * Calls `f` with every event of the workspace as it is published (the live
   * feed). Best effort: a copy may come twice, and nothing is replayed.
   */
  watch(workspaceId: number, f: (view: EventView) => void): () => void
  /**
   * Whether an announcement reaches every process that may cache what it
   * changes: JetStream while connected (on a reconnect `everything` is said,
   * for what was missed), or the in-process bus of the embedded database,
   * which no other process can open. While false, caches trust an entry only
   * briefly (API_KEY_CACHE_TTL_MS).
   */
  announcesEverywhere(): boolean
  /** The stream and the workers' consumer, for metrics and `herald status`; null on the in-process bus. */
  state(): Promise<BusState | null>
  /** Whether the bus can do its part now: reached, with its stream and, in a process that consumes, its consumer. */
  ready(): boolean
  close(): Promise<void>
}

/** What JetStream holds (from its stream and consumer info). */
export interface BusState {
  /** `messages`: batches (a message carries the events of one outbox row, or of part of a large one); `events`: the events they carry. */
  stream: { name: string; messages: number; events: number; bytes: number; firstSeq: number; lastSeq: number; consumers: number }
  /**
   * num_pending, num_ack_pending, num_redelivered and num_waiting (pull
   * requests) of the workers' consumer, and `delivered`, its delivered
   * consumer sequence: deliveries to workers so far, redeliveries included,
   * which stands still while no worker takes anything. All count messages
   * (batches), not events. Null while no worker has made the consumer.
   */
  consumer: { name: string; pending: number; ackPending: number; redelivered: number; waiting: number; delivered: number } | null
}

/**
 * The embedded default: publish calls the handler directly. With no handler
 * (no worker in this process) publish fails, so the outbox keeps the events.
 * `alone`: no other process can share this one's database (the embedded
 * one), so an announcement made here reaches every cache there is.
 */
export function createInProcessBus(opts: { alone: boolean } = { alone: true }): EventBus {
  let handler: EventHandler | null = null
  const watchers = createWatchers()
  return {
    kind: 'in-process',
    async publish(events) {
      if (!handler) throw new Error('no worker runs in this process: start Herald with `herald start`')
      for (const e of events) watchers.emit(e.workspaceId, e.view)
      await handler(events.map(incoming))
    },
    watch: (ws, f) => watchers.add(ws, f),
    async consume(h) {
      handler = h
    },
    announcesEverywhere: () => opts.alone,
    state: async () => null,
    ready: () => true,
    async close() {
      handler = null
    },
  }
}

/** Feed listeners per workspace; `onFirst`/`onLast` let a bus subscribe only while someone watches. */
export function createWatchers(onFirst?: (ws: number) => void, onLast?: (ws: number) => void) {
  const byWs = new Map<number, Set<(view: EventView) => void>>()
  return {
    add(ws: number, f: (view: EventView) => void) {
      let set = byWs.get(ws)
      if (!set) {
        byWs.set(ws, (set = new Set()))
        onFirst?.(ws)
      }
      set.add(f)
      return () => {
        set!.delete(f)
        if (!set!.size && byWs.get(ws) === set) {
          byWs.delete(ws)
          onLast?.(ws)
        }
      }
    },
    emit(ws: number, view: EventView) {
      for (const f of byWs.get(ws) ?? []) f(view)
    },
    /** The workspaces someone watches now. */
    watched: () => [...byWs.keys()],
    /** Whether someone watches the workspace. */
    watching: (ws: number) => byWs.has(ws),
  }
}
