// What the push benchmark writes into PostgreSQL behind Herald's back (the
// channel's users and devices, faster than through the API) and what it reads
// back from it: per event, its delivery rows and when its pushes were
// answered and written.
import type postgres from 'postgres'
import { randomBytes, randomUUID } from 'node:crypto'
import { dist } from './proc'
import type { Posted } from './load'

export const DEVICES_PER_USER = 4
export const PROVIDERS = ['apns', 'fcm', 'webpush'] as const
export type Provider = (typeof PROVIDERS)[number]

/** A browser's subscription as the Web Push stand-in made it: what a devices row keeps of it. */
export interface WebPushDevice {
  endpoint: string
  p256dh: string
  auth: string
}

/** The providers of `--providers a,b`, each once; null if it names none, an unknown one or one twice. */
export function parseProviders(text: string): Provider[] | null {
  const names = text.split(',').map((p) => p.trim()).filter(Boolean)
  const known = names.every((p) => (PROVIDERS as readonly string[]).includes(p))
  return names.length && known && new Set(names).size === names.length ? (names as Provider[]) : null
}

/** Device i's provider: the providers in turn (with the default apns,fcm, even devices are APNs, odd ones FCM). */
export const providerOf = (i: number, providers: readonly Provider[]) => providers[i % providers.length]!

/** How many of `n` devices each provider gets. */
export function devicesPerProvider(n: number, providers: readonly Provider[]): Record<Provider, number> {
  const counts = { apns: 0, fcm: 0, webpush: 0 }
  for (let i = 0; i < n; i++) counts[providerOf(i, providers)]++
  return counts
}

const PLATFORMS: Record<Provider, string> = { apns: 'ios', fcm: 'android', webpush: 'web' }

/** Device i as a row: APNs and FCM get random tokens, Web Push the next of `subscriptions`. */
function deviceRow(provider: Provider, subscriptions: WebPushDevice[], webpushIndex: number) {
  if (provider === 'apns') return { token: randomBytes(32).toString('hex'), p256dh: null, auth: null }
  if (provider === 'fcm') return { token: `fcm-${randomBytes(70).toString('base64url')}`, p256dh: null, auth: null }
  const sub = subscriptions[webpushIndex]
  if (!sub) throw new Error(`Web Push device ${webpushIndex} has no subscription (${subscriptions.length} made)`)
  return { token: sub.endpoint, p256dh: sub.p256dh, auth: sub.auth }
}

/**
 * `n` devices straight into PostgreSQL, DEVICES_PER_USER per user, every user
 * a member of the workspace; device i goes to `providers[i % providers.length]`
 * (iPhones on APNs, production; Android phones on FCM; browsers on Web Push,
 * each with one of `subscriptions`). All users but the first mute `warmupChannel`.
 */
export async function populate(sql: postgres.Sql, workspaceId: number, n: number, warmupChannel: string, providers: readonly Provider[], subscriptions: WebPushDevice[]) {
  const users = Math.ceil(n / DEVICES_PER_USER)
  const userIds = Array.from({ length: users }, () => randomUUID())
  await sql`INSERT INTO users (id, email) SELECT id, 'bench-' || i || '@example.com' FROM unnest(${userIds}::uuid[]) WITH ORDINALITY AS u(id, i)`
  await sql`INSERT INTO memberships (workspace_id, user_id, role) SELECT ${workspaceId}, id, 'member' FROM unnest(${userIds}::uuid[]) AS u(id)`
  const cols = { ids: [] as string[], owners: [] as string[], providers: [] as string[], platforms: [] as string[], tokens: [] as string[], p256dh: [] as (string | null)[], auth: [] as (string | null)[] }
  let webpushIndex = 0
  for (let i = 0; i < n; i++) {
    const provider = providerOf(i, providers)
    const row = deviceRow(provider, subscriptions, provider === 'webpush' ? webpushIndex++ : -1)
    cols.ids.push(randomUUID())
    cols.owners.push(userIds[Math.floor(i / DEVICES_PER_USER)]!)
    cols.providers.push(provider)
    cols.platforms.push(PLATFORMS[provider])
    cols.tokens.push(row.token)
    cols.p256dh.push(row.p256dh)
    cols.auth.push(row.auth)
  }
  await sql`
    INSERT INTO devices (id, user_id, platform, provider, token, environment, p256dh, auth)
    SELECT id, user_id, platform, provider, token, 'production', p256dh, auth
    FROM unnest(${cols.ids}::uuid[], ${cols.owners}::uuid[], ${cols.platforms}::text[], ${cols.providers}::text[], ${cols.tokens}::text[],
      ${cols.p256dh}::text[], ${cols.auth}::text[]) AS d(id, user_id, platform, provider, token, p256dh, auth)`
  await sql`INSERT INTO channel_mutes (workspace_id, user_id, channel) SELECT ${workspaceId}, id, ${warmupChannel} FROM unnest(${userIds.slice(1)}::uuid[]) AS u(id)`
  await sql`ANALYZE`
  return { users, ...devicesPerProvider(n, providers), warmupDevices: Math.min(n, DEVICES_PER_USER) }
}

/**
 * Preferences for every member of the workspace that hold no push of
 * `channel` back: quiet hours of one hour starting twelve hours from now (UTC),
 * except 5, and the level `all` for the channel. The fan-out then checks each
 * push against them, as it would for a team that set preferences.
 */
export async function givePreferences(sql: postgres.Sql, workspaceId: number, channel: string) {
  const from = (new Date().getUTCHours() * 60 + 12 * 60) % 1440
  await sql`
    INSERT INTO member_preferences (workspace_id, user_id, default_level, quiet_timezone, quiet_from, quiet_to, quiet_except)
    SELECT workspace_id, user_id, 'all', 'UTC', ${from}, ${(from + 60) % 1440}, 5 FROM memberships WHERE workspace_id = ${workspaceId}`
  await sql`
    INSERT INTO channel_mutes (workspace_id, user_id, channel, level)
    SELECT workspace_id, user_id, ${channel}, 'all' FROM memberships WHERE workspace_id = ${workspaceId}
    ON CONFLICT DO NOTHING`
}

/** Per event, from PostgreSQL: rows, their states, and when its pushes started, were answered, and were written. */
export interface EventRows {
  event_id: string
  rows: number
  pending: number
  failed: number
  first_started: number | null // ms since the epoch
  last_answered: number | null // max(started_at + duration) of first attempts
  last_written: number | null // max(updated_at)
}

export const eventRows = (sql: postgres.Sql, ids: string[]) => sql<EventRows[]>`
  SELECT d.event_id::text, count(*)::int AS rows,
    count(*) FILTER (WHERE d.status = 'pending')::int AS pending,
    count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
    extract(epoch FROM min(coalesce(d.first_started_at, a.started_at)))::float8 * 1000 AS first_started,
    extract(epoch FROM max(coalesce(d.first_started_at + d.first_duration_ms * interval '1 ms', a.started_at + a.duration_ms * interval '1 ms')))::float8 * 1000 AS last_answered,
    extract(epoch FROM max(d.updated_at))::float8 * 1000 AS last_written
  FROM deliveries d LEFT JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1 AND d.first_started_at IS NULL
  WHERE d.event_id = ANY(${ids}::uuid[])
  GROUP BY d.event_id`

/** Delivery rows beyond one per (event, device): the unique key makes them impossible; checked anyway. */
export async function duplicateRows(sql: postgres.Sql) {
  const [dups] = await sql<{ pairs: number; extra: number }[]>`
    SELECT count(*)::int AS pairs, coalesce(sum(n - 1), 0)::int AS extra
    FROM (SELECT event_id, target, count(*) AS n FROM deliveries GROUP BY event_id, target HAVING count(*) > 1) x`
  return dups!
}

/**
 * Per event posted from slot `first` on (the stream's measured window), once
 * Herald has stopped: POST → the answer to its last push, and → its last row
 * written; an event with fewer than `devices` rows, or one pending, is incomplete.
 */
export async function completion(sql: postgres.Sql, posts: Posted[], first: number, devices: number) {
  const ids = posts.filter((p) => p?.eventId).map((p) => p.eventId!)
  const rows = new Map((await eventRows(sql, ids)).map((r) => [r.event_id, r]))
  const answered: number[] = []
  const written: number[] = []
  let incomplete = 0
  posts.forEach((p, slot) => {
    if (!p?.eventId || slot < first) return
    const r = rows.get(p.eventId)
    if (!r || r.rows < devices || r.pending > 0 || r.last_answered === null) return void incomplete++
    answered.push(r.last_answered - p.t)
    written.push(r.last_written! - p.t)
  })
  return {
    rule: 'per event sent in the measured window: POST → the answer to its last push (max started_at + duration_ms of its first attempts), and → its last delivery row written (max updated_at)',
    last_push_answered: dist(answered),
    last_row_written: dist(written),
    incomplete_events: incomplete,
  }
}
