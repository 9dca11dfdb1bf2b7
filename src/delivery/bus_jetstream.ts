// The JetStream bus. Each committed event is one message on
// herald.events.<workspace id>.<channel>, with Nats-Msg-Id = eventId so that a
// relay that publishes twice (it crashed before deleting its outbox row) is
// deduplicated by the server within the stream's duplicate window. Workers
// share one durable pull consumer with explicit acks. Only nats-server 2.9
// features are used (no filter_subjects, no per-message TTLs).
import { connect, createInbox, headers, type Msg, type NatsConnection } from '@nats-io/transport-node'
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream'
import type { Logger } from '../core/log'
import { createWatchers, isChange, type BusEvent, type BusState, type Change, type EventBus, type EventHandler, type Incoming } from './bus'
import type { EventView } from './event_view'

// Each message is one event's view as JSON; its ids travel in the subject and
// the Nats-Msg-Id header, so a worker routes it without parsing it.
// Subjects are herald.events.<workspace id>.<channel> on the default stream;
// another NATS_STREAM (a second Herald, or a test) gets herald.<stream>.…, as
// two streams may not share subjects.
const subjectRoot = (stream: string) => (stream === 'HERALD_EVENTS' ? 'herald.events' : `herald.${stream}`)
const CONSUMER = 'herald-workers'
const ns = (ms: number) => ms * 1_000_000

export interface JetStreamOptions {
  url: string
  stream: string
  maxAckPending: number // unacknowledged events across the consumer: the events being delivered
  ackWaitMs: number // redelivery of an event whose worker went silent
  log: Logger
  /** This database's id (table herald_instance): the stream must hold this database's events only. */
  instance: string
}

// An event that keeps failing is retried with growing pauses; the worker
// acknowledges an event as soon as its deliveries exist in PostgreSQL, so this
// only covers PostgreSQL being unreachable or a worker dying. The server uses
// the first backoff step as ack_wait, so it starts at ackWaitMs. 30 deliveries
// span several hours.
const MAX_DELIVER = 30
const backoff = (ackWaitMs: number) => [1, 2, 4, 8, 16, 32].map((k) => Math.min(ackWaitMs * k, 600_000))

const subjectToken = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_')
// A PubAck later than this fails the publish; the outbox keeps the events.
const PUBLISH_TIMEOUT_MS = 10_000

/**
 * Publishes to the stream and resolves on its PubAck, as js.publish does, for
 * a third of the CPU: one inbox subscription takes every PubAck and one timer
 * expires every late one, where js.publish makes a request, a promise chain
 * and a timer per message (measured under Bun: 27 µs against 9 µs per
 * message). The header Nats-Msg-Id lets the stream drop a message it has
 * already stored within its duplicate window.
 */
function createPublisher(nc: NatsConnection, timeoutMs: number) {
  const inbox = createInbox()
  const waiting = new Map<string, { resolve(): void; reject(e: Error): void; deadline: number }>()
  let seq = 0
  const settle = (m: Msg) => {
    const id = m.subject.slice(inbox.length + 1)
    const w = waiting.get(id)
    if (!w) return
    waiting.delete(id)
    // No stream listens on the subject (status 503, no data), or the stream
    // refused the message ({"error": {...}}); otherwise {"stream", "seq"}.
    if (!m.data.length) return w.reject(new Error(`JetStream did not take the message (${m.headers?.code ?? 'no answer'} ${m.headers?.description ?? ''})`.trim()))
    const ack = m.json<{ error?: { description?: string } }>()
    if (ack.error) return w.reject(new Error(`JetStream refused the message: ${ack.error.description ?? JSON.stringify(ack.error)}`))
    w.resolve()
  }
  const sub = nc.subscribe(`${inbox}.*`, { callback: (_err, m) => settle(m) })
  const expiry = setInterval(() => {
    const now = Date.now()
    for (const [id, w] of waiting) {
      if (w.deadline > now) continue
      waiting.delete(id)
      w.reject(new Error(`no PubAck from JetStream within ${timeoutMs} ms`))
    }
  }, 250)
  return {
    publish(subject: string, data: string, msgId: string): Promise<void> {
      return new Promise((resolve, reject) => {
        const id = String(++seq)
        const h = headers()
        h.set('Nats-Msg-Id', msgId)
        try {
          nc.publish(subject, data, { reply: `${inbox}.${id}`, headers: h })
        } catch (err) {
          return reject(err as Error)
        }
        waiting.set(id, { resolve, reject, deadline: Date.now() + timeoutMs })
      })
    },
    close() {
      clearInterval(expiry)
      sub.unsubscribe()
      for (const w of waiting.values()) w.reject(new Error('the NATS connection is closing'))
      waiting.clear()
    },
  }
}

export async function createJetStreamBus(opts: JetStreamOptions): Promise<EventBus> {
  const nc: NatsConnection = await connect({ servers: opts.url, name: 'herald', maxReconnectAttempts: -1, reconnectTimeWait: 500 })
  const jsm = await jetstreamManager(nc)
  const SUBJECT = subjectRoot(opts.stream)
  // Cache invalidation between processes: core NATS, at most once. A lost
  // message only means a cache lives out its time-to-live.
  const CONTROL = `herald.control.${opts.stream}`
  await ensureStream(jsm, opts.stream, opts.instance).catch(async (err) => {
    await nc.close()
    throw err
  })
  const js = jetstream(nc)
  const publisher = createPublisher(nc, PUBLISH_TIMEOUT_MS)
  const listeners: ((c: Change) => void)[] = []
  // The live feed: a core-NATS subscription to a workspace's subjects while
  // someone watches it; it sees each message as it is published.
  const feeds = new Map<number, { unsubscribe(): void }>()
  const watchers = createWatchers(
    (ws) => feeds.set(ws, nc.subscribe(`${SUBJECT}.${ws}.>`, {
      callback: (_err, msg) => {
        try {
          watchers.emit(ws, msg.json<EventView>())
        } catch {}
      },
    })),
    (ws) => {
      feeds.get(ws)?.unsubscribe()
      feeds.delete(ws)
    },
  )
  let consuming: { stop(): void; done: Promise<void> } | null = null

  nc.subscribe(CONTROL, {
    callback: (_err, msg) => {
      let change: unknown
      try {
        change = msg.json()
      } catch {
        return
      }
      if (isChange(change)) for (const f of listeners) f(change)
    },
  })

  return {
    kind: 'jetstream',
    async publish(events: BusEvent[]) {
      // All in flight at once; each PubAck means the stream stored the message.
      await Promise.all(
        events.map((e) => publisher.publish(`${SUBJECT}.${e.workspaceId}.${subjectToken(e.view.channel)}`, JSON.stringify(e.view), e.view.eventId)),
      )
    },
    async consume(handler: EventHandler) {
      await ensureConsumer(jsm, opts)
      const consumer = await js.consumers.get(opts.stream, CONSUMER)
      const messages = await consumer.consume({ max_messages: Math.min(opts.maxAckPending, 1000) })
      consuming = { stop: () => messages.stop(), done: pump(messages, handler, opts.log, opts.ackWaitMs) }
    },
    watch: (ws, f) => watchers.add(ws, f),
    announce(change) {
      for (const f of listeners) f(change) // this process at once, even if NATS is away
      nc.publish(CONTROL, JSON.stringify(change))
    },
    onChange(f) {
      listeners.push(f)
    },
    // The consumer is the workers' own: only a process that consumes reports
    // it, so each worker's scrape shows it and API processes do not repeat it.
    state: () => readJetStreamState(jsm, opts.stream, !!consuming),
    async close() {
      publisher.close()
      consuming?.stop()
      await consuming?.done.catch(() => {})
      await nc.drain().catch(() => nc.close())
    },
  }
}

/**
 * A message as the worker takes it: workspace and channel from the subject
 * (herald.events.<workspace id>.<channel>; channel slugs are subject-safe, so
 * the token is the slug), the event id from Nats-Msg-Id, the view as text.
 */
function received(m: JsMsg): Incoming {
  const tokens = m.subject.split('.')
  return {
    workspaceId: Number(tokens[tokens.length - 2]),
    channel: tokens[tokens.length - 1]!,
    eventId: m.headers!.get('Nats-Msg-Id'),
    view: m.string(),
    redelivered: m.info.redelivered,
  }
}

/**
 * Hands messages to `handler` in small batches (whatever arrived meanwhile,
 * at most 200), several batches at once: a batch is acknowledged when its
 * handler resolves, which takes as long as its slowest delivery. While a
 * batch runs, its messages are reported in progress so that JetStream does
 * not redeliver them to another worker.
 */
async function pump(messages: AsyncIterable<JsMsg>, handler: EventHandler, log: Logger, ackWaitMs: number) {
  const running = new Set<JsMsg[]>()
  const tasks = new Set<Promise<void>>()
  const heartbeat = setInterval(() => {
    for (const msgs of running) for (const m of msgs) m.working()
  }, Math.max(500, ackWaitMs / 3))
  let batch: JsMsg[] = []
  const flush = () => {
    const msgs = batch
    batch = []
    running.add(msgs)
    const task = handler(msgs.map(received))
      .then(
        () => msgs.forEach((m) => m.ack()),
        (err) => {
          log.warn({ err, events: msgs.length }, 'events not handled; JetStream will redeliver them')
          for (const m of msgs) m.nak(Math.min(1000 * 2 ** (m.info.deliveryCount - 1), 600_000))
        },
      )
      .finally(() => {
        running.delete(msgs)
        tasks.delete(task)
      })
    tasks.add(task)
  }
  let scheduled = false
  for await (const m of messages) {
    batch.push(m)
    if (batch.length >= 200) flush()
    else if (!scheduled) {
      scheduled = true
      setImmediate(() => {
        scheduled = false
        if (batch.length) flush()
      })
    }
  }
  if (batch.length) flush()
  await Promise.allSettled([...tasks])
  clearInterval(heartbeat)
}

type Manager = Awaited<ReturnType<typeof jetstreamManager>>

/** The stream's state and, with `withConsumer`, the workers' consumer's (null while no worker has created it). */
export async function readJetStreamState(jsm: Manager, stream: string, withConsumer: boolean): Promise<BusState> {
  const [info, consumer] = await Promise.all([
    jsm.streams.info(stream),
    withConsumer ? jsm.consumers.info(stream, CONSUMER).catch(() => null) : null,
  ])
  const st = info.state
  return {
    stream: { name: stream, messages: st.messages, bytes: st.bytes, firstSeq: st.first_seq, lastSeq: st.last_seq, consumers: st.consumer_count },
    consumer: consumer && {
      name: CONSUMER, pending: consumer.num_pending, ackPending: consumer.num_ack_pending, redelivered: consumer.num_redelivered, waiting: consumer.num_waiting,
    },
  }
}

/** What a stream's description says of the database whose events it holds. */
const ownerNote = (instance: string) => `Herald: the events of database ${instance}`
const ownerOf = (description: string | undefined) => /^Herald: the events of database ([0-9a-f-]{36})$/.exec(description ?? '')?.[1]

/**
 * A stream named by NATS_STREAM that holds another Herald database's events
 * (two deployments on one NATS with the same NATS_STREAM, or a database
 * created anew beside an old stream): its workspace ids mean other
 * workspaces here, so this process refuses it rather than deliver them.
 */
export class ForeignStreamError extends Error {}

async function ensureStream(jsm: Awaited<ReturnType<typeof jetstreamManager>>, name: string, instance: string) {
  const config = {
    name,
    description: ownerNote(instance),
    subjects: [`${subjectRoot(name)}.>`],
    // Work queue: a message is removed once a worker acknowledged it.
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    max_age: ns(7 * 24 * 3600 * 1000),
    duplicate_window: ns(2 * 60 * 1000),
  }
  let info = await jsm.streams.info(name).catch(() => null)
  if (!info) {
    info = await jsm.streams.add(config).catch(async (err) => {
      // Another process created it meanwhile.
      const made = await jsm.streams.info(name).catch(() => null)
      if (!made) throw err
      return made
    })
  }
  // A stream made before streams carried their database is claimed once.
  if (!info.config.description) info = await jsm.streams.update(name, { description: ownerNote(instance) })
  const owner = ownerOf(info.config.description)
  if (owner !== instance) {
    throw new ForeignStreamError(
      `the JetStream stream ${name} (NATS_STREAM) holds the events of another Herald database (${owner ?? `its description: ${JSON.stringify(info.config.description)}`}), not this one's (${instance}): ` +
        `give each Herald its own NATS_STREAM, or, if that stream's ${info.state.messages} waiting events are not wanted any more, delete it (nats stream rm ${name})`,
    )
  }
}

async function ensureConsumer(jsm: Awaited<ReturnType<typeof jetstreamManager>>, opts: JetStreamOptions) {
  const config = {
    durable_name: CONSUMER,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: ns(opts.ackWaitMs),
    max_ack_pending: opts.maxAckPending,
    max_deliver: MAX_DELIVER,
    backoff: backoff(opts.ackWaitMs).map(ns),
  }
  const existing = await jsm.consumers.info(opts.stream, CONSUMER).catch(() => null)
  if (!existing) {
    await jsm.consumers.add(opts.stream, config).catch(async (err) => {
      if (!(await jsm.consumers.info(opts.stream, CONSUMER).catch(() => null))) throw err
    })
  } else if (existing.config.ack_wait !== config.ack_wait || existing.config.max_ack_pending !== config.max_ack_pending) {
    await jsm.consumers.update(opts.stream, CONSUMER, { ack_wait: config.ack_wait, max_ack_pending: config.max_ack_pending, backoff: config.backoff })
  }
}
