// A loopback stand-in in front of a real Herald, for the client's tests: it
// counts every request (and the events of each batch), can answer from a
// script before passing requests on, can hold requests until released, and
// can be pointed at another Herald mid-run (a restarted process).
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'forward-then-502'

export interface Seen {
  path: string
  at: number
  idempotencyKey: string | null
  /** The items of a POST /events. */
  events: { message: string; idempotencyKey?: string }[]
}

export function standIn(target: string) {
  const seen: Seen[] = []
  const script: Answer[] = []
  let gate: Promise<void> | undefined
  let open = () => {}
  const state = { target }
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 60,
    async fetch(req) {
      const path = new URL(req.url).pathname
      const body = await req.text()
      const events = path === '/events' ? (JSON.parse(body).events ?? []) : []
      seen.push({ path, at: Date.now(), idempotencyKey: req.headers.get('idempotency-key'), events })
      const answer = script.shift()
      if (answer && answer !== 'forward-then-502') return new Response(answer.body ?? '', { status: answer.status, headers: answer.headers })
      if (gate) await gate
      let res: Response
      try {
        res = await fetch(state.target + path, { method: req.method, headers: req.headers, body })
      } catch {
        return new Response('Herald is down', { status: 502 })
      }
      const text = await res.text()
      // Herald stored the events, but its answer is lost on the way back.
      if (answer === 'forward-then-502') return new Response('bad gateway', { status: 502 })
      return new Response(text, { status: res.status, headers: res.headers })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    seen,
    script,
    state,
    /** Requests wait here (after being counted) until release(). */
    hold() {
      gate = new Promise((resolve) => (open = resolve))
    },
    release() {
      gate = undefined
      open()
    },
    batches: () => seen.filter((s) => s.path === '/events'),
    reset() {
      seen.length = 0
      script.length = 0
    },
    stop: () => server.stop(true),
  }
}

export type StandIn = ReturnType<typeof standIn>
