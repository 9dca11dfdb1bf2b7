// The VAPID key pair (RFC 8292) that identifies this Herald to the browsers'
// push services. A browser subscribes with the public key (the app's
// `applicationServerKey`) and its push service then accepts only pushes
// whose JWT that key's private half signed. So the pair must stay the same
// for as long as subscriptions live, and every process that pushes must use
// the same one: it comes from WEB_PUSH_VAPID_PUBLIC_KEY and
// WEB_PUSH_VAPID_PRIVATE_KEY, or else from HERALD_DATA_DIR/vapid.json,
// generated on first start as the secret key is (src/core/secrets.ts).
import { createECDH, createPrivateKey, sign, type KeyObject } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, type Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { privateDataDir, privateFile } from '../../core/data_dir'
import type { WebPushConfig } from './job'

type VapidSettings = Pick<Config, 'WEB_PUSH_VAPID_PUBLIC_KEY' | 'WEB_PUSH_VAPID_PRIVATE_KEY' | 'WEB_PUSH_SUBJECT' | 'WEB_PUSH_TTL_S' | 'HERALD_DATA_DIR' | 'HERALD_PUBLIC_URL' | 'DATABASE_URL'>

const b64url = (s: string) => Buffer.from(s, 'base64url')

/** A new VAPID key pair, base64url: the 65-byte uncompressed public point and the 32-byte private scalar. */
export function generateVapidPair(): { publicKey: string; privateKey: string } {
  const ecdh = createECDH('prime256v1')
  const publicKey = ecdh.generateKeys()
  // The scalar as a 32-byte big-endian number: getPrivateKey drops leading zero bytes.
  const privateKey = Buffer.alloc(32)
  const d = ecdh.getPrivateKey()
  d.copy(privateKey, 32 - d.length)
  return { publicKey: publicKey.toString('base64url'), privateKey: privateKey.toString('base64url') }
}

/** Why a key pair is unusable, or null: the public key must be the private key's own. */
export function vapidPairProblem(publicKey: string, privateKey: string): string | null {
  const pub = b64url(publicKey)
  const priv = b64url(privateKey)
  if (pub.length !== 65 || pub[0] !== 4) return 'the public key must be a 65-byte uncompressed P-256 point, base64url'
  if (priv.length !== 32) return 'the private key must be 32 bytes, base64url'
  try {
    const ecdh = createECDH('prime256v1')
    ecdh.setPrivateKey(priv)
    if (!ecdh.getPublicKey().equals(pub)) return 'the public key is not the private key\'s'
  } catch {
    return 'the private key is not a P-256 key'
  }
  return null
}

/** The pair in `file`, made (mode 0600) when there is none yet. */
function pairInFile(file: string, dir: string): { publicKey: string; privateKey: string } {
  if (!existsSync(file)) {
    privateDataDir(dir)
    try {
      writeFileSync(file, JSON.stringify(generateVapidPair(), null, 2) + '\n', { mode: 0o600, flag: 'wx' })
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err // another process made it first
    }
  }
  privateFile(file)
  let pair: { publicKey?: unknown; privateKey?: unknown }
  try {
    pair = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new ConfigError(`invalid VAPID key file ${file}: ${(err as Error).message}`)
  }
  const problem = typeof pair.publicKey === 'string' && typeof pair.privateKey === 'string' ? vapidPairProblem(pair.publicKey, pair.privateKey) : 'it needs publicKey and privateKey'
  if (problem) throw new ConfigError(`invalid VAPID key file ${file}: ${problem}`)
  return pair as { publicKey: string; privateKey: string }
}

/**
 * The JWT's `sub`: WEB_PUSH_SUBJECT, else HERALD_PUBLIC_URL when it is https.
 * Apple's service refuses a subject it cannot use to reach the sender, so the
 * fallback is said once at start: as a warning when Herald has a public
 * address, at debug level on this machine's own (no public address, or a
 * loopback one), where no phone can subscribe without https anyway and the
 * warning was noise on every local start.
 */
function subjectOf(config: VapidSettings, log?: Logger): string {
  if (config.WEB_PUSH_SUBJECT) return config.WEB_PUSH_SUBJECT
  if (config.HERALD_PUBLIC_URL?.startsWith('https://')) return config.HERALD_PUBLIC_URL
  const say = isLocal(config.HERALD_PUBLIC_URL) ? log?.debug.bind(log) : log?.warn.bind(log)
  say?.('WEB_PUSH_SUBJECT is unset (and HERALD_PUBLIC_URL is not https): pushes name mailto:herald@localhost as their contact, which Apple\'s push service refuses; set WEB_PUSH_SUBJECT to mailto:you@example.com')
  return 'mailto:herald@localhost'
}

/** No public address, or one of this machine's own (localhost, a loopback address). */
function isLocal(publicUrl: string | undefined): boolean {
  if (!publicUrl) return true
  try {
    const host = new URL(publicUrl).hostname.replace(/^\[|\]$/g, '')
    return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host)
  } catch {
    return false
  }
}

export function loadWebPushConfig(config: VapidSettings, log?: Logger): WebPushConfig {
  const base = { subject: subjectOf(config, log), ttlSeconds: config.WEB_PUSH_TTL_S }
  const pub = config.WEB_PUSH_VAPID_PUBLIC_KEY
  const priv = config.WEB_PUSH_VAPID_PRIVATE_KEY
  if (pub || priv) {
    if (!pub || !priv) throw new ConfigError(`invalid configuration: ${pub ? 'WEB_PUSH_VAPID_PRIVATE_KEY' : 'WEB_PUSH_VAPID_PUBLIC_KEY'} is required when ${pub ? 'WEB_PUSH_VAPID_PUBLIC_KEY' : 'WEB_PUSH_VAPID_PRIVATE_KEY'} is set`)
    const problem = vapidPairProblem(pub, priv)
    if (problem) throw new ConfigError(`invalid configuration: WEB_PUSH_VAPID_PUBLIC_KEY / WEB_PUSH_VAPID_PRIVATE_KEY: ${problem}`)
    return { publicKey: pub, privateKey: priv, ...base }
  }
  // An in-memory database (tests) gets an in-memory pair: its subscriptions die with it.
  if (config.HERALD_DATA_DIR.startsWith('memory://')) return { ...generateVapidPair(), ...base }
  const file = join(config.HERALD_DATA_DIR, 'vapid.json')
  const pair = pairInFile(file, config.HERALD_DATA_DIR)
  if (config.DATABASE_URL) log?.warn({ file }, 'WEB_PUSH_VAPID_PUBLIC_KEY is unset: Web Push uses the key pair in this file; give every instance the same pair (browsers subscribed with its public key)')
  return { ...pair, ...base }
}

// ---------------------------------------------------------------- JWT

// A JWT is valid at most 24 h (RFC 8292 §2); each is signed for 12 h and
// used for one, so a push never carries one close to its end.
const JWT_LIFETIME_S = 12 * 3600
const JWT_REUSE_MS = 3600_000
const signed = new Map<string, { header: string; until: number }>()
const signingKeys = new Map<string, KeyObject>()

/** The private key of a pair as a KeyObject, made once per thread. */
function signingKey(config: WebPushConfig): KeyObject {
  let key = signingKeys.get(config.privateKey)
  if (!key) {
    const point = b64url(config.publicKey)
    const jwk = { kty: 'EC', crv: 'P-256', d: config.privateKey, x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') }
    key = createPrivateKey({ key: jwk, format: 'jwk' })
    if (signingKeys.size > 10) signingKeys.clear()
    signingKeys.set(config.privateKey, key)
  }
  return key
}

const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')

/** An ES256 JWT (RFC 8292 §2) for a push service's origin, expiring at `exp` (seconds). */
export function vapidToken(config: WebPushConfig, audience: string, exp: number): string {
  const unsigned = `${part({ typ: 'JWT', alg: 'ES256' })}.${part({ aud: audience, exp, sub: config.subject })}`
  // JWS wants the raw r||s signature (IEEE P1363), not node's default DER.
  const signature = sign('sha256', Buffer.from(unsigned), { key: signingKey(config), dsaEncoding: 'ieee-p1363' })
  return `${unsigned}.${signature.toString('base64url')}`
}

/**
 * The `Authorization: vapid t=…, k=…` header for a push service's origin
 * (the JWT's `aud`). One ES256 signature per origin per hour, per thread.
 */
export function vapidAuthorization(config: WebPushConfig, audience: string, now = Date.now()): string {
  const key = `${audience}\n${config.publicKey}\n${config.subject}`
  const hit = signed.get(key)
  if (hit && hit.until > now) return hit.header
  const header = `vapid t=${vapidToken(config, audience, Math.floor(now / 1000) + JWT_LIFETIME_S)}, k=${config.publicKey}`
  if (signed.size > 1000) signed.clear() // push services are a handful of origins; bound it anyway
  signed.set(key, { header, until: now + JWT_REUSE_MS })
  return header
}
