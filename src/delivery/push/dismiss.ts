// Closing, on a member's other devices, the notifications of events they read
// elsewhere (POST …/feed/read queues a push_dismissals row, sql/0021). The
// worker's loop claims the queued rows FOR UPDATE SKIP LOCKED and deletes
// them in the same statement, so one instance sends each once; then it sends
// a Web Push "dismiss" message (src/web/sw.ts closes the notifications with
// those tags) to each of the member's browsers. Best effort: no delivery
// rows, no retries; a row older than STALE_MS is dropped unsent. APNs and FCM
// get nothing (docs/push.md says why).
import type { Sql } from '../../core/db'
import type { Logger } from '../../core/log'
import type { OutboundOptions } from '../outbound'
import type { PushTarget, WebPushConfig } from './job'
import { sendWebPushMessage } from './webpush'

// A notification read more than a minute ago on another device has most
// likely been seen (or cleared) here too; a backlog is not worth sending.
const STALE_MS = 60_000
const CLAIM = 100

interface Claimed {
  workspace: string
  userId: string
  tags: string[]
  createdAt: Date
}

/** Takes (and deletes) up to CLAIM queued dismissals: each goes to one instance only. */
export const claimDismissals = (sql: Sql) => sql<Claimed[]>`
  WITH taken AS (
    DELETE FROM push_dismissals WHERE id IN (SELECT id FROM push_dismissals ORDER BY id LIMIT ${CLAIM} FOR UPDATE SKIP LOCKED)
    RETURNING workspace_id, user_id, tags, created_at)
  SELECT w.name AS workspace, t.user_id AS "userId", t.tags, t.created_at AS "createdAt" FROM taken t JOIN workspaces w ON w.id = t.workspace_id`

const webPushDevices = (sql: Sql, userIds: string[]) => sql<(PushTarget & { userId: string })[]>`
  SELECT id, provider, token, environment, topic, p256dh, auth, user_id AS "userId" FROM devices
  WHERE user_id = ANY(${userIds}::uuid[]) AND provider = 'webpush'`

/** Sends what is queued, once; the number of messages sent. */
export async function sendDismissals(sql: Sql, webpush: WebPushConfig, outbound: OutboundOptions, log: Logger, now = Date.now()): Promise<number> {
  const rows = (await claimDismissals(sql)).filter((r) => now - r.createdAt.getTime() < STALE_MS)
  if (!rows.length) return 0
  const devices = await webPushDevices(sql, [...new Set(rows.map((r) => r.userId))])
  const sends = rows.flatMap((r) =>
    devices.filter((d) => d.userId === r.userId).map((d) => sendWebPushMessage(d, { v: 1, type: 'dismiss', workspace: r.workspace, tags: r.tags.slice(0, 100) }, webpush, outbound)),
  )
  const results = await Promise.all(sends.map((s) => s.catch((err: Error) => ({ ok: false, gone: false, error: err.message }))))
  const failed = results.filter((r) => !r.ok)
  if (failed.length) log.debug({ failed: failed.length, error: failed[0]!.error }, 'dismiss pushes not sent (best effort)')
  return results.length - failed.length
}

/** Runs sendDismissals every `intervalMs`, or at once when woken (a 'read' change heard), until stop(). */
export function startDismissals(deps: { sql: Sql; webpush: WebPushConfig | undefined; outbound: OutboundOptions; log: Logger; intervalMs: number }) {
  let stopped = false
  let wake: (() => void) | null = null
  const loop = (async () => {
    while (!stopped) {
      if (deps.webpush) await sendDismissals(deps.sql, deps.webpush, deps.outbound, deps.log).catch((err) => deps.log.warn({ err }, 'dismiss pushes: could not claim'))
      await new Promise<void>((res) => {
        const t = setTimeout(res, deps.intervalMs)
        wake = () => (clearTimeout(t), res())
      })
      wake = null
    }
  })()
  return {
    wake: () => wake?.(),
    async stop() {
      stopped = true
      wake?.()
      await loop
    },
  }
}
