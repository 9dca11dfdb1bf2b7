// A JetStream cluster of a test's own: three nats-servers on loopback, each
// with a config file, a JetStream store and a monitoring port of its own,
// routed to one another. A test may kill a node (SIGKILL) and start it again
// on the same store. The shared server on 127.0.0.1:4222 is never touched.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { eventually } from '../receiver'
import { freePort, listening } from './private_nats'

const NATS_SERVER = '/usr/sbin/nats-server'

export interface ClusterNode {
  name: string
  url: string
  port: number
  /** The monitoring endpoint (/jsz, /connz). */
  http: string
  running: boolean
  start(): Promise<void>
  kill(signal?: NodeJS.Signals): Promise<void>
}

export interface NatsCluster {
  nodes: ClusterNode[]
  /** Every node's URL, separated by commas: what NATS_URL takes. */
  url: string
  node(name: string): ClusterNode
  /** Resolves once JetStream has a meta leader and an R3 stream can be made (and is deleted again). */
  ready(ms?: number): Promise<void>
  close(): Promise<void>
}

interface Jsz {
  meta_cluster?: { leader?: string; cluster_size?: number }
}

export async function natsCluster(size = 3): Promise<NatsCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-nats-cluster-'))
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort(), http: await freePort() })))
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`)
  const nodes = ports.map((p, i): ClusterNode => {
    const name = `n${i + 1}`
    const store = join(dir, name)
    const conf = join(dir, `${name}.conf`)
    writeFileSync(conf, [
      `server_name: ${name}`,
      `listen: 127.0.0.1:${p.client}`,
      `http: 127.0.0.1:${p.http}`,
      `jetstream: enabled`, // its store is -sd
      `cluster { name: herald-test, listen: 127.0.0.1:${p.route}, routes: [${routes.filter((_, j) => j !== i).join(', ')}] }`,
    ].join('\n'))
    let proc: ReturnType<typeof Bun.spawn> | null = null
    const node: ClusterNode = {
      name,
      url: `nats://127.0.0.1:${p.client}`,
      port: p.client,
      http: `http://127.0.0.1:${p.http}`,
      running: false,
      async start() {
        proc = Bun.spawn([NATS_SERVER, '-c', conf, '-sd', store], { stdout: 'ignore', stderr: 'ignore' })
        node.running = true
        await listening(p.client, 10_000, `${name} to listen`)
      },
      async kill(signal = 'SIGKILL') {
        node.running = false
        proc?.kill(signal)
        await proc?.exited
      },
    }
    return node
  })
  const cluster: NatsCluster = {
    nodes,
    url: nodes.map((n) => n.url).join(','),
    node: (name) => nodes.find((n) => n.name === name)!,
    async ready(ms = 30_000) {
      const leaderOf = (n: ClusterNode) => fetch(`${n.http}/jsz`).then((r) => r.json() as Promise<Jsz>).then((j) => j.meta_cluster?.leader, () => undefined)
      await eventually(async () => {
        const leaders = await Promise.all(nodes.filter((n) => n.running).map(leaderOf))
        return leaders.every((l) => l && l === leaders[0])
      }, ms, 'the JetStream cluster to elect a meta leader')
      // A leader is not yet a cluster that places streams: make one of three replicas.
      await eventually(() => withJsm(cluster.url, async (jsm) => {
        const name = `READY_${Date.now().toString(36)}`
        const made = await jsm.streams.add({ name, subjects: [`ready.${name}`], num_replicas: Math.min(3, nodes.filter((n) => n.running).length) }).catch(() => null)
        if (made) await jsm.streams.delete(name)
        return !!made
      }).catch(() => false), ms, 'the JetStream cluster to place a stream of three replicas')
    },
    async close() {
      for (const n of nodes) await n.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    },
  }
  await Promise.all(nodes.map((n) => n.start())).catch(async (err) => {
    await cluster.close()
    throw err
  })
  return cluster
}

export type Manager = Awaited<ReturnType<typeof jetstreamManager>>

/** Runs `f` with a JetStream manager on a connection of its own to `url` (one server or several, comma-separated). */
export async function withJsm<T>(url: string, f: (jsm: Manager) => Promise<T>): Promise<T> {
  const nc = await connect({ servers: url.split(','), timeout: 2_000 })
  try {
    return await f(await jetstreamManager(nc, { timeout: 5_000 }))
  } finally {
    await nc.close()
  }
}

/** How many client connections named `name` each running node holds (its /connz). */
export async function connectionsByNode(cluster: NatsCluster, name: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const n of cluster.nodes.filter((x) => x.running)) {
    const connz = (await (await fetch(`${n.http}/connz?limit=1024`)).json()) as { connections?: { name?: string }[] }
    out[n.name] = (connz.connections ?? []).filter((c) => c.name === name).length
  }
  return out
}

/**
 * Asks the leader of a stream (or of one of its consumers) to step down until
 * `node` leads it, at most `tries` times: each step-down elects one of the
 * other replicas. Returns the leader it ends with.
 */
export async function moveLeader(url: string, stream: string, node: string, consumer?: string, tries = 12): Promise<string | undefined> {
  const nc = await connect({ servers: url.split(','), timeout: 2_000 })
  try {
    const jsm = await jetstreamManager(nc, { timeout: 5_000 })
    const leader = async () => (consumer ? (await jsm.consumers.info(stream, consumer)).cluster?.leader : (await jsm.streams.info(stream)).cluster?.leader)
    const subject = consumer ? `$JS.API.CONSUMER.LEADER.STEPDOWN.${stream}.${consumer}` : `$JS.API.STREAM.LEADER.STEPDOWN.${stream}`
    let now = await leader().catch(() => undefined)
    for (let i = 0; i < tries && now !== node; i++) {
      await nc.request(subject, '', { timeout: 5_000 }).catch(() => {})
      await Bun.sleep(500) // the answer may come before the election
      now = await eventually(() => leader().catch(() => undefined), 10_000, `a new leader of ${consumer ?? stream}`)
    }
    return now
  } finally {
    await nc.close()
  }
}
