#!/usr/bin/env bun
// Herald's Web Push sender alone: sendWebPush (payload, encryption, VAPID
// header, the SSRF-checked outbound request, the outcome) called in a loop,
// 64 at a time, with no pipeline around it, against the push service
// stand-in in a child process (as bench/push_floor.ts runs it). It tells
// what Herald's sending costs per push beside the floor's, and it is the
// process to profile:
//
//   npx bun bench/push_sender.ts [--pushes 30000] [--concurrency 64] [--subscriptions 1000] [--http2] [--connections 32] [--delay-ms 0]
//   BENCH_BUN_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npx bun bench/push_sender.ts
//
// The sender runs in a process of its own, started with NODE_EXTRA_CA_CERTS
// naming the stand-in's certificate, as Herald is. Prints one JSON object.
import { parseArgs } from 'node:util'
import { loadavg, tmpdir } from 'node:os'
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { WebPushSubscription } from '../test/web_push_service'
import { sendWebPush } from '../src/delivery/push/webpush'
import { generateVapidPair } from '../src/delivery/push/vapid'
import { NOTIFY_DEFAULTS, type EventView } from '../src/delivery/event_view'
import type { PushJob } from '../src/delivery/push/job'
import { cpuSeconds, machine, round } from './proc'

const { values: flags } = parseArgs({
  options: {
    pushes: { type: 'string', default: '30000' },
    concurrency: { type: 'string', default: '64' },
    subscriptions: { type: 'string', default: '1000' },
    http2: { type: 'boolean', default: false }, // the stand-in speaks HTTP/2 only (else HTTP/1.1 only)
    connections: { type: 'string', default: '32' }, // WEB_PUSH_CONNECTIONS_PER_ORIGIN (this process is one thread)
    'delay-ms': { type: 'string', default: '0' }, // the stand-in answers each push this much later
    sender: { type: 'string' }, // internal: be the sender, with the subscriptions in this file
  },
})
const PUSHES = Number(flags.pushes)
const CONCURRENCY = Number(flags.concurrency)

/** Lines of a child's stdout, one at a time. */
function lines(stream: ReadableStream<Uint8Array<ArrayBuffer>>) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ''
  return async (): Promise<string> => {
    for (;;) {
      const at = buffered.indexOf('\n')
      if (at >= 0) {
        const out = buffered.slice(0, at)
        buffered = buffered.slice(at + 1)
        return out
      }
      const { value, done } = await reader.read()
      if (done) throw new Error('the child ended')
      buffered += value
    }
  }
}

if (flags.sender) {
  const { subs, vapid } = JSON.parse(readFileSync(flags.sender, 'utf8')) as { subs: WebPushSubscription[]; vapid: { publicKey: string; privateKey: string } }
  const event: EventView = {
    eventId: '019a0000-0000-7000-8000-000000000001', workspace: 'bench', channel: 'alerts', event: 'deploy.done', title: 'Deploy finished',
    message: 'Deploy #1 of api finished on production in 42 s', link: null, tags: [], data: {}, createdAt: new Date().toISOString(), ...NOTIFY_DEFAULTS,
  }
  const webpush = { ...vapid, subject: 'mailto:bench@example.com', ttlSeconds: 86_400, connectionsPerOrigin: Number(flags.connections) }
  const outbound = { allow: ['127.0.0.1/32'], timeoutMs: 10_000, maxResponseBytes: 64 * 1024 }
  const job = (i: number): PushJob => ({
    deliveryId: '019a0000-0000-8000-8000-000000000001', attempt: 1, event, webpush, timeoutMs: 10_000,
    device: { id: String(i), provider: 'webpush', token: subs[i]!.endpoint, environment: 'production', topic: null, p256dh: subs[i]!.keys.p256dh, auth: subs[i]!.keys.auth },
  })
  let next = 0
  let failed = 0
  let error = ''
  const sender = async () => {
    while (next < PUSHES) {
      const r = await sendWebPush(job(next++ % subs.length), outbound)
      if (!r.ok) (failed++, (error ||= r.error ?? ''))
    }
  }
  const go = () => Promise.all(Array.from({ length: CONCURRENCY }, sender))
  await go() // warm-up: JIT, connections, the VAPID header
  next = failed = 0
  process.stdout.write('start\n')
  const cpu0 = cpuSeconds(process.pid)
  const t0 = performance.now()
  await go()
  const seconds = (performance.now() - t0) / 1000
  const cpu = cpuSeconds(process.pid) - cpu0
  process.stdout.write(JSON.stringify({ seconds, cpu, failed, error }) + '\n')
  process.exit(0)
}

const vapid = generateVapidPair()
const standIn = Bun.spawn(['bun', `${import.meta.dir}/push_floor.ts`, '--stand-in', vapid.publicKey, '--subscriptions', flags.subscriptions!, ...(flags.http2 ? ['--http2'] : []), '--delay-ms', flags['delay-ms']!], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })
const fromStandIn = lines(standIn.stdout)
const { subs, ca } = JSON.parse(await fromStandIn()) as { subs: WebPushSubscription[]; ca: string }
const dir = mkdtempSync(join(tmpdir(), 'herald-bench-sender-'))
writeFileSync(join(dir, 'subs.json'), JSON.stringify({ subs, vapid }))
const flagsOfBun = (process.env.BENCH_BUN_FLAGS ?? '').split(' ').filter(Boolean)
const child = Bun.spawn(['bun', ...flagsOfBun, import.meta.path, '--sender', join(dir, 'subs.json'), '--pushes', String(PUSHES), '--concurrency', String(CONCURRENCY), '--connections', flags.connections!], {
  env: { ...process.env, NODE_EXTRA_CA_CERTS: ca }, stdout: 'pipe', stderr: 'inherit',
})
const fromSender = lines(child.stdout)
if ((await fromSender()) !== 'start') throw new Error('the sender did not start')
const standIn0 = cpuSeconds(standIn.pid)
const done = JSON.parse(await fromSender()) as { seconds: number; cpu: number; failed: number; error: string }
const standInCpu = cpuSeconds(standIn.pid) - standIn0
await child.exited
standIn.stdin.end()
const final = JSON.parse(await fromStandIn()) as { count: number; problems: number; connections: number }
await standIn.exited
rmSync(dir, { recursive: true, force: true })
process.stdout.write(JSON.stringify({
  benchmark: 'push_sender',
  started_at: new Date().toISOString(),
  machine: machine(loadavg()[0]!),
  params: {
    pushes: PUSHES, concurrency: CONCURRENCY, subscriptions: subs.length, bun_flags: flagsOfBun.join(' '),
    stand_in: flags.http2 ? 'http2' : 'http1.1', connections_per_origin: Number(flags.connections), delay_ms: Number(flags['delay-ms']),
  },
  results: {
    pushes_per_s: round(PUSHES / done.seconds, 0),
    failed: done.failed,
    ...(done.error ? { first_error: done.error } : {}),
    stand_in_problems: final.problems,
    stand_in_connections: final.connections, // warm-up included
    cpu_us_per_push: { sender: round((done.cpu * 1e6) / PUSHES, 0), stand_in: round((standInCpu * 1e6) / PUSHES, 0) },
  },
}, null, 2) + '\n')
