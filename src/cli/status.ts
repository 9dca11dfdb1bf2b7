// `herald status`: what an operator watching the pipeline wants at a glance:
// the bus (JetStream's stream and the workers' consumer), the outbox backlog,
// deliveries by state, and the workspaces nearest their monthly quota. Text,
// or JSON with --json. With DATABASE_URL (and without --url) it reads
// PostgreSQL and NATS itself, which works with no server running; otherwise
// it asks a running server (GET /admin/status), which is the only way to
// read the embedded default's database.
import type { Command } from 'commander'
import type { Config } from '../core/config'
import type { BusState } from '../delivery/bus'
import { adminClient, localSettings } from './client'
import { connectionOptions, withExamples, type CommonOptions } from './command'
import { CliError, json, record, table } from './output'
import type { Status } from '../delivery/status'

export type { DeliveryCounts, QuotaUse, Status } from '../delivery/status'

const TIMEOUT_MS = 5_000 // NATS connect and requests; PostgreSQL's connect_timeout is 5 s too (db.ts)

/** A URL without its credentials, for messages. */
const shown = (url: string) => {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`
  } catch {
    return '(invalid URL)'
  }
}

const unreachable = (what: string, url: string, err: unknown) =>
  new CliError('unreachable', `cannot reach ${what} at ${shown(url)}: ${err instanceof Error ? err.message : String(err)}`)

// PostgreSQL and NATS are imported when read: the other commands start without them.
async function readDatabase(config: Config): Promise<Pick<Status, 'outbox' | 'deliveries' | 'nearestQuota'>> {
  const [{ openDatabase }, { createLogger }, { readDatabaseStatus }] = await Promise.all([import('../core/db'), import('../core/log'), import('../delivery/status')])
  const db = await openDatabase({ ...config, DATABASE_POOL_MAX: 3 }, createLogger('silent'))
  try {
    return await readDatabaseStatus(db.sql)
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') {
      throw new CliError('unreachable', `the database at ${shown(config.DATABASE_URL!)} has no Herald tables: run herald migrate`)
    }
    throw unreachable('PostgreSQL', config.DATABASE_URL!, err)
  } finally {
    await db.close().catch(() => {})
  }
}

async function readJetStream(url: string, stream: string): Promise<BusState | null> {
  const [{ connect }, { JetStreamApiCodes, JetStreamApiError, jetstreamManager }, { readJetStreamState }] = await Promise.all([
    import('@nats-io/transport-node'),
    import('@nats-io/jetstream'),
    import('../delivery/bus_jetstream'),
  ])
  const nc = await connect({ servers: url, name: 'herald-status', timeout: TIMEOUT_MS, maxReconnectAttempts: 0 }).catch((err) => {
    throw unreachable('NATS', url, err)
  })
  try {
    return await readJetStreamState(await jetstreamManager(nc, { timeout: TIMEOUT_MS }), stream)
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return null
    throw unreachable('JetStream', url, err)
  } finally {
    await nc.close().catch(() => {})
  }
}

/** Reads everything from DATABASE_URL and NATS_URL; throws a CliError naming PostgreSQL or NATS when either cannot be read. */
export async function readStatus(config: Config): Promise<Status> {
  const [db, jetstream] = await Promise.all([
    readDatabase(config),
    config.NATS_URL ? readJetStream(config.NATS_URL, config.NATS_STREAM) : null,
  ])
  return { bus: config.NATS_URL ? 'jetstream' : 'in-process', jetstream, ...db }
}

// --- text output -----------------------------------------------------------

const n = (x: number) => x.toLocaleString('en-US')

/** 0 → "-", 75 → "1 min 15 s". */
export function age(seconds: number): string {
  if (seconds <= 0) return '-'
  const s = Math.round(seconds)
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

const bytes = (b: number) => (b < 1024 ? `${b} B` : b < 1024 ** 2 ? `${(b / 1024).toFixed(1)} KiB` : `${(b / 1024 ** 2).toFixed(1)} MiB`)

/** Where the JetStream numbers come from, for their heading: NATS itself, or a server's view of it. */
export interface BusSource {
  label: string
  /** The stream's name, for a stream that does not exist yet. */
  stream: string
}

function busText(s: Status, source: BusSource): string {
  if (s.bus === 'in-process') return 'Bus: in-process (NATS_URL is not set): each herald start delivers the events it commits.'
  const js = s.jetstream
  if (!js) return `JetStream (${source.label}): stream ${source.stream} does not exist yet (no Herald has started with it).`
  const st = js.stream
  const c = js.consumer
  const pairs: [string, string][] = [
    // An empty stream reports first = last + 1: show the last sequence alone.
    [`stream ${st.name}`, `${n(st.messages)} messages (batches) carrying ${n(st.events)} events, ${bytes(st.bytes)}, ${st.messages ? `sequences ${st.firstSeq}–${st.lastSeq}` : `last sequence ${st.lastSeq}`}, ${st.consumers} consumer(s)`],
    c
      ? [`consumer ${c.name}`, `messages: ${n(c.pending)} pending, ${n(c.ackPending)} ack pending, ${n(c.redelivered)} redelivered; ${n(c.waiting)} waiting pull requests`]
      : ['consumer', 'none yet (no herald worker has started)'],
  ]
  return `JetStream (${source.label})\n${indent(record(pairs))}`
}

const indent = (text: string) => text.replace(/^/gm, '  ')

export function statusText(s: Status, source: BusSource): string {
  const d = s.deliveries
  const quota = s.nearestQuota.length
    ? table(['WORKSPACE', 'USED', 'QUOTA', 'PERCENT'], s.nearestQuota.map((q) => [q.workspace, q.used, q.quota, `${q.percent.toFixed(1)}%`]))
    : 'No workspaces yet.'
  return [
    busText(s, source),
    `Outbox\n${indent(record([['rows', n(s.outbox.rows)], ['events', n(s.outbox.events)], ['oldest', age(s.outbox.oldestAgeSeconds)]]))}`,
    `Deliveries (pending: all; succeeded and failed: of the last 24 h's events)\n${indent(record([
      ['pending, due now', n(d.pendingDue)], ['pending, later', n(d.pendingLater)], ['succeeded', n(d.succeeded)], ['failed', n(d.failed)],
    ]))}`,
    `Nearest their monthly quota\n${indent(quota)}`,
  ].join('\n\n')
}

/** The status from a running server's operator API. */
async function askServer(opts: CommonOptions): Promise<{ status: Status; source: BusSource }> {
  const client = adminClient({ url: opts.url, token: opts.token })
  try {
    const status = await client.request<Status>('GET', '/admin/status')
    return { status, source: { label: `as ${client.baseUrl} sees it`, stream: status.jetstream?.stream.name ?? '-' } }
  } catch (err) {
    if (err instanceof CliError && err.code === 'unreachable') {
      throw new CliError('unreachable', `${err.message} Or set DATABASE_URL (and NATS_URL) for herald status to read them itself.`)
    }
    throw err
  }
}

async function readDirectly(): Promise<{ status: Status; source: BusSource }> {
  const { loadConfig } = await import('../core/config')
  const config = loadConfig()
  const status = await readStatus(config)
  return { status, source: { label: config.NATS_URL ? shown(config.NATS_URL) : '', stream: config.NATS_STREAM } }
}

export async function runStatus(opts: CommonOptions, env: Record<string, string | undefined> = process.env): Promise<string> {
  const direct = opts.url === undefined && !!localSettings(env).DATABASE_URL
  const { status, source } = direct ? await readDirectly() : await askServer(opts)
  return opts.json ? json(status) : statusText(status, source)
}

export function addStatusCommand(program: Command): Command {
  const cmd = program
    .command('status')
    .summary('Print the bus, the outbox backlog, deliveries by state and the workspaces nearest their quota.')
    .description(
      'Print what the pipeline is doing: the JetStream stream and consumer (or the in-process bus), the outbox backlog, deliveries by state and the workspaces nearest their monthly quota. With DATABASE_URL set (and no --url) it reads PostgreSQL and NATS_URL itself, server or no server; otherwise it asks the running server (GET /admin/status, with the operator token), which is how it reads the embedded default.',
    )
  connectionOptions(cmd)
  withExamples(cmd, ['herald status', 'herald status --json | jq .deliveries', 'DATABASE_URL=postgres://… NATS_URL=nats://… herald status', 'herald status --url https://herald.example.com'])
  return cmd.action(async (opts: CommonOptions) => {
    console.log(await runStatus(opts))
  })
}
