// The JetStream bus. Each committed batch (one outbox row) is one message, or
// a few when it is larger than a message may be (bus_batch.ts), with a
// Nats-Msg-Id derived from the row and the events it carries, so that a
// relay that publishes twice (it crashed before marking its outbox row) is
// deduplicated by the server within the stream's duplicate window. Workers
// share one durable pull consumer with explicit acks, and acknowledge a
// message once every event of it is recorded. Only nats-server 2.9 features
// are used (no filter_subjects, no per-message TTLs).
import { hostOf } from '../core/url'
import { connect, createInbox, headers, type Msg, type NatsConnection } from '@nats-io/transport-node'
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, jetstream, jetstreamManager, type JsMsg, type StreamConfig } from '@nats-io/jetstream'
import type { Logger } from '../core/log'
import { isChange, type Changes } from '../core/changes'
import { createWatchers, type BusEvent, type BusState, type EventBus, type EventHandler, type Incoming } from './bus'
import type { EventView } from './event_view'
import { BATCH_TOKEN, MESSAGE_MAX_BYTES, WORKSPACES_HEADER, batchMessages, batchSizeOf, batchViews, received, type BatchMessage } from './bus_batch'

// Subjects are herald.events.b.<events> on the default stream (and
// herald.events.<workspace id>.<channel>, one event each, from an older
// Herald); another NATS_STREAM (a second Herald, or a test) gets
// herald.<stream>.…, as two streams may not share subjects.
const subjectRoot = (stream: string) => (stream === 'HERALD_EVENTS' ? 'herald.events' : `herald.${stream}`)
const CONSUMER = 'herald-workers'
const ns = (ms: number) => ms * 1_000_000

export interface JetStreamOptions {
  /** One NATS server URL, or several separated by commas: the client fails over between them. */
  url: string
  stream: string
  /** Copies of the stream's messages a NATS cluster keeps (NATS_STREAM_REPLICAS). */
  replicas: number
  maxAckPending: number // unacknowledged messages (batches) across the consumer: those being delivered
  ackWaitMs: number // redelivery of a message whose worker went silent
  /** Events of a message at most (JETSTREAM_BATCH_MAX_EVENTS). */
  batchMaxEvents: number
  log: Logger
  /** This database's id (table herald_instance): the stream must hold this database's events only. */
  instance: string
  /** Called when NATS, once reached, turns out unusable for good (another database's stream, an incompatible stream): the process should stop. */
  onFatal?: (err: Error) => void
  /** This process's changes: the bus carries its announcements to the other processes, and theirs to it (core NATS, at most once). */
  changes: Changes
}

/** The servers of NATS_URL: one URL or several, separated by commas. */
export const natsServers = (url: string) => url.split(',').map((s) => s.trim()).filter(Boolean)

// A message that keeps failing is retried with growing pauses; the worker
// acknowledges a message as soon as its events' deliveries exist in PostgreSQL, so this
// only covers PostgreSQL being unreachable or a worker dying. The server uses
// the first backoff step as ack_wait, so it starts at ackWaitMs. 30 deliveries
// span several hours.
const MAX_DELIVER = 30
const backoff = (ackWaitMs: number) => [1, 2, 4, 8, 16, 32].map((k) => Math.min(ackWaitMs * k, 600_000))

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
    publish(m: BatchMessage): Promise<void> {
      return new Promise((resolve, reject) => {
        const id = String(++seq)
        const h = headers()
        h.set('Nats-Msg-Id', m.msgId)
        h.set(WORKSPACES_HEADER, m.workspaces)
        try {
          nc.publish(m.subject, m.data, { reply: `${inbox}.${id}`, headers: h })
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

// How long start-up waits for NATS before it goes on without it: the API
// keeps taking events (the ledger holds them) and a worker reports not-ready
// until NATS comes.
const FIRST_CONNECT_MS = 3_000
// How often a consuming process checks that its consumer still exists (an
// operator may delete it, or the stream with it, or NATS may lose its store).
const CONSUMER_CHECK_MS = 2_000
// What a worker asks for ahead of what it has taken: messages, each a batch
// of up to JETSTREAM_BATCH_MAX_EVENTS events. Full batches come under load,
// when a few dozen ahead keep the pool busy; at a low rate batches are small
// and few come anyway. A worker that stalls holds no more for the ack wait.
const PULL_MESSAGES = 32
// Events handed to the fan-out in one call at most (a message larger goes
// alone): whatever arrived meanwhile, gathered.
const HANDLER_EVENTS = 200
// A pull request that is lost (in a cluster: sent before the consumer has a
// leader, answered 503, or held by a leader that then died) is noticed only
// when two idle heartbeats, each half the request's expiry, are missed: 30 s
// of nothing with the client's default expiry (30 s), 5 s with this one.
const PULL_EXPIRES_MS = 5_000

interface Link {
  nc: NatsConnection
  jsm: Manager
  js: ReturnType<typeof jetstream>
  publisher: ReturnType<typeof createPublisher>
  /** The stream's max_msg_size (0 or less: none), read when the stream is checked. */
  maxMsgSize: number
}

export async function createJetStreamBus(opts: JetStreamOptions): Promise<EventBus> {
  const servers = natsServers(opts.url)
  const SUBJECT = subjectRoot(opts.stream)
  // Cache invalidation between processes: core NATS, at most once. A lost
  // message only means a cache lives out its time-to-live.
  const CONTROL = `herald.control.${opts.stream}`
  const { changes } = opts
  changes.carry((change) => link?.nc.publish(CONTROL, JSON.stringify(change)))
  let link: Link | null = null
  let closed = false
  let handler: EventHandler | null = null
  let consumerReady = false
  let consuming: Promise<void> | null = null
  let stopConsuming: (() => void) | null = null

  // The live feed: while anyone in this process watches, one core-NATS
  // subscription to the batch subjects, which sees each message as it is
  // published; a batch none of whose workspaces (its header) is watched
  // here is skipped unread. An older Herald's messages (one event each, on
  // <root>.<workspace id>.<channel>, during an upgrade) are heard by a
  // subscription per watched workspace. Made on the first connection; the
  // client keeps them across reconnects.
  let batchFeed: { unsubscribe(): void } | null = null
  const feeds = new Map<number, { unsubscribe(): void }>()
  const subscribeFeed = (ws: number) => {
    if (!link) return
    batchFeed ??= link.nc.subscribe(`${SUBJECT}.${BATCH_TOKEN}.>`, { callback: (_err, msg) => feedBatch(msg) })
    feeds.set(ws, link.nc.subscribe(`${SUBJECT}.${ws}.>`, {
      callback: (_err, msg) => {
        try {
          watchers.emit(ws, msg.json<EventView>())
        } catch {}
      },
    }))
  }
  const feedBatch = (msg: Msg) => {
    const listed = msg.headers?.get(WORKSPACES_HEADER)?.split(',') ?? []
    if (!listed.some((ws) => watchers.watching(Number(ws)))) return
    try {
      for (const { workspaceId, view } of batchViews(msg.string(), watchers.watching)) watchers.emit(workspaceId, JSON.parse(view) as EventView)
    } catch {}
  }
  const watchers = createWatchers(subscribeFeed, (ws) => {
    feeds.get(ws)?.unsubscribe()
    feeds.delete(ws)
    if (watchers.watched().length || !batchFeed) return
    batchFeed.unsubscribe()
    batchFeed = null
  })

  /** Connects, checks or makes the stream, and subscribes; retried until it works (or turns out unusable for good). */
  async function open(): Promise<Link> {
    let failures = 0
    for (;;) {
      if (closed) throw new Error('the bus is closed')
      let nc: NatsConnection | null = null
      try {
        nc = await connect({ servers, name: 'herald', maxReconnectAttempts: -1, reconnectTimeWait: 500, timeout: 2_000 })
        const jsm = await jetstreamManager(nc)
        const stream = await ensureStream(jsm, opts)
        return { nc, jsm, js: jetstream(nc), publisher: createPublisher(nc, PUBLISH_TIMEOUT_MS), maxMsgSize: stream.max_msg_size ?? -1 }
      } catch (err) {
        await nc?.close().catch(() => {})
        // Unusable for good, not unreachable: the process stops, saying why.
        if (err instanceof ForeignStreamError || err instanceof IncompatibleStreamError) throw err
        if (failures++ === 0) opts.log.warn({ err }, `cannot reach NATS at ${servers.map((s) => hostOf(s, '(an unreadable URL)')).join(', ')} (NATS_URL): events wait in PostgreSQL until it comes`)
        await Bun.sleep(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)))
      }
    }
  }

  // Whether announcements reach this process now: false from a disconnect
  // until the reconnect, after which every cache starts over (what was
  // announced meanwhile is lost: core NATS keeps nothing for the absent).
  let hearing = false
  async function followStatus(l: Link) {
    for await (const s of l.nc.status()) {
      if (s.type === 'disconnect') hearing = false
      else if (s.type === 'reconnect') {
        hearing = true
        changes.heard({ kind: 'everything' })
      }
    }
  }

  function linked(l: Link) {
    link = l
    hearing = true
    void followStatus(l).catch(() => {})
    // The first link may come after start-up: what was announced before it was not heard either.
    changes.heard({ kind: 'everything' })
    l.nc.subscribe(CONTROL, {
      callback: (_err, msg) => {
        let change: unknown
        try {
          change = msg.json()
        } catch {
          return
        }
        if (isChange(change)) changes.heard(change)
      },
    })
    for (const ws of watchers.watched()) subscribeFeed(ws)
    opts.log.info({ stream: opts.stream }, 'connected to NATS')
    if (handler && !consuming) consuming = consume(handler)
  }

  const opening = open()
  // Start-up waits a little for NATS, so that a stream of another database
  // stops the process at once; past that, NATS is joined when it comes.
  const first = await Promise.race([opening.then(() => true), Bun.sleep(FIRST_CONNECT_MS).then(() => false)])
  if (first) linked(await opening)
  else {
    opts.log.warn({ stream: opts.stream }, 'starting without NATS: the API keeps accepting events, which wait in PostgreSQL; workers wait and are not ready')
    opening.then(linked, (err) => {
      if (closed) return
      opts.log.error({ err }, 'NATS is unusable for this Herald')
      opts.onFatal?.(err)
    })
  }

  // The stream may vanish under a running process (`nats stream rm`, a lost
  // store): the first publish that finds no stream makes it again, at most
  // once a second, and the relay's next round publishes what failed.
  let remaking: Promise<void> | null = null
  let remadeAt = 0
  function remakeStream(l: Link) {
    if (remaking || Date.now() - remadeAt < 1_000) return
    remadeAt = Date.now()
    remaking = ensureStream(l.jsm, opts)
      .then((stream) => {
        l.maxMsgSize = stream.max_msg_size ?? -1
        opts.log.warn({ stream: opts.stream }, 'the JetStream stream was missing and is made again; what it held is published again from PostgreSQL')
      })
      .catch((err) => {
        if (err instanceof ForeignStreamError || err instanceof IncompatibleStreamError) opts.onFatal?.(err)
        else opts.log.warn({ err }, 'could not make the JetStream stream again')
      })
      .finally(() => (remaking = null))
  }

  async function readMaxMsgSize(l: Link) {
    const info = await l.jsm.streams.info(opts.stream).catch(() => null)
    if (info) l.maxMsgSize = info.config.max_msg_size ?? -1
  }

  /** Consumes until the bus closes: makes the stream and the consumer again whenever they disappear. */
  async function consume(h: EventHandler) {
    let failures = 0
    while (!closed && link) {
      const l = link
      try {
        await ensureStream(l.jsm, opts)
        await ensureConsumer(l.jsm, opts)
        const messages = await (await l.js.consumers.get(opts.stream, CONSUMER)).consume({ max_messages: Math.min(opts.maxAckPending, PULL_MESSAGES), expires: PULL_EXPIRES_MS })
        consumerReady = true
        failures = 0
        stopConsuming = () => messages.stop()
        const watch = setInterval(async () => {
          const gone = await l.jsm.consumers.info(opts.stream, CONSUMER).then(() => false, (err) => isNotFound(err))
          if (gone && consumerReady) {
            consumerReady = false
            opts.log.warn({ stream: opts.stream, consumer: CONSUMER }, 'the JetStream consumer (or its stream) disappeared; making it again')
            messages.stop()
          }
        }, CONSUMER_CHECK_MS)
        try {
          await pump(messages, h, opts.log, opts.ackWaitMs)
        } finally {
          clearInterval(watch)
          consumerReady = false
          stopConsuming = null
        }
      } catch (err) {
        consumerReady = false
        if (err instanceof ForeignStreamError || err instanceof IncompatibleStreamError) return opts.onFatal?.(err)
        if (failures++ === 0) opts.log.warn({ err }, 'cannot consume from JetStream yet; retrying')
        await Bun.sleep(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)))
      }
    }
  }

  return {
    kind: 'jetstream',
    async publish(events: BusEvent[]) {
      const l = link
      const replayMark = Date.now().toString(36)
      if (!l) throw new Error('NATS is not reachable yet; the events wait in PostgreSQL')
      const limits = { maxBytes: messageMaxBytes(l), maxEvents: opts.batchMaxEvents }
      // All in flight at once; each PubAck means the stream stored the message.
      try {
        await Promise.all(batchMessages(SUBJECT, events, limits, replayMark).map((m) => l.publisher.publish(m)))
      } catch (err) {
        const message = String((err as Error).message)
        if (/no responders|503|stream not found/i.test(message)) remakeStream(l)
        // The stream's max_msg_size was lowered since it was read: read it again for the next publish.
        else if (/maximum|size/i.test(message)) void readMaxMsgSize(l)
        throw err
      }
    },
    async consume(h: EventHandler) {
      handler = h
      if (link && !consuming) consuming = consume(h)
      // With NATS there, a worker says it runs once its consumer does.
      for (const end = Date.now() + FIRST_CONNECT_MS; link && !consumerReady && Date.now() < end; ) await Bun.sleep(20)
    },
    watch: (ws, f) => watchers.add(ws, f),
    announcesEverywhere: () => hearing && !!link && !link.nc.isClosed(),
    // Every process reads the workers' consumer, those that do not consume
    // too: with every worker down, the API's scrape is the one that still
    // shows the events waiting (take max() across processes).
    async state() {
      const l = link
      if (!l) throw new Error('NATS is not reachable')
      return readJetStreamState(l.jsm, opts.stream).catch((err) => {
        if (isNotFound(err)) remakeStream(l)
        throw err
      })
    },
    ready: () => !!link && !link.nc.isClosed() && (handler ? consumerReady : true),
    async close() {
      closed = true
      stopConsuming?.()
      await consuming?.catch(() => {})
      const l = link
      if (!l) return
      l.publisher.close()
      await l.nc.drain().catch(() => l.nc.close())
    },
  }
}

/** JetStream's "no such stream or consumer" (10059 stream not found, 10014 consumer not found). */
const isNotFound = (err: unknown) => {
  const e = err as { code?: string | number; api_error?: { err_code?: number }; message?: string }
  return e?.api_error?.err_code === 10059 || e?.api_error?.err_code === 10014 || /not found/i.test(String(e?.message)) || String(e?.code) === '404'
}

/** A message's size at most: the least of the server's max_payload, the stream's max_msg_size and MESSAGE_MAX_BYTES. */
function messageMaxBytes(l: Link): number {
  const payload = l.nc.info?.max_payload ?? MESSAGE_MAX_BYTES
  return Math.min(payload, l.maxMsgSize > 0 ? l.maxMsgSize : Infinity, MESSAGE_MAX_BYTES)
}

/**
 * Hands messages to `handler` in small batches (whatever arrived meanwhile,
 * up to 200 events, or one message larger), several batches at once: a
 * message is acknowledged when the handler that has its events resolves,
 * which takes as long as its slowest delivery, and nak'd with a growing
 * pause when it fails. While a batch runs, its messages are reported in
 * progress so that JetStream does not redeliver them to another worker. A
 * message that cannot be read is terminated (its events stay owed in
 * PostgreSQL, which publishes them again).
 */
async function pump(messages: AsyncIterable<JsMsg>, handler: EventHandler, log: Logger, ackWaitMs: number) {
  const running = new Set<JsMsg[]>()
  const tasks = new Set<Promise<void>>()
  const heartbeat = setInterval(() => {
    for (const msgs of running) for (const m of msgs) m.working()
  }, Math.max(500, ackWaitMs / 3))
  let batch: JsMsg[] = []
  let events: Incoming[] = []
  const flush = () => {
    const msgs = batch
    const incoming = events
    batch = []
    events = []
    running.add(msgs)
    const task = handler(incoming)
      .then(
        () => msgs.forEach((m) => m.ack()),
        (err) => {
          log.warn({ err, messages: msgs.length, events: incoming.length }, 'events not handled; JetStream will redeliver them')
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
    let got: Incoming[]
    try {
      got = received(m, ackWaitMs)
    } catch (err) {
      log.error({ err, subject: m.subject, seq: m.seq }, 'a JetStream message Herald cannot read is dropped; PostgreSQL publishes its events again')
      m.term()
      continue
    }
    if (events.length && events.length + got.length > HANDLER_EVENTS) flush()
    batch.push(m)
    for (const e of got) events.push(e)
    if (events.length >= HANDLER_EVENTS) flush()
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

/**
 * The stream's state and the workers' consumer's (null while no worker has
 * created it). The events the stream holds come from its per-subject counts:
 * a batch's subject says how many events it carries (<root>.b.<n>), and
 * every other message (an older Herald's) is one event. The stream keeps
 * those counts in its subject index, so this reads no message.
 */
export async function readJetStreamState(jsm: Manager, stream: string): Promise<BusState> {
  const [info, consumer] = await Promise.all([
    jsm.streams.info(stream, { subjects_filter: `${subjectRoot(stream)}.${BATCH_TOKEN}.*` }),
    jsm.consumers.info(stream, CONSUMER).catch(() => null),
  ])
  const st = info.state
  let batches = 0
  let batched = 0
  for (const [subject, n] of Object.entries(st.subjects ?? {})) {
    const size = batchSizeOf(subject)
    if (!(size >= 0)) continue
    batches += n
    batched += n * size
  }
  return {
    stream: { name: stream, messages: st.messages, events: st.messages - batches + batched, bytes: st.bytes, firstSeq: st.first_seq, lastSeq: st.last_seq, consumers: st.consumer_count },
    consumer: consumer && {
      name: CONSUMER, pending: consumer.num_pending, ackPending: consumer.num_ack_pending, redelivered: consumer.num_redelivered, waiting: consumer.num_waiting,
      delivered: consumer.delivered.consumer_seq,
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

/** A stream Herald cannot use as it is: it names the setting or the command that mends it. */
export class IncompatibleStreamError extends Error {}

/**
 * Makes the stream, or checks the one that exists against what Herald needs:
 * its subjects must take Herald's (else nothing reaches it: refused), its
 * replicas follow NATS_STREAM_REPLICAS (changed in place, or refused when the
 * cluster cannot hold them). Retention other than work queue, discard old and
 * limits on messages, bytes or age can drop events JetStream acknowledged: the
 * ledger publishes them again from PostgreSQL, so they are only warned about.
 */
async function ensureStream(jsm: Manager, opts: Pick<JetStreamOptions, 'stream' | 'instance' | 'replicas' | 'log'>): Promise<StreamConfig> {
  const name = opts.stream
  const subject = `${subjectRoot(name)}.>`
  const config = {
    name,
    description: ownerNote(opts.instance),
    subjects: [subject],
    // Work queue: a message is removed once a worker acknowledged it.
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    num_replicas: opts.replicas,
    max_age: ns(7 * 24 * 3600 * 1000),
    duplicate_window: ns(2 * 60 * 1000),
  }
  let info = await jsm.streams.info(name).catch((err) => {
    if (isNotFound(err)) return null
    throw err
  })
  if (!info) {
    info = await jsm.streams.add(config).catch(async (err) => {
      // Another process created it meanwhile.
      const made = await jsm.streams.info(name).catch(() => null)
      if (made) return made
      if (/insufficient resources|replicas/i.test(String((err as Error).message))) {
        throw new IncompatibleStreamError(`NATS cannot keep ${opts.replicas} replicas of the stream ${name} (NATS_STREAM_REPLICAS=${opts.replicas}): ${(err as Error).message}; a single server keeps 1, a cluster of 3 or more keeps 3`)
      }
      throw err
    })
  }
  // A stream made before streams carried their database is claimed once.
  if (!info.config.description) info = await jsm.streams.update(name, { description: ownerNote(opts.instance) })
  const owner = ownerOf(info.config.description)
  if (owner !== opts.instance) {
    throw new ForeignStreamError(
      `the JetStream stream ${name} (NATS_STREAM) holds the events of another Herald database (${owner ?? `its description: ${JSON.stringify(info.config.description)}`}), not this one's (${opts.instance}): ` +
        `give each Herald its own NATS_STREAM, or, if that stream's ${info.state.messages} waiting events are not wanted any more, delete it (nats stream rm ${name})`,
    )
  }
  const c = info.config
  if (!c.subjects?.some((x) => x === subject || x === '>' || x === `${subject.split('.')[0]}.>`)) {
    throw new IncompatibleStreamError(`the JetStream stream ${name} (NATS_STREAM) does not take the subjects ${subject} (it takes ${JSON.stringify(c.subjects)}): add them (nats stream edit ${name} --subjects '${subject}'), or choose another NATS_STREAM`)
  }
  if ((c.num_replicas ?? 1) !== opts.replicas) {
    try {
      await jsm.streams.update(name, { num_replicas: opts.replicas })
      opts.log.info({ stream: name, from: c.num_replicas ?? 1, to: opts.replicas }, 'the JetStream stream now keeps NATS_STREAM_REPLICAS copies')
    } catch (err) {
      throw new IncompatibleStreamError(`the JetStream stream ${name} keeps ${c.num_replicas ?? 1} replicas and cannot be changed to ${opts.replicas} (NATS_STREAM_REPLICAS): ${(err as Error).message}`)
    }
  }
  const lossy = [
    c.retention !== RetentionPolicy.Workqueue && `retention ${c.retention} (Herald makes work queue streams)`,
    c.discard === 'old' && (c.max_msgs > 0 || c.max_bytes > 0 || (c.max_msgs_per_subject ?? 0) > 0) && `discard old at max_msgs ${c.max_msgs}, max_bytes ${c.max_bytes}`,
    c.max_age > 0 && c.max_age < ns(24 * 3600 * 1000) && `max_age ${Math.round(c.max_age / 1e9)} s`,
  ].filter(Boolean)
  if (lossy.length) {
    opts.log.warn({ stream: name, settings: lossy }, 'the JetStream stream may drop events it acknowledged; PostgreSQL keeps them owed and they are published again (FANOUT_REPLAY_AFTER_MS), later than they would be')
  }
  return c
}

async function ensureConsumer(jsm: Manager, opts: JetStreamOptions) {
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
