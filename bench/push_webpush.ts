// What the push benchmark adds for Web Push: the VAPID key pair it gives
// both Herald and the push service stand-in, the encryption measured alone
// (what every push costs before it is sent), and the Web Push part of the
// report: pushes/s, whether they reach the target, and CPU per push with the
// encryption's share of it.
import webpush from 'web-push'
import { createECDH, randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { NOTIFY_DEFAULTS, type EventView } from '../src/delivery/event_view'
import type { WebPushConfig } from '../src/delivery/push/job'
import { webPushPayload } from '../src/delivery/push/webpush'
import { generateVapidPair, vapidAuthorization } from '../src/delivery/push/vapid'
import { encryptPush } from '../src/delivery/push/ece'
import { now } from './harness'
import { mean, median, round } from './proc'

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
  const pair: VapidPair = generateVapidPair()
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

/** Awaits `f` for at least `ms`; µs of wall time and of this process's CPU per call. */
async function perCallAsync(f: () => Promise<unknown>, ms: number) {
  for (let i = 0; i < 200; i++) await f() // JIT
  const c0 = process.cpuUsage()
  const t0 = now()
  let n = 0
  while (now() - t0 < ms) {
    await Promise.all(Array.from({ length: 16 }, f)) // WebCrypto's work is asynchronous: let it overlap
    n += 16
  }
  const cpu = process.cpuUsage(c0)
  return { calls: n, wall_us: round(((now() - t0) * 1000) / n, 1), cpu_us: round((cpu.user + cpu.system) / n, 1) }
}

/** RFC 8291 on WebCrypto (the subscription's key imported once): the lean candidate that would run anywhere. */
async function webCryptoCandidate(uaPublic: Buffer, auth: Buffer) {
  const subtle = crypto.subtle
  // WebCrypto takes views on an ArrayBuffer; Buffer's type allows a SharedArrayBuffer.
  const bytes = (b: Uint8Array) => new Uint8Array(b) as Uint8Array<ArrayBuffer>
  const imported = await subtle.importKey('raw', bytes(uaPublic), { name: 'ECDH', namedCurve: 'P-256' }, false, [])
  const hkdf = async (salt: Uint8Array, ikm: ArrayBuffer, info: Uint8Array, bits: number) =>
    subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: bytes(salt), info: bytes(info) }, await subtle.importKey('raw', ikm, 'HKDF', false, ['deriveBits']), bits)
  const utf8 = new TextEncoder()
  return async (plaintext: Uint8Array) => {
    const pair = (await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits'])) as CryptoKeyPair
    const asPublic = new Uint8Array(await subtle.exportKey('raw', pair.publicKey))
    const shared = await subtle.deriveBits({ name: 'ECDH', public: imported }, pair.privateKey, 256)
    const salt = randomBytes(16)
    const ikm = await hkdf(auth, shared, Buffer.concat([utf8.encode('WebPush: info\0'), uaPublic, asPublic]), 256)
    const cek = await hkdf(salt, ikm, utf8.encode('Content-Encoding: aes128gcm\0'), 128)
    const nonce = await hkdf(salt, ikm, utf8.encode('Content-Encoding: nonce\0'), 96)
    const key = await subtle.importKey('raw', cek, 'AES-GCM', false, ['encrypt'])
    const record = await subtle.encrypt({ name: 'AES-GCM', iv: nonce }, key, bytes(Buffer.concat([plaintext, Buffer.from([2])])))
    return Buffer.concat([salt, Buffer.from([0, 0, 16, 0, 65]), asPublic, Buffer.from(record)])
  }
}

/**
 * µs per encryption of the candidates, side by side in this process on its
 * main thread, for an event like the benchmark's (bench/push.ts posts it to
 * `channel`): Herald's (src/delivery/push/ece.ts, node:crypto), the
 * `web-push` package (generateRequestDetails with the VAPID header already
 * signed, so the encryption is all that is left), RFC 8291 on WebCrypto, and
 * @block65/webcrypto-web-push when it is installed
 * (`npm install --no-save @block65/webcrypto-web-push`); then the two
 * elliptic-curve steps alone. Run before Herald starts, on a quieter machine.
 */
export async function measureEncryption(pair: VapidPair, channel: string, ms = 1500) {
  const event: EventView = {
    eventId: '019a0000-0000-7000-8000-000000000000', workspace: 'bench-push', channel, event: null, title: 'Deploy finished',
    message: 'Deploy #12 of api finished on production in 42 s', link: null, tags: [], data: null, createdAt: new Date().toISOString(), ...NOTIFY_DEFAULTS,
  }
  const config: WebPushConfig = { ...pair, subject: SUBJECT, ttlSeconds: TTL_S }
  const origin = 'https://push.example.net'
  const browser = createECDH('prime256v1')
  const keys = { p256dh: browser.generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') }
  const uaPublic = Buffer.from(keys.p256dh, 'base64url')
  const auth = Buffer.from(keys.auth, 'base64url')
  const payload = Buffer.from(webPushPayload(event))
  const herald = () => encryptPush(payload, { publicKey: uaPublic, auth })
  const webPushPackage = () => webpush.generateRequestDetails({ endpoint: `${origin}/push/bench`, keys }, payload, {
    vapidDetails: null as unknown as undefined,
    headers: { Authorization: vapidAuthorization(config, origin) },
    TTL: TTL_S,
    urgency: 'high',
    topic: event.eventId.replaceAll('-', ''),
  })
  const webCrypto = await webCryptoCandidate(uaPublic, auth)
  type Block65 = { encryptNotification(sub: object, plaintext: Uint8Array, o?: { pad?: boolean }): Promise<Uint8Array> }
  const block65 = await (import('@block65/webcrypto-web-push' as string) as Promise<Block65>).catch(() => null)
  const sender = createECDH('prime256v1')
  sender.generateKeys()
  // Alternated, twice: the machine's noise falls on each alike.
  const runs: Record<string, { cpu_us: number; wall_us: number }[]> = {}
  const add = (name: string, r: { cpu_us: number; wall_us: number }) => (runs[name] ??= []).push({ cpu_us: r.cpu_us, wall_us: r.wall_us })
  for (let round_ = 0; round_ < 2; round_++) {
    add('herald_node_crypto', perCall(herald, ms / 2))
    add('web_push_package', perCall(webPushPackage, ms / 2))
    add('webcrypto_lean', await perCallAsync(() => webCrypto(payload), ms / 2))
    if (block65) add('block65_webcrypto_web_push', await perCallAsync(() => block65.encryptNotification({ endpoint: `${origin}/push/bench`, keys }, payload, { pad: false }), ms / 2))
  }
  const best = (name: string) => Math.min(...runs[name]!.map((r) => r.cpu_us))
  const keyPair = perCall(() => createECDH('prime256v1').generateKeys(), ms / 3)
  const ecdh = perCall(() => sender.computeSecret(uaPublic), ms / 3)
  const heraldUs = best('herald_node_crypto')
  return {
    rule: 'CPU µs per encryption of one payload for one subscription, each candidate in two alternating runs on one thread of the benchmark process before Herald starts (the better run counts); parts: createECDH().generateKeys() and computeSecret() alone. @block65/webcrypto-web-push only when installed.',
    payload_bytes: payload.length,
    body_bytes: herald().length,
    us_per_push: heraldUs,
    candidates_us: Object.fromEntries(Object.keys(runs).map((name) => [name, best(name)])),
    candidates_runs: runs,
    fastest: Object.keys(runs).reduce((a, b) => (best(a) <= best(b) ? a : b)),
    parts_us: {
      ephemeral_key_pair: keyPair.cpu_us,
      ecdh_shared_secret: ecdh.cpu_us,
      rest: round(heraldUs - keyPair.cpu_us - ecdh.cpu_us, 1), // four HMAC-SHA-256, AES-128-GCM, the header
    },
  }
}
export type Encryption = Awaited<ReturnType<typeof measureEncryption>>

/** `*_us_per_push` of the report's groups, from one cpu record. */
const perPush = (cpu: Record<string, number>) => Object.fromEntries(CPU_GROUPS.map((g) => [g, cpu[`${g}_us_per_push`]!]))

type CpuPerPush = ReturnType<typeof perPush>

/**
 * CPU per push against the floor's, in each measured window (each burst, the
 * stream): Herald's worker ÷ the floor's sender, and the stand-ins under
 * Herald ÷ the stand-in under the floor (the mean of the floor's runs before
 * and after Herald). Passes when the median window is within the target.
 */
function cpuAgainstFloor(cpu: { bursts: CpuPerPush[]; stream: CpuPerPush | null }, floors: Floor[], targets: { worker: number; standIn: number }) {
  const windows = [...cpu.bursts, ...(cpu.stream ? [cpu.stream] : [])]
  if (!floors.length || !windows.length) return null
  const sender = mean(floors.map((f) => f.cpu_us_per_push.sender))
  const standIn = mean(floors.map((f) => f.cpu_us_per_push.stand_in))
  const ratios = (f: (c: CpuPerPush) => number, of: number) => ({ bursts: cpu.bursts.map((c) => round(f(c) / of, 2)), stream: cpu.stream ? round(f(cpu.stream) / of, 2) : null })
  const worker = ratios((c) => c.herald_worker!, sender)
  const stand = ratios((c) => c.stand_ins!, standIn)
  const mid = (r: { bursts: number[]; stream: number | null }) => median([...r.bursts, ...(r.stream === null ? [] : [r.stream])])
  return {
    rule: `CPU µs per push in each burst and the stream: herald_worker ÷ the floor sender's, stand_ins ÷ the floor's stand-in's (floor: mean of its runs before and after Herald); passes when the median window is ≤ ${targets.worker} and ≤ ${targets.standIn}`,
    floor_us: { sender: round(sender, 1), stand_in: round(standIn, 1) },
    worker_over_floor_sender: worker,
    stand_in_over_floor_stand_in: stand,
    median: { worker: mid(worker), stand_in: mid(stand) },
    targets: { worker: targets.worker, stand_in: targets.standIn },
    pass: { worker: mid(worker) <= targets.worker, stand_in: mid(stand) <= targets.standIn },
  }
}

/** How the floor sender posts: as Herald does to the stand-in of the run (bench/push_floor.ts's flags). */
export interface FloorOptions {
  http2: boolean // the stand-in speaks HTTP/2 (else HTTP/1.1 only)
  concurrency: number // sends in flight: Herald's in flight to one push service (WORKER_CONCURRENCY over HTTP/2, WEB_PUSH_CONNECTIONS_PER_ORIGIN over HTTP/1.1)
  delayMs: number // the stand-in answers each push this much later
  pushes: number
}

/** The floor sender (bench/push_floor.ts) in a process of its own, against its own stand-in: its report's results. */
export async function webPushFloor(o: FloorOptions) {
  const args = ['--pushes', String(o.pushes), '--concurrency', String(o.concurrency), '--delay-ms', String(o.delayMs), ...(o.http2 ? ['--http2'] : [])]
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'push_floor.ts'), ...args], { stdout: 'pipe', stderr: 'inherit' })
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
  if (code !== 0) throw new Error(`bench/push_floor.ts failed (exit ${code})`)
  return (JSON.parse(out) as { results: { pushes_per_s: number; stand_in_connections: number; cpu_us_per_push: { sender: number; stand_in: number } } }).results
}
export type Floor = Awaited<ReturnType<typeof webPushFloor>>

interface WebPushInputs {
  devices: number // Web Push devices
  only: boolean // every device is Web Push: CPU per push is CPU per Web Push
  target: number
  bursts: { webpush_pushes_per_s?: number; cpu: unknown }[]
  stream: { webpush_pushes_per_s?: number; webpush_offered_pushes_per_s?: number; cpu: Record<string, number> } | null
  streamKeepsUp: (rate: number, offered: number) => boolean
  encryption: Encryption | null
  floor: Floor | null
  floorAfter: Floor | null // the floor again, once Herald has stopped: the two bracket Herald's run
  vsFloor: number
  cpuVsFloor: { worker: number; standIn: number } // targets: Herald's worker CPU per push ÷ the floor sender's, the stand-in's under Herald ÷ under the floor
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
  const vsFloorCpu = cpu ? cpuAgainstFloor(cpu, [o.floor, o.floorAfter].filter((f): f is Floor => !!f), o.cpuVsFloor) : null
  return {
    devices: o.devices,
    target_pushes_per_s: o.target,
    burst_pushes_per_s: rates,
    best_burst_pushes_per_s: best,
    stream_pushes_per_s: s?.webpush_pushes_per_s ?? null,
    stream_offered_pushes_per_s: s?.webpush_offered_pushes_per_s ?? null,
    floor: o.floor,
    floor_after: o.floorAfter,
    best_burst_vs_floor: o.floor ? round(best / o.floor.pushes_per_s, 2) : null,
    stream_vs_floor: o.floor && s?.webpush_pushes_per_s ? round(s.webpush_pushes_per_s / o.floor.pushes_per_s, 2) : null,
    cpu_vs_floor: vsFloorCpu,
    pass: {
      vs_floor: o.floor && o.bursts.length ? best >= o.vsFloor * o.floor.pushes_per_s : null,
      worker_cpu_vs_floor: vsFloorCpu?.pass.worker ?? null,
      stand_in_cpu_vs_floor: vsFloorCpu?.pass.stand_in ?? null,
      burst: o.bursts.length ? best >= o.target : null,
      stream: s ? o.streamKeepsUp(s.webpush_pushes_per_s!, s.webpush_offered_pushes_per_s!) : null,
    },
    cpu_us_per_push: cpu,
    cpu_rule: o.only ? 'CPU µs per Web Push of each process over each burst (POST → rows written) and over the stream\'s measured window' : 'null: devices of several providers share the CPU; run --providers webpush for CPU per Web Push',
    encryption: o.encryption,
    encryption_share_of_worker: cpu && enc ? { bursts: cpu.bursts.map((c) => share(c.herald_worker)), stream: share(cpu.stream?.herald_worker) } : null,
  }
}
