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
  // A member's read state changed: their live streams in that workspace say so (an SSE `read`).
  | { kind: 'read'; workspaceId: number; userId: string; eventIds: string[]; status: 'read' | 'archived'; before?: string; channel?: string }

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
    case 'read':
      return (
        typeof x.userId === 'string' && Number.isInteger(x.workspaceId) && Array.isArray(x.eventIds) && x.eventIds.every((i) => typeof i === 'string') &&
        (x.status === 'read' || x.status === 'archived') && (x.before === undefined || typeof x.before === 'string') && (x.channel === undefined || typeof x.channel === 'string')
      )
    default:
      return false
  }
}

/** Tells every process (this one at once) that something it may cache changed. */
export type Announce = (change: Change) => void

/**
 * The changes a process hears and says. `announce` tells this process's
 * listeners at once, then whatever carries changes to the other processes
 * (the JetStream bus, when there is one); what the carrier brings from them
 * is `heard`. A process without a carrier (the embedded default, which no
 * other process can open) needs nothing more.
 */
export interface Changes {
  announce: Announce
  onChange(f: (change: Change) => void): void
  /** A change from another process, or `everything` when some may have been missed. */
  heard(change: Change): void
  /** Sends this process's announcements on to the other processes. */
  carry(send: (change: Change) => void): void
}

export function createChanges(): Changes {
  const listeners: ((c: Change) => void)[] = []
  let send: ((c: Change) => void) | null = null
  const tell = (c: Change) => {
    for (const f of listeners) f(c)
  }
  return {
    announce(change) {
      tell(change) // this process at once, even if the carrier is away
      send?.(change)
    },
    onChange: (f) => void listeners.push(f),
    heard: tell,
    carry(f) {
      send = f
    },
  }
}
