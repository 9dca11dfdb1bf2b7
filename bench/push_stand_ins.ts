#!/usr/bin/env bun
// The APNs, FCM and Web Push stand-ins of the push benchmark, in a child
// process of their own, so that their CPU is counted apart and their
// certificate is theirs: test/stand_ins.ts makes its TLS certificate and keys
// when it is imported, and test/web_push_service.ts serves with that certificate.
// Run directly (`bun bench/push_stand_ins.ts --dir D --vapid-public-key K
// [--webpush-devices N] [--webpush-http1] [--webpush-delay-ms MS]`), this file is the child; bench/push.ts imports
// `startStandIns`, which spawns it and follows its counts.
import { parseArgs } from 'node:util'
import { dirname, join } from 'node:path'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { now, type Harness } from './harness'
import type { WebPushDevice } from './push_db'
import type { PushService } from '../test/web_push_service' // a type only: importing the module makes a certificate

// The APNs provider key id (the stand-in checks the JWT's kid against it) and
// Apple's own limit of concurrent streams per connection.
const APNS_KEY_ID = 'KEYID12345'
export const APNS_MAX_STREAMS = 1000
const REPORT_MS = 100 // how often the stand-ins report their counts
// Browser key pairs made at once while subscribing: WebCrypto's work in flight, bounded.
const SUBSCRIBE_BATCH = 500

export interface Counts {
  t: number // when the child took the counts
  apns: number
  fcm: number
  webpush: number
  lastAt: number // when the last push so far arrived (0: none yet)
  webpushLastAt: number // when the last Web Push so far arrived (0: none yet)
  problems: number
}

/** Pushes received so far, every provider. */
export const pushesOf = (c: Counts) => c.apns + c.fcm + c.webpush

export interface Final extends Counts {
  problem_samples: string[]
  apns_sessions: number
  apns_max_active_streams: number
  fcm_token_calls: number
  webpush_verifications: number // VAPID signatures checked: one per distinct token
  webpush_decrypted: number // pushes the stand-in opened as a browser does (verify: 'sample')
  webpush_connections: number // TLS connections the Web Push stand-in accepted
  devices_seen: number
  per_device_counts: Record<string, number> // pushes to one device → how many devices got that many
}

interface StandInInfo {
  apnsOrigin: string
  googleUrl: string
  caFile: string
  p8: string
  account: string
  team: string // APNS_TEAM_ID the stand-in expects
  topic: string // APNS_TOPIC the stand-in expects
  webPushOrigin: string
  subscriptions: string // a JSON file of WebPushDevice, one per Web Push device
  subscribeMs: number // how long making them took
}

interface Options {
  dir: string
  webpushDevices: number // browser subscriptions to make
  vapidPublicKey: string // the applicationServerKey they were made with: every VAPID token's k must be it
  webpushHttp1: boolean // the Web Push stand-in speaks HTTP/1.1 only (else HTTP/2 only, as FCM, Mozilla and Apple do)
  webpushDelayMs: number // the Web Push stand-in answers each push this much later (a far push service)
}

// ---------------------------------------------------------------- the child

/**
 * Browser subscriptions to `web`, made once here (each a P-256 key pair the
 * stand-in keeps, to open the pushes it samples), written as a JSON file of
 * WebPushDevice for the parent to insert as devices rows.
 */
async function subscribe(web: PushService, o: Options) {
  const t0 = now()
  const devices: WebPushDevice[] = []
  for (let i = 0; i < o.webpushDevices; i += SUBSCRIBE_BATCH) {
    const batch = Array.from({ length: Math.min(SUBSCRIBE_BATCH, o.webpushDevices - i) }, () => web.newSubscription({ applicationServerKey: o.vapidPublicKey }))
    for (const sub of await Promise.all(batch)) devices.push({ endpoint: sub.endpoint, ...sub.keys })
  }
  const file = join(o.dir, 'web_push_subscriptions.json')
  writeFileSync(file, JSON.stringify(devices))
  return { file, ms: now() - t0 }
}

/**
 * Runs the APNs and FCM stand-ins of test/stand_ins.ts and the Web Push
 * service of test/web_push_service.ts in this process: writes the
 * credentials and the browser subscriptions into `dir`, prints `READY {info}`,
 * then `S {counts}` every REPORT_MS, and `F {final}` when told to stop
 * (SIGTERM, SIGINT, or its stdin closing with the parent).
 */
async function standIns(o: Options) {
  const s = await import('../test/stand_ins') // only here: importing it makes a certificate
  const { startPushService } = await import('../test/web_push_service')
  const apns = await s.startApns({ maxConcurrentStreams: APNS_MAX_STREAMS }, { keep: false })
  apns.kid = APNS_KEY_ID
  const google = s.startGoogle(undefined, { keep: false })
  // Every VAPID token is verified (once per token), one push in 50 decrypted.
  const web = startPushService({ keep: false, verify: 'sample', vapidPublicKey: o.vapidPublicKey, http2: !o.webpushHttp1, delayMs: o.webpushDelayMs })
  await web.ready
  const { p8, account } = s.writeCredentials(o.dir, `${google.url}/token`)
  const subs = await subscribe(web, o)
  // The stand-ins keep no bodies (keep: false); their reply hooks see each
  // valid push's device token (for Web Push, the subscription id): count per
  // device, and note the time.
  const perDevice = new Map<string, number>()
  let lastAt = 0
  let webpushLastAt = 0
  let decrypted = 0
  const seen = (token: string) => {
    perDevice.set(token, (perDevice.get(token) ?? 0) + 1)
    lastAt = now()
    return undefined // the default answer: 200
  }
  apns.reply = seen
  google.reply = seen
  web.onPush = (r) => {
    seen(r.id)
    webpushLastAt = lastAt
    if (r.text !== null) decrypted++
  }
  const problems = () => [...apns.problems.map((p) => `apns: ${p}`), ...google.problems.map((p) => `fcm: ${p}`), ...web.problems.map((p) => `webpush: ${p}`)]
  const counts = (): Counts => ({
    t: now(), apns: apns.count, fcm: google.count, webpush: web.count, lastAt, webpushLastAt,
    problems: apns.problems.length + google.problems.length + web.problems.length,
  })
  const write = (line: string) => process.stdout.write(line + '\n')
  const info: StandInInfo = {
    apnsOrigin: apns.origin, googleUrl: google.url, caFile: s.CA_FILE, p8, account, team: s.TEAM, topic: s.TOPIC,
    webPushOrigin: web.origin, subscriptions: subs.file, subscribeMs: subs.ms,
  }
  write(`READY ${JSON.stringify(info)}`)
  const timer = setInterval(() => write(`S ${JSON.stringify(counts())}`), REPORT_MS)
  let done = false
  const finish = () => {
    if (done) return
    done = true
    clearInterval(timer)
    const hist: Record<string, number> = {}
    for (const n of perDevice.values()) hist[n] = (hist[n] ?? 0) + 1
    const final: Final = {
      ...counts(), problem_samples: problems().slice(0, 10), apns_sessions: apns.sessions, apns_max_active_streams: apns.maxActive,
      fcm_token_calls: google.tokenCalls, webpush_verifications: web.verifications, webpush_decrypted: decrypted, webpush_connections: web.connections,
      devices_seen: perDevice.size, per_device_counts: hist,
    }
    write(`F ${JSON.stringify(final)}`)
    process.exit(0) // the 'exit' handler of test/stand_ins.ts removes its certificate directory
  }
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, finish)
  // The parent holds our stdin: when it dies, however, so do we.
  ;(async () => {
    for await (const _ of Bun.stdin.stream()) {
    }
    finish()
  })()
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' }, 'webpush-devices': { type: 'string', default: '0' }, 'vapid-public-key': { type: 'string' },
      'webpush-http1': { type: 'boolean', default: false }, 'webpush-delay-ms': { type: 'string', default: '0' },
    },
  })
  if (!values.dir || !values['vapid-public-key']) throw new Error('bench/push_stand_ins.ts needs --dir and --vapid-public-key')
  await standIns({
    dir: values.dir, webpushDevices: Number(values['webpush-devices']), vapidPublicKey: values['vapid-public-key'],
    webpushHttp1: values['webpush-http1'] === true, webpushDelayMs: Number(values['webpush-delay-ms']),
  })
}

// ---------------------------------------------------------------- the parent's side

/**
 * Starts the stand-ins child, which writes the credentials and `webpushDevices`
 * browser subscriptions (for `vapidPublicKey`) into `dir`, and follows its counts.
 */
export async function startStandIns(h: Harness, dir: string, logPath: string, webpushDevices: number, vapidPublicKey: string, webpush: { http1: boolean; delayMs: number }) {
  const zero: Counts = { t: now(), apns: 0, fcm: 0, webpush: 0, lastAt: 0, webpushLastAt: 0, problems: 0 }
  const state = { latest: zero, history: [zero] as Counts[], final: null as Final | null, info: null as StandInInfo | null }
  const args = [join(import.meta.dir, 'push_stand_ins.ts'), '--dir', dir, '--webpush-devices', String(webpushDevices), '--vapid-public-key', vapidPublicKey,
    ...(webpush.http1 ? ['--webpush-http1'] : []), '--webpush-delay-ms', String(webpush.delayMs)]
  const child = await h.spawnTalker('the stand-ins', args, logPath, (line) => {
    if (line.startsWith('S ')) {
      state.latest = JSON.parse(line.slice(2)) as Counts
      state.history.push(state.latest)
    } else if (line.startsWith('F ')) {
      state.final = JSON.parse(line.slice(2)) as Final
      state.latest = state.final
    } else if (line.startsWith('READY ')) {
      state.info = JSON.parse(line.slice(6)) as StandInInfo
      return true
    }
  }, true)
  const info = state.info! // set by the line that made spawnTalker return
  // Its own exit handler removes the certificate directory; this covers a SIGKILL.
  const tlsDir = dirname(info.caFile)
  h.cleanups.push(() => rmSync(tlsDir, { recursive: true, force: true }))
  const total = () => pushesOf(state.latest)
  return {
    proc: child.proc,
    subscriptions: JSON.parse(readFileSync(info.subscriptions, 'utf8')) as WebPushDevice[],
    subscribeMs: info.subscribeMs,
    /** What points Herald at the stand-ins, and makes it trust their certificate. */
    heraldEnv: {
      APNS_KEY_FILE: info.p8, APNS_KEY_ID, APNS_TEAM_ID: info.team, APNS_TOPIC: info.topic, APNS_ORIGIN: info.apnsOrigin,
      FCM_SERVICE_ACCOUNT_FILE: info.account, FCM_ORIGIN: info.googleUrl, GOOGLE_OAUTH_TOKEN_URL: `${info.googleUrl}/token`,
      NODE_EXTRA_CA_CERTS: info.caFile,
    },
    state,
    total,
    /** Waits until the count has not moved for `ms` (at most 10 s). */
    async quiet(ms = 300) {
      let last = total()
      let since = now()
      const end = now() + 10_000
      while (now() < end && now() - since < ms) {
        await Bun.sleep(REPORT_MS)
        if (total() !== last) (last = total()), (since = now())
      }
    },
    stop: async () => (await child.stop(), state.final),
  }
}

/**
 * The stand-ins' account for the report, and whether every device had one
 * push per event of the channel (`events` of them), the first user's
 * `warmupDevices` one more, for the warm-up.
 */
export function standInsReport(final: Final | null, events: number, devices: number, warmupDevices: number) {
  const expected: Record<string, number> = {}
  if (events > 0 || warmupDevices) {
    expected[events] = (expected[events] ?? 0) + devices - warmupDevices
    expected[events + 1] = (expected[events + 1] ?? 0) + warmupDevices
  }
  const perDeviceOk = !!final && JSON.stringify(Object.entries(final.per_device_counts).sort()) === JSON.stringify(Object.entries(expected).filter(([, v]) => v > 0).sort())
  const report = final ? {
    apns_pushes: final.apns, fcm_pushes: final.fcm, webpush_pushes: final.webpush, problems: final.problems, problem_samples: final.problem_samples,
    apns_sessions: final.apns_sessions, apns_max_active_streams: final.apns_max_active_streams, fcm_token_calls: final.fcm_token_calls,
    webpush_verifications: final.webpush_verifications, webpush_decrypted: final.webpush_decrypted, webpush_connections: final.webpush_connections,
    devices_seen: final.devices_seen, per_device_counts: final.per_device_counts, per_device_expected: expected, per_device_ok: perDeviceOk,
  } : null
  return { report, expected, perDeviceOk }
}
