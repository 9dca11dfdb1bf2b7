// How the benchmarks that run Herald on JetStream send their events: one
// POST /event at a time, and open loop, where each event goes when the
// schedule says, whatever the answers do. A closed loop would slow down with
// Herald and hide a growing backlog.
import { join } from 'node:path'
import { fail, now, type Harness } from './harness'

/** How often an open loop looks at its schedule. */
export const TICK_MS = 10

export interface Posted {
  eventId: string | null
  t: number // when fetch was called
  okAt: number
  status: number // 0: no answer
  error: string // '' on a 200, else the status and the start of the body, or why there was no answer
}

/** One POST /event; never throws. */
export async function postEvent(url: string, apiKey: string, body: string): Promise<Posted> {
  const t = now()
  try {
    const res = await fetch(url, {
      method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(10_000),
    })
    const text = await res.text()
    const okAt = now()
    if (res.status !== 200) return { eventId: null, t, okAt, status: res.status, error: `${res.status} ${text.slice(0, 200)}` }
    return { eventId: (JSON.parse(text) as { eventId: string }).eventId, t, okAt, status: 200, error: '' }
  } catch (err) {
    return { eventId: null, t, okAt: now(), status: 0, error: String((err as Error).message ?? err) }
  }
}

/**
 * Every TICK_MS, `send(slot)` for each of the `total` slots the schedule
 * (`rate` per second from `t0`, the first `lead` at once) says is due.
 * Resolves once every slot is due; stopped on cleanup at the latest.
 */
export function openLoop(h: Harness, t0: number, rate: number, total: number, send: (slot: number) => void, lead = 0) {
  return new Promise<void>((resolveDone) => {
    let slots = 0
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((now() - t0) * rate) / 1000) + lead)
      while (slots < due) send(slots++)
      if (slots >= total) {
        clearInterval(timer)
        resolveDone()
      }
    }, TICK_MS)
    h.cleanups.push(() => clearInterval(timer))
  })
}

export interface Send {
  t: number // when fetch was called
  okAt: number // when the 200 arrived; 0 otherwise
  measured: boolean
}

/**
 * `rate` events per second open loop for `warmupS` + `durationS` s, to `urls`
 * and with `keys` in turn, skipping a slot when `inflightLimit` requests are
 * already waiting. `sends` has every accepted event; `stats` counts the rest.
 */
export function generator(h: Harness, urls: string[], keys: string[], body: string, rate: number, warmupS: number, durationS: number, inflightLimit: number) {
  const total = Math.round(rate * (warmupS + durationS))
  const firstMeasured = Math.round(rate * warmupS)
  const sends = new Map<string, Send>() // eventId → send
  const s = {
    sent: 0, accepted: 0, maxInflight: 0,
    skipped: { warmup: 0, measured: 0 }, non2xx: {} as Record<string, number>, networkErrors: 0, errorSamples: [] as string[],
    ingestMs: [] as number[], // measured window only
    acceptedMeasured: 0, sentMeasured: 0,
  }
  const inflight = new Set<Promise<void>>()
  const send = (slot: number) => {
    const measured = slot >= firstMeasured
    if (inflight.size >= inflightLimit) {
      if (measured) s.skipped.measured++
      else s.skipped.warmup++
      return
    }
    s.sent++
    if (measured) s.sentMeasured++
    const task = postEvent(urls[slot % urls.length]!, keys[slot % keys.length]!, body).then((p) => {
      if (p.eventId) {
        sends.set(p.eventId, { t: p.t, okAt: p.okAt, measured })
        s.accepted++
        if (measured) {
          s.acceptedMeasured++
          s.ingestMs.push(p.okAt - p.t)
        }
        return
      }
      if (p.status) s.non2xx[p.status] = (s.non2xx[p.status] ?? 0) + 1
      else s.networkErrors++
      if (s.errorSamples.length < 5) s.errorSamples.push(p.error)
    })
    inflight.add(task)
    s.maxInflight = Math.max(s.maxInflight, inflight.size)
    task.finally(() => inflight.delete(task))
  }
  const t0 = now()
  // Done once every slot is due and every request has its answer.
  const done = openLoop(h, t0, rate, total, send).then(() => Promise.all(inflight))
  return { t0, stats: s, sends, done, measureStart: t0 + warmupS * 1000, measureEnd: t0 + (warmupS + durationS) * 1000 }
}

/** What bench/ingest.lua's done() reports of a wrk run; latencies in µs. */
export interface WrkResult {
  duration_us: number
  requests: number
  bytes: number
  /** Batches only: events with an eventId, and events with a problem, in the 200 answers. */
  items_ok: number
  items_refused: number
  errors: { connect: number; read: number; write: number; status: number; timeout: number }
  latency_us: { min: number; mean: number; max: number; stdev: number; p50: number; p90: number; p99: number; p999: number }
}

/**
 * wrk driving POST /event (or POST /events of `events` copies) at `url` for
 * `seconds`, with the API keys of `keysFile` in rotation (bench/ingest.lua);
 * its report and the CPU seconds wrk itself used.
 */
export async function runWrk(o: { url: string; seconds: number; keysFile: string; threads: number; connections: number; events?: number }): Promise<WrkResult & { cpu_s: number }> {
  const args = ['wrk', `-t${o.threads}`, `-c${Math.max(o.threads, o.connections)}`, `-d${o.seconds}s`, '--timeout', '10s',
    '-s', join(import.meta.dir, 'ingest.lua'), o.url, '--', o.keysFile, ...(o.events ? [String(o.events)] : [])]
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '))
  if (code !== 0 || !line) fail(`wrk failed (exit ${code}):\n${out}\n${err}`)
  const cpuUs = Number(proc.resourceUsage()?.cpuTime.total ?? 0)
  return { ...(JSON.parse(line.slice('WRK_JSON '.length)) as WrkResult), cpu_s: cpuUs / 1e6 }
}
