// A real HTTP/1.1 receiver on loopback for delivery tests: it records every
// request and answers with whatever the test sets, which it may change mid-run.
export interface Received {
  at: number
  method: string
  path: string
  headers: Record<string, string>
  body: string
}

export interface Receiver {
  url: string
  received: Received[]
  /** The next answers, in order; once used up, `fallback` answers. */
  script: { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }[]
  fallback: { status: number; headers?: Record<string, string>; body?: string; delayMs?: number }
  /** Resolves once `n` requests have arrived (or rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<Received[]>
  stop(): void
}

/** Starts a receiver on a free port, or on `port` (the same receiver back after a stop: connections were refused meanwhile). */
export function startReceiver(port = 0): Receiver {
  const r: Receiver = {
    url: '',
    received: [],
    script: [],
    fallback: { status: 200, body: 'ok' },
    async waitFor(n, ms = 15_000) {
      const end = Date.now() + ms
      while (r.received.length < n) {
        if (Date.now() > end) throw new Error(`receiver got ${r.received.length} of ${n} requests in ${ms} ms`)
        await Bun.sleep(10)
      }
      return r.received
    },
    stop: () => server.stop(true),
  }
  const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url)
      r.received.push({ at: Date.now(), method: req.method, path: url.pathname + url.search, headers: Object.fromEntries(req.headers), body: await req.text() })
      const answer = r.script.shift() ?? r.fallback
      if (answer.delayMs) await Bun.sleep(answer.delayMs)
      return new Response(answer.body ?? '', { status: answer.status, headers: answer.headers })
    },
  })
  r.url = `http://127.0.0.1:${server.port}`
  return r
}

/** Polls `f` until it returns a truthy value. */
export async function eventually<T>(f: () => Promise<T | undefined | null | false>, ms = 15_000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await f()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await Bun.sleep(25)
  }
}
