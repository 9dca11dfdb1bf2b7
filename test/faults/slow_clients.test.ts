// Slow and idle clients against a real Herald process, over real sockets.
// Slowloris: a client that sends its headers a byte at a time, or its body a
// byte at a time, is cut off; Bun's idle timeout (10 s, which data trickling
// in does not reset) bounds both. And 10,000 idle keep-alive connections cost
// a bounded amount of memory, do not slow a new request down, and are closed
// by the idle timeout.
import { beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { describePg } from '../harness'
import type { HeraldProcess } from '../processes'
import { eventually } from '../receiver'
import { caseDatabase, cleanups, figures, spawn, workspaces } from './fixture'

const IDLE_TIMEOUT_MS = 10_000 // Bun.serve's default idleTimeout, which Herald keeps
const CONNECTIONS = 10_000

const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024
const MB = 1024 * 1024

/** Raises the open-file limit of process `pid` to at least `n` (prlimit; root may raise the hard limit too). */
async function ensureOpenFiles(pid: number, n: number) {
  const [, soft, hard] = /Max open files\s+(\d+)\s+(\d+)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))!.map(Number) as [number, number, number]
  if (soft >= n) return
  const p = Bun.spawn(['prlimit', '--pid', String(pid), `--nofile=${n}:${Math.max(n, hard)}`], { stderr: 'pipe' })
  if ((await p.exited) !== 0) throw new Error(`cannot raise the open-file limit of ${pid} to ${n}: ${await new Response(p.stderr).text()}`)
}

interface Probe {
  closedAt: number // 0 while open
  received: string
}

/** Opens a connection and sends `chunks`, one every `gapMs`, until the server closes it. */
async function dribble(port: number, chunks: string[], gapMs: number): Promise<Probe & { sent: number; ms: number }> {
  const probe: Probe = { closedAt: 0, received: '' }
  const t0 = Date.now()
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: { data: (_s, d) => void (probe.received += d.toString()), close: () => void (probe.closedAt ||= Date.now()), error: () => {} },
  })
  let sent = 0
  for (const c of chunks) {
    if (probe.closedAt) break
    socket.write(c)
    sent++
    await Bun.sleep(gapMs)
  }
  socket.end()
  return { ...probe, sent, ms: (probe.closedAt || Date.now()) - t0 }
}

describePg('fault: slow and idle clients', () => {
  const c = cleanups()
  let herald: HeraldProcess
  let port: number
  let apiKey: string
  beforeAll(async () => {
    const db = await caseDatabase(c)
    herald = await spawn(c, { DATABASE_URL: db.url }, 'serve')
    port = Number(new URL(herald.url).port)
    apiKey = (await workspaces(herald.url, 1, []))[0]!.apiKey
  })

  test('slowloris: headers or a body sent a byte at a time are cut off by the idle timeout', async () => {
    const headers = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(200)}\r\n\r\n`
    const body = JSON.stringify({ message: 'x'.repeat(500) })
    const head = `POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    const chunked = `POST /event HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`
    const probes = dribble(port, [...headers], 250) // 250 bytes over a minute, at 4 bytes/s
    const bodies = dribble(port, [head, ...body], 250) // the body over two minutes
    const chunks = dribble(port, [chunked, ...[...body].map((ch) => `1\r\n${ch}\r\n`)], 250)
    // Meanwhile Herald answers everyone else at once.
    await Bun.sleep(1000)
    const t = Date.now()
    expect((await fetch(`${herald.url}/healthz`)).status).toBe(200)
    const otherMs = Date.now() - t
    const [h, b, k] = await Promise.all([probes, bodies, chunks])
    for (const p of [h, b, k]) {
      expect(p.closedAt).toBeGreaterThan(0) // cut off by the server
      expect(p.ms).toBeLessThan(IDLE_TIMEOUT_MS + 10_000) // Bun checks its timeouts every few seconds
      expect(p.received).not.toContain('HTTP/1.1 200') // never served
    }
    expect(h.sent).toBeLessThan(headers.length)
    expect(b.sent).toBeLessThan(body.length + 1)
    expect(k.sent).toBeLessThan(body.length + 1)
    expect(otherMs).toBeLessThan(500)
    figures('slowloris', { headersCutAfterMs: h.ms, bodyCutAfterMs: b.ms, chunkedBodyCutAfterMs: k.ms, answers: [h, b, k].map((p) => p.received.split('\r\n')[0] || '(closed)'), otherRequestMs: otherMs })
  }, 60_000)

  test(`${CONNECTIONS} idle keep-alive connections: bounded memory, a new request still answered at once, closed by the idle timeout`, async () => {
    await ensureOpenFiles(process.pid, CONNECTIONS + 2_000)
    await ensureOpenFiles(herald.pid, CONNECTIONS + 2_000)
    for (let i = 0; i < 50; i++) await (await fetch(`${herald.url}/healthz`)).text() // warm
    const before = rssBytes(herald.pid)
    const request = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'
    let answered = 0
    let closed = 0
    const sockets: { end(): void }[] = []
    const handlers = {
      data(_s: unknown, d: Buffer) {
        if (d.includes('\r\n\r\n')) answered++
      },
      close() {
        closed++
      },
      error() {},
    }
    const openedAt = Date.now()
    for (let i = 0; i < CONNECTIONS; i += 500) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(500, CONNECTIONS - i) }, () => Bun.connect({ hostname: '127.0.0.1', port, socket: handlers })),
      )
      for (const s of batch) s.write(request)
      sockets.push(...batch)
      await eventually(async () => answered >= sockets.length, 30_000, `answers on ${sockets.length} connections`)
    }
    const openMs = Date.now() - openedAt
    try {
      expect(closed).toBe(0)
      const rss = rssBytes(herald.pid)
      const t = Date.now()
      const res = await fetch(`${herald.url}/event`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'with 10,000 idle connections open' }),
      })
      const newRequestMs = Date.now() - t
      expect(res.status).toBe(200)
      expect(newRequestMs).toBeLessThan(1000)
      expect(rss - before).toBeLessThan(150 * MB)
      // The idle timeout closes them all: 10 s, plus Bun's timer granularity.
      await eventually(async () => closed >= CONNECTIONS, IDLE_TIMEOUT_MS + 20_000, `the server to close ${CONNECTIONS} idle connections`)
      const closedMs = Date.now() - openedAt - openMs
      figures('idle connections', {
        connections: CONNECTIONS, openMs, rssBeforeMB: Math.round(before / MB), rssWithConnectionsMB: Math.round(rss / MB),
        growthMB: Math.round((rss - before) / MB), newRequestMs, allClosedAfterMs: closedMs, rssAfterCloseMB: Math.round(rssBytes(herald.pid) / MB),
      })
    } finally {
      for (const s of sockets) s.end()
    }
  }, 90_000)
})
