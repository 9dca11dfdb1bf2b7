// The caches and the batch writer the delivery worker uses: enabled routers
// per workspace, push targets per channel, and attempt outcomes written in
// batches.
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import type { SecretBox } from '../core/secrets'
import { recordAttempts, type AttemptRecord } from './attempts'
import { loadRouters, routerSpec, type RouterRecord } from './routers'
import type { RouterSpec } from './job'
import { patternIndex } from './pattern'
import { createLru } from '../core/lru'
import { channelKey, type ChannelKey } from '../core/channel_key'
import { findAudience, type Audience } from './audience'

/** How long a cached entry is trusted: long while every change is announced to this process, else `fallbackMs`. */
export interface CacheAge {
  maxAgeMs: number // CACHE_MAX_AGE_MS
  fallbackMs: number // while announcements may not reach this process
  announced: () => boolean // bus.announcesEverywhere
  max: number // WORKER_CACHE_MAX: entries
}
const fresh = (age: CacheAge, at: number) => Date.now() - at < (age.announced() ? age.maxAgeMs : age.fallbackMs)

/** A workspace's enabled routers, as the fan-out uses them: by id, and matched to an event key through an index. */
export interface RouterSet {
  records: RouterRecord[]
  byId: Map<string, RouterRecord>
  /** The routers (as jobs carry them) whose pattern matches an event key. */
  match: (eventKey: string | null) => RouterSpec[]
}

function routerSet(records: RouterRecord[]): RouterSet {
  const specs = records.map(routerSpec)
  return { records, byId: new Map(records.map((r) => [r.id, r])), match: patternIndex(specs) }
}

/** Enabled routers per workspace, decrypted and indexed, until a change is announced (see CacheAge). */
export function routerCache(sql: Sql, secrets: SecretBox, age: CacheAge) {
  const cache = createLru<number, { at: number; routers: Promise<RouterSet> }>(age.max)
  return {
    get(ws: number): Promise<RouterSet> {
      const hit = cache.get(ws)
      if (hit && fresh(age, hit.at)) return hit.routers
      const routers = loadRouters(sql, secrets, ws).then(routerSet)
      const entry = { at: Date.now(), routers }
      cache.set(ws, entry)
      routers.catch(() => cache.get(ws) === entry && cache.delete(ws))
      return routers
    },
    forget: (ws: number) => cache.delete(ws),
    clear: () => cache.clear(),
  }
}

/** Gathers attempt outcomes and writes them together every few milliseconds (recordAttempts: one statement). */
export function attemptRecorder(sql: Sql, log: Logger) {
  let buffer: AttemptRecord[] = []
  let writing: Promise<void> | null = null
  let timer: ReturnType<typeof setTimeout> | null = null

  async function write() {
    while (buffer.length) {
      const records = buffer.splice(0, 1000)
      try {
        await recordAttempts(sql, records)
      } catch (err) {
        // The deliveries stay leased and pending: after the lease they are
        // attempted again, under the same id. Keep the outcomes and retry.
        log.warn({ err, records: records.length }, 'could not record delivery attempts; retrying')
        buffer.unshift(...records)
        await Bun.sleep(1000)
      }
    }
  }

  // One writer at a time; it drains whatever arrives while it writes.
  const flush = (): Promise<void> => (writing ??= write().finally(() => (writing = null)))
  return {
    add(r: AttemptRecord) {
      buffer.push(r)
      timer ??= setTimeout(() => {
        timer = null
        void flush().then(() => {
          if (buffer.length) return flush() // arrived after the writer's last look
        })
      }, 5)
    },
    async flush() {
      if (timer) clearTimeout(timer)
      timer = null
      await flush()
      if (buffer.length) await flush()
    },
  }
}

/**
 * Who may be pushed for (workspace, channel): the members' devices and their
 * preferences (audience.ts), until a change of members, devices, mutes or
 * preferences is announced (see CacheAge).
 */
export function pushTargetCache(sql: Sql, age: CacheAge) {
  const cache = createLru<ChannelKey, { at: number; audience: Promise<Audience> }>(age.max)
  return {
    get(ws: number, channel: string): Promise<Audience> {
      const key = channelKey(ws, channel)
      const hit = cache.get(key)
      if (hit && fresh(age, hit.at)) return hit.audience
      const audience = findAudience(sql, ws, channel)
      const entry = { at: Date.now(), audience }
      cache.set(key, entry)
      audience.catch(() => cache.get(key) === entry && cache.delete(key))
      return audience
    },
    clear: () => cache.clear(),
  }
}
