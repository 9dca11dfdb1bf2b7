// Local stand-ins for Apple and Google, shared by the push tests and the push
// benchmark:
// - APNs: an HTTP/2 TLS server (a self-signed certificate made with the
//   openssl CLI, for 127.0.0.1) that verifies every provider JWT (ES256, kid,
//   iss, iat) and every APNs header, counts sessions and concurrent streams,
//   and answers whichever APNs error it is told to.
// - Google: an OAuth2 token endpoint that verifies the RS256 assertion
//   Herald signs with the service account's key, and an FCM v1
//   endpoint that checks the bearer token and the message.
// Keys are made fresh per process; `writeCredentials` puts them in files as
// Herald's APNS_KEY_FILE and FCM_SERVICE_ACCOUNT_FILE expect.
import { execFileSync } from 'node:child_process'
import { createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createSecureServer, type Http2SecureServer, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { EventView } from '../src/delivery/event_view'
import { eventView } from './support'
import type Piscina from 'piscina'
import type { SendTask, Sent } from '../src/delivery/job'
import type { PushJob, PushResult } from '../src/delivery/push/job'

export const TEAM = 'TEAM123456'
export const TOPIC = 'dev.herald.app'
export const PROJECT = 'herald-test'
export const EMAIL = `herald@${PROJECT}.iam.gserviceaccount.com`
const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging'
const MAX_PAYLOAD_BYTES = 4096
const INTERRUPTION_LEVELS = new Set(['passive', 'active', 'time-sensitive', 'critical'])
// APNs keeps a push at most about 30 days; an apns-expiration beyond that is a bug of ours.
const MAX_EXPIRATION_S = 30 * 86400

/** Why an `aps` dictionary's interruption level and sound are not what APNs takes, or null. */
function apsProblem(aps: { sound?: unknown; 'interruption-level'?: unknown } | undefined): string | null {
  const level = aps?.['interruption-level']
  if (!INTERRUPTION_LEVELS.has(String(level))) return `interruption-level ${level}`
  const sound = aps?.sound as { critical?: unknown } | string | undefined
  if (level === 'critical' && (typeof sound !== 'object' || sound.critical !== 1)) return 'a critical alert needs a critical sound dictionary'
  if (level === 'passive' && sound !== undefined) return 'a passive push plays no sound'
  return null
}

/** Why an apns-expiration is not 0 or a time from now to 30 days ahead, or null. */
function expirationProblem(value: unknown): string | null {
  if (value === '0') return null
  const at = Number(value)
  const now = Date.now() / 1000
  return Number.isInteger(at) && at >= now - 5 && at <= now + MAX_EXPIRATION_S ? null : `apns-expiration ${value}`
}

/** A directory with a self-signed certificate for 127.0.0.1 (cert.pem, key.pem). */
export const tlsDir = mkdtempSync(join(tmpdir(), 'herald-push-'))
execFileSync('/usr/bin/openssl', [
  'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
  '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
  '-keyout', join(tlsDir, 'key.pem'), '-out', join(tlsDir, 'cert.pem'),
], { stdio: 'ignore' })
export const CA_FILE = join(tlsDir, 'cert.pem')
export const removeTlsDir = () => rmSync(tlsDir, { recursive: true, force: true })

/** The .p8-style EC key of the APNs provider (PKCS#8 PEM), and its public half the stand-in checks against. */
export const apnsKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } })
/** The service account's RSA key. */
export const googleKey = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } })

export const serviceAccount = (tokenUrl: string) => ({
  type: 'service_account', project_id: PROJECT, private_key_id: 'k1', private_key: googleKey.privateKey, client_email: EMAIL, token_uri: tokenUrl,
})

/** Writes the APNs key and the service account as files; returns their paths. */
export function writeCredentials(dir: string, tokenUrl: string) {
  const p8 = join(dir, 'AuthKey.p8')
  const account = join(dir, 'service-account.json')
  writeFileSync(p8, apnsKey.privateKey)
  writeFileSync(account, JSON.stringify(serviceAccount(tokenUrl)))
  return { p8, account }
}

/** An event as the push senders receive it. */
export const PUSH_EVENT: EventView = eventView({ tags: ['signup'] })

/** Pushes as the fan-out hands them to workers/send.ts, one task each. */
export const viaPool = async (pool: Piscina, j: PushJob): Promise<PushResult> => {
  const task: SendTask = {
    events: [j.event],
    planned: [{ id: j.deliveryId, event: 0, kind: 'push', target: j.device.id, attempt: j.attempt, device: j.device }],
    config: { maxInFlight: 8, circuit: { maxInFlight: 8, failures: 5, cooldownMs: 30_000, waitMs: 1000 }, outbound: { allow: [], timeoutMs: 10_000, maxResponseBytes: 1024, ca: j.ca }, endpoints: { telegram: '', twilio: '' }, apns: j.apns, fcm: j.fcm },
  }
  return ((await pool.run(task)) as Sent[])[0]!.result as PushResult
}

// ---------------------------------------------------------------- APNs

export interface ApnsSeen {
  path: string
  token: string // the device token from the path
  headers: IncomingHttpHeaders
  body: string
  jwt: string
  session: number
  at: number
}
export interface ApnsReply {
  status: number
  reason?: string
  headers?: Record<string, string>
  goaway?: boolean // close the session after answering
}

/** Why a provider JWT is not valid, or null. Checked as APNs does: ES256 over header.claims, kid, iss, iat. */
function jwtProblem(jwt: string, kid: string): string | null {
  const [h, c, s, extra] = jwt.split('.')
  if (!h || !c || !s || extra !== undefined) return 'not a JWS compact token'
  const header = JSON.parse(Buffer.from(h, 'base64url').toString())
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString())
  if (JSON.stringify(header) !== JSON.stringify({ alg: 'ES256', kid })) return `bad header ${JSON.stringify(header)}`
  if (Object.keys(claims).sort().join() !== 'iat,iss' || claims.iss !== TEAM) return `bad claims ${JSON.stringify(claims)}`
  const age = Date.now() / 1000 - claims.iat
  if (!Number.isInteger(claims.iat) || age < -5 || age > 3600) return `bad iat ${claims.iat}`
  const signature = Buffer.from(s, 'base64url')
  if (signature.length !== 64) return `signature is ${signature.length} bytes, not raw r||s`
  return verify('sha256', Buffer.from(`${h}.${c}`), { key: createPublicKey(apnsKey.publicKey), dsaEncoding: 'ieee-p1363' }, signature) ? null : 'bad signature'
}

/** Why the request is not what APNs accepts, or null. */
function requestProblem(headers: IncomingHttpHeaders, body: string, topic: string): string | null {
  const collapse = headers['apns-collapse-id']
  if (headers[':method'] !== 'POST') return 'method'
  if (!/^\/3\/device\/[0-9a-f]{64}$/.test(String(headers[':path']))) return `path ${headers[':path']}`
  if (headers['apns-topic'] !== topic) return `apns-topic ${headers['apns-topic']}`
  if (headers['apns-push-type'] !== 'alert') return 'apns-push-type'
  if (headers['apns-priority'] !== '10' && headers['apns-priority'] !== '5') return `apns-priority ${headers['apns-priority']}`
  const expiration = expirationProblem(headers['apns-expiration'])
  if (expiration) return expiration
  if (typeof collapse !== 'string' || !collapse || Buffer.byteLength(collapse) > 64) return 'apns-collapse-id'
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(String(headers['apns-id']))) return 'apns-id'
  if (Buffer.byteLength(body) > MAX_PAYLOAD_BYTES) return 'PayloadTooLarge'
  const payload = JSON.parse(body)
  if (typeof payload.aps?.alert?.body !== 'string') return 'no alert'
  return apsProblem(payload.aps)
}

export type ApnsStandIn = Awaited<ReturnType<typeof startApns>>

/**
 * Starts the APNs stand-in. `keep: false` keeps no record of requests (the
 * benchmark); `reply(token)` picks an answer per device token, after `script`.
 */
export function startApns(settings: { maxConcurrentStreams?: number } = {}, opts: { keep?: boolean } = {}) {
  const keep = opts.keep ?? true
  const state = {
    origin: '',
    kid: '',
    topic: TOPIC,
    delayMs: 0,
    seen: [] as ApnsSeen[],
    count: 0,
    script: [] as ApnsReply[],
    reply: undefined as ((token: string) => ApnsReply | undefined) | undefined,
    problems: [] as string[],
    sessions: 0,
    active: 0,
    maxActive: 0,
    server: undefined as unknown as Http2SecureServer,
    close: () => new Promise<void>((res) => state.server.close(() => res())),
  }
  // A provider token is verified once, as Apple does; its signature does not change.
  const verified = new Set<string>()
  const server = createSecureServer({ key: readFileSync(join(tlsDir, 'key.pem')), cert: readFileSync(join(tlsDir, 'cert.pem')), settings })
  const sessionIds = new WeakMap<object, number>()
  server.on('session', (session) => sessionIds.set(session, ++state.sessions))
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    state.active++
    state.maxActive = Math.max(state.maxActive, state.active)
    stream.on('close', () => state.active--)
    const chunks: Buffer[] = []
    stream.on('data', (c: Buffer) => chunks.push(c))
    stream.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const jwt = String(headers.authorization ?? '').replace(/^bearer /, '')
      const path = String(headers[':path'])
      const token = path.slice('/3/device/'.length)
      state.count++
      if (keep) state.seen.push({ path, token, headers, body, jwt, session: sessionIds.get(stream.session!) ?? 0, at: Date.now() })
      if (state.delayMs) await Bun.sleep(state.delayMs)
      let problem = verified.has(jwt) ? null : jwtProblem(jwt, state.kid)
      if (!problem) verified.add(jwt)
      problem ??= requestProblem(headers, body, state.topic)
      if (problem) state.problems.push(problem)
      const reply: ApnsReply = problem ? { status: 400, reason: `Test: ${problem}` } : (state.script.shift() ?? state.reply?.(token) ?? { status: 200 })
      if (stream.destroyed) return
      stream.respond({ ':status': reply.status, 'apns-id': String(headers['apns-id']), ...reply.headers })
      stream.end(reply.reason ? JSON.stringify({ reason: reply.reason }) : undefined)
      if (reply.goaway) stream.session?.close()
    })
  })
  state.server = server
  return new Promise<typeof state>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      state.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
      resolve(state)
    }),
  )
}

// ---------------------------------------------------------------- Google

export interface GoogleReply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** Why an assertion is not what Google's token endpoint accepts, or null. */
function assertionProblem(jwt: string, aud: string): string | null {
  const [h, c, s, extra] = jwt.split('.')
  if (!h || !c || !s || extra !== undefined) return 'not a JWS compact token'
  const header = JSON.parse(Buffer.from(h, 'base64url').toString())
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString())
  if (header.alg !== 'RS256') return `alg ${header.alg}`
  if (!verify('RSA-SHA256', Buffer.from(`${h}.${c}`), googleKey.publicKey, Buffer.from(s, 'base64url'))) return 'bad signature'
  if (claims.iss !== EMAIL) return `iss ${claims.iss}`
  if (claims.scope !== SCOPE) return `scope ${claims.scope}`
  if (claims.aud !== aud) return `aud ${claims.aud}`
  if (claims.exp - claims.iat !== 3600 || Math.abs(Date.now() / 1000 - claims.iat) > 60) return 'lifetime'
  return null
}

/** Why a send is not a valid FCM v1 message from us, or null. */
function messageProblem(body: string, path: string): string | null {
  if (path !== `/v1/projects/${PROJECT}/messages:send`) return `path ${path}`
  const m = JSON.parse(body).message
  if (Object.keys(m).sort().join() !== 'android,apns,data,notification,token') return `keys ${Object.keys(m)}`
  if (typeof m.token !== 'string' || typeof m.notification?.title !== 'string' || typeof m.notification?.body !== 'string') return 'notification'
  if (!Object.values(m.data).every((v) => typeof v === 'string')) return 'data values must be strings'
  const a = m.android
  if (a.priority !== 'NORMAL' && a.priority !== 'HIGH') return `android.priority ${a.priority}`
  if (typeof a.collapse_key !== 'string' || !a.collapse_key) return 'android.collapse_key'
  if (a.ttl !== undefined && !/^\d+(\.\d{1,9})?s$/.test(a.ttl)) return `android.ttl ${a.ttl}`
  if (!['PRIORITY_MIN', 'PRIORITY_LOW', 'PRIORITY_DEFAULT', 'PRIORITY_HIGH', 'PRIORITY_MAX'].includes(a.notification?.notification_priority)) return 'android.notification.notification_priority'
  // FCM hands the apns block's headers and payload to APNs as they are.
  const h = m.apns?.headers ?? {}
  if (!Object.values(h).every((v) => typeof v === 'string')) return 'apns.headers values must be strings'
  if (h['apns-priority'] !== '10' && h['apns-priority'] !== '5') return `apns.headers apns-priority ${h['apns-priority']}`
  return expirationProblem(h['apns-expiration']) ?? apsProblem(m.apns?.payload?.aps)
}

export type GoogleStandIn = ReturnType<typeof startGoogle>

/** Starts the token endpoint (/token) and FCM (/v1/projects/…/messages:send) on one port. */
export function startGoogle(tls?: { key: string; cert: string }, opts: { keep?: boolean } = {}) {
  const keep = opts.keep ?? true
  const state = {
    url: '',
    tokenCalls: 0,
    count: 0,
    valid: new Set<string>(),
    sends: [] as { token: string; deviceToken: string; body: string; headers: Record<string, string>; at: number }[],
    script: [] as GoogleReply[],
    reply: undefined as ((deviceToken: string) => GoogleReply | undefined) | undefined,
    tokenScript: [] as GoogleReply[],
    problems: [] as string[],
    stop: () => server.stop(true),
  }
  const json = (r: GoogleReply) => new Response(r.body === undefined ? '' : JSON.stringify(r.body), { status: r.status, headers: { 'content-type': 'application/json', ...r.headers } })
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    ...(tls ? { tls } : {}),
    async fetch(req) {
      const path = new URL(req.url).pathname
      const text = await req.text()
      if (path === '/token') {
        state.tokenCalls++
        const form = new URLSearchParams(text)
        const problem = form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer'
          ? 'grant_type' : assertionProblem(form.get('assertion') ?? '', `${state.url}/token`)
        if (problem) {
          state.problems.push(`token: ${problem}`)
          return json({ status: 400, body: { error: 'invalid_grant', error_description: problem } })
        }
        const scripted = state.tokenScript.shift()
        if (scripted) return json(scripted)
        const access = `ya29.test-${state.tokenCalls}-${randomBytes(4).toString('hex')}`
        state.valid.add(access)
        return json({ status: 200, body: { access_token: access, expires_in: 3600, token_type: 'Bearer' } })
      }
      const token = (req.headers.get('authorization') ?? '').replace(/^Bearer /, '')
      let deviceToken = ''
      try {
        deviceToken = String(JSON.parse(text)?.message?.token ?? '')
      } catch {}
      state.count++
      if (keep) state.sends.push({ token, deviceToken, body: text, headers: Object.fromEntries(req.headers), at: Date.now() })
      if (!state.valid.has(token)) return json({ status: 401, body: { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } } })
      const problem = messageProblem(text, path)
      if (problem) {
        state.problems.push(`send: ${problem}`)
        return json({ status: 400, body: { error: { code: 400, message: problem, status: 'INVALID_ARGUMENT' } } })
      }
      return json(state.script.shift() ?? state.reply?.(deviceToken) ?? { status: 200, body: { name: `projects/${PROJECT}/messages/0:${randomBytes(6).toString('hex')}` } })
    },
  })
  state.url = `${tls ? 'https' : 'http'}://127.0.0.1:${server.port}`
  return state
}

/** The error body FCM answers with. */
export const fcmError = (code: number, status: string, errorCode?: string) => ({
  error: { code, message: status, status, details: errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] : [] },
})
process.once('exit', removeTlsDir)
