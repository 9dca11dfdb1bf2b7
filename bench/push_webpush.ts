// What the push benchmark adds for Web Push: the VAPID key pair it gives
// both Herald and the push service stand-in, the encryption measured alone
// (what every push costs before it is sent), and the Web Push part of the
// report: pushes/s, whether they reach the target, and CPU per push with the
// encryption's share of it.
import webpush from 'web-push'
import { createECDH, randomBytes } from 'node:crypto'
import type { EventView } from '../src/delivery/event_view'
import type { WebPushConfig } from '../src/delivery/push/job'
import { webPushPayload } from '../src/delivery/push/webpush'
import { vapidAuthorization } from '../src/delivery/push/vapid'
import { now } from './harness'
import { round } from './proc'

// A contact the config accepts: without one Herald warns at start, and the
// report counts warn-level log lines.
const SUBJECT = 'mailto:bench@example.com'
const TTL_S = 86_400 // WEB_PUSH_TTL_S's default
// The CPU of these processes per push is what the Web Push report shows (the
// benchmark's own is left out: it posts events and reads counts).
const CPU_GROUPS = ['herald_worker', 'herald_serve', 'postgres_backends', 'nats_server', 'stand_ins'] as const

export type VapidPair = { publicKey: string; privateKey: string }

/** A fresh VAPID pair, and the environment that gives it to Herald. */
export function vapidPair() {
  const pair: VapidPair = webpush.generateVAPIDKeys()
  return { pair, heraldEnv: { WEB_PUSH_VAPID_PUBLIC_KEY: pair.publicKey, WEB_PUSH_VAPID_PRIVATE_KEY: pair.privateKey, WEB_PUSH_SUBJECT: SUBJECT } }
}

/** Calls `f` for at least `ms`; µs of wall time and of this process's CPU per call. */
function perCall(f: () => unknown, ms: number) {
  for (let i = 0; i < 200; i++) f() // JIT
  const c0 = process.cpuUsage()
  const t0 = now()
  let n = 0
  while (now() - t0 < ms) {
    for (let i = 0; i < 100; i++) f()
    n += 100
  }
  const cpu = process.cpuUsage(c0)
  return { calls: n, wall_us: round(((now() - t0) * 1000) / n, 1), cpu_us: round((cpu.user + cpu.system) / n, 1) }
}

/**
 * µs per `webpush.generateRequestDetails` as sendWebPush calls it (the
 * VAPID header already signed for the origin, so the encryption is all that
 * is left: a P-256 key pair, an ECDH, HKDF and AES-128-GCM), for an event
 * like the benchmark's (bench/push.ts posts it to `channel`), in this process
 * and on its main thread; and its two elliptic-curve steps alone. Run before
 * Herald starts, on a quieter machine.
 */
export function measureEncryption(pair: VapidPair, channel: string, ms = 1500) {
  const event: EventView = {
    eventId: '019a0000-0000-7000-8000-000000000000', workspace: 'bench-push', channel, event: null, title: 'Deploy finished',
    message: 'Deploy #12 of api finished on production in 42 s', link: null, tags: [], data: null, createdAt: new Date().toISOString(),
  }
  const config: WebPushConfig = { ...pair, subject: SUBJECT, ttlSeconds: TTL_S }
  const origin = 'https://push.example.net'
  const browser = createECDH('prime256v1')
  const keys = { p256dh: browser.generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') }
  const request = () => webpush.generateRequestDetails({ endpoint: `${origin}/push/bench`, keys }, webPushPayload(event), {
    vapidDetails: null as unknown as undefined,
    headers: { Authorization: vapidAuthorization(config, origin) },
    TTL: TTL_S,
    urgency: 'high',
    topic: event.eventId.replaceAll('-', ''),
  })
  const sender = createECDH('prime256v1')
  sender.generateKeys()
  const uaPublic = Buffer.from(keys.p256dh, 'base64url')
  const whole = perCall(request, ms)
  const keyPair = perCall(() => createECDH('prime256v1').generateKeys(), ms / 3)
  const ecdh = perCall(() => sender.computeSecret(uaPublic), ms / 3)
  return {
    rule: 'per webpush.generateRequestDetails as sendWebPush makes it (VAPID header cached per origin), on one thread of the benchmark process before Herald starts; parts: createECDH().generateKeys() and computeSecret() alone',
    payload_bytes: Buffer.byteLength(webPushPayload(event)),
    body_bytes: (request().body as Uint8Array).length,
    us_per_push: whole.cpu_us,
    wall_us_per_push: whole.wall_us,
    calls: whole.calls,
    parts_us: {
      ephemeral_key_pair: keyPair.cpu_us,
      ecdh_shared_secret: ecdh.cpu_us,
      rest: round(whole.cpu_us - keyPair.cpu_us - ecdh.cpu_us, 1), // HKDF (6 HMACs), AES-128-GCM, headers, base64url
    },
  }
}
export type Encryption = ReturnType<typeof measureEncryption>

/** `*_us_per_push` of the report's groups, from one cpu record. */
const perPush = (cpu: Record<string, number>) => Object.fromEntries(CPU_GROUPS.map((g) => [g, cpu[`${g}_us_per_push`]!]))

interface WebPushInputs {
  devices: number // Web Push devices
  only: boolean // every device is Web Push: CPU per push is CPU per Web Push
  target: number
  bursts: { webpush_pushes_per_s?: number; cpu: unknown }[]
  stream: { webpush_pushes_per_s?: number; webpush_offered_pushes_per_s?: number; cpu: Record<string, number> } | null
  streamKeepsUp: (rate: number, offered: number) => boolean
  encryption: Encryption | null
}

/**
 * The Web Push part of the report: its pushes/s per burst and in the stream
 * against its target; CPU per push by process, and the encryption's share of
 * the worker's (only when every device is Web Push: in a mix the CPU of a push
 * cannot be told apart by provider).
 */
export function webPushReport(o: WebPushInputs) {
  const rates = o.bursts.map((r) => r.webpush_pushes_per_s ?? 0)
  const best = Math.max(0, ...rates)
  const s = o.stream
  const cpu = o.only ? { bursts: o.bursts.map((r) => perPush(r.cpu as Record<string, number>)), stream: s ? perPush(s.cpu) : null } : null
  const enc = o.encryption?.us_per_push
  const share = (worker: number | undefined) => (enc && worker ? round(enc / worker, 2) : null)
  return {
    devices: o.devices,
    target_pushes_per_s: o.target,
    burst_pushes_per_s: rates,
    best_burst_pushes_per_s: best,
    stream_pushes_per_s: s?.webpush_pushes_per_s ?? null,
    stream_offered_pushes_per_s: s?.webpush_offered_pushes_per_s ?? null,
    pass: {
      burst: o.bursts.length ? best >= o.target : null,
      stream: s ? o.streamKeepsUp(s.webpush_pushes_per_s!, s.webpush_offered_pushes_per_s!) : null,
    },
    cpu_us_per_push: cpu,
    cpu_rule: o.only ? 'CPU µs per Web Push of each process over each burst (POST → rows written) and over the stream\'s measured window' : 'null: devices of several providers share the CPU; run --providers webpush for CPU per Web Push',
    encryption: o.encryption,
    encryption_share_of_worker: cpu && enc ? { bursts: cpu.bursts.map((c) => share(c.herald_worker)), stream: share(cpu.stream?.herald_worker) } : null,
  }
}
