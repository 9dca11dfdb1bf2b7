#!/usr/bin/env bun
// The floor of Web Push on this machine: the smallest sender there can be,
// measured beside Herald's figures in bench/push.ts. It does only what every
// Web Push needs (Herald's own encryption, src/delivery/push/ece.ts, the
// fastest of the candidates bench/push_webpush.ts measures, encrypts each
// payload for its subscription; the VAPID header is signed once; Bun's fetch
// posts it over kept-alive connections, --concurrency at a time: over
// HTTP/1.1, or with --http2 over HTTP/2, as Herald posts to a push service
// that speaks it) against the same push service stand-in
// (test/web_push_service.ts, verify: 'sample'), which runs in a child process
// so that its CPU is counted apart. No database, no queue, no SSRF checks, no
// delivery rows: what it reaches, no Herald on this machine can exceed.
// Prints one JSON object.
//
//   npx bun bench/push_floor.ts [--pushes 30000] [--concurrency 64] [--subscriptions 1000] [--http2] [--client fetch|node-http2] [--delay-ms 0]
import { parseArgs } from 'node:util'
import { connect } from 'node:http2'
import type { WebPushSubscription } from '../test/web_push_service'
import { webPushPayload } from '../src/delivery/push/webpush'
import { NOTIFY_DEFAULTS } from '../src/delivery/event_view'
import { encryptPush } from '../src/delivery/push/ece'
import { generateVapidPair, vapidAuthorization } from '../src/delivery/push/vapid'
import { cpuSeconds, machine, round } from './proc'
import { loadavg } from 'node:os'

const { values: flags } = parseArgs({
  options: {
    pushes: { type: 'string', default: '30000' },
    concurrency: { type: 'string', default: '64' },
    subscriptions: { type: 'string', default: '1000' },
    http2: { type: 'boolean', default: false }, // the stand-in speaks HTTP/2 only, and the sender HTTP/2
    client: { type: 'string', default: 'fetch' }, // with --http2: Bun's fetch or a node:http2 session
    'delay-ms': { type: 'string', default: '0' }, // the stand-in answers each push this much later
    'stand-in': { type: 'string' }, // internal: run the stand-in with this VAPID public key
  },
})

if (flags['stand-in']) {
  // The child: the push service, its subscriptions on stdout, then its count on stdin's end.
  const { startPushService } = await import('../test/web_push_service') // only here: importing it makes a certificate
  const service = startPushService({ keep: false, verify: 'sample', vapidPublicKey: flags['stand-in'], http2: flags.http2, delayMs: Number(flags['delay-ms']) })
  await service.ready
  const subs: WebPushSubscription[] = []
  for (let i = 0; i < Number(flags.subscriptions); i++) subs.push(await service.newSubscription({ applicationServerKey: flags['stand-in'] }))
  const { CA_FILE } = await import('../test/stand_ins') // the certificate the stand-in serves, for a sender that verifies it
  process.stdout.write(JSON.stringify({ subs, ca: CA_FILE }) + '\n')
  for await (const _ of Bun.stdin.stream()) {}
  process.stdout.write(JSON.stringify({ count: service.count, problems: service.problems.length, connections: service.connections }) + '\n')
  process.exit(0)
}

const PUSHES = Number(flags.pushes)
const CONCURRENCY = Number(flags.concurrency)
const vapid = generateVapidPair()
const child = Bun.spawn(['bun', import.meta.path, '--stand-in', vapid.publicKey, '--subscriptions', flags.subscriptions!, ...(flags.http2 ? ['--http2'] : []), '--delay-ms', flags['delay-ms']!], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })
const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader()
let buffered = ''
async function line(): Promise<string> {
  for (;;) {
    const at = buffered.indexOf('\n')
    if (at >= 0) {
      const out = buffered.slice(0, at)
      buffered = buffered.slice(at + 1)
      return out
    }
    const { value, done } = await lines.read()
    if (done) throw new Error('the stand-in ended')
    buffered += value
  }
}
const { subs } = JSON.parse(await line()) as { subs: WebPushSubscription[] }
const audience = new URL(subs[0]!.endpoint).origin
const authorization = vapidAuthorization({ ...vapid, subject: 'mailto:bench@example.com', ttlSeconds: 86_400 }, audience)
const payload = Buffer.from(webPushPayload({
  eventId: '019a0000-0000-7000-8000-000000000001', workspace: 'bench', channel: 'alerts', event: 'deploy.done', title: 'Deploy finished',
  message: 'Deploy #1 of api finished on production in 42 s', link: null, tags: [], data: {}, createdAt: new Date().toISOString(), ...NOTIFY_DEFAULTS,
}))
const receivers = subs.map((s) => ({ publicKey: Buffer.from(s.keys.p256dh, 'base64url'), auth: Buffer.from(s.keys.auth, 'base64url') }))

const protocol = flags.http2 ? 'http2' : 'http1.1'
const session = flags.http2 && flags.client === 'node-http2' ? connect(audience, { rejectUnauthorized: false }) : null
/** One POST: Bun's fetch (over its kept-alive HTTP/1.1 connections, or its HTTP/2 session), or a stream of the node:http2 session. */
function post(endpoint: string, headers: Record<string, string>, body: Buffer): Promise<number> {
  if (!session) {
    return fetch(endpoint, { method: 'POST', headers, body, protocol, tls: { rejectUnauthorized: false } } as RequestInit) // the floor: the stand-in's own certificate, on loopback
      .then(async (res) => (await res.arrayBuffer(), res.status))
  }
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': new URL(endpoint).pathname, ...headers })
    let status = 0
    req.on('response', (h) => (status = Number(h[':status'])))
    req.on('data', () => {})
    req.on('end', () => resolve(status))
    req.on('error', reject)
    req.end(body)
  })
}

let next = 0
let failed = 0
async function sender() {
  while (next < PUSHES) {
    const i = next++ % subs.length
    const body = encryptPush(payload, receivers[i]!)
    const headers = { authorization, 'content-encoding': 'aes128gcm', 'content-type': 'application/octet-stream', ttl: '86400', urgency: 'high', topic: 'abc' }
    if ((await post(subs[i]!.endpoint, headers, body)) !== 201) failed++
  }
}
// Warm-up, then the measured run.
const measured = PUSHES
next = 0
await Promise.all(Array.from({ length: CONCURRENCY }, () => sender().catch(() => failed++)))
next = 0
failed = 0
const cpu0 = { sender: cpuSeconds(process.pid), standIn: cpuSeconds(child.pid) }
const t0 = performance.now()
await Promise.all(Array.from({ length: CONCURRENCY }, () => sender().catch(() => failed++)))
const seconds = (performance.now() - t0) / 1000
const cpu = { sender: cpuSeconds(process.pid) - cpu0.sender, standIn: cpuSeconds(child.pid) - cpu0.standIn }
child.stdin.end()
session?.close()
const final = JSON.parse(await line()) as { count: number; problems: number; connections: number }
await child.exited
process.stdout.write(JSON.stringify({
  benchmark: 'push_floor',
  started_at: new Date().toISOString(),
  machine: machine(loadavg()[0]!),
  params: { pushes: measured, concurrency: CONCURRENCY, subscriptions: subs.length, payload_bytes: payload.length, protocol, client: session ? 'node-http2' : 'fetch', delay_ms: Number(flags['delay-ms']) },
  results: {
    pushes_per_s: round(measured / seconds, 0),
    failed,
    stand_in_problems: final.problems,
    stand_in_connections: final.connections, // warm-up included
    cpu_us_per_push: { sender: round((cpu.sender * 1e6) / measured, 0), stand_in: round((cpu.standIn * 1e6) / measured, 0) },
    cores: { sender: round(cpu.sender / seconds, 2), stand_in: round(cpu.standIn / seconds, 2) },
  },
}, null, 2) + '\n')
