// The caches and the batch writer the delivery worker uses: enabled routers
// per workspace, push targets per channel, and attempt outcomes written in
// batches.
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import type { SecretBox } from '../core/secrets'
import { recordAttempts, type AttemptRecord } from './deliveries'
import { loadRouters, type RouterRecord } from './routers'
import { findPushTargets, type PushTarget } from './push/devices'

/** Enabled routers per workspace, decrypted, for `ttlMs` or until a change is announced. */
export function routerCache(sql: Sql, secrets: SecretBox, ttlMs: number) {
  const cache = new Map<number, { at: number; routers: Promise<RouterRecord[]> }>()
  return {
    get(ws: number): Promise<RouterRecord[]> {
      const hit = cache.get(ws)
      if (hit && Date.now() - hit.at < ttlMs) return hit.routers
      const routers = loadRouters(sql, secrets, ws)
      cache.set(ws, { at: Date.now(), routers })
      routers.catch(() => cache.delete(ws))
      return routers
    },
    forget: (ws: number) => cache.delete(ws),
  }
}

/** Gathers attempt outcomes and writes them in one transaction every few milliseconds. */
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
 * The devices to push for (workspace, channel), for `ttlMs`: a membership,
 * mute or registration takes effect within that time.
 */
export function pushTargetCache(sql: Sql, ttlMs: number) {
  const cache = new Map<string, { at: number; targets: Promise<PushTarget[]> }>()
  return {
    get(ws: number, channel: string): Promise<PushTarget[]> {
      const key = `${ws}/${channel}`
      const hit = cache.get(key)
      if (hit && Date.now() - hit.at < ttlMs) return hit.targets
      if (cache.size > 10_000) cache.clear()
      const targets = findPushTargets(sql, ws, channel)
      cache.set(key, { at: Date.now(), targets })
      targets.catch(() => cache.delete(key))
      return targets
    },
    clear: () => cache.clear(),
  }
}
