// A committed batch travels through JetStream as one message (or a few, when
// it is larger than a message may be), which a worker acknowledges once
// every event of it is recorded. Real `serve` and `worker` processes on
// PostgreSQL and NATS (a nats-server of the case's own where a limit is set):
// the stream's own counts say how many messages it stored, and the receivers
// how often each event arrived.
import { expect, test } from 'bun:test'
import { connect, headers } from '@nats-io/transport-node'
import { RetentionPolicy, StorageType, jetstream, jetstreamManager } from '@nats-io/jetstream'
import { describeJs } from '../harness'
import { eventually, type Receiver } from '../receiver'
import { readJetStreamState } from '../../src/delivery/bus_jetstream'
import type { BusState } from '../../src/delivery/bus'
import { openFeedStream } from '../feed_stream'
import { waitFor } from '../support'
import { admin, caseProcesses, caseReceiver, caseSetup, cleanups, figures, query, spawn, workspaces, type Cleanups } from '../faults/fixture'
import { eventIdOf, expectFannedOut } from '../faults/load'
import { privateNats } from '../faults/private_nats'
import type { HeraldProcess } from '../processes'

// An idle ingest lane writes the first event of a request at once and the
// rest behind it; with a window, a request's events are one committed batch.
const ONE_COMMIT = { BATCH_WINDOW_MS: '50' }

/** Posts `events` in one POST /events (one committed batch, with ONE_COMMIT); the ids, in order. */
async function postBatch(api: HeraldProcess, key: string, events: { event?: string; message: string }[]): Promise<string[]> {
  const res = await fetch(`${api.url}/events`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ events }) })
  expect(res.status).toBe(200)
  const { results } = (await res.json()) as { results: { eventId?: string }[] }
  return results.map((r) => r.eventId!)
}

const messages = (n: number, tag: string, event?: string) => Array.from({ length: n }, (_, i) => ({ event, message: `${tag} ${i}` }))

async function streamState(env: Record<string, string>): Promise<BusState> {
  const nc = await connect({ servers: env.NATS_URL! })
  try {
    return await readJetStreamState(await jetstreamManager(nc), env.NATS_STREAM!)
  } finally {
    await nc.close()
  }
}

const succeeded = async (databaseUrl: string) =>
  (await query<{ n: number; events: number }>(databaseUrl, "SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS events FROM deliveries WHERE status = 'succeeded'"))[0]!

/** Every event of `ids` reached `rx`, copies only under one webhook-id; and exactly once each when `once`. */
async function deliveredOnce(rx: Receiver, ids: string[], opts: { path?: string; once?: boolean } = {}) {
  const { duplicates } = await expectFannedOut(rx, ids, { path: opts.path, ms: 45_000 })
  if (opts.once) expect(duplicates).toBe(0)
  return duplicates
}

describeJs('a committed batch is one JetStream message', () => {
  const c = cleanups()

  test('a batch of 50 events is one message of the stream, and every event is delivered once', async () => {
    const { db, rx, env } = await caseSetup(c, { nats: 'shared', env: ONE_COMMIT })
    const api = await spawn(c, env, 'serve')
    const [ws] = await workspaces(api.url, 1, [{ name: 'hook', url: `${rx.url}/hook` }])
    const ids = await postBatch(api, ws!.apiKey, messages(50, 'one message'))
    const held = await eventually(async () => {
      const s = await streamState(env)
      return s.stream.events === 50 ? s : null
    }, 10_000, 'the stream to hold the 50 events')
    expect(held.stream.messages).toBe(1)
    expect(held.stream.lastSeq).toBe(1)
    expect((await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM outbox'))[0]!.n).toBe(1)
    await spawn(c, env, 'worker')
    await deliveredOnce(rx, ids, { once: true })
    await eventually(async () => (await succeeded(db.url)).n === 50, 10_000, '50 deliveries recorded')
    await eventually(async () => (await streamState(env)).stream.messages === 0, 10_000, 'the message to be acknowledged')
    expect((await streamState(env)).consumer!.delivered).toBe(1) // handed out once, as one message
  }, 60_000)

  test('a worker SIGKILLed while the receiver holds part of a batch\'s webhooks: all delivered, a copy only under the same webhook-id', async () => {
    const { db, rx, env } = await caseSetup(c, { nats: 'shared', env: { ...ONE_COMMIT, JETSTREAM_ACK_WAIT_MS: '2000', DELIVERY_LEASE_MS: '2000' } })
    rx.fallback = { status: 200, delayMs: 400 }
    const { api, worker } = await caseProcesses(c, env)
    const [ws] = await workspaces(api.url, 1, [{ name: 'slow', url: `${rx.url}/slow` }])
    const ids = await postBatch(api, ws!.apiKey, messages(100, 'killed'))
    await rx.waitFor(5)
    await worker.kill('SIGKILL')
    const atKill = rx.received.length
    expect(atKill).toBeLessThan(100) // killed halfway
    expect((await streamState(env)).stream.lastSeq).toBe(1) // the batch was one message
    rx.fallback = { status: 200 }
    await spawn(c, env, 'worker')
    const duplicates = await deliveredOnce(rx, ids)
    await eventually(async () => {
      const s = await succeeded(db.url)
      return s.n === 100 && s.events === 100
    }, 15_000, 'one succeeded delivery per event')
    figures('batch message, worker killed halfway', { events: 100, receivedAtKill: atKill, duplicates })
  }, 90_000)

  test('a batch redelivered after part of it was recorded: the recorded part is not sent again', async () => {
    // One message of 600 events: the fan-out cuts it into pool tasks of 500
    // deliveries (src/delivery/chunks.ts), recorded as each ends. The first
    // 500 go to a quick receiver and are recorded; the rest of the batch
    // waits on one that answers slowly, when the worker dies.
    const { db, rx: quick, env } = await caseSetup(c, { nats: 'shared', env: { ...ONE_COMMIT, JETSTREAM_ACK_WAIT_MS: '2000', DELIVERY_LEASE_MS: '2000', JETSTREAM_BATCH_MAX_EVENTS: '1000' } })
    const slow = caseReceiver(c)
    slow.fallback = { status: 200, delayMs: 8_000 }
    const { api, worker } = await caseProcesses(c, env)
    const [ws] = await workspaces(api.url, 1, [])
    for (const [name, pattern, url] of [['quick', 'quick.*', `${quick.url}/quick`], ['slow', 'slow.*', `${slow.url}/slow`]]) {
      expect((await admin(api.url, 'POST', `/admin/workspaces/${ws!.name}/routers`, { name, pattern, destination: { type: 'webhook', url } })).status).toBe(201)
    }
    const ids = await postBatch(api, ws!.apiKey, [...messages(520, 'quick', 'quick.done'), ...messages(80, 'slow', 'slow.done')])
    const [quickIds, slowIds] = [ids.slice(0, 520), ids.slice(520)]
    await eventually(async () => (await succeeded(db.url)).n >= 500, 20_000, 'the first task of the batch to be recorded')
    await slow.waitFor(1)
    await worker.kill('SIGKILL')
    const recorded = (await query<{ event_id: string }>(db.url, "SELECT event_id::text FROM deliveries WHERE status = 'succeeded'")).map((r) => r.event_id)
    expect(recorded.length).toBeGreaterThanOrEqual(500)
    expect(recorded.length).toBeLessThan(600) // part of the batch, not all of it
    expect((await streamState(env)).stream.lastSeq).toBe(1)
    slow.fallback = { status: 200 }
    await spawn(c, env, 'worker')
    await deliveredOnce(quick, quickIds, { path: '/quick' })
    await deliveredOnce(slow, slowIds, { path: '/slow' })
    // What was recorded before the worker died reached the receiver once: the redelivered batch skipped it.
    const copies = new Map<string, number>()
    for (const r of quick.received) copies.set(eventIdOf(r), (copies.get(eventIdOf(r)) ?? 0) + 1)
    expect(recorded.filter((id) => copies.get(id) !== 1)).toEqual([])
    await eventually(async () => (await succeeded(db.url)).events === 600, 20_000, 'every event recorded')
    figures('batch message redelivered after part was recorded', { events: 600, recordedAtKill: recorded.length, sentAgain: quick.received.length + slow.received.length - 600 })
  }, 120_000)

  test('messages of an older Herald (one event each, as a stream written before an upgrade holds them) are consumed: each event delivered once, the ledger cleared', async () => {
    const { db, rx, env } = await caseSetup(c, { nats: 'shared', env: ONE_COMMIT })
    const api = await spawn(c, env, 'serve')
    const [ws] = await workspaces(api.url, 1, [{ name: 'hook', url: `${rx.url}/hook` }])
    const ids = await postBatch(api, ws!.apiKey, messages(5, 'older', 'old.format'))
    await eventually(async () => (await streamState(env)).stream.events === 5, 10_000, 'the batch in the stream')
    // The batch message, written again as the older Herald wrote it: one message per event.
    const nc = await connect({ servers: env.NATS_URL! })
    const jsm = await jetstreamManager(nc)
    const stored = await jsm.streams.getMessage(env.NATS_STREAM!, { seq: 1 })
    const [first, ...views] = stored!.string().split('\n')
    const meta = JSON.parse(first!) as { o: number; n: number; e: [number, number, string, string, string | null][] }
    await jsm.streams.purge(env.NATS_STREAM!)
    const js = jetstream(nc)
    for (const [i, [index, wsId, channel, eventId, key]] of meta.e.entries()) {
      const h = headers()
      h.set('Herald-Outbox', `${meta.o}.${index}.${meta.n}`)
      h.set('Herald-Event-Key', key === null ? 'n' : `k${encodeURIComponent(key)}`)
      await js.publish(`herald.${env.NATS_STREAM}.${wsId}.${channel}`, views[i]!, { msgID: eventId, headers: h })
    }
    await nc.close()
    expect((await streamState(env)).stream).toMatchObject({ messages: 5, events: 5 })
    await spawn(c, env, 'worker')
    await deliveredOnce(rx, ids, { once: true })
    await eventually(async () => (await query<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM outbox'))[0]!.n === 0, 10_000, 'the ledger to be cleared')
  }, 60_000)
})

describeJs('a batch larger than a message may be is split', () => {
  const c = cleanups()

  /** Posts 300 events of about 600 bytes of view each (180 KB) in one batch and expects each delivered once; answers the messages the stream stored. */
  async function splitAndDeliver(c: Cleanups, env: Record<string, string>, rx: Receiver) {
    const { api } = await caseProcesses(c, env)
    const [ws] = await workspaces(api.url, 1, [{ name: 'hook', url: `${rx.url}/hook` }])
    const ids = await postBatch(api, ws!.apiKey, messages(300, 'x'.repeat(300)))
    await deliveredOnce(rx, ids, { once: true })
    return (await streamState(env)).stream.lastSeq
  }

  test('a stream whose max_msg_size (16 KiB) is smaller than the batch: the batch is split, and everything is delivered once', async () => {
    const nats = await privateNats()
    c.add(() => nats.close())
    const { rx, env } = await caseSetup(c, { nats: { url: nats.url }, stream: 'HERALD_SPLIT' })
    const nc = await connect({ servers: nats.url })
    await (await jetstreamManager(nc)).streams.add({ name: 'HERALD_SPLIT', subjects: ['herald.HERALD_SPLIT.>'], retention: RetentionPolicy.Workqueue, storage: StorageType.File, max_msg_size: 16 * 1024 })
    await nc.close()
    const stored = await splitAndDeliver(c, env, rx)
    // 180 KB in messages of at most 16 KiB: at least 12 of them, where 100 events a message made 3.
    expect(stored).toBeGreaterThanOrEqual(12)
    figures('split by the stream\'s max_msg_size', { events: 300, messages: stored })
  }, 90_000)

  test('a server whose max_payload (8 KiB) is smaller than the batch: the batch is split, and everything is delivered once', async () => {
    const nats = await privateNats({ config: 'max_payload: 8192\n' })
    c.add(() => nats.close())
    const { rx, env } = await caseSetup(c, { nats: { url: nats.url }, stream: 'HERALD_SPLIT' })
    const stored = await splitAndDeliver(c, env, rx)
    expect(stored).toBeGreaterThanOrEqual(23)
    figures('split by the server\'s max_payload', { events: 300, messages: stored })
  }, 90_000)
})

describeJs('the live feed on JetStream sees every event of a batch message', () => {
  const c = cleanups()

  test('a member watching one workspace on another API process sees each of its events of a split batch, and none of another workspace', async () => {
    const { env } = await caseSetup(c, { nats: 'shared', env: { ...ONE_COMMIT, JETSTREAM_BATCH_MAX_EVENTS: '40' } })
    const { apis: [one, two] } = await caseProcesses(c, env, { apis: 2, workers: 0 })
    const [watched, other] = await workspaces(one!.url, 2, [])
    const added = await admin(one!.url, 'POST', `/admin/workspaces/${watched!.name}/members`, { email: `${watched!.name}@example.com` })
    expect(added.status).toBe(201)
    const { userToken } = (await added.json()) as { userToken: string }
    const s = await openFeedStream(two!.url, userToken, `workspace=${watched!.name}`)
    c.add(() => s.cancel())
    const ids = await postBatch(one!, watched!.apiKey, messages(100, 'live'))
    const others = await postBatch(one!, other!.apiKey, messages(20, 'not watched'))
    await waitFor(() => ids.every((id) => s.text.includes(id)), 10_000, 'every event of the batch on the stream')
    expect(others.filter((id) => s.text.includes(id))).toEqual([])
    expect((await streamState(env)).stream.messages).toBe(4) // 100 events in 3 messages of at most 40, and the other workspace's 20 in one
  }, 60_000)
})
