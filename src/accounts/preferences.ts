// Queries on a member's preferences in a workspace: a level per channel (in
// channel_mutes, where a mute is level none), a default level, and quiet
// hours (member_preferences). Both go with the membership (sql/0020).
import type { Sql, Tx } from '../core/db'
import type { Level } from '../delivery/audience'
import type { QuietHours } from '../delivery/quiet_hours'

/** A member's preferences as stored: minutes after midnight for the quiet hours. */
export interface StoredPreferences {
  quietHours: QuietHours | null
  channels: Record<string, Level>
  default: Level
}

export async function readPreferences(sql: Tx, workspaceId: number, userId: string): Promise<StoredPreferences> {
  const [[p], levels] = await Promise.all([
    sql<{ defaultLevel: Level; tz: string | null; qf: number | null; qt: number | null; qe: number | null }[]>`
      SELECT default_level AS "defaultLevel", quiet_timezone AS tz, quiet_from AS qf, quiet_to AS qt, quiet_except AS qe
      FROM member_preferences WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`,
    sql<{ channel: string; level: Level }[]>`
      SELECT channel, level FROM channel_mutes WHERE workspace_id = ${workspaceId} AND user_id = ${userId} ORDER BY channel`,
  ])
  return {
    quietHours: p?.tz ? { timezone: p.tz, from: p.qf!, to: p.qt!, except: p.qe! } : null,
    channels: Object.fromEntries(levels.map((l) => [l.channel, l.level])),
    default: p?.defaultLevel ?? 'all',
  }
}

export type WriteResult = 'done' | 'not-member' | { missing: string[] }

/**
 * Replaces a member's preferences, in one transaction. The membership is
 * locked (KEY SHARE) as setMuted locks it, so a member removed at that
 * moment leaves nothing behind; the channels named are locked too, and each
 * must exist ({ missing } names those that do not, and nothing is written):
 * a deletion or a rename at that moment waits, then takes the new levels
 * along, as it takes mutes.
 */
export function writePreferences(sql: Sql, workspaceId: number, userId: string, prefs: StoredPreferences): Promise<WriteResult> {
  return sql.begin(async (tx): Promise<WriteResult> => {
    const member = await tx`SELECT 1 FROM memberships WHERE workspace_id = ${workspaceId} AND user_id = ${userId} FOR KEY SHARE`
    if (!member.length) return 'not-member'
    const slugs = Object.keys(prefs.channels)
    if (slugs.length) {
      const found = new Set((await tx<{ slug: string }[]>`
        SELECT slug FROM channels WHERE workspace_id = ${workspaceId} AND slug = ANY(${slugs}::text[]) FOR KEY SHARE`).map((r) => r.slug))
      const missing = slugs.filter((s) => !found.has(s))
      if (missing.length) return { missing }
    }
    await tx`DELETE FROM channel_mutes WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`
    if (slugs.length) {
      await tx`
        INSERT INTO channel_mutes (workspace_id, user_id, channel, level)
        SELECT ${workspaceId}, ${userId}, c, l FROM unnest(${slugs}::text[], ${slugs.map((s) => prefs.channels[s]!)}::text[]) AS x(c, l)`
    }
    const q = prefs.quietHours
    await tx`
      INSERT INTO member_preferences (workspace_id, user_id, default_level, quiet_timezone, quiet_from, quiet_to, quiet_except)
      VALUES (${workspaceId}, ${userId}, ${prefs.default}, ${q?.timezone ?? null}, ${q?.from ?? null}, ${q?.to ?? null}, ${q?.except ?? null})
      ON CONFLICT (workspace_id, user_id) DO UPDATE SET default_level = excluded.default_level, quiet_timezone = excluded.quiet_timezone,
        quiet_from = excluded.quiet_from, quiet_to = excluded.quiet_to, quiet_except = excluded.quiet_except, updated_at = now()`
    return 'done'
  }) as Promise<WriteResult>
}
