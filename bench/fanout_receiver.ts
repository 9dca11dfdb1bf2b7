#!/usr/bin/env bun
// The webhook receiver of the fan-out benchmark, in a child process of its own,
// so that its CPU time is its own and it does not steal the event loop of the
// load generator. Run directly (`bun bench/fanout_receiver.ts`), this file is
// the child; bench/fanout.ts imports `startReceiver`, which spawns it and
// collects its receipts.
import { join } from 'node:path'
import { now, type Harness } from './harness'

// ---------------------------------------------------------------- the child

/**
 * Answers every webhook 200 and reports each receipt on stdout as
 * `R <receipt ms> <data.eventId> <webhook-id>`, in small batches, after a
 * first line `PORT <port>`.
 */
function receiver() {
  let out: string[] = []
  const flush = () => {
    if (out.length) process.stdout.write(out.join(''))
    out = []
  }
  setInterval(flush, 5)
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const t = now()
      const webhookId = req.headers.get('webhook-id') ?? '-'
      let eventId = '-'
      try {
        const body = (await req.json()) as { type?: string; data?: { eventId?: string; events?: { eventId: string }[] } }
        // A digest (--router digest): one receipt per event it carries.
        if (body.type === 'events.digest') {
          body.data!.events!.forEach((e, i) => out.push(`R ${t.toFixed(3)} ${e.eventId} ${webhookId}/${i}\n`))
          return new Response('ok')
        }
        eventId = body.data?.eventId ?? '-'
      } catch {}
      out.push(`R ${t.toFixed(3)} ${eventId} ${webhookId}\n`)
      return new Response('ok')
    },
  })
  process.stdout.write(`PORT ${server.port}\n`)
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => (flush(), process.exit(0)))
}

if (import.meta.main) receiver()

// ---------------------------------------------------------------- the parent's side

export interface Receipts {
  first: Map<string, number> // eventId → first receipt time
  times: number[] // every receipt time of a new event, in arrival order
  webhookIds: Set<string>
  duplicates: number // the same webhook-id again
  eventDuplicates: number // the same event under another webhook-id
  unparsable: number
}

/** Starts the receiver child and collects its receipt lines. */
export async function startReceiver(h: Harness, logPath: string) {
  const r: Receipts = { first: new Map(), times: [], webhookIds: new Set(), duplicates: 0, eventDuplicates: 0, unparsable: 0 }
  let port = 0
  const child = await h.spawnTalker('the receiver', [join(import.meta.dir, 'fanout_receiver.ts')], logPath, (line) => {
    if (line.startsWith('R ')) {
      const [, t, eventId, webhookId] = line.split(' ')
      if (!eventId || eventId === '-' || !webhookId) {
        r.unparsable++
        return
      }
      const seen = r.webhookIds.has(webhookId)
      if (seen) r.duplicates++
      else r.webhookIds.add(webhookId)
      if (r.first.has(eventId)) {
        if (!seen) r.eventDuplicates++
        return
      }
      const at = Number(t)
      r.first.set(eventId, at)
      r.times.push(at)
    } else if (line.startsWith('PORT ')) {
      port = Number(line.slice(5))
      return true
    }
  })
  return { proc: child.proc, port, receipts: r, stop: child.stop }
}
