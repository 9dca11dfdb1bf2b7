#!/usr/bin/env bun
// The APNs and FCM stand-ins of the push benchmark, in a child process of their
// own, so that their CPU is counted apart and their certificate is theirs:
// test/stand_ins.ts makes its TLS certificate and keys when it is imported.
// Run directly (`bun bench/push_stand_ins.ts --dir D`), this file is the child;
// bench/push.ts imports `startStandIns`, which spawns it and follows its counts.
import { parseArgs } from 'node:util'
import { dirname, join } from 'node:path'
import { rmSync } from 'node:fs'
import { now, type Harness } from './harness'

// The APNs provider key id (the stand-in checks the JWT's kid against it) and
// Apple's own limit of concurrent streams per connection.
const APNS_KEY_ID = 'KEYID12345'
export const APNS_MAX_STREAMS = 1000
const REPORT_MS = 100 // how often the stand-ins report their counts

export interface Counts {
  t: number // when the child took the counts
  apns: number
  fcm: number
  lastAt: number // when the last push so far arrived (0: none yet)
  problems: number
}

export interface Final extends Counts {
  problem_samples: string[]
  apns_sessions: number
  apns_max_active_streams: number
  fcm_token_calls: number
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
}

// ---------------------------------------------------------------- the child

/**
 * Runs the APNs and FCM stand-ins of test/stand_ins.ts in this process: writes
 * the credentials into `dir`, prints `READY {apnsOrigin, googleUrl, caFile, p8, account, team, topic}`,
 * then `S {counts}` every REPORT_MS, and `F {final}` when told to stop (SIGTERM,
 * SIGINT, or its stdin closing with the parent).
 */
async function standIns(dir: string) {
  const s = await import('../test/stand_ins') // only here: importing it makes a certificate
  const apns = await s.startApns({ maxConcurrentStreams: APNS_MAX_STREAMS }, { keep: false })
  apns.kid = APNS_KEY_ID
  const google = s.startGoogle(undefined, { keep: false })
  const { p8, account } = s.writeCredentials(dir, `${google.url}/token`)
  // The stand-ins keep no bodies (keep: false); their reply hooks see each
  // valid push's device token: count per device, and note the time.
  const perDevice = new Map<string, number>()
  let lastAt = 0
  const seen = (token: string) => {
    perDevice.set(token, (perDevice.get(token) ?? 0) + 1)
    lastAt = now()
    return undefined // the default answer: 200
  }
  apns.reply = seen
  google.reply = seen
  const problems = () => [...apns.problems.map((p) => `apns: ${p}`), ...google.problems.map((p) => `fcm: ${p}`)]
  const counts = (): Counts => ({ t: now(), apns: apns.count, fcm: google.count, lastAt, problems: apns.problems.length + google.problems.length })
  const write = (line: string) => process.stdout.write(line + '\n')
  const info: StandInInfo = { apnsOrigin: apns.origin, googleUrl: google.url, caFile: s.CA_FILE, p8, account, team: s.TEAM, topic: s.TOPIC }
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
      fcm_token_calls: google.tokenCalls, devices_seen: perDevice.size, per_device_counts: hist,
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
  const { values } = parseArgs({ options: { dir: { type: 'string' } } })
  if (!values.dir) throw new Error('bench/push_stand_ins.ts needs --dir')
  await standIns(values.dir)
}

// ---------------------------------------------------------------- the parent's side

/** Starts the stand-ins child, which writes the credentials into `dir`, and follows its counts. */
export async function startStandIns(h: Harness, dir: string, logPath: string) {
  const zero: Counts = { t: now(), apns: 0, fcm: 0, lastAt: 0, problems: 0 }
  const state = { latest: zero, history: [zero] as Counts[], final: null as Final | null, info: null as StandInInfo | null }
  const child = await h.spawnTalker('the stand-ins', [join(import.meta.dir, 'push_stand_ins.ts'), '--dir', dir], logPath, (line) => {
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
  const total = () => state.latest.apns + state.latest.fcm
  return {
    proc: child.proc,
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
    apns_pushes: final.apns, fcm_pushes: final.fcm, problems: final.problems, problem_samples: final.problem_samples,
    apns_sessions: final.apns_sessions, apns_max_active_streams: final.apns_max_active_streams, fcm_token_calls: final.fcm_token_calls,
    devices_seen: final.devices_seen, per_device_counts: final.per_device_counts, per_device_expected: expected, per_device_ok: perDeviceOk,
  } : null
  return { report, expected, perDeviceOk }
}
