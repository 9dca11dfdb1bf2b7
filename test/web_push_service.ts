// A local stand-in for a Web Push service (Mozilla autopush, FCM's web push
// endpoint), shared by the Web Push tests and the push benchmark. It is an
// HTTPS server on 127.0.0.1 (Bun.serve, with the certificate test/stand_ins.ts
// makes) that checks every push as a push service does and opens it as a
// browser does:
// - VAPID (RFC 8292): `Authorization: vapid t=<JWT>, k=<key>`, an ES256 JWT
//   signed by k, whose aud is this service's origin, whose exp is at most 24 h
//   ahead and whose sub is a mailto: or https: contact. When the subscription
//   was made with an applicationServerKey, k must be that key.
// - The RFC 8030 headers: TTL (required), Urgency and Topic.
// - The message encryption (RFC 8291 over RFC 8188 aes128gcm: one record, at
//   most 4096 bytes of body), decrypted with WebCrypto alone, so that it shares
//   no code with the sender's library (web-push encrypts with http_ece on
//   node:crypto) and a mistake in one cannot hide a mistake in the other.
// Subscriptions are made as a browser makes them (`newSubscription`). A test can
// script what a subscription answers (`reply`, `expire`) and await a push (`next`).
// It speaks HTTP/1.1 (Bun.serve), or with `http2` HTTP/2 alone (node:http2,
// ALPN h2 only), as FCM, Mozilla's and Apple's push services do; `delayMs`
// answers each push that much later, as a push service far away does.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createSecureServer, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { tlsDir } from './stand_ins'

// RFC 8030 §7.2: a push service must accept 4096 bytes of body; autopush and
// FCM accept no more and answer 413 beyond it.
export const MAX_PUSH_BYTES = 4096
// RFC 8292 §2: a push service refuses a token whose exp is more than 24 h ahead.
const MAX_TOKEN_AHEAD_S = 24 * 60 * 60
// With verify: 'sample', the first push and then one in this many is decrypted:
// enough to catch a broken sender in a benchmark without spending its CPU here.
const SAMPLE_EVERY = 50
// Token checks kept; a sender signs one token per audience every few hours, so
// this only bounds a sender that (wrongly) signs a new token per push.
const MAX_VERIFIED_TOKENS = 10_000
// The streams an HTTP/2 client may have open on one connection: what FCM's
// push endpoint advertises (100) is the common figure.
const H2_MAX_STREAMS = 100
const URGENCIES = new Set(['very-low', 'low', 'normal', 'high'])
const TOPIC = /^[A-Za-z0-9_-]{1,32}$/ // RFC 8030 §5.4: up to 32 characters of base64url

/** A subscription as `JSON.stringify(pushSubscription)` gives it in a browser. */
export interface WebPushSubscription {
  endpoint: string
  expirationTime: null
  keys: { p256dh: string; auth: string } // base64url: the 65-byte P-256 point and the 16-byte auth secret
}
export interface VapidClaims {
  aud: string
  exp: number
  sub: string
  [claim: string]: unknown
}
/** A push that passed every check. */
export interface PushRecord {
  id: string // the subscription id, the last segment of the endpoint
  endpoint: string
  text: string | null // the decrypted payload; null when verify: 'sample' skipped it
  headers: Record<string, string>
  claims: VapidClaims
  k: string // the VAPID public key of the Authorization header
  status: number // what the service answered
  at: number
}
/** A scripted answer for one subscription, used `times` times (default 1) before the next. */
export interface PushReply {
  status: number
  headers?: Record<string, string>
  body?: string
  times?: number
}
export interface PushServiceOptions {
  keep?: boolean // false: keep no records, only counts (the benchmark)
  vapidPublicKey?: string // every token's k must be this key
  verify?: 'all' | 'sample' // decrypt every push, or the first and one in SAMPLE_EVERY
  http2?: boolean // serve HTTP/2 only (node:http2) instead of HTTP/1.1 (Bun.serve); await `ready` before the first push
  delayMs?: number // answer every push this much later (a far push service's round trip)
}

/** What the checks read of a request: a fetch Request, or the same made from an HTTP/2 stream. */
interface PushRequest {
  method: string
  url: string
  headers: Headers
  arrayBuffer(): Promise<ArrayBuffer>
}

// Bytes that WebCrypto takes: a view on an ArrayBuffer, never a SharedArrayBuffer.
type Bytes = Uint8Array<ArrayBuffer>
interface Subscription {
  privateKey: CryptoKey // the user agent's ECDH key
  publicKey: Bytes // its raw 65-byte point, ua_public in RFC 8291
  auth: Bytes
  applicationServerKey?: string
  gone: boolean
}
interface Ece {
  salt: Bytes
  keyid: Bytes // the sender's ephemeral public key, as_public in RFC 8291
  ciphertext: Bytes
}
interface Refusal {
  status: number
  problem: string
}
interface Opened {
  claims: VapidClaims
  k: string
  text: string | null
}
interface Waiter {
  resolve: (r: PushRecord) => void
  reject: (e: Error) => void
  timer: ReturnType<typeof setTimeout>
}

const utf8 = new TextEncoder()
const decoder = new TextDecoder()
const bytes = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts))
const fromB64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64url'))

// ---------------------------------------------------------------- VAPID

/** The t and k parameters of `Authorization: vapid t=…, k=…` (RFC 8292 §3), or null. */
function vapidParams(authorization: string): { t: string; k: string } | null {
  const m = /^vapid\s+(.+)$/i.exec(authorization.trim())
  if (!m) return null
  const params = new Map(m[1]!.split(',').map((p) => {
    const i = p.indexOf('=')
    return [p.slice(0, i).trim().toLowerCase(), p.slice(i + 1).trim()] as const
  }))
  const t = params.get('t')
  const k = params.get('k')
  return t && k ? { t, k } : null
}

/** The claims of a token whose header and ES256 signature are valid under k, or why not. */
async function verifyToken(t: string, k: string): Promise<VapidClaims | string> {
  const [h, c, s, extra] = t.split('.')
  if (!h || !c || !s || extra !== undefined) return 'not a JWS compact token'
  let header, claims
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString())
    claims = JSON.parse(Buffer.from(c, 'base64url').toString())
  } catch {
    return 'token parts are not base64url JSON'
  }
  if (header?.alg !== 'ES256') return `alg ${header?.alg}`
  if (header.typ !== undefined && header.typ !== 'JWT') return `typ ${header.typ}`
  const point = fromB64(k)
  if (point.length !== 65 || point[0] !== 4) return `k is ${point.length} bytes, not an uncompressed P-256 point`
  const signature = fromB64(s)
  if (signature.length !== 64) return `signature is ${signature.length} bytes, not raw r||s`
  let key: CryptoKey
  try {
    key = await crypto.subtle.importKey('raw', point, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify'])
  } catch {
    return 'k is not a point on P-256'
  }
  const ok = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, signature, utf8.encode(`${h}.${c}`))
  return ok ? claims : 'bad signature'
}

/** Why verified claims are not acceptable now for this service, or null. Checked on every push. */
function claimsProblem(claims: VapidClaims, origin: string): string | null {
  const now = Date.now() / 1000
  if (claims.aud !== origin) return `aud ${claims.aud}, not ${origin}`
  if (!Number.isInteger(claims.exp)) return `exp ${claims.exp} is not an integer`
  if (claims.exp <= now) return `exp ${claims.exp} has passed`
  if (claims.exp > now + MAX_TOKEN_AHEAD_S) return `exp ${claims.exp} is more than 24 h ahead`
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) return `sub ${claims.sub}`
  return null
}

// ---------------------------------------------------------------- RFC 8291

/** The aes128gcm header (RFC 8188 §2.1) and the record after it, or why it is not one. */
function parseEce(body: Bytes): Ece | string {
  if (body.length < 21) return `body is ${body.length} bytes, shorter than an aes128gcm header`
  const rs = new DataView(body.buffer, body.byteOffset + 16, 4).getUint32(0)
  const idlen = body[20]!
  const keyid = body.subarray(21, 21 + idlen)
  const ciphertext = body.subarray(21 + idlen)
  if (idlen !== 65 || keyid[0] !== 4) return `keyid is ${idlen} bytes, not an uncompressed P-256 point`
  // RFC 8291 §4: a push message is a single record, so all of it fits in rs.
  if (rs < 18 || ciphertext.length > rs) return `rs ${rs} does not hold the ${ciphertext.length}-byte record`
  if (ciphertext.length < 17) return 'record shorter than a delimiter and a tag'
  return { salt: body.subarray(0, 16), keyid, ciphertext }
}

/** HKDF-SHA-256, extract then expand, to `bits` bits. */
async function hkdf(salt: Bytes, ikm: Bytes, info: Bytes, bits: number) {
  const key = await crypto.subtle.importKey('raw', ikm, 'HKDF', false, ['deriveBits'])
  return new Uint8Array(await crypto.subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info }, key, bits))
}

/** Opens a push as the user agent does (RFC 8291 §3.3–3.4, RFC 8188 §2): the plaintext, or why it cannot. */
async function decrypt(sub: Subscription, ece: Ece): Promise<Bytes | string> {
  let sender: CryptoKey
  try {
    sender = await crypto.subtle.importKey('raw', ece.keyid, { name: 'ECDH', namedCurve: 'P-256' }, false, [])
  } catch {
    return 'keyid is not a point on P-256'
  }
  const shared = new Uint8Array(await crypto.subtle.deriveBits({ name: 'ECDH', public: sender }, sub.privateKey, 256))
  const ikm = await hkdf(sub.auth, shared, bytes(utf8.encode('WebPush: info\0'), sub.publicKey, ece.keyid), 256)
  const cek = await hkdf(ece.salt, ikm, utf8.encode('Content-Encoding: aes128gcm\0'), 128)
  const nonce = await hkdf(ece.salt, ikm, utf8.encode('Content-Encoding: nonce\0'), 96) // record 0: XOR with 0
  const key = await crypto.subtle.importKey('raw', cek, 'AES-GCM', false, ['decrypt'])
  let padded: Bytes
  try {
    padded = new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: nonce, tagLength: 128 }, key, ece.ciphertext))
  } catch {
    return 'the record does not decrypt (wrong keys or altered ciphertext)'
  }
  // The plaintext is followed by a delimiter, 2 for the last record, then zeros.
  let end = padded.length - 1
  while (end >= 0 && padded[end] === 0) end--
  if (padded[end] !== 2) return end < 0 ? 'no padding delimiter' : `padding delimiter ${padded[end]}, not 2 (last record)`
  return padded.subarray(0, end)
}

/** Why the RFC 8030 headers of a push are not acceptable, or null. */
function headerProblem(headers: Headers): string | null {
  const ttl = headers.get('ttl')
  const urgency = headers.get('urgency')
  const topic = headers.get('topic')
  const encoding = headers.get('content-encoding')
  if (ttl === null) return 'no TTL header'
  if (!/^\d+$/.test(ttl)) return `TTL ${ttl}`
  if (urgency !== null && !URGENCIES.has(urgency)) return `Urgency ${urgency}`
  if (topic !== null && !TOPIC.test(topic)) return `Topic ${topic}`
  // RFC 8030 allows a push without a payload; Herald always sends one, so here it is a problem.
  if (encoding !== 'aes128gcm') return `Content-Encoding ${encoding}`
  return null
}

// ---------------------------------------------------------------- HTTP/2

/** Serves one HTTP/2 stream with the same handler as HTTP/1.1: the request made from its headers and body, the answer written back. */
function serveStream(stream: ServerHttp2Stream, h2: IncomingHttpHeaders, origin: string, handle: (req: PushRequest) => Promise<Response>) {
  const chunks: Buffer[] = []
  stream.on('data', (c: Buffer) => chunks.push(c))
  stream.on('end', async () => {
    const headers = new Headers()
    for (const [name, value] of Object.entries(h2)) if (name[0] !== ':' && value !== undefined) headers.set(name, String(value))
    const body = Buffer.concat(chunks)
    const req: PushRequest = {
      method: String(h2[':method']), url: origin + String(h2[':path']), headers,
      arrayBuffer: async () => body.buffer.slice(body.byteOffset, body.byteOffset + body.length) as ArrayBuffer,
    }
    const res = await handle(req)
    if (stream.destroyed) return
    const answer: Record<string, string | number> = { ':status': res.status }
    res.headers.forEach((value, name) => (answer[name] = value))
    const text = await res.arrayBuffer()
    stream.respond(answer, { endStream: text.byteLength === 0 })
    if (text.byteLength) stream.end(Buffer.from(text))
  })
}

// ---------------------------------------------------------------- the service

export type PushService = ReturnType<typeof startPushService>

/**
 * Starts the Web Push service stand-in. Pushes go to `${origin}/push/<id>`.
 * A push that fails a check is answered 400, 401 or 413 and its reason added
 * to `problems`; a push to an id it never made is answered 404 (a problem too,
 * unless a reply is scripted); one that passes is answered 201 with a Location,
 * or with the subscription's scripted reply.
 */
export function startPushService(opts: PushServiceOptions = {}) {
  const keep = opts.keep ?? true
  const sampleEvery = opts.verify === 'sample' ? SAMPLE_EVERY : 1
  const subscriptions = new Map<string, Subscription>()
  const scripts = new Map<string, (PushReply & { times: number })[]>()
  const waiters = new Map<string, Waiter[]>() // by subscription id, '*' for any
  // The outcome of each token's header and signature check, by `${k} ${t}`: a
  // signature holds under that k only. Time and audience are checked per push.
  const verified = new Map<string, Promise<VapidClaims | string>>()
  const service = {
    origin: '',
    received: [] as PushRecord[], // pushes that passed, when keep
    count: 0, // requests to /push/…
    lastAt: 0,
    verifications: 0, // token signatures checked: one per distinct token and key
    problems: [] as string[],
    onPush: undefined as ((r: PushRecord) => void) | undefined,
    /** Every push is answered this much later (opts.delayMs; changeable between pushes). */
    delayMs: opts.delayMs ?? 0,
    /** Connections accepted so far (TCP, HTTP/1.1 or HTTP/2). */
    connections: 0,
    /** Resolves once the server listens: at once for HTTP/1.1, which binds before startPushService returns. */
    ready: Promise.resolve() as Promise<void>,
    /** Makes a subscription as a browser does: a fresh P-256 key pair and a 16-byte auth secret. */
    async newSubscription(o: { applicationServerKey?: string } = {}): Promise<WebPushSubscription> {
      const pair = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits'])) as CryptoKeyPair
      const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey))
      const auth = new Uint8Array(randomBytes(16))
      const id = randomBytes(24).toString('base64url')
      subscriptions.set(id, { privateKey: pair.privateKey, publicKey, auth, applicationServerKey: o.applicationServerKey, gone: false })
      const b64 = (b: Bytes) => Buffer.from(b).toString('base64url')
      return { endpoint: `${service.origin}/push/${id}`, expirationTime: null, keys: { p256dh: b64(publicKey), auth: b64(auth) } }
    },
    /** Queues an answer for a subscription's next pushes that pass the checks. */
    reply(endpointOrId: string, r: PushReply) {
      const id = idOf(endpointOrId)
      scripts.set(id, [...(scripts.get(id) ?? []), { ...r, times: r.times ?? 1 }])
    },
    /** The subscription was unsubscribed: from now on it answers 410 Gone, which is no problem of the sender's. */
    expire(endpointOrId: string) {
      const sub = subscriptions.get(idOf(endpointOrId))
      if (sub) sub.gone = true
    },
    /** The next push to this subscription (or to any, '*') after the call; rejects if it is refused or does not come. */
    next(endpointOrId = '*', timeoutMs = 5000): Promise<PushRecord> {
      const id = endpointOrId === '*' ? '*' : idOf(endpointOrId)
      return new Promise((resolve, reject) => {
        const w: Waiter = { resolve, reject, timer: setTimeout(() => {
          waiters.set(id, (waiters.get(id) ?? []).filter((x) => x !== w))
          reject(new Error(`no push to ${id} within ${timeoutMs} ms`))
        }, timeoutMs) }
        waiters.set(id, [...(waiters.get(id) ?? []), w])
      })
    },
    /** Forgets records, push counts, problems and scripted replies; subscriptions and checked tokens stay. */
    reset() {
      Object.assign(service, { received: [], count: 0, lastAt: 0, problems: [] })
      scripts.clear()
    },
    stop: () => stopServer(),
  }
  const idOf = (endpointOrId: string) => {
    const prefix = `${service.origin}/push/`
    return endpointOrId.startsWith(prefix) ? endpointOrId.slice(prefix.length) : endpointOrId
  }

  /** Hands the outcome of a push to whoever awaits it. */
  function settle(id: string, outcome: PushRecord | Error) {
    for (const key of [id, '*']) {
      const list = waiters.get(key)
      if (!list) continue
      waiters.delete(key)
      for (const w of list) {
        clearTimeout(w.timer)
        if (outcome instanceof Error) w.reject(outcome)
        else w.resolve(outcome)
      }
    }
  }

  function refuse(id: string, { status, problem }: Refusal) {
    service.problems.push(`${id}: ${problem}`)
    settle(id, new Error(problem))
    return Response.json({ code: status, message: problem }, { status })
  }

  /** The token's claims and key when it is valid for this subscription now, or why not. */
  async function authorize(authorization: string, sub: Subscription | undefined) {
    const params = vapidParams(authorization)
    if (!params) return `Authorization is not "vapid t=…, k=…": ${authorization.slice(0, 40)}`
    // The promise is kept, not its result, so that pushes arriving together
    // while a token is being checked wait for that one check.
    const cacheKey = `${params.k} ${params.t}`
    let verdict = verified.get(cacheKey)
    if (!verdict) {
      service.verifications++
      if (verified.size >= MAX_VERIFIED_TOKENS) verified.clear()
      verified.set(cacheKey, (verdict = verifyToken(params.t, params.k)))
    }
    const claims = await verdict
    if (typeof claims === 'string') return claims
    const expected = sub?.applicationServerKey ?? opts.vapidPublicKey
    if (expected && params.k !== expected) return `k ${params.k} is not the applicationServerKey ${expected}`
    return claimsProblem(claims, service.origin) ?? { claims, k: params.k }
  }

  /** Every check of a push, in the order a push service makes them; decrypts when `open`. */
  async function check(req: PushRequest, body: Bytes, sub: Subscription | undefined, open: boolean): Promise<Refusal | Opened> {
    if (body.length > MAX_PUSH_BYTES) return { status: 413, problem: `body is ${body.length} bytes, over ${MAX_PUSH_BYTES}` }
    const auth = await authorize(req.headers.get('authorization') ?? '', sub)
    if (typeof auth === 'string') return { status: 401, problem: auth }
    const problem = headerProblem(req.headers)
    if (problem) return { status: 400, problem }
    const ece = parseEce(body)
    if (typeof ece === 'string') return { status: 400, problem: ece }
    if (!sub || !open) return { ...auth, text: null } // an unknown id with a scripted reply has no keys
    const plain = await decrypt(sub, ece)
    if (typeof plain === 'string') return { status: 400, problem: plain }
    return { ...auth, text: decoder.decode(plain) }
  }

  /** The scripted reply due for this subscription, used up one time; undefined if none. */
  function scripted(id: string): PushReply | undefined {
    const queue = scripts.get(id)
    const r = queue?.[0]
    if (!queue || !r) return undefined
    if (--r.times <= 0) queue.shift()
    return r
  }

  async function handle(req: PushRequest): Promise<Response> {
    if (service.delayMs > 0) await Bun.sleep(service.delayMs)
    const path = new URL(req.url).pathname
    const id = /^\/push\/([A-Za-z0-9_-]+)$/.exec(path)?.[1]
    if (req.method !== 'POST' || !id) return refuse(path, { status: 404, problem: `${req.method} ${path} is not a push` })
    const n = ++service.count
    service.lastAt = Date.now()
    const sub = subscriptions.get(id)
    const hasScript = !!scripts.get(id)?.length
    if (!sub && !hasScript) return refuse(id, { status: 404, problem: 'no such subscription' })
    if (sub?.gone && !hasScript) return new Response(null, { status: 410 })
    const body = new Uint8Array(await req.arrayBuffer())
    const verdict = await check(req, body, sub, (n - 1) % sampleEvery === 0)
    if ('problem' in verdict) return refuse(id, verdict)
    const reply = scripted(id) ?? { status: 201 }
    // A push service answers 201 with the URL of the message it now holds (RFC 8030 §5).
    const headers = reply.status === 201 ? { location: `${service.origin}/message/${randomBytes(12).toString('base64url')}`, ...reply.headers } : reply.headers
    if (keep || service.onPush || waiters.size) {
      const record: PushRecord = {
        id, endpoint: `${service.origin}/push/${id}`, text: verdict.text, headers: Object.fromEntries(req.headers),
        claims: verdict.claims, k: verdict.k, status: reply.status, at: Date.now(),
      }
      if (keep) service.received.push(record)
      service.onPush?.(record)
      settle(id, record)
    }
    return new Response(reply.body ?? null, { status: reply.status, headers })
  }

  const tls = { key: readFileSync(join(tlsDir, 'key.pem'), 'utf8'), cert: readFileSync(join(tlsDir, 'cert.pem'), 'utf8') }
  let stopServer: () => void
  if (opts.http2) {
    const server = createSecureServer({ ...tls, settings: { maxConcurrentStreams: H2_MAX_STREAMS } })
    server.on('secureConnection', () => service.connections++)
    server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => serveStream(stream, headers, service.origin, handle))
    service.ready = new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
      service.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
      resolve()
    }))
    stopServer = () => server.close()
  } else {
    // Bun.serve tells of no connection, but each request's client port names one.
    const ports = new Set<number>()
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      tls,
      fetch(req, srv) {
        const port = srv.requestIP(req)?.port
        if (port !== undefined && !ports.has(port)) (ports.add(port), service.connections++)
        return handle(req)
      },
    })
    service.origin = `https://127.0.0.1:${server.port}`
    stopServer = () => server.stop(true)
  }
  return service
}
