// The JetStream bus. Each committed event is one message on
// herald.events.<workspace id>.<channel>, with Nats-Msg-Id = eventId so that a
// relay that publishes twice (it crashed before deleting its outbox row) is
// deduplicated by the server within the stream's duplicate window. Workers
// share one durable pull consumer with explicit acks. Only nats-server 2.9
// features are used (no filter_subjects, no per-message TTLs).
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream'
import type { Logger } from './log'
import type { BusEvent, EventBus, EventHandler } from './bus'

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
}

// An event that keeps failing is retried with growing pauses; the worker
// acknowledges an event as soon as its deliveries exist in PostgreSQL, so this
// only covers PostgreSQL being unreachable or a worker dying. The server uses
// the first backoff step as ack_wait, so it starts at ackWaitMs. 30 deliveries
// span several hours.
const MAX_DELIVER = 30
const backoff = (ackWaitMs: number) => [1, 2, 4, 8, 16, 32].map((k) => Math.min(ackWaitMs * k, 600_000))

const subjectToken = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_')

export async function createJetStreamBus(opts: JetStreamOptions): Promise<EventBus> {
  const nc: NatsConnection = await connect({ servers: opts.url, name: 'herald', maxReconnectAttempts: -1, reconnectTimeWait: 500 })
  const jsm = await jetstreamManager(nc)
  const SUBJECT = subjectRoot(opts.stream)
  const CONTROL_ROUTERS = `herald.control.${opts.stream}.routers`
  await ensureStream(jsm, opts.stream)
  const js = jetstream(nc)
  const listeners: ((ws: number) => void)[] = []
  let consuming: { stop(): void; done: Promise<void> } | null = null

  nc.subscribe(CONTROL_ROUTERS, {
    callback: (_err, msg) => {
      const ws = Number(new TextDecoder().decode(msg.data))
      if (Number.isInteger(ws)) for (const f of listeners) f(ws)
    },
  })

  return {
    kind: 'jetstream',
    async publish(events: BusEvent[]) {
      // All in flight at once; each PubAck means the stream stored the message.
      await Promise.all(
        events.map((e) =>
          js.publish(`${SUBJECT}.${e.workspaceId}.${subjectToken(e.view.channel)}`, JSON.stringify(e), { msgID: e.view.eventId, timeout: 10_000 }),
        ),
      )
    },
    async consume(handler: EventHandler) {
      await ensureConsumer(jsm, opts)
      const consumer = await js.consumers.get(opts.stream, CONSUMER)
      const messages = await consumer.consume({ max_messages: Math.min(opts.maxAckPending, 1000) })
      consuming = { stop: () => messages.stop(), done: pump(messages, handler, opts.log, opts.ackWaitMs) }
    },
    announceRoutersChanged(ws) {
      for (const f of listeners) f(ws) // this process at once, even if NATS is away
      nc.publish(CONTROL_ROUTERS, String(ws))
    },
    onRoutersChanged(f) {
      listeners.push(f)
    },
    async close() {
      consuming?.stop()
      await consuming?.done.catch(() => {})
      await nc.drain().catch(() => nc.close())
    },
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
    const task = handler(msgs.map((m) => ({ ...m.json<BusEvent>(), redelivered: m.info.redelivered })))
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

async function ensureStream(jsm: Awaited<ReturnType<typeof jetstreamManager>>, name: string) {
  const config = {
    name,
    subjects: [`${subjectRoot(name)}.>`],
    // Work queue: a message is removed once a worker acknowledged it.
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    max_age: ns(7 * 24 * 3600 * 1000),
    duplicate_window: ns(2 * 60 * 1000),
  }
  try {
    await jsm.streams.info(name)
  } catch {
    await jsm.streams.add(config).catch(async (err) => {
      // Another process created it meanwhile.
      if (!(await jsm.streams.info(name).catch(() => null))) throw err
    })
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
