// `herald status`: what an operator watching the pipeline wants at a glance,
// read straight from PostgreSQL (DATABASE_URL) and JetStream (NATS_URL), not
// through a running server: the stream and the workers' consumer, the outbox
// backlog, deliveries by state, and the workspaces nearest their monthly
// quota. Text, or JSON with --json.
import { connect } from '@nats-io/transport-node'
import { JetStreamApiCodes, JetStreamApiError, jetstreamManager } from '@nats-io/jetstream'
import type { Config } from '../core/config'
import type { BusState } from '../delivery/bus'
import { openDatabase, type Sql } from '../core/db'
import { createLogger } from '../core/log'
import { readJetStreamState } from '../delivery/bus_jetstream'
import { countOutbox, type OutboxBacklog } from '../delivery/relay'
import { CliError, json, record, table } from './output'

const TIMEOUT_MS = 5_000 // NATS connect and requests; PostgreSQL's connect_timeout is 5 s too (db.ts)
const RECENT_MS = 24 * 3600 * 1000

export interface DeliveryCounts {
  pendingDue: number // all pending deliveries whose next attempt is due now
  pendingLater: number // all pending deliveries waiting for a later attempt
  succeeded: number // of the last 24 h's events
  failed: number // of the last 24 h's events
}

export interface QuotaUse {
  workspace: string
  used: number
  quota: number
  percent: number
}

export interface Status {
  bus: 'jetstream' | 'in-process'
  /** null without NATS_URL, or while the stream does not exist yet. */
  jetstream: BusState | null
  outbox: OutboxBacklog
  deliveries: DeliveryCounts
  nearestQuota: QuotaUse[]
}

/**
 * The lowest delivery id of an event created at `t` or later: a delivery id
 * starts with its event's UUIDv7 timestamp (workers/send.ts), so "the last
 * 24 h" is a range of the primary key rather than a scan of the table.
 */
export function deliveryIdFloor(t: Date): string {
  const hex = Math.max(0, t.getTime()).toString(16).padStart(12, '0')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`
}

export async function countDeliveriesByState(sql: Sql, since: Date): Promise<DeliveryCounts> {
  const [[pending], [recent]] = await Promise.all([
    sql<{ due: number; later: number }[]>`
      SELECT count(*) FILTER (WHERE next_attempt_at <= now())::int AS due, count(*) FILTER (WHERE next_attempt_at > now())::int AS later
      FROM deliveries WHERE status = 'pending'`,
    sql<{ succeeded: number; failed: number }[]>`
      SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded, count(*) FILTER (WHERE status = 'failed')::int AS failed
      FROM deliveries WHERE id >= ${deliveryIdFloor(since)}::uuid`,
  ])
  return { pendingDue: pending!.due, pendingLater: pending!.later, succeeded: recent!.succeeded, failed: recent!.failed }
}

/** The `limit` workspaces that have used the largest share of this month's quota (a quota of 0 counts as used up). */
export async function findNearestQuota(sql: Sql, limit: number): Promise<QuotaUse[]> {
  const rows = await sql<{ workspace: string; used: number; quota: number }[]>`
    SELECT name AS workspace, used, monthly_quota AS quota FROM (
      SELECT name, monthly_quota,
        CASE WHEN quota_period < date_trunc('month', now() AT TIME ZONE 'UTC')::date THEN 0 ELSE quota_used END AS used
      FROM workspaces) w
    ORDER BY CASE WHEN monthly_quota = 0 THEN 1 ELSE used::float8 / monthly_quota END DESC, used DESC, name
    LIMIT ${limit}`
  return rows.map((r) => ({ ...r, percent: r.quota === 0 ? 100 : Math.round((r.used / r.quota) * 1000) / 10 }))
}

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

async function readDatabase(config: Config): Promise<Pick<Status, 'outbox' | 'deliveries' | 'nearestQuota'>> {
  const db = await openDatabase({ ...config, DATABASE_POOL_MAX: 3 }, createLogger('silent'))
  try {
    const [outbox, deliveries, nearestQuota] = await Promise.all([
      countOutbox(db.sql, Number.MAX_SAFE_INTEGER),
      countDeliveriesByState(db.sql, new Date(Date.now() - RECENT_MS)),
      findNearestQuota(db.sql, 10),
    ])
    return { outbox, deliveries, nearestQuota }
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
  const nc = await connect({ servers: url, name: 'herald-status', timeout: TIMEOUT_MS, maxReconnectAttempts: 0 }).catch((err) => {
    throw unreachable('NATS', url, err)
  })
  try {
    return await readJetStreamState(await jetstreamManager(nc, { timeout: TIMEOUT_MS }), stream, true)
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return null
    throw unreachable('JetStream', url, err)
  } finally {
    await nc.close().catch(() => {})
  }
}

/** Reads everything; throws a CliError naming PostgreSQL or NATS when either cannot be read. */
export async function readStatus(config: Config): Promise<Status> {
  if (!config.DATABASE_URL) {
    throw new CliError('config', 'herald status reads PostgreSQL: set DATABASE_URL (the embedded database belongs to the running herald start)')
  }
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

function busText(s: Status, config: Config): string {
  if (s.bus === 'in-process') return 'Bus: in-process (NATS_URL is not set): each herald start delivers the events it commits.'
  const js = s.jetstream
  if (!js) return `JetStream (${shown(config.NATS_URL!)}): stream ${config.NATS_STREAM} does not exist yet (no Herald has started with it).`
  const st = js.stream
  const c = js.consumer
  const pairs: [string, string][] = [
    // An empty stream reports first = last + 1: show the last sequence alone.
    [`stream ${st.name}`, `${n(st.messages)} messages, ${bytes(st.bytes)}, ${st.messages ? `sequences ${st.firstSeq}–${st.lastSeq}` : `last sequence ${st.lastSeq}`}, ${st.consumers} consumer(s)`],
    c
      ? [`consumer ${c.name}`, `${n(c.pending)} pending, ${n(c.ackPending)} ack pending, ${n(c.redelivered)} redelivered, ${n(c.waiting)} waiting pull requests`]
      : ['consumer', 'none yet (no herald worker has started)'],
  ]
  return `JetStream (${shown(config.NATS_URL!)})\n${indent(record(pairs))}`
}

const indent = (text: string) => text.replace(/^/gm, '  ')

export function statusText(s: Status, config: Config): string {
  const d = s.deliveries
  const quota = s.nearestQuota.length
    ? table(['WORKSPACE', 'USED', 'QUOTA', 'PERCENT'], s.nearestQuota.map((q) => [q.workspace, q.used, q.quota, `${q.percent.toFixed(1)}%`]))
    : 'No workspaces yet.'
  return [
    busText(s, config),
    `Outbox\n${indent(record([['rows', n(s.outbox.rows)], ['events', n(s.outbox.events)], ['oldest', age(s.outbox.oldestAgeSeconds)]]))}`,
    `Deliveries (pending: all; succeeded and failed: of the last 24 h's events)\n${indent(record([
      ['pending, due now', n(d.pendingDue)], ['pending, later', n(d.pendingLater)], ['succeeded', n(d.succeeded)], ['failed', n(d.failed)],
    ]))}`,
    `Nearest their monthly quota\n${indent(quota)}`,
  ].join('\n\n')
}

export async function runStatus(config: Config, asJson: boolean): Promise<string> {
  const status = await readStatus(config)
  return asJson ? json(status) : statusText(status, config)
}
