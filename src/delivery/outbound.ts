// The one HTTP client every delivery goes through, hardened against SSRF: a
// router's URL comes from whoever holds the admin token, its DNS from whoever
// owns the domain, and neither may point Herald at its own network (cloud
// metadata at 169.254.169.254, the database, the admin API).
//
// Bun's fetch ignores Node agents and has no hook between DNS and connect, so
// this resolves the host itself, checks every address, and sends the request
// to the checked IP: no second resolution can be rebound to an internal
// address. TLS still verifies the certificate against the URL's host name.
// Every outcome is a value; nothing here throws.
import { hostOf } from '../core/url'
import { lookup as resolveDns } from 'node:dns/promises'
import { isIP } from 'node:net'
import { rootCertificates } from 'node:tls'
import { readFileSync } from 'node:fs'
import ipaddr from 'ipaddr.js'
import { redact } from './redaction'

// Enough for a moved endpoint or an auth hop; more is a loop or a trap.
export const MAX_REDIRECTS = 3
const REDIRECTS = new Set([301, 302, 303, 307, 308])
const USER_AGENT = 'Herald'

/** How every send goes out: the SSRF exemptions, the time limit, how much of an answer is read. */
export interface OutboundOptions {
  allow: string[] // CIDRs exempt from the SSRF rules (HERALD_OUTBOUND_ALLOW)
  timeoutMs: number // whole request, connect to last byte (DELIVERY_TIMEOUT_MS)
  maxResponseBytes: number // read at most this much of a response
  /**
   * The certificate authorities TLS trusts, in place of the runtime's own
   * (the bundled roots and the NODE_EXTRA_CA_CERTS the process started with):
   * set only when NODE_EXTRA_CA_CERTS names another file (send_config.ts).
   */
  ca?: string[]
}

/** The outcome of one attempt (HTTP, SMTP or push), kept on the attempt: an expected failure is one with ok: false, never a throw. */
export interface DeliveryResult {
  ok: boolean
  retryable: boolean // meaningful when !ok: 408, 429, 5xx, network errors and timeouts
  status?: number // HTTP status (or SMTP reply code) when one was received
  retryAfterMs?: number // from Retry-After, when the receiver sent one
  durationMs: number
  response?: string // the response body, truncated to 1 KiB
  error?: string // why it failed, readable by an operator
  /** Not sent: the destination's circuit held it back (src/delivery/circuit.ts). Not an attempt: no attempt row, and none of the schedule's attempts used. */
  held?: 'circuit_open' | 'busy'
}

export interface OutboundRequest {
  method: 'GET' | 'POST'
  url: string
  headers?: Record<string, string>
  body?: string | Uint8Array
  /**
   * 'http2': HTTP/2 alone, over one connection per address that fetch keeps
   * and shares among the sends to it; an origin whose TLS (ALPN) does not pick
   * it fails with `http2Refused`. 'http1.1' or absent: HTTP/1.1, over
   * connections fetch keeps alive (64 idle per process, all hosts together).
   */
  protocol?: 'http2' | 'http1.1'
}

/** A response arrived (any status): `ok` is about the exchange, not the status. */
export interface OutboundResponse {
  ok: true
  status: number
  headers: Record<string, string> // lower-case names, repeated headers joined with ', '
  body: string // at most maxResponseBytes, UTF-8
  truncated: boolean
  durationMs: number
}

/** No response: a refused address or scheme, too many redirects, a network error or the time limit. */
export interface OutboundFailure {
  ok: false
  kind: 'refused' | 'redirects' | 'network' | 'timeout'
  error: string
  durationMs: number
  http2Refused?: true // the request asked for HTTP/2 alone, and the origin's TLS picked HTTP/1.1
}

export type OutboundResult = OutboundResponse | OutboundFailure

type Address = ipaddr.IPv4 | ipaddr.IPv6
type Cidr = [Address, number]

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  private: 'a private address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local (fc00::/7) address',
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
}
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')

const allowCache = new Map<string, Cidr[]>()
// The send configuration's list is one array for the life of the process: found by identity first.
const allowByList = new WeakMap<readonly string[], Cidr[]>()

// HERALD_OUTBOUND_ALLOW is validated at boot; an entry that does not parse
// here exempts nothing rather than everything.
function allowList(allow: readonly string[]): Cidr[] {
  const known = allowByList.get(allow)
  if (known) return known
  const key = allow.join(',')
  let cidrs = allowCache.get(key)
  if (!cidrs) {
    cidrs = []
    for (const entry of allow.map((a) => a.trim()).filter(Boolean)) {
      try {
        cidrs.push(entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.parse(entry), entry.includes(':') ? 128 : 32])
      } catch {}
    }
    allowCache.set(key, cidrs)
  }
  allowByList.set(allow, cidrs)
  return cidrs
}

/**
 * Why an address may not be reached ("a loopback address"), or null when it
 * is global unicast or on the allow-list. Anything ipaddr.js does not call
 * plain unicast is refused, as is IPv6 outside 2000::/3 (unallocated space).
 */
function rangeRefusal(ip: Address, allow: readonly string[]): string | null {
  if (allowList(allow).some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits))) return null
  const range: string = ip.range()
  if (range === 'unicast' && (ip.kind() === 'ipv4' || ip.match(GLOBAL_UNICAST_V6))) return null
  if (range === 'ipv4Mapped') return `${RANGE_NAMES[range]} (${(ip as ipaddr.IPv6).toIPv4Address()})`
  return RANGE_NAMES[range] ?? `a non-global address (${range === 'unicast' ? 'outside 2000::/3' : range})`
}

/** Why this IP literal may not be reached ("127.0.0.1 is a loopback address"), or null. */
export function checkAddress(ip: string, allow: readonly string[]): string | null {
  let parsed: Address
  try {
    parsed = ipaddr.parse(ip.replace(/^\[|\]$/g, ''))
  } catch {
    return `${ip} is not an IP address`
  }
  const why = rangeRefusal(parsed, allow)
  return why && `${parsed.toString()} is ${why}`
}

/** The setting that lets deliveries reach a refused address, for the errors that refuse it. */
export const allowHint = (address: string) =>
  `HERALD_OUTBOUND_ALLOW lets deliveries reach it (e.g. HERALD_OUTBOUND_ALLOW=${address}/${isIP(address) === 6 ? 128 : 32})`

/**
 * Why a destination URL will never be reached, when its host is an address
 * (or localhost) the outbound rules refuse: a router is refused at creation
 * rather than left to fail every delivery. Names are resolved at send time.
 */
export function urlRefusal(raw: string, allow: readonly string[]): string | null {
  let host: string
  try {
    host = new URL(raw).hostname.replace(/^\[|\]$/g, '')
  } catch {
    return null // the schema says what is wrong with it
  }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    // localhost resolves to 127.0.0.1 and, on most systems, ::1 too; a send
    // refuses a name when any of its addresses is refused, so both must be allowed.
    const refused = LOCALHOST.filter((ip) => checkAddress(ip, allow))
    if (!refused.length) return null
    return `${host} is a loopback address: deliveries may not reach it; HERALD_OUTBOUND_ALLOW lets deliveries reach it (e.g. HERALD_OUTBOUND_ALLOW=${LOCALHOST_ALLOW}) in Herald's environment`
  }
  if (!isIP(host)) return null
  const why = checkAddress(host, allow)
  return why && `${why}: deliveries may not reach it; ${allowHint(host)} in Herald's environment`
}
const LOCALHOST = ['127.0.0.1', '::1']
const LOCALHOST_ALLOW = '127.0.0.1/32,::1/128'

export type HostCheck =
  | { ok: true; address: string; family: 4 | 6 }
  | { ok: false; kind: 'refused' | 'network' | 'timeout'; error: string }

/**
 * Resolves a host name (or takes an IP literal) and checks every address it
 * resolves to: one internal address in the answer refuses the whole host, so
 * a rebinding DNS server cannot pick which one we use. Returns the address to
 * connect to. The e-mail destination uses this for SMTP hosts.
 */
export async function checkHost(host: string, allow: readonly string[], signal?: AbortSignal): Promise<HostCheck> {
  const bare = host.replace(/^\[|\]$/g, '')
  if (isIP(bare)) return checkLiteral(bare, allow)

  let answers: { address: string; family: number }[]
  try {
    answers = await abortable(resolveDns(bare, { all: true, verbatim: true }), signal)
  } catch (err) {
    if (signal?.aborted) return { ok: false, kind: 'timeout', error: 'timed out resolving ' + bare }
    return { ok: false, kind: 'network', error: `cannot resolve ${bare} (${(err as NodeJS.ErrnoException).code ?? String(err)})` }
  }
  for (const { address } of answers) {
    const why = ipaddr.isValid(address) ? rangeRefusal(ipaddr.parse(address), allow) : 'not an address we can check'
    if (why) return { ok: false, kind: 'refused', error: `refused: ${bare} resolves to ${address}, ${why}; ${allowHint(address)}` }
  }
  const first = answers[0]
  if (!first) return { ok: false, kind: 'network', error: `cannot resolve ${bare} (no addresses)` }
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 }
}

// The verdict on an address written in a URL depends on it and the allow list
// alone: worked out once (a push service's endpoints share a few addresses).
const LITERALS_CACHED = 1000
const literals = new Map<string, { allow: readonly string[]; check: HostCheck }>()
function checkLiteral(ip: string, allow: readonly string[]): HostCheck {
  const hit = literals.get(ip)
  if (hit?.allow === allow) return hit.check
  const why = checkAddress(ip, allow)
  const check: HostCheck = why ? { ok: false, kind: 'refused', error: `refused: ${why}; ${allowHint(ip)}` } : { ok: true, address: ip, family: isIP(ip) as 4 | 6 }
  if (literals.size >= LITERALS_CACHED) literals.delete(literals.keys().next().value!)
  literals.set(ip, { allow, check })
  return check
}

function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
    promise.then(resolve, reject)
  })
}

/**
 * Sends one request: checks scheme and addresses, follows up to
 * MAX_REDIRECTS redirects (checking every hop), reads at most
 * maxResponseBytes, and gives up after timeoutMs in all. The error text and
 * the response body come back with the URLs of every hop redacted
 * (redaction.ts): a destination's URL is a secret, yet what this returns is
 * kept as the attempt's error and response, which every member of the
 * workspace reads, and is logged.
 */
export async function send(req: OutboundRequest, options: OutboundOptions): Promise<OutboundResult> {
  const hops: string[] = []
  const outcome = await follow(req, options, hops)
  return outcome.ok ? { ...outcome, body: redact(outcome.body, hops) } : { ...outcome, error: redact(outcome.error, hops) }
}

async function follow(req: OutboundRequest, options: OutboundOptions, hops: string[]): Promise<OutboundResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(new Error('timeout')), options.timeoutMs)
  try {
    let current = req
    for (let hop = 0; ; hop++) {
      hops.push(current.url)
      const outcome = await sendOnce(current, options, controller.signal)
      if (!outcome.ok) {
        const timedOut = outcome.kind === 'timeout' || controller.signal.aborted
        const error = timedOut ? `timed out after ${options.timeoutMs} ms` : outcome.error
        const onHop = hop > 0 && outcome.kind === 'refused' ? `refused: redirect to ${hostOf(current.url, current.url)}: ${error.replace(/^refused: /, '')}` : error
        return { ok: false, kind: timedOut ? 'timeout' : outcome.kind, error: onHop, durationMs: elapsed(), ...(outcome.http2Refused ? { http2Refused: true } : {}) }
      }
      const location = outcome.headers.location
      if (!REDIRECTS.has(outcome.status) || location === undefined) return { ...outcome, durationMs: elapsed() }
      if (hop === MAX_REDIRECTS) return { ok: false, kind: 'redirects', error: `more than ${MAX_REDIRECTS} redirects`, durationMs: elapsed() }
      const next = redirected(current, outcome.status, location)
      if (!next) return { ok: false, kind: 'redirects', error: `invalid redirect location from ${hostOf(current.url, current.url)}: ${JSON.stringify(location.slice(0, 200))}`, durationMs: elapsed() }
      current = next
    }
  } finally {
    clearTimeout(timer)
  }
}

type Exchange = Omit<OutboundResponse, 'durationMs'> | Omit<OutboundFailure, 'durationMs'>

async function sendOnce(req: OutboundRequest, options: OutboundOptions, signal: AbortSignal): Promise<Exchange> {
  let url: URL
  try {
    url = new URL(req.url)
  } catch {
    return { ok: false, kind: 'refused', error: 'refused: not a valid URL' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, kind: 'refused', error: `refused: scheme ${url.protocol} is not allowed` }
  }
  const target = await checkHost(url.hostname, options.allow, signal)
  if (!target.ok) return target
  return exchange(req, url, target, options, signal)
}

/** The next hop's request, as fetch builds it; null when Location is not a URL. */
function redirected(prev: OutboundRequest, status: number, location: string): OutboundRequest | null {
  let next: URL
  try {
    next = new URL(location, prev.url)
  } catch {
    return null
  }
  const headers = { ...prev.headers }
  // Credentials are for the origin they were configured for, not for
  // wherever it redirects.
  if (next.origin !== new URL(prev.url).origin) {
    for (const name of Object.keys(headers)) if (/^(authorization|cookie|proxy-authorization)$/i.test(name)) delete headers[name]
  }
  const keepsBody = status === 307 || status === 308
  if (keepsBody || prev.method === 'GET') return { ...prev, url: next.href, headers }
  for (const name of Object.keys(headers)) if (/^content-/i.test(name)) delete headers[name]
  return { method: 'GET', url: next.href, headers }
}

/**
 * One exchange with Bun's fetch, sent to the checked address: the URL names
 * the IP, `Host` names the host, and for https the TLS server name is the
 * host name, which Bun's fetch also verifies the certificate against (an IP
 * in the URL is checked against the certificate's IP names), so the
 * certificate is verified against the name in the router's URL while no
 * second DNS look-up happens (test/delivery/outbound.ssrf.test.ts). No
 * `checkServerIdentity` callback: with one, Bun's fetch opens a new
 * connection (TCP and a TLS handshake) for every request. A `ca` list is
 * passed only when the options carry one (send_config.ts): Bun parses it per
 * request.
 * (fetch ignores Node agents and their `lookup`; pinning the IP in the URL is
 * how it is told where to connect. Under Bun it also costs a quarter of
 * node:http's CPU per request, and it pools connections per address.)
 */
async function exchange(req: OutboundRequest, url: URL, target: { address: string; family: 4 | 6 }, { maxResponseBytes: maxBytes, ca }: OutboundOptions, signal: AbortSignal): Promise<Exchange> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const named = !isIP(host)
  let pinned = url
  if (named || url.username || url.password) {
    pinned = new URL(url.href)
    pinned.hostname = target.family === 6 ? `[${target.address}]` : target.address
    pinned.username = ''
    pinned.password = ''
  }
  let res: Response
  try {
    res = await fetch(pinned.href, {
      method: req.method,
      headers: { ...requestHeaders(req, url), host: url.host },
      body: req.body as BodyInit | undefined,
      redirect: 'manual',
      signal,
      ...(req.protocol && url.protocol === 'https:' ? { protocol: req.protocol } : {}), // HTTP/2 only over TLS
      tls: url.protocol === 'https:' ? { ...(named ? { serverName: host } : {}), ...(ca ? { ca } : {}) } : undefined,
    } as RequestInit)
  } catch (err) {
    return networkFailure(err, url.host, signal)
  }
  try {
    const { body, truncated } = await readBody(res, maxBytes)
    return { ok: true, status: res.status, headers: flatHeaders(res.headers), body, truncated }
  } catch (err) {
    return networkFailure(err, url.host, signal)
  }
}

/** The caller's headers plus a User-Agent and Basic auth from user:pass@ in the URL. */
function requestHeaders(req: OutboundRequest, url: URL): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...req.headers }
  if (url.username && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s)
      } catch {
        return s
      }
    }
    headers.authorization = 'Basic ' + Buffer.from(`${decode(url.username)}:${decode(url.password)}`).toString('base64')
  }
  return headers
}

/** Reads up to maxBytes and then hangs up: a receiver cannot make us buffer more. */
async function readBody(res: Response, maxBytes: number): Promise<{ body: string; truncated: boolean }> {
  if (!res.body) return { body: '', truncated: false }
  // A length the answer declares within the limit is read in one go: fetch
  // reads no more than the declared length.
  const declared = Number(res.headers.get('content-length') ?? NaN)
  if (declared >= 0 && declared <= maxBytes && !res.headers.has('content-encoding')) return { body: await res.text(), truncated: false }
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { body: Buffer.concat(chunks).toString('utf8'), truncated: false }
    const room = maxBytes - size
    chunks.push(value.length > room ? value.subarray(0, room) : value)
    size += Math.min(value.length, room)
    if (value.length > room) {
      void reader.cancel().catch(() => {})
      return { body: Buffer.concat(chunks).toString('utf8'), truncated: true }
    }
  }
}

function flatHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => (out[name.toLowerCase()] = value))
  return out
}

// Bun's fetch names the failure in `code` and puts the whole URL, path and
// query included, in `message` ('Malformed_HTTP_Response fetching "http://…"'),
// so the error is worded from the code and the host, and only an unknown
// failure falls back to the message, with its URLs redacted.
function networkFailure(err: unknown, host: string, signal: AbortSignal): Omit<OutboundFailure, 'durationMs'> {
  if (signal.aborted) return { ok: false, kind: 'timeout', error: 'timed out' }
  const e = err as NodeJS.ErrnoException
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return { ok: false, kind: 'timeout', error: 'timed out' }
  if (e?.code === 'HTTP2Unsupported') return { ok: false, kind: 'network', error: `${host} does not speak HTTP/2`, http2Refused: true }
  const what: Record<string, string> = {
    ECONNREFUSED: `connection refused by ${host}`,
    ECONNRESET: `connection reset by ${host}`,
    ETIMEDOUT: `connection to ${host} timed out`,
    EHOSTUNREACH: `${host} is unreachable`,
    ENETUNREACH: `network unreachable for ${host}`,
    Malformed_HTTP_Response: `${host} answered with something that is not HTTP`,
    EPROTO: `the TLS handshake with ${host} failed`,
  }
  const error = (typeof e?.code === 'string' && what[e.code]) || `network error talking to ${host}: ${redact(e?.message || String(e?.code ?? err))}`
  return { ok: false, kind: 'network', error }
}

/**
 * Milliseconds a Retry-After header asks us to wait: delta-seconds ("120") or
 * an HTTP-date, counted from `now`. undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined
  const v = value.trim()
  if (/^\d+$/.test(v)) return Number(v) * 1000
  // Only an HTTP-date ("Wed, 21 Oct 2026 07:28:00 GMT"): Date.parse reads
  // "-5" or "2" as years.
  const at = /^[A-Za-z]{3},/.test(v) ? Date.parse(v) : Number.NaN
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/** The first `max` bytes of a text, never ending in half a character. */
export function preview(text: string, max = 1024): string {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= max) return text
  return new TextDecoder().decode(bytes.subarray(0, max), { stream: true })
}

/**
 * What a delivery makes of an outcome (docs/routers.md, "Delivery guarantees"):
 * 2xx is delivered; 408, 429, 5xx, network errors and time-outs are worth
 * retrying; other statuses, refusals and redirect loops are permanent.
 */
export function classify(outcome: OutboundResult, now: number = Date.now()): DeliveryResult {
  if (!outcome.ok) {
    return { ok: false, retryable: outcome.kind === 'network' || outcome.kind === 'timeout', durationMs: outcome.durationMs, error: outcome.error }
  }
  const { status } = outcome
  const ok = status >= 200 && status < 300
  const retryAfterMs = parseRetryAfter(outcome.headers['retry-after'], now)
  return {
    ok,
    retryable: !ok && (status === 408 || status === 429 || status >= 500),
    status,
    durationMs: outcome.durationMs,
    response: preview(outcome.body),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(ok ? {} : { error: `receiver answered HTTP ${status}` }),
  }
}

/**
 * The certificate authorities TLS trusts with an extra PEM file (as
 * NODE_EXTRA_CA_CERTS names one): the bundled roots plus the file's, for
 * OutboundOptions.ca. Throws when the file cannot be read.
 */
export function caList(pemFile: string): string[] {
  return [...rootCertificates, readFileSync(pemFile, 'utf8')]
}
