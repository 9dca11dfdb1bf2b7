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

export const listChannels = (sql: Tx, workspaceId: number, userId: string) => sql<ChannelView[]>`
  SELECT c.slug, c.slug = w.default_channel AS "isDefault",
    EXISTS (SELECT 1 FROM channel_mutes m WHERE m.workspace_id = c.workspace_id AND m.user_id = ${userId} AND m.channel = c.slug) AS muted,
    iso_time(c.created_at) AS "createdAt"
  FROM channels c JOIN workspaces w ON w.id = c.workspace_id
  WHERE c.workspace_id = ${workspaceId} ORDER BY c.slug`

/** False when the channel exists. */
export async function createChannel(sql: Tx, workspaceId: number, slug: string): Promise<boolean> {
  return (await sql`INSERT INTO channels (workspace_id, slug) VALUES (${workspaceId}, ${slug}) ON CONFLICT DO NOTHING RETURNING slug`).length > 0
}

export type RenameResult = 'renamed' | 'not-found' | 'taken'

/** Renames a channel everywhere it appears: its row, its events, its mutes, the default. */
export async function renameChannel(sql: Sql, workspaceId: number, from: string, to: string): Promise<RenameResult> {
  return sql.begin(async (tx) => {
    await lockChannels(tx, workspaceId)
    if ((await tx`SELECT 1 FROM channels WHERE workspace_id = ${workspaceId} AND slug = ${to}`).length) return 'taken'
    const moved = await tx`UPDATE channels SET slug = ${to} WHERE workspace_id = ${workspaceId} AND slug = ${from} RETURNING slug`
    if (!moved.length) return 'not-found'
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
