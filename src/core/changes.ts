// What a process may hold in a cache that another process (or this one) can
// change: the operations of every area announce their own change, and the bus
// only carries it (JetStream's control subject between processes, or straight
// to the listeners of the embedded default). Nothing here knows how.

/**
 * What the processes cache and the API changes: a workspace's routers, its
 * API keys (revoked, or what a key stands for: its default channel), or who
 * is pushed (members, their devices, their muted channels; any such change
 * drops every cached audience, as a device counts in every workspace of its
 * owner), or which of its channels exist (one renamed or deleted: the API
 * processes, which skip creating channels they know, forget them). `everything`: announcements may have been missed (the bus was
 * away), so every cache starts over; it is said only within a process. And
 * what ends a person's live feed streams, on whichever instance holds them: a
 * session signed out (`tokenId`), or every session of theirs (a password
 * reset); or their membership of a workspace removed.
 */
export type Change =
  | { kind: 'routers'; workspaceId: number }
  | { kind: 'keys'; workspaceId: number }
  | { kind: 'channels'; workspaceId: number }
  | { kind: 'audience' }
  | { kind: 'everything' }
  | { kind: 'session-ended'; userId: string; tokenId?: number }
  | { kind: 'member-removed'; workspaceId: number; userId: string }

/** Whether a value (a control message from another process) is a well-formed Change. */
export function isChange(c: unknown): c is Change {
  if (typeof c !== 'object' || c === null) return false
  const x = c as Record<string, unknown>
  switch (x.kind) {
    case 'audience':
      return true
    case 'routers':
    case 'keys':
    case 'channels':
      return Number.isInteger(x.workspaceId)
    case 'session-ended':
      return typeof x.userId === 'string' && (x.tokenId === undefined || Number.isInteger(x.tokenId))
    case 'member-removed':
      return typeof x.userId === 'string' && Number.isInteger(x.workspaceId)
    default:
      return false
  }
}

/** Tells every process (this one at once) that something it may cache changed. */
export type Announce = (change: Change) => void
