// The one-time link that acknowledges a receipt from an e-mail or a chat
// message: /ack/<token>. The token names the receipt and cannot be forged:
// the receipt's 16 bytes, then the first 16 bytes of an HMAC-SHA-256 of them
// under a key derived from the server's secret key (HERALD_SECRET_KEY, or
// secret.key in HERALD_DATA_DIR), base64url: 43 characters. Instances that
// share a database share the secret key, so any of them takes the link.
// Destinations render in the pool's threads: the derived key and the base
// URL travel in the send configuration (send_config.ts), and this file needs
// nothing but node:crypto.
import { createHmac, timingSafeEqual } from 'node:crypto'

/** What a thread needs to make links: HERALD_PUBLIC_URL (no trailing slash) and the derived key, base64. */
export interface AckLinkConfig {
  base: string
  key: string
}

// A label of its own: the link key is not the key that seals router secrets,
// and a token of another purpose could never pass for a link.
const PURPOSE = 'herald ack link v1'
const MAC_BYTES = 16 // 128 bits: no forging by guessing, and a short URL
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The link key, from the server's 32-byte secret key. */
export const ackLinkKey = (secretKey: Uint8Array): string => createHmac('sha256', secretKey).update(PURPOSE).digest('base64')

const mac = (key: string, id: Buffer) => createHmac('sha256', Buffer.from(key, 'base64')).update(id).digest().subarray(0, MAC_BYTES)

const uuidBytes = (receipt: string) => Buffer.from(receipt.replaceAll('-', ''), 'hex')

function uuidOf(bytes: Buffer): string {
  const x = bytes.toString('hex')
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`
}

/** The token of a receipt. */
export function ackToken(key: string, receipt: string): string {
  if (!UUID.test(receipt)) throw new TypeError(`not a receipt id: ${receipt}`)
  const id = uuidBytes(receipt)
  return Buffer.concat([id, mac(key, id)]).toString('base64url')
}

/** The receipt a token names, or null when the token is not one this key made. */
export function ackTokenReceipt(key: string, token: string): string | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null
  const bytes = Buffer.from(token, 'base64url')
  if (bytes.length !== 16 + MAC_BYTES) return null
  const id = bytes.subarray(0, 16)
  if (!timingSafeEqual(bytes.subarray(16), mac(key, id))) return null
  return uuidOf(id)
}

/** The link of a receipt, or undefined for an event without one (or a send configuration without links: a test send). */
export function ackUrl(config: AckLinkConfig | undefined, receipt: string | null | undefined): string | undefined {
  if (!config || !receipt || !UUID.test(receipt)) return undefined
  return `${config.base}/ack/${ackToken(config.key, receipt)}`
}

/** For a destination's job: the link of its event when it has a receipt (its page asks before it acknowledges); else undefined. */
export const ackUrlOf = (job: { event: { receipt: string | null }; endpoints: { ackLink?: AckLinkConfig }; digest?: unknown }): string | undefined =>
  job.digest ? undefined : ackUrl(job.endpoints.ackLink, job.event.receipt) // a digest acknowledges no one event
