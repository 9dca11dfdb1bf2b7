// Marking events read or archived, as a member (POST …/feed/read and
// …/feed/archive): by ids, or everything up to an event (of one channel or
// all). The change is announced (kind 'read'), so the member's live streams
// on every instance say it within a second, and the notifications now read
// are queued to close on the member's devices (push_dismissals).
import type { Sql } from '../core/db'
import type { Announce } from '../core/changes'
import type { EventReads } from './event_reads'
import type { Mark, Reader } from './read_state'

export type MarkRequest = { eventIds: string[] } | { before: string; channel?: string }

export interface MarkResult {
  status: Mark
  eventIds: string[]
  before: string | null
  channel: string | null
  moved: boolean
  counts: { unread: number; byChannel: Record<string, number> }
}

export function readOps({ sql, reads, announce }: { sql: Sql; reads: EventReads; announce: Announce }) {
  return async function mark(reader: Reader, body: MarkRequest, status: Mark): Promise<MarkResult> {
    let result: Omit<MarkResult, 'counts'>
    let tags: string[]
    if ('eventIds' in body) {
      const marked = await reads.mark(reader, body.eventIds, status)
      result = { status, eventIds: marked.eventIds, before: null, channel: null, moved: false }
      tags = marked.tags
    } else {
      const before = body.before.toLowerCase()
      const channel = body.channel?.toLowerCase() ?? null
      const { moved } = await reads.markBefore(reader, before, channel, status)
      result = { status, eventIds: [], before, channel, moved }
      tags = moved ? await reads.tagsBelow(reader, before, channel) : []
    }
    if (result.eventIds.length || result.moved) {
      // Best effort: the notifications to close on the member's devices (a worker sends them; the announcement wakes it).
      if (tags.length) await sql`INSERT INTO push_dismissals (workspace_id, user_id, tags) VALUES (${reader.workspaceId}, ${reader.userId}, ${tags})`.catch(() => {})
      announce({ kind: 'read', ...reader, eventIds: result.eventIds, status, ...(result.before ? { before: result.before } : {}), ...(result.channel ? { channel: result.channel } : {}) })
    }
    return { ...result, counts: await reads.unreadCounts(reader) }
  }
}
export type ReadOps = ReturnType<typeof readOps>
