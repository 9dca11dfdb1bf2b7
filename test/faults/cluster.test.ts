// A 3-node NATS cluster: Herald's `serve` and `worker` are given every node
// (NATS_URL, comma-separated) and keep three replicas of their stream
// (NATS_STREAM_REPLICAS=3). The node that leads the stream and its consumer,
// and holds Herald's connections, is SIGKILLed under load: the clients fail
// over, the replicas elect new leaders, every accepted event is delivered and
// delivery goes on within seconds. A stream that exists as R1 is changed to
// R3 at start; on a single server, NATS_STREAM_REPLICAS=3 is refused by name.
import { expect, test } from 'bun:test'
import { describePg } from '../harness'
import { eventually, type Receiver } from '../receiver'
import { caseDatabase, caseNats, caseProcesses, caseSetup, cleanups, figures, spawn, workspaces, type Cleanups } from './fixture'
import { eventIdOf, expectDurableAndDelivered, firstSeen, expectFannedOut, percentile, startLoad, statuses } from './load'
import { connectionsByNode, moveLeader, natsCluster, withJsm, type NatsCluster } from './nats_cluster'
import type { HeraldProcess } from '../processes'
import { readJetStreamState } from '../../src/delivery/bus_jetstream'

const STREAM = 'HERALD_CLUSTER'
const CONSUMER = 'herald-workers'
// From this long after the kill, the cluster has new leaders and Herald publishes and pulls again.
const SETTLED_MS = 12_000

async function setup(c: Cleanups) {
  const cluster = await natsCluster()
  c.add(() => cluster.close())
  await cluster.ready()
  const { db, rx, env } = await caseSetup(c, { nats: { url: cluster.url }, stream: STREAM, env: { NATS_STREAM_REPLICAS: '3', FANOUT_REPLAY_AFTER_MS: '2000', JETSTREAM_ACK_WAIT_MS: '2000' } })
  return { cluster, db, rx, env }
}

const streamInfo = (cluster: NatsCluster) => withJsm(cluster.url, (jsm) => jsm.streams.info(STREAM))
/** The events the stream's messages carry (a message is a committed batch). */
const streamEvents = (cluster: NatsCluster) => withJsm(cluster.url, async (jsm) => (await readJetStreamState(jsm, STREAM)).stream.events)


/** The longest time the receiver got nothing, from `from` to its last request. */
function longestGap(rx: Receiver, from: number): number {
  const times = rx.received.map((r) => r.at).filter((t) => t >= from).sort((a, b) => a - b)
  let gap = 0
  for (let i = 0, last = from; i < times.length; last = times[i++]!) gap = Math.max(gap, times[i]! - last)
  return gap
}

async function post(api: HeraldProcess, key: string, n: number, tag: string): Promise<string[]> {
  const events = Array.from({ length: n }, (_, i) => ({ message: `${tag} ${i}` }))
  const res = await fetch(`${api.url}/events`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ events }) })
  expect(res.status).toBe(200)
  const { results } = (await res.json()) as { results: { eventId?: string }[] }
  return results.map((r) => r.eventId!)
}

describePg('fault: a 3-node NATS cluster', () => {
  const c = cleanups()

  test('the node that leads the stream and holds Herald\'s connections SIGKILLed under load: every event is delivered, delivery goes on within seconds', async () => {
    try {
      const { cluster, db, rx, env } = await setup(c)
      const { api, worker } = await caseProcesses(c, env)
      const info = await streamInfo(cluster)
      expect(info.config.num_replicas).toBe(3)
      expect(info.cluster?.replicas?.length).toBe(2)

      // The victim: the node holding most of Herald's connections, made the
      // leader of the stream and of the workers' consumer, so that one kill
      // costs the clients their server and JetStream both leaders.
      const held = await connectionsByNode(cluster, 'herald')
      const victim = Object.entries(held).sort((a, b) => b[1] - a[1])[0]![0]
      const streamLeader = await moveLeader(cluster.url, STREAM, victim)
      const consumerLeader = await moveLeader(cluster.url, STREAM, victim, CONSUMER)

      const ws = await workspaces(api.url, 4, [{ name: 'hook', url: `${rx.url}/cluster` }])
      const load = startLoad({ targets: () => [api.url], keys: ws.map((w) => w.apiKey), perSecond: 200 })
      c.add(() => load.stop())
      await rx.waitFor(200, 20_000)
      await cluster.node(victim).kill('SIGKILL')
      const killedAt = Date.now()
      await Bun.sleep(15_000)
      const report = await load.stop()

      expect(statuses(report.samples)).toEqual({ 200: report.samples.length }) // the API takes events whatever NATS does
      const checked = await expectDurableAndDelivered(db.url, report, rx, { path: '/cluster', ms: 45_000 })
      const after = await streamInfo(cluster)
      expect(after.cluster?.leader).toBeDefined()
      expect(after.cluster?.leader).not.toBe(victim)
      expect(worker.proc.exitCode).toBeNull()
      expect(api.proc.exitCode).toBeNull()

      // Delivery went on: how long each event posted after the kill took to arrive.
      const seen = firstSeen(rx)
      const delays = (from: number) => [...report.acked].filter(([, at]) => at >= from).map(([id, at]) => seen.get(id)! - at)
      const afterKill = delays(killedAt)
      const settled = delays(killedAt + SETTLED_MS)
      // The API reports the outage as its relay retries, with pauses, not once per batch committed meanwhile.
      const outageWarnings = api.output.filter((l) => l.includes('outbox relay: events stay in the outbox')).length
      figures('3-node cluster, node killed', {
        accepted: checked.acked, delivered: seen.size, duplicated: checked.duplicates, lost: 0,
        killed: victim, herald_connections: held, stream_leader: streamLeader, consumer_leader: consumerLeader, new_stream_leader: after.cluster?.leader,
        postedAfterKill: afterKill.length, afterKillDelayMs: { p50: percentile(afterKill, 50), p99: percentile(afterKill, 99), max: Math.max(...afterKill) },
        settledMaxDelayMs: Math.max(...settled), longestReceiverGapMs: longestGap(rx, killedAt), outageWarnings,
      })
      expect(afterKill.length).toBeGreaterThan(2000)
      // An event posted at the kill waits for the elections (4 to 9 s in
      // nats-server 2.9), the relay's pause and a pull request lost with the
      // consumer's leader; once the cluster is whole again, delivery is prompt.
      expect(Math.max(...afterKill)).toBeLessThan(25_000)
      expect(settled.length).toBeGreaterThan(300)
      expect(Math.max(...settled)).toBeLessThan(3_000)
      expect(outageWarnings).toBeLessThan(20)
    } finally {
      await c.run()
    }
  }, 90_000)

  test('a stream that exists with one replica is changed to three at start, and keeps its events when its leader dies', async () => {
    try {
      const { cluster, rx, env } = await setup(c)
      await withJsm(cluster.url, (jsm) => jsm.streams.add({ name: STREAM, subjects: [`herald.${STREAM}.>`], num_replicas: 1 }))
      expect((await streamInfo(cluster)).config.num_replicas).toBe(1)
      const api = await spawn(c, env, 'serve')
      const info = await streamInfo(cluster)
      expect(info.config.num_replicas).toBe(3)
      expect(info.config.description).toMatch(/^Herald: the events of database /)
      expect(api.output.some((l) => l.includes('the JetStream stream now keeps NATS_STREAM_REPLICAS copies') && l.includes('"from":1') && l.includes('"to":3'))).toBe(true)
      await eventually(async () => {
        const replicas = (await streamInfo(cluster)).cluster?.replicas ?? []
        return replicas.length === 2 && replicas.every((r) => r.current)
      }, 20_000, 'both new replicas to be current')

      // No worker yet: the events wait in the stream, on three nodes.
      const [ws] = await workspaces(api.url, 1, [{ name: 'hook', url: `${rx.url}/r3` }])
      const ids = await post(api, ws!.apiKey, 200, 'r3')
      await eventually(async () => (await streamEvents(cluster)) === 200, 15_000, 'the stream to hold the 200 events')
      const held = await streamInfo(cluster)
      const leader = held.cluster!.leader!
      await cluster.node(leader).kill('SIGKILL')
      const kept = await eventually(async () => {
        const i = await streamInfo(cluster).catch(() => null)
        return i?.cluster?.leader && i.cluster.leader !== leader ? i : null
      }, 20_000, 'a new stream leader')
      expect(kept.state.messages).toBe(held.state.messages) // the replicas kept what the dead leader had
      expect(await streamEvents(cluster)).toBe(200)

      await spawn(c, env, 'worker')
      const { duplicates } = await expectFannedOut(rx, ids, { path: '/r3', ms: 30_000 })
      figures('R1 stream changed to R3, leader killed', { accepted: ids.length, delivered: new Set(rx.received.map(eventIdOf)).size, duplicated: duplicates, lost: 0, killed: leader, keptMessages: kept.state.messages })
    } finally {
      await c.run()
    }
  }, 90_000)
})

describePg('NATS_STREAM_REPLICAS=3 on a single nats-server', () => {
  const c = cleanups()

  test('serve and worker refuse to start, naming NATS_STREAM_REPLICAS and what a single server keeps', async () => {
    try {
      const nats = await caseNats(c)
      const db = await caseDatabase(c)
      const env = { DATABASE_URL: db.url, NATS_URL: nats.url, NATS_STREAM: STREAM, NATS_STREAM_REPLICAS: '3' }
      for (const cmd of ['serve', 'worker'] as const) {
        const started = Date.now()
        const message = await spawn(c, env, cmd).then(() => expect.unreachable(`${cmd} started`), (err: Error) => err.message)
        expect(message).toContain('Herald exited with 1')
        expect(message).toContain(`NATS cannot keep 3 replicas of the stream ${STREAM} (NATS_STREAM_REPLICAS=3)`)
        expect(message).toContain('a single server keeps 1')
        // Refused, not mistaken for a NATS that cannot be reached.
        expect(message).not.toContain('cannot reach NATS')
        figures(`NATS_STREAM_REPLICAS=3 on one server: ${cmd}`, { refusedAfterMs: Date.now() - started })
      }
      // Nothing was made on the server.
      expect(await withJsm(nats.url, (jsm) => jsm.streams.info(STREAM).then(() => 'made', () => 'absent'))).toBe('absent')
    } finally {
      await c.run()
    }
  }, 90_000)
})
