// API-key authentication. Keys are looked up by their SHA-256, and a verified
// key is cached in a bounded LRU (API_KEY_CACHE_MAX entries: memory does not
// grow with the number of workspaces). While announcements reach every
// process (bus.ts announcesEverywhere: JetStream connected, or the embedded
// database), a cached key is trusted until a revocation or a change of its
// workspace is announced, and at most API_KEY_CACHE_MAX_AGE_MS; otherwise
// for API_KEY_CACHE_TTL_MS (at most 5 s), so a revocation reaches every
// instance within that. Unknown keys are cached briefly too, so a flood of
// bad keys does not become a flood of queries.
import type { Config } from '../core/config'
import type { Sql } from '../core/db'
import { bearer, hashSecret, isWellFormedKey } from '../core/keys'
import { createLru } from '../core/lru'
import { keyLookedUp } from './metrics'

export interface Principal {
  keyId: number
  workspaceId: number
  workspace: string
  defaultChannel: string
}

interface Entry {
  principal: Principal | null
  at: number // when it was looked up
}

export interface ApiKeyCacheOptions {
  ttlMs: number // API_KEY_CACHE_TTL_MS: trusted this long while announcements may not reach this process
  maxAgeMs: number // API_KEY_CACHE_MAX_AGE_MS: at most this long while they do
  max: number // API_KEY_CACHE_MAX: entries
  /** Whether a revocation announced anywhere reaches this process now (bus.announcesEverywhere). */
  announced: () => boolean
}

const NEGATIVE_TTL_MS = 1000

/** The cache's options from the configuration; `announced`: the bus's announcesEverywhere. */
export const apiKeyCacheOptions = (config: Pick<Config, 'API_KEY_CACHE_TTL_MS' | 'CACHE_MAX_AGE_MS' | 'API_KEY_CACHE_MAX'>, announced: () => boolean): ApiKeyCacheOptions =>
  ({ ttlMs: config.API_KEY_CACHE_TTL_MS, maxAgeMs: config.CACHE_MAX_AGE_MS, max: config.API_KEY_CACHE_MAX, announced })

export async function findApiKey(sql: Sql, hash: Buffer): Promise<Principal | null> {
  const rows = await sql<Principal[]>`
    SELECT k.id AS "keyId", w.id AS "workspaceId", w.name AS workspace, w.default_channel AS "defaultChannel"
    FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
    WHERE k.hash = ${hash} AND k.revoked_at IS NULL`
  return rows[0] ?? null
}

/** Records when keys were last used, in one statement for many keys. */
export async function updateKeysLastUsed(sql: Sql, used: Map<number, number>) {
  if (!used.size) return
  const ids = [...used.keys()]
  const at = ids.map((id) => new Date(used.get(id)!).toISOString())
  await sql`UPDATE api_keys k SET last_used_at = u.at
    FROM unnest(${ids}::bigint[], ${at}::timestamptz[]) AS u(id, at)
    WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`
}

// Last use is written in the background, at most this often: a write per
// request (or per cache miss) would cost the ingest path a transaction.
const LAST_USED_FLUSH_MS = 15_000

export function createApiKeyAuth(sql: Sql, opts: ApiKeyCacheOptions) {
  const cache = createLru<string, Entry>(opts.max)
  const inflight = new Map<string, Promise<Principal | null>>()
  // Announcements (revocations) that arrive while a look-up is under way
  // make its answer stale: it is used for its request, not cached.
  let generation = 0
  let used = new Map<number, number>()
  const flushUsage = async () => {
    const batch = used
    used = new Map()
    await updateKeysLastUsed(sql, batch).catch(() => {
      for (const [k, t] of batch) if (!used.has(k)) used.set(k, t) // keep for the next try
    })
  }
  const timer = setInterval(flushUsage, LAST_USED_FLUSH_MS)
  timer.unref()

  async function lookup(id: string, hash: Buffer): Promise<Principal | null> {
    const seen = generation
    const at = Date.now()
    keyLookedUp()
    const principal = await findApiKey(sql, hash)
    if (seen === generation) cache.set(id, { principal, at })
    return principal
  }

  /** How long an entry is good for now. */
  const maxAge = (e: Entry) => (!e.principal ? Math.min(opts.ttlMs, NEGATIVE_TTL_MS) : opts.announced() ? opts.maxAgeMs : opts.ttlMs)

  return {
    /** The workspace a bearer header authenticates, or null; at once (no promise) when the key is cached. */
    verify(header: string | null): Principal | null | Promise<Principal | null> {
      const key = bearer(header)
      if (!key) return null
      // The cache is keyed by the key's SHA-256 (no key is held in memory
      // longer than its request); Bun's one-shot hash is the cheapest way to it.
      const id = Bun.SHA256.hash(key, 'base64')
      const now = Date.now()
      const hit = cache.get(id)
      if (hit && now - hit.at < maxAge(hit)) {
        if (hit.principal) used.set(hit.principal.keyId, now)
        return hit.principal
      }
      if (!isWellFormedKey(key)) return null // a typo or a stranger: no query for it
      let pending = inflight.get(id)
      if (!pending) {
        pending = lookup(id, hashSecret(key)).finally(() => inflight.delete(id))
        inflight.set(id, pending)
      }
      return pending.then((principal) => {
        if (principal) used.set(principal.keyId, now)
        return principal
      })
    },
    /** Stops the 15 s timer and writes the pending last-use times. */
    stop() {
      clearInterval(timer)
      return flushUsage()
    },
    /**
     * Forgets the cached keys of a workspace (a key revoked, its default
     * channel changed), or every key (`null`: announcements were missed).
     */
    forget(workspaceId: number | null) {
      generation++
      if (workspaceId === null) cache.clear()
      else cache.prune((e) => e.principal?.workspaceId === workspaceId)
    },
    /** Entries cached now, for metrics and tests. */
    size: () => cache.size,
  }
}
export type ApiKeyAuth = ReturnType<typeof createApiKeyAuth>
