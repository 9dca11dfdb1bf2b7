// The load every fault case runs under, and the two checks every case ends
// with: each event that got a 200 is stored exactly once, and was fanned out
// at least once (copies of a delivery share its webhook-id).
import { expect } from 'bun:test'
import postgres from 'postgres'
import { eventually, type Receiver } from '../receiver'

export interface Sample {
  at: number // when the request was sent (epoch ms)
  ms: number // until its answer or its failure
  url: string
  status: number | 'error' // 'error': no HTTP answer (refused, reset)
  retryAfter: string | null
}

export interface LoadReport {
  /** eventId → when its POST was sent (epoch ms), for every 200. */
  acked: Map<string, number>
  samples: Sample[]
  count(status: Sample['status'], from?: number, to?: number): number
}

export interface LoadOptions {
  /** The API processes to post to; request i of a client goes to targets()[(i + client) % n]. */
  targets: () => string[]
  /** API keys, one per workspace; the requests go round them. */
  keys: string[]
  perSecond: number
  clients?: number
}

/**
 * A steady stream of POST /event from several concurrent clients, paced to
 * `perSecond` in total (a client that falls behind does not burst to catch
 * up). Runs until stop() and resolves to what every request got.
 */
export function startLoad(opts: LoadOptions) {
  const clients = opts.clients ?? 16
  const intervalMs = (clients * 1000) / opts.perSecond
  const report: LoadReport = {
    acked: new Map(),
    samples: [],
    count: (status, from = 0, to = Infinity) => report.samples.filter((s) => s.status === status && s.at >= from && s.at < to).length,
  }
  let stopped = false
  let n = 0
  async function client(c: number) {
    let next = Date.now() + (c * intervalMs) / clients
    for (let i = 0; !stopped; i++) {
      const wait = next - Date.now()
      if (wait > 0) await Bun.sleep(wait)
      next = Math.max(next + intervalMs, Date.now() - intervalMs)
      const urls = opts.targets()
      const url = urls[(i + c) % urls.length]!
      const key = opts.keys[n % opts.keys.length]!
      const at = Date.now()
      const sample: Sample = { at, ms: 0, url, status: 'error', retryAfter: null }
      try {
        const res = await fetch(`${url}/event`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ event: 'load.test', message: `load ${n++}`, data: { client: c, i } }),
          signal: AbortSignal.timeout(20_000),
        })
        sample.status = res.status
        sample.retryAfter = res.headers.get('retry-after')
        const body = await res.text()
        if (res.status === 200) report.acked.set((JSON.parse(body) as { eventId: string }).eventId, at)
      } catch {
        // No answer: the event may or may not be stored, and it was not acknowledged.
      }
      sample.ms = Date.now() - at
      report.samples.push(sample)
    }
  }
  const running = Promise.all(Array.from({ length: clients }, (_, c) => client(c)))
  return {
    report,
    async stop(): Promise<LoadReport> {
      stopped = true
      await running
      return report
    },
  }
}

/** Every acknowledged event has exactly one row in `events`, and no id is stored twice. */
export async function expectStoredOnce(databaseUrl: string, ids: string[]) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  try {
    const rows = await sql<{ id: string; n: number }[]>`SELECT id::text, count(*)::int AS n FROM events WHERE id = ANY(${ids}::uuid[]) GROUP BY id`
    const { total, distinct } = (await sql<{ total: number; distinct: number }[]>`SELECT count(*)::int AS total, count(DISTINCT id)::int AS distinct FROM events`)[0]!
    expect(rows.length).toBe(ids.length) // nothing acknowledged was lost
    expect(rows.filter((r) => r.n !== 1)).toEqual([]) // nor stored twice
    expect(distinct).toBe(total)
    return { stored: rows.length, total }
  } finally {
    await sql.end()
  }
}

/** The event a webhook (the default body) carries. */
export const eventIdOf = (r: { body: string }) => (JSON.parse(r.body) as { data: { eventId: string } }).data.eventId

/**
 * Every acknowledged event reached the receiver (at `path`, and from `since`
 * on, when given) at least once, within `ms`; every copy of one event
 * carries one webhook-id.
 * Returns the number of copies beyond the first.
 */
export async function expectFannedOut(rx: Receiver, ids: string[], opts: { path?: string; ms?: number; since?: number } = {}) {
  const mine = () => rx.received.filter((r) => (!opts.path || r.path === opts.path) && r.at >= (opts.since ?? 0))
  const want = new Set(ids)
  await eventually(async () => {
    const got = new Set(mine().map(eventIdOf))
    for (const id of want) if (!got.has(id)) return false
    return true
  }, opts.ms ?? 30_000, `all ${want.size} acknowledged events to reach ${opts.path ?? 'the receiver'}`).catch((err) => {
    const got = new Set(mine().map(eventIdOf))
    throw new Error(`${err.message}: ${[...want].filter((id) => !got.has(id)).length} missing`)
  })
  const webhookIds = new Map<string, Set<string>>()
  let copies = 0
  for (const r of mine()) {
    const e = eventIdOf(r)
    if (!want.has(e)) continue // committed but answered 503 (the answer was lost): allowed, not counted
    copies++
    webhookIds.set(e, (webhookIds.get(e) ?? new Set()).add(r.headers['webhook-id']!))
  }
  expect([...webhookIds.values()].filter((s) => s.size !== 1)).toEqual([])
  return { duplicates: copies - want.size }
}

/** The two checks every fault case ends with. */
export async function expectDurableAndDelivered(databaseUrl: string, report: LoadReport, rx: Receiver, opts: { path?: string; ms?: number } = {}) {
  const ids = [...report.acked.keys()]
  expect(ids.length).toBeGreaterThan(0)
  const stored = await expectStoredOnce(databaseUrl, ids)
  const fanned = await expectFannedOut(rx, ids, opts)
  return { acked: ids.length, ...stored, ...fanned }
}

/** How many samples got each status: {"200": 812, "503": 95}. */
export const statuses = (samples: Sample[]) => {
  const out: Record<string, number> = {}
  for (const s of samples) out[s.status] = (out[s.status] ?? 0) + 1
  return out
}

/** Percentile `p` (0–100) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}

/** When the receiver first got each event. */
export function firstSeen(rx: Receiver): Map<string, number> {
  const out = new Map<string, number>()
  for (const r of rx.received) {
    const id = eventIdOf(r)
    out.set(id, Math.min(out.get(id) ?? Infinity, r.at))
  }
  return out
}
