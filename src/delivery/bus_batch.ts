// JetStream messages that carry committed batches: the events of one outbox
// row go as one message (or a few, when the row is larger than a message may
// be), so the stream stores, hands out and acknowledges a batch at the cost
// of one message rather than one per event.
//
// A message's body is a first line of JSON that lists its events, then each
// event's view as JSON, one a line (JSON.stringify escapes line breaks inside
// strings, so a view is never cut):
//   {"o":12,"n":250,"e":[[0,3,"ops","0190…","deploy.done"],…]}
//   {…the view of event 0…}
//   {…the view of event 1…}
// "o" is the outbox row (absent when there is none) and "n" how many events
// the row lists; "r":1 marks events the relay's scan publishes (a hand-off
// that failed may have got part of the row through), which the worker checks
// against the deliveries that exist, as a redelivery; an entry is [place in the row, workspace id, channel, event
// id, event key or null]. A worker parses the first line only and slices the
// views out of the text: each goes to the pool's thread as the JSON text it
// travelled as, and is parsed there. Parsing the whole body here and handing
// objects to the thread cost the main thread both the parse and a structured
// clone of every object graph, where a string is copied flat: 100 views of
// about 580 bytes took 8 to 10 times longer that way on the main thread
// (bench/bus_batch_decode.ts: 295 µs against 31 µs a message, on 2 cores).
//
// Subjects are <root>.b.<number of events>: the stream's subjects still
// match <root>.>, and the stream's per-subject counts tell how many events it
// holds (eventsHeld) without reading a message. Messages of an older Herald,
// one event each on <root>.<workspace id>.<channel>, are still read
// (receivedEvent), so a stream written before an upgrade drains.
import type { JsMsg } from '@nats-io/jetstream'
import type { BusEvent, Incoming, OutboxRef } from './bus'

/** The token after the subject root that marks a batch message. */
export const BATCH_TOKEN = 'b'
/** The workspaces of a batch message's events ("3,7"), so that the live feed skips a batch of none it watches without reading the body. */
export const WORKSPACES_HEADER = 'Herald-Workspaces'
// A message at most, whatever the server and the stream would take: a
// worker holds a message whole, and a batch this size already costs the
// stream no more per event than a larger one would.
export const MESSAGE_MAX_BYTES = 256 * 1024
// What a message costs besides its events: the headers (NATS/1.0, the
// Nats-Msg-Id, the workspaces header's name) and the first line's frame.
// Both the server's max_payload and a stream's max_msg_size count headers.
const FRAME_BYTES = 256

export interface BatchLimits {
  /** Bytes of a message at most (headers included): the least of max_payload, the stream's max_msg_size and MESSAGE_MAX_BYTES. */
  maxBytes: number
  /** Events of a message at most (JETSTREAM_BATCH_MAX_EVENTS). */
  maxEvents: number
}

/** A message to publish. */
export interface BatchMessage {
  subject: string
  data: string
  /** Nats-Msg-Id: the same for the same events of a row, so that the stream drops a second publish (see msgIdOf). */
  msgId: string
  workspaces: string
  events: number
}

type Entry = [index: number, workspaceId: number, channel: string, eventId: string, key: string | null]
interface Meta {
  r?: 1
  o?: number
  n?: number
  e: Entry[]
}

/**
 * The messages of a publish: per outbox row (and, apart, its replays), its
 * events in their order in the row, cut by `limits`. An event larger than
 * maxBytes goes alone (the server may then refuse it, and the row stays owed).
 */
export function batchMessages(root: string, events: BusEvent[], limits: BatchLimits, replayMark: string): BatchMessage[] {
  const groups = new Map<string, BusEvent[]>()
  for (const e of events) {
    const key = `${e.outbox?.id ?? ''}${e.replay ? '~' : ''}${e.redelivered ? 'r' : ''}`
    let group = groups.get(key)
    if (!group) groups.set(key, (group = []))
    group.push(e)
  }
  const out: BatchMessage[] = []
  for (const group of groups.values()) {
    if (group[0]!.outbox) group.sort((a, b) => a.outbox!.index - b.outbox!.index)
    let chunk: { e: BusEvent; entry: string; view: string }[] = []
    let bytes = FRAME_BYTES
    let workspaces = new Set<number>()
    const flush = () => {
      if (chunk.length) out.push(messageOf(root, chunk, workspaces, replayMark))
      chunk = []
      bytes = FRAME_BYTES
      workspaces = new Set()
    }
    for (const e of group) {
      const view = JSON.stringify(e.view)
      const entry = JSON.stringify([e.outbox?.index ?? 0, e.workspaceId, e.view.channel, e.view.eventId, e.view.event] satisfies Entry)
      const cost = Buffer.byteLength(view) + Buffer.byteLength(entry) + 2 + (workspaces.has(e.workspaceId) ? 0 : String(e.workspaceId).length + 1)
      if (chunk.length && (chunk.length >= limits.maxEvents || bytes + cost > limits.maxBytes)) flush()
      chunk.push({ e, entry, view })
      bytes += cost
      workspaces.add(e.workspaceId)
    }
    flush()
  }
  return out
}

function messageOf(root: string, chunk: { e: BusEvent; entry: string; view: string }[], workspaces: Set<number>, replayMark: string): BatchMessage {
  const row = chunk[0]!.e.outbox
  const again = chunk[0]!.e.redelivered ? '"r":1,' : ''
  const head = row ? `{${again}"o":${row.id},"n":${row.size},"e":[` : `{${again}"e":[`
  const data = `${head}${chunk.map((c) => c.entry).join(',')}]}\n${chunk.map((c) => c.view).join('\n')}`
  const id = msgIdOf(chunk.map((c) => c.e))
  return {
    subject: `${root}.${BATCH_TOKEN}.${chunk.length}`,
    data,
    msgId: chunk[0]!.e.replay ? `${id}~${replayMark}` : id,
    workspaces: [...workspaces].join(','),
    events: chunk.length,
  }
}

/**
 * A chunk's Nats-Msg-Id: o<row>.<first place>.<last place>.<count>. A row's
 * events are only ever cleared, never added, so two chunks of one row with
 * the same first and last place and count hold the same events: a relay
 * that publishes a row twice within the duplicate window (it crashed before
 * marking it, or the scan follows a hand-off that failed halfway) has its
 * second copy dropped by the server, and a copy cut differently (events
 * cleared meanwhile) is one the worker checks against what it recorded.
 * Events of no row: e<first event id>.<count>.
 */
function msgIdOf(events: BusEvent[]): string {
  const first = events[0]!
  const last = events[events.length - 1]!
  if (!first.outbox) return `e${first.view.eventId}.${events.length}`
  return `o${first.outbox.id}.${first.outbox.index}.${last.outbox!.index}.${events.length}`
}

/** Whether a stream message is a batch (<root>.b.<n>); the root is two tokens (herald.events, herald.<stream>). */
export const isBatchSubject = (subject: string) => subject.split('.', 3)[2] === BATCH_TOKEN

/** How many events a batch subject says its message carries; NaN for another subject. */
export const batchSizeOf = (subject: string) => (isBatchSubject(subject) ? Number(subject.split('.')[3]) : NaN)

/** A message that may not be a first delivery: redelivered, a replay, or older than the ack wait (see received). */
const maybeCopy = (m: JsMsg, msgId: string, staleAfterMs: number) =>
  // A first delivery to this process may still be a copy another worker
  // already handled: a process frozen past the ack wait (SIGSTOP, a long
  // pause) gets back messages JetStream has meanwhile redelivered elsewhere.
  // A message older than the ack wait is checked against the deliveries
  // that exist before anything is sent. A replay from PostgreSQL likewise.
  m.info.redelivered || msgId.includes('~') || Date.now() - m.info.timestampNanos / 1e6 > staleAfterMs

/** The events of a message as the worker takes them: a batch's, or an older Herald's one. Throws on a message it cannot read. */
export function received(m: JsMsg, staleAfterMs: number): Incoming[] {
  return isBatchSubject(m.subject) ? receivedBatch(m, staleAfterMs) : [receivedEvent(m, staleAfterMs)]
}

/** A batch message's events, each marked `redelivered` when the message may be a copy: the fan-out then skips what was recorded. */
function receivedBatch(m: JsMsg, staleAfterMs: number): Incoming[] {
  const text = m.string()
  const { meta, views } = readBody(text)
  const redelivered = meta.r === 1 || maybeCopy(m, m.headers?.get('Nats-Msg-Id') ?? '', staleAfterMs)
  return meta.e.map(([index, workspaceId, channel, eventId, eventKey], i) => ({
    workspaceId, channel, eventId, eventKey, redelivered,
    view: views[i]!,
    outbox: meta.o === undefined ? undefined : ({ id: meta.o, index, size: meta.n! } satisfies OutboxRef),
  }))
}

/** The first line, parsed, and the views as text. */
function readBody(text: string): { meta: Meta; views: string[] } {
  const lines = text.split('\n')
  const meta = JSON.parse(lines[0]!) as Meta
  if (!Array.isArray(meta.e) || meta.e.length !== lines.length - 1) throw new Error(`a batch message lists ${meta.e?.length} events and carries ${lines.length - 1} views`)
  return { meta, views: lines.slice(1) }
}

/** The views of a batch message's events of the workspaces `watched` says, for the live feed. */
export function batchViews(text: string, watched: (ws: number) => boolean): { workspaceId: number; view: string }[] {
  const { meta, views } = readBody(text)
  return meta.e.flatMap(([, workspaceId], i) => (watched(workspaceId) ? [{ workspaceId, view: views[i]! }] : []))
}

/**
 * A message of an older Herald, one event: workspace and channel from the
 * subject (<root>.<workspace id>.<channel>), the event id from Nats-Msg-Id
 * ("<eventId>~<when>" for a replay), the view as text.
 */
export function receivedEvent(m: JsMsg, staleAfterMs: number): Incoming {
  const tokens = m.subject.split('.')
  const msgId = m.headers?.get('Nats-Msg-Id') ?? ''
  if (!msgId) throw new Error('a message with no Nats-Msg-Id')
  return {
    workspaceId: Number(tokens[tokens.length - 2]),
    channel: tokens[tokens.length - 1]!,
    eventId: msgId.split('~')[0]!,
    view: m.string(),
    redelivered: maybeCopy(m, msgId, staleAfterMs),
    outbox: outboxRef(m.headers?.get(OUTBOX_HEADER)),
    eventKey: eventKeyFrom(m.headers?.get(EVENT_KEY_HEADER)),
  }
}

// An older Herald's headers: the event's key (`k` and the key URI-encoded,
// or `n` for none) and its ledger entry ("id.index.size").
const EVENT_KEY_HEADER = 'Herald-Event-Key'
const OUTBOX_HEADER = 'Herald-Outbox'
function eventKeyFrom(h: string | undefined): string | null | undefined {
  if (h === 'n') return null
  if (!h?.startsWith('k')) return undefined // older still: the worker reads the view
  try {
    return decodeURIComponent(h.slice(1))
  } catch {
    return undefined
  }
}
function outboxRef(h: string | undefined): OutboxRef | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(h ?? '')
  return m ? { id: Number(m[1]), index: Number(m[2]), size: Number(m[3]) } : undefined
}
