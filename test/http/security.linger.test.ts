// Answers given before the body was read, over real sockets against a real
// Herald (the server of startHerald, as `herald start` runs it). An answer is
// sent as soon as it is decided (401 from the headers, 413 past the limit);
// the rest of the body is then read and discarded within LINGER_MAX_BYTES and
// LINGER_MAX_MS, and the connection closes (src/http/linger.ts).
//
// Before: a 413 closed the connection at once, body bytes unread, so the
// kernel reset it and Node's http client, still writing its 400 KB chunked
// body, saw ECONNRESET instead of its 413; and a refused body that no handler
// read (any 401) was read and discarded to its end by Bun: 64 MB offered,
// 64 MB taken in.
import { beforeAll, describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { loadConfig } from '../../src/core/config'
import { backends, useTestHerald } from '../harness'

const MB = 1024 * 1024
const PIECE = 64 * 1024
// The defaults of LINGER_MAX_BYTES and LINGER_MAX_MS, which the Herald under test runs with.
const LINGER_BYTES = 512 * 1024
const LINGER_MS = 2000
// What a client may have handed to its socket by the time the server closed:
// the route's limit (at most 4 MiB, POST /events), the drain's bound, and what
// the kernel buffers on both ends of a loopback connection hold.
const TAKEN_AT_MOST = 4 * MB + LINGER_BYTES + 4 * MB
const NODE = Bun.which('node')

interface Outcome {
  /** Every status line the server sent, in order. */
  statuses: number[]
  head: string
  /** Body bytes handed to the socket when the first answer arrived, and when the connection closed. */
  sentAtAnswer: number
  sentAtClose: number
  /** Milliseconds from the first answer to the close. */
  closeAfterMs: number
  /** Whether the server closed the connection (else the client gave up on it). */
  closed: boolean
}

interface Offer {
  total: number
  chunked: boolean
  /** Extra request head lines (credentials, Expect). */
  head?: string[]
  /** Milliseconds between pieces once the answer came: a client that trickles its body. */
  gapAfterAnswerMs?: number
  /** Waits this long for an answer before it sends any body (as a client that waits for 100 Continue). */
  waitBeforeBodyMs?: number
  /** Gives up this long after the first answer (or after everything was sent). */
  patienceMs?: number
}

/**
 * Offers `total` body bytes to `method path`, 64 KiB at a time, with
 * back-pressure, as a client that keeps writing after the answer; counts what
 * the socket took until the server closed the connection.
 */
function offer(port: number, method: string, path: string, o: Offer): Promise<Outcome> {
  const patience = o.patienceMs ?? LINGER_MS + 4000
  return new Promise((resolve) => {
    let received = ''
    let sent = 0
    let sentAtAnswer = -1
    let answeredAt = 0
    let finished = false
    let gaveUp: ReturnType<typeof setTimeout> | undefined
    const socket = connect(port, '127.0.0.1')
    // However the server behaves (never answers, stops reading), the probe ends.
    const deadline = setTimeout(() => finish(false), 20_000)
    const finish = (closed: boolean) => {
      if (finished) return
      finished = true
      clearTimeout(gaveUp)
      clearTimeout(deadline)
      socket.destroy()
      const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]))
      resolve({ statuses, head: received.slice(0, 600), sentAtAnswer, sentAtClose: sent, closeAfterMs: answeredAt ? Date.now() - answeredAt : -1, closed })
    }
    socket.on('data', (d) => {
      received += d.toString('latin1')
      if (!answeredAt && /HTTP\/1\.1 [2-5]\d\d[^\r]*\r\n/.test(received)) {
        answeredAt = Date.now()
        sentAtAnswer = sent
        gaveUp = setTimeout(() => finish(false), patience)
      }
    })
    // A reset, or a write after the close (EPIPE), ends it as surely as a FIN.
    socket.on('error', () => {})
    socket.on('close', () => finish(true))
    const piece = Buffer.alloc(PIECE, 'x')
    piece.write('{"message":"')
    const framed = o.chunked ? Buffer.concat([Buffer.from(PIECE.toString(16) + '\r\n'), piece, Buffer.from('\r\n')]) : piece
    const pump = () => {
      if (finished) return
      if (sent >= o.total) {
        gaveUp ??= setTimeout(() => finish(false), patience)
        return
      }
      sent += PIECE
      const next = () => setTimeout(pump, answeredAt && o.gapAfterAnswerMs ? o.gapAfterAnswerMs : 1)
      if (socket.write(framed)) next()
      else socket.once('drain', next)
    }
    socket.on('connect', () => {
      const framing = o.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${o.total}`
      socket.write([`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', framing, ...(o.head ?? [])].join('\r\n') + '\r\n\r\n')
      setTimeout(pump, o.waitBeforeBodyMs ?? 0)
    })
  })
}

// Node's http client in a node process: it writes the whole body before it
// looks at an answer, the client that saw ECONNRESET.
const NODE_CLIENT = `
const http = require('node:http')
const [port, path, key, size] = process.argv.slice(1)
const req = http.request({ host: '127.0.0.1', port: Number(port), path, method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: 'Bearer ' + key } : {}) } })
req.on('response', (res) => {
  let body = ''
  res.setEncoding('utf8')
  res.on('data', (d) => (body += d))
  res.on('end', () => console.log(JSON.stringify({ status: res.statusCode, connection: res.headers.connection, body })))
})
req.on('error', (e) => console.log(JSON.stringify({ error: e.code })))
const piece = Buffer.alloc(16 * 1024, 'x')
let sent = 0
req.write('{"message":"')
const pump = () => {
  while (sent < Number(size)) {
    sent += piece.length
    if (!req.write(piece)) return req.once('drain', pump)
  }
  req.end('"}')
}
pump()
`

async function nodePost(port: number, path: string, key: string, size: number): Promise<{ status?: number; connection?: string; body?: string; error?: string }> {
  const p = Bun.spawn([NODE!, '-e', NODE_CLIENT, String(port), path, key, String(size)], { stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  if (!out.trim()) throw new Error(`node printed nothing: ${err}`)
  return JSON.parse(out.trim().split('\n').pop()!)
}

/** A path for the route, its parameters filled with a plain value. */
const pathOf = (route: string) => route.replace(/:[^/]+/g, 'x').replace('*', 'x')

for (const backend of backends) {
  describe(`answers before the body: readable, then a bounded drain (${backend})`, () => {
    const h = useTestHerald(backend, {}, 60_000)
    let apiKey: string
    beforeAll(async () => {
      apiKey = (await h.workspace()).apiKey
    })

    test('the bounds under test are the defaults', () => {
      expect(loadConfig({})).toMatchObject({ LINGER_MAX_BYTES: LINGER_BYTES, LINGER_MAX_MS: LINGER_MS })
    })

    test.skipIf(!NODE && process.env.CI !== 'true')('Node\'s http client writing a 400 KB chunked body to POST /event reads its 413 problem', async () => {
      for (let i = 0; i < 3; i++) {
        const out = await nodePost(h.port, '/event', apiKey, 400 * 1024)
        expect(out).toMatchObject({ status: 413, connection: 'close' })
        expect(JSON.parse(out.body!)).toMatchObject({ status: 413, type: expect.stringContaining('payload-too-large') })
      }
      // And its 401, with no key.
      const out = await nodePost(h.port, '/event', '', 400 * 1024)
      expect(out.status).toBe(401)
      expect(JSON.parse(out.body!).status).toBe(401)
    }, 30_000)

    test(`every route, 64 MB offered without credentials, chunked and declared: answered, then closed with at most ${TAKEN_AT_MOST / MB} MB taken in`, async () => {
      const routes = (h.app.routes as { method: string; path: string }[]).map((r) => ({ method: r.method, path: pathOf(r.path) }))
      const framings = [
        { framing: 'chunked', chunked: true },
        // Past Bun's own limit (16 MiB), which answers 413 before any handler.
        { framing: 'Content-Length', chunked: false },
      ]
      const seen: Record<string, unknown>[] = []
      for (const r of routes) {
        for (const f of framings) {
          const out = await offer(h.port, r.method, r.path, { total: 64 * MB, chunked: f.chunked })
          if (!out.closed || out.sentAtClose >= TAKEN_AT_MOST) console.log(JSON.stringify({ route: `${r.method} ${r.path}`, framing: f.framing, ...out }))
          seen.push({ route: `${r.method} ${r.path}`, framing: f.framing, status: out.statuses[0] ?? 0, sentAtAnswer: out.sentAtAnswer, sentAtClose: out.sentAtClose, closed: out.closed })
        }
      }
      const most = seen.reduce((m, s) => Math.max(m, s.sentAtClose as number), 0)
      console.log(JSON.stringify({ backend, probes: seen.length, mostTakenInMB: +(most / MB).toFixed(2) }))
      // Each closed by the server within the bound, and each chunked one
      // answered first (it is the route's answer; Bun's own 413 to a declared
      // 64 MB closes at once, and its reset may drop it: status 0).
      expect(seen.filter((s) => !s.closed || (s.sentAtClose as number) >= TAKEN_AT_MOST)).toEqual([])
      expect(seen.filter((s) => s.framing === 'chunked' && s.status === 0)).toEqual([])
      // A GET with a body is a 400 (Bun reads such a body by itself, where
      // no drain can bound it), or a reset that dropped it.
      expect(seen.filter((s) => (s.route as string).startsWith('GET ') && ![400, 0].includes(s.status as number))).toEqual([])
    }, 240_000)

    test('a client that trickles its body after the answer is cut off within LINGER_MAX_MS', async () => {
      const out = await offer(h.port, 'POST', '/event', { total: 64 * MB, chunked: true, gapAfterAnswerMs: 1000 })
      console.log(JSON.stringify({ backend, trickle: { status: out.statuses[0], sentAtClose: out.sentAtClose, closeAfterMs: out.closeAfterMs } }))
      expect(out.statuses[0]).toBe(401)
      expect(out.closed).toBe(true)
      // Bun's idle timeout (10 s) would end it otherwise.
      expect(out.closeAfterMs).toBeLessThan(LINGER_MS + 3000)
    }, 30_000)

    test('a client that waits for 100 Continue without a key: its 401, then at most the bound taken in', async () => {
      const out = await offer(h.port, 'POST', '/event', { total: 64 * MB, chunked: true, head: ['Expect: 100-continue'], waitBeforeBodyMs: 300 })
      expect(out.statuses).toContain(401)
      expect(out.closed).toBe(true)
      expect(out.sentAtClose).toBeLessThan(TAKEN_AT_MOST)
    }, 30_000)

    // Bun.serve cannot pass this: uWS sends `100 Continue` to every request
    // that expects it before any handler runs (the flag that stops it is set
    // only by Bun's node:http server), so the 100 comes before the 401. The
    // test records it; when it starts to pass, make it a plain test.
    test.failing('no 100 Continue before a 401 (Bun.serve sends it before any handler runs)', async () => {
      const out = await offer(h.port, 'POST', '/event', { total: MB, chunked: false, head: ['Expect: 100-continue'], waitBeforeBodyMs: 1000, patienceMs: 500 })
      expect(out.statuses[0]).toBe(401)
    }, 30_000)
  })
}
