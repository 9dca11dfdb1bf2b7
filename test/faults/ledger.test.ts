// A 200 is delivered whatever JetStream does: PostgreSQL keeps every accepted
// event owed until a worker has recorded its fan-out, and publishes again
// what JetStream lost. Each case runs real `serve` and `worker` processes on
// PostgreSQL and a nats-server of its own, which it limits, ages, wipes or
// deletes from under them, and asserts that every accepted event reached the
// webhook, counting the copies.
import { expect, test } from 'bun:test'
import { connect } from '@nats-io/transport-node'
import { DiscardPolicy, RetentionPolicy, StorageType, jetstreamManager } from '@nats-io/jetstream'
import { describePg } from '../harness'
import { eventually, type Receiver } from '../receiver'
import { caseProcesses, caseSetup, cleanups, figures, query, spawn, workspaces, type Cleanups } from './fixture'
import { expectFannedOut } from './load'
import type { PrivateNats } from './private_nats'
import type { HeraldProcess } from '../processes'
import { readJetStreamState } from '../../src/delivery/bus_jetstream'

const STREAM = 'HERALD_LEDGER'
const SUBJECTS = [`herald.${STREAM}.>`]
const ns = (ms: number) => ms * 1_000_000

/** Posts `n` events through POST /events, 250 at a time; the ids of those accepted (all must be). */
async function post(api: HeraldProcess, key: string, n: number, tag: string): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i += 250) {
    const events = Array.from({ length: Math.min(250, n - i) }, (_, j) => ({ message: `${tag} ${i + j}` }))
    const res = await fetch(`${api.url}/events`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ events }) })
    expect(res.status).toBe(200)
    const { results } = (await res.json()) as { results: { eventId?: string }[] }
    for (const r of results) {
      expect(r.eventId).toBeDefined()
      ids.push(r.eventId!)
    }
  }
  return ids
}

async function withJsm<T>(url: string, f: (jsm: Awaited<ReturnType<typeof jetstreamManager>>) => Promise<T>): Promise<T> {
  const nc = await connect({ servers: url })
  try {
    return await f(await jetstreamManager(nc))
  } finally {
    await nc.close()
  }
}

const streamMessages = (url: string) => withJsm(url, async (jsm) => (await jsm.streams.info(STREAM)).state.messages)
/** The events the stream's messages carry (a message is a committed batch). */
const streamEvents = (url: string) => withJsm(url, async (jsm) => (await readJetStreamState(jsm, STREAM)).stream.events)

/** The worker's /healthz status: its metrics port is in its start line. */
async function workerHealth(worker: HeraldProcess): Promise<number> {
  const line = worker.output.find((l) => l.includes('"Herald worker is running"'))!
  const port = JSON.parse(line).metricsPort as number
  return (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status ?? 0
}

interface Setup {
  c: Cleanups
  nats: PrivateNats
  db: { url: string }
  rx: Receiver
  env: Record<string, string>
}

async function setup(c: Cleanups, opts: { natsUp?: boolean } = {}): Promise<Setup> {
  const s = await caseSetup(c, { nats: 'private', natsUp: opts.natsUp, stream: STREAM, env: { FANOUT_REPLAY_AFTER_MS: '2000', JETSTREAM_ACK_WAIT_MS: '2000' } })
  return { c, nats: s.nats!, db: s.db, rx: s.rx, env: s.env }
}

async function delivered(s: Setup, name: string, ids: string[], ms = 45_000) {
  const { duplicates } = await expectFannedOut(s.rx, ids, { ms })
  // Each delivery is recorded (and its event cleared) once its send is answered.
  const owed = () => query<{ n: number }>(s.db.url, 'SELECT coalesce(sum(cardinality(event_ids) - coalesce(bit_count(done), 0)), 0)::int AS n FROM outbox').then((r) => r[0]!.n)
  await eventually(async () => (await owed()) === 0, 10_000, 'PostgreSQL to owe nothing')
  figures(name, { accepted: ids.length, delivered: new Set(s.rx.received.map((r) => JSON.parse(r.body).data.eventId)).size, duplicates, lost: 0 })
  return duplicates
}

describePg('fault: JetStream loses what it acknowledged; PostgreSQL publishes it again', () => {
  const c = cleanups()

  test('a stream limit with discard old (max_msgs 4) while no worker runs: all 1,000 events are delivered', async () => {
    const s = await setup(c)
    // A message is a committed batch (of at most JETSTREAM_BATCH_MAX_EVENTS, 100): 1,000 events are 10 messages or more, of which 4 are kept.
    await withJsm(s.nats.url, (jsm) => jsm.streams.add({ name: STREAM, subjects: SUBJECTS, retention: RetentionPolicy.Workqueue, storage: StorageType.File, max_msgs: 4, discard: DiscardPolicy.Old }))
    const api = await spawn(c, s.env, 'serve')
    const [ws] = await workspaces(api.url, 1, [{ name: 'hook', url: `${s.rx.url}/hook` }])
    const ids = await post(api, ws!.apiKey, 1000, 'limit')
    await eventually(async () => (await streamMessages(s.nats.url)) === 4, 10_000, 'the stream to keep only 4 messages')
    expect(await streamEvents(s.nats.url)).toBeLessThanOrEqual(400)
    await spawn(c, s.env, 'worker')
    await delivered(s, 'stream limit, discard old', ids)
  }, 90_000)

  test('messages older than max_age (3 s) while the worker is away: all are delivered', async () => {
    const s = await setup(c)
    await withJsm(s.nats.url, (jsm) => jsm.streams.add({ name: STREAM, subjects: SUBJECTS, retention: RetentionPolicy.Workqueue, storage: StorageType.File, max_age: ns(3_000) }))
    const api = await spawn(c, s.env, 'serve')
    const [ws] = await workspaces(api.url, 1, [{ name: 'hook', url: `${s.rx.url}/hook` }])
    const ids = await post(api, ws!.apiKey, 500, 'age')
    await eventually(async () => (await streamMessages(s.nats.url)) === 0, 15_000, 'the stream to age its messages out')
    await spawn(c, s.env, 'worker')
    await delivered(s, 'max_age', ids)
  }, 90_000)

  test('the JetStream store wiped with events waiting: all are delivered', async () => {
    const s = await setup(c)
    const api = await spawn(c, s.env, 'serve')
    const [ws] = await workspaces(api.url, 1, [{ name: 'hook', url: `${s.rx.url}/hook` }])
    const ids = await post(api, ws!.apiKey, 500, 'wiped')
    await eventually(async () => (await streamEvents(s.nats.url)) === 500, 10_000, 'the stream to hold the events')
    await s.nats.wipe()
    await spawn(c, s.env, 'worker')
    await delivered(s, 'store wiped', ids)
  }, 90_000)

  test('the stream deleted while everything runs: the processes make it again, every event is delivered, the worker is unhealthy meanwhile at most briefly', async () => {
    const s = await setup(c)
    const { api, worker } = await caseProcesses(c, s.env)
    const [ws] = await workspaces(api.url, 1, [{ name: 'hook', url: `${s.rx.url}/hook` }])
    const before = await post(api, ws!.apiKey, 200, 'before')
    await expectFannedOut(s.rx, before, { ms: 20_000 })
    expect(await workerHealth(worker)).toBe(200)
    await withJsm(s.nats.url, (jsm) => jsm.streams.delete(STREAM))
    const after: string[] = []
    const deletedAt = Date.now()
    for (let i = 0; i < 10; i++) {
      after.push(...(await post(api, ws!.apiKey, 100, `after ${i}`)))
      await Bun.sleep(200)
    }
    await delivered(s, 'stream deleted', [...before, ...after])
    await eventually(async () => (await workerHealth(worker)) === 200, 10_000, 'the worker to be healthy again')
    const info = await withJsm(s.nats.url, (jsm) => jsm.consumers.info(STREAM, 'herald-workers'))
    expect(info.name).toBe('herald-workers')
    figures('stream deleted: recovered within', { ms: Date.now() - deletedAt })
  }, 90_000)

  test('the consumer deleted under a running worker: its /healthz says so, and it makes the consumer again', async () => {
    const s = await setup(c)
    const { api, worker } = await caseProcesses(c, s.env)
    const [ws] = await workspaces(api.url, 1, [{ name: 'hook', url: `${s.rx.url}/hook` }])
    await expectFannedOut(s.rx, await post(api, ws!.apiKey, 10, 'first'), { ms: 20_000 })
    await withJsm(s.nats.url, (jsm) => jsm.consumers.delete(STREAM, 'herald-workers'))
    const ids = await post(api, ws!.apiKey, 100, 'second')
    await delivered(s, 'consumer deleted', ids, 30_000)
    expect(await workerHealth(worker)).toBe(200)
  }, 90_000)
})

describePg('fault: NATS unreachable when the processes start', () => {
  const c = cleanups()

  test('serve starts and takes events into PostgreSQL; the worker starts not ready; both catch up when NATS comes', async () => {
    const s = await setup(c, { natsUp: false })
    const { api, worker } = await caseProcesses(c, s.env)
    expect(await workerHealth(worker)).toBe(503)
    const [ws] = await workspaces(api.url, 1, [{ name: 'hook', url: `${s.rx.url}/hook` }])
    const ids = await post(api, ws!.apiKey, 300, 'no nats')
    await Bun.sleep(500)
    expect(s.rx.received.length).toBe(0)
    await s.nats.start()
    await eventually(async () => (await workerHealth(worker)) === 200, 20_000, 'the worker to be ready once NATS is up')
    await delivered(s, 'NATS down at start', ids)
  }, 90_000)
})
