// An event's `to`, resolved at ingest to the members it names: one query per
// request that has a `to` (POST /events resolves every item's at once), none
// for the others, so that the events without `to` go as fast as before.
// Who is not a member is dropped and reported; naming one member twice (by
// e-mail and by id) is a 400 naming both entries; nobody left is a 400.
import type { Sql } from '../core/db'
import { validationError, type HeraldError } from '../core/problems'
import type { Recipient } from './event'

/** What became of one event's `to`: the members' user ids and the answer's `errors` lines, or the 400 of the event. */
export type Resolved = { recipients: string[]; changes: string[] } | HeraldError

/** Resolves the `to` of each event of one request, all of one workspace. */
export type ResolveRecipients = (workspaceId: number, lists: Recipient[][]) => Promise<Resolved[]>

const spelled = (r: Recipient) => r.email ?? `user:${r.userId}`

/** The members named by `lists`, each list judged on its own, in one query. */
export function recipientResolver(sql: Sql): ResolveRecipients {
  return async (workspaceId, lists) => {
    const emails = [...new Set(lists.flatMap((l) => l.flatMap((r) => (r.email ? [r.email] : []))))]
    const ids = [...new Set(lists.flatMap((l) => l.flatMap((r) => (r.userId ? [r.userId] : []))))]
    const rows = await sql<{ id: string; email: string }[]>`
      SELECT u.id, lower(u.email) AS email FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ${workspaceId} AND (lower(u.email) = ANY(${emails}::text[]) OR u.id = ANY(${ids}::uuid[]))`
    const byEmail = new Map(rows.map((r) => [r.email, r.id]))
    const members = new Set(rows.map((r) => r.id))
    return lists.map((list) => resolveOne(list, (r) => (r.email ? byEmail.get(r.email) : members.has(r.userId!) ? r.userId : undefined)))
  }
}

/** One event's `to`, given who each entry is (undefined: not a member). */
export function resolveOne(list: Recipient[], memberOf: (r: Recipient) => string | undefined): Resolved {
  const recipients: string[] = []
  const changes: string[] = []
  const at = new Map<string, number>() // user id → the index that named it first
  const dup: { pointer: string; detail: string }[] = []
  for (const r of list) {
    const id = memberOf(r)
    if (id === undefined) {
      changes.push(`to[${r.index}] (${JSON.stringify(spelled(r).slice(0, 64))}) is not a member of the workspace and was dropped`)
      continue
    }
    const first = at.get(id)
    if (first !== undefined) {
      dup.push({ pointer: `/to/${r.index}`, detail: `to[${r.index}] and to[${first}] (/to/${first}) name the same member` })
      continue
    }
    at.set(id, r.index)
    recipients.push(id)
  }
  if (dup.length) return validationError(dup)
  if (!recipients.length) return validationError([{ pointer: '/to', detail: 'none of the recipients in to is a member of the workspace' }])
  return { recipients, changes }
}
