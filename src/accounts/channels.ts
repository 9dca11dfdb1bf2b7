// Queries on the channels of a workspace. A channel is known by its slug,
// which events carry; renaming one renames it on its events and mutes too,
// so the feed and the mutes follow it.
//
// "The default channel exists" spans two tables, so every change that could
// break it (rename, make default, delete) first takes the workspace's channel
// lock: the changes of one workspace's channels happen one after the other,
// and each sees what the one before it did. It is an advisory lock, not the
// workspace's row, which the write path locks for every event: renaming a
// channel with a million events must not hold up ingestion meanwhile.
import type { Sql, Tx } from '../core/db'

const lockChannels = (tx: Tx, workspaceId: number) => tx`SELECT pg_advisory_xact_lock(hashtextextended('herald.channels', ${workspaceId}))`
const defaultChannel = async (tx: Tx, workspaceId: number) =>
  (await tx<{ defaultChannel: string }[]>`SELECT default_channel AS "defaultChannel" FROM workspaces WHERE id = ${workspaceId}`)[0]?.defaultChannel

export interface ChannelView {
  slug: string
  isDefault: boolean
  muted: boolean // by the person asking
  createdAt: string
}

/** A page of a channel list: slugs after `after`, containing `q` when given, in slug order. */
export interface ChannelPage {
  q?: string
  after?: string
  limit: number
}

/** One page of a workspace's channels (one row more than `limit`, to tell whether another page follows). */
export const listChannels = (sql: Tx, workspaceId: number, userId: string, page: ChannelPage) => sql<ChannelView[]>`
  SELECT c.slug, c.slug = w.default_channel AS "isDefault",
    EXISTS (SELECT 1 FROM channel_mutes m WHERE m.workspace_id = c.workspace_id AND m.user_id = ${userId} AND m.channel = c.slug AND m.level = 'none') AS muted,
    iso_time(c.created_at) AS "createdAt"
  FROM channels c JOIN workspaces w ON w.id = c.workspace_id
  WHERE c.workspace_id = ${workspaceId}
    ${page.after ? sql`AND c.slug > ${page.after}` : sql``}
    ${page.q ? sql`AND strpos(c.slug, ${page.q}) > 0` : sql``}
  ORDER BY c.slug LIMIT ${page.limit + 1}`

/** The rows of a page and the cursor of the next one (null at the end). */
export function pageOfChannels<T extends { slug: string }>(rows: T[], limit: number): { channels: T[]; nextCursor: string | null } {
  const channels = rows.slice(0, limit)
  return { channels, nextCursor: rows.length > limit ? channels[channels.length - 1]!.slug : null }
}

export const channelExists = async (sql: Tx, workspaceId: number, slug: string) =>
  (await sql`SELECT 1 FROM channels WHERE workspace_id = ${workspaceId} AND slug = ${slug}`).length > 0

export type CreateResult = 'created' | 'exists' | 'limit'

/** Creates a channel, unless it exists or the workspace has `max` channels already. */
export async function createChannel(sql: Sql, workspaceId: number, slug: string, max: number): Promise<CreateResult> {
  const { made, refused } = await makeChannels(sql, [{ ws: workspaceId, channel: slug }], max)
  return refused.length ? 'limit' : made.length ? 'created' : 'exists'
}

export interface WantedChannel {
  ws: number
  channel: string
}

/** The channels of `wanted` that do not exist. */
export const missingChannels = (sql: Tx, wanted: WantedChannel[]) => sql<WantedChannel[]>`
  SELECT c.ws, c.slug AS channel FROM unnest(${wanted.map((w) => w.ws)}::bigint[], ${wanted.map((w) => w.channel)}::text[]) AS c(ws, slug)
  WHERE NOT EXISTS (SELECT 1 FROM channels x WHERE x.workspace_id = c.ws AND x.slug = c.slug)`

/** The workspaces' channel locks, in id order, so that two holders of several cannot deadlock. */
const lockChannelsOf = (tx: Tx, ids: number[]) => tx`SELECT pg_advisory_xact_lock(hashtextextended('herald.channels', id))
  FROM (SELECT DISTINCT id FROM unnest(${ids}::bigint[]) AS id ORDER BY id) AS ids`

/**
 * Of the channels a batch names, those that do not exist and would take
 * their workspace past `max` channels (the first ones named fit first). Run
 * in the transaction that writes the batch: it takes the channel locks of the
 * workspaces whose channels are new, and the count is read after they are
 * held, so the batch's new channels commit before anyone else may count.
 * Channels that all exist cost one index look-up each and no lock.
 */
export async function channelsPastLimit(tx: Tx, wanted: WantedChannel[], max: number): Promise<WantedChannel[]> {
  const ws = wanted.map((w) => w.ws)
  const slugs = wanted.map((w) => w.channel)
  const missing = await missingChannels(tx, wanted)
  if (!missing.length) return []
  await lockChannelsOf(tx, missing.map((m) => m.ws))
  return tx<WantedChannel[]>`
    WITH fresh AS (
      SELECT c.ws, c.slug, row_number() OVER (PARTITION BY c.ws ORDER BY c.o) AS k
      FROM unnest(${ws}::bigint[], ${slugs}::text[]) WITH ORDINALITY AS c(ws, slug, o)
      WHERE NOT EXISTS (SELECT 1 FROM channels x WHERE x.workspace_id = c.ws AND x.slug = c.slug)
    )
    SELECT f.ws, f.slug AS channel FROM fresh f
    WHERE f.k > ${max}::bigint - (SELECT count(*) FROM channels x WHERE x.workspace_id = f.ws)`
}

async function makeChannels(sql: Sql, wanted: WantedChannel[], max: number): Promise<{ made: WantedChannel[]; refused: WantedChannel[] }> {
  const ws = wanted.map((w) => w.ws)
  const slugs = wanted.map((w) => w.channel)
  const missing = await sql<{ ws: number }[]>`
    SELECT DISTINCT c.ws FROM unnest(${ws}::bigint[], ${slugs}::text[]) AS c(ws, slug)
    WHERE NOT EXISTS (SELECT 1 FROM channels x WHERE x.workspace_id = c.ws AND x.slug = c.slug)`
  if (!missing.length) return { made: [], refused: [] }
  const rows = await sql.begin(async (tx) => {
    await lockChannelsOf(tx, missing.map((m) => m.ws))
    return tx<(WantedChannel & { made: boolean })[]>`
      WITH fresh AS (
        SELECT c.ws, c.slug, row_number() OVER (PARTITION BY c.ws ORDER BY c.o) AS k
        FROM unnest(${ws}::bigint[], ${slugs}::text[]) WITH ORDINALITY AS c(ws, slug, o)
        WHERE NOT EXISTS (SELECT 1 FROM channels x WHERE x.workspace_id = c.ws AND x.slug = c.slug)
      ), room AS (
        SELECT f.ws, ${max}::bigint - (SELECT count(*) FROM channels x WHERE x.workspace_id = f.ws) AS room
        FROM (SELECT DISTINCT ws FROM fresh) AS f
      ), ins AS (
        INSERT INTO channels (workspace_id, slug)
        SELECT f.ws, f.slug FROM fresh f JOIN room r ON r.ws = f.ws WHERE f.k <= r.room
        ON CONFLICT DO NOTHING
        RETURNING workspace_id, slug
      )
      SELECT f.ws, f.slug AS channel, EXISTS (SELECT 1 FROM ins i WHERE i.workspace_id = f.ws AND i.slug = f.slug) AS made
      FROM fresh f`
  })
  return { made: rows.filter((r) => r.made), refused: rows.filter((r) => !r.made).map(({ ws, channel }) => ({ ws, channel })) }
}

export type RenameResult = 'renamed' | 'not-found' | 'taken'

/** Renames a channel everywhere it appears: its row, its events, its mutes, the default. */
export async function renameChannel(sql: Sql, workspaceId: number, from: string, to: string): Promise<RenameResult> {
  return sql.begin(async (tx) => {
    await lockChannels(tx, workspaceId)
    if ((await tx`SELECT 1 FROM channels WHERE workspace_id = ${workspaceId} AND slug = ${to}`).length) return 'taken'
    const moved = await tx`UPDATE channels SET slug = ${to} WHERE workspace_id = ${workspaceId} AND slug = ${from} RETURNING slug`
    if (!moved.length) return 'not-found'
    // Mutes stored for a channel that did not exist (before such mutes were
    // refused) would collide with the moved ones: they mute nothing.
    await tx`DELETE FROM channel_mutes WHERE workspace_id = ${workspaceId} AND channel = ${to}`
    await tx`UPDATE channel_mutes SET channel = ${to} WHERE workspace_id = ${workspaceId} AND channel = ${from}`
    await tx`UPDATE events SET channel = ${to} WHERE workspace_id = ${workspaceId} AND channel = ${from}`
    // Last: the workspace's row stays locked only from here to the commit.
    await tx`UPDATE workspaces SET default_channel = ${to} WHERE id = ${workspaceId} AND default_channel = ${from}`
    return 'renamed'
  })
}

/** Makes an existing channel the default; false when there is no such channel. */
export async function setDefaultChannel(sql: Sql, workspaceId: number, slug: string): Promise<boolean> {
  return sql.begin(async (tx) => {
    await lockChannels(tx, workspaceId)
    const rows = await tx`UPDATE workspaces w SET default_channel = ${slug} WHERE w.id = ${workspaceId}
      AND EXISTS (SELECT 1 FROM channels c WHERE c.workspace_id = w.id AND c.slug = ${slug}) RETURNING id`
    return rows.length > 0
  })
}

export type DeleteResult = 'deleted' | 'not-found' | 'default'

/** Deletes a channel and its mutes; its events stay in the feed. The default channel cannot go. */
export async function deleteChannel(sql: Sql, workspaceId: number, slug: string): Promise<DeleteResult> {
  return sql.begin(async (tx) => {
    await lockChannels(tx, workspaceId)
    if ((await defaultChannel(tx, workspaceId)) === slug) return 'default'
    const gone = await tx`DELETE FROM channels WHERE workspace_id = ${workspaceId} AND slug = ${slug} RETURNING slug`
    if (!gone.length) return 'not-found'
    await tx`DELETE FROM channel_mutes WHERE workspace_id = ${workspaceId} AND channel = ${slug}`
    return 'deleted'
  })
}
