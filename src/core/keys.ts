// API keys: `hrld_` + 30 random base62 characters + a 6-character CRC32
// checksum. The fixed prefix and the checksum let secret scanners recognise a
// leaked key and let Herald refuse a mistyped one without a database look-up.
// Only the SHA-256 of a key is stored, with its first characters as `prefix`.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const PREFIX = 'hrld_'
const BODY = 30
const CHECK = 6
export const KEY_PATTERN = /^hrld_[0-9A-Za-z]{36}$/
export const PREFIX_LENGTH = 12

function base62(bytes: Uint8Array, length: number): string {
  let out = ''
  // Rejection sampling keeps every character equally likely.
  for (const b of bytes) {
    if (b < 248) out += ALPHABET[b % 62]
    if (out.length === length) return out
  }
  return out + base62(randomBytes(length), length - out.length)
}

function checksum(body: string): string {
  let n = Bun.hash.crc32(body)
  let out = ''
  for (let i = 0; i < CHECK; i++) {
    out = ALPHABET[n % 62] + out
    n = Math.floor(n / 62)
  }
  return out
}

/** A secret of the given 5-character prefix (`hrld_` API keys, `hrlu_` user tokens). */
export function generateSecret(prefix: string): string {
  const body = base62(randomBytes(BODY * 2), BODY)
  return prefix + body + checksum(body)
}

export const generateApiKey = () => generateSecret(PREFIX)

/** True when `key` has the shape of a secret with this prefix and a valid checksum. */
export function isWellFormedSecret(key: string, prefix: string): boolean {
  if (key.length !== prefix.length + BODY + CHECK || !key.startsWith(prefix) || !/^[0-9A-Za-z]+$/.test(key.slice(prefix.length))) return false
  const body = key.slice(prefix.length, prefix.length + BODY)
  return checksum(body) === key.slice(prefix.length + BODY)
}

/** True when `key` has Herald's API-key shape and a valid checksum. */
export const isWellFormedKey = (key: string) => KEY_PATTERN.test(key) && isWellFormedSecret(key, PREFIX)

export const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret).digest()
export const keyPrefix = (key: string) => key.slice(0, PREFIX_LENGTH)

/** Compares two secrets in constant time, through their hashes. */
export const secretsEqual = (a: string, b: string) => timingSafeEqual(hashSecret(a), hashSecret(b))

const BEARER = /^bearer /i
/** The token of an `Authorization: Bearer <token>` header, or null. */
export const bearer = (header: string | null): string | null => {
  if (!header || header.length < 8 || !BEARER.test(header)) return null
  return header.slice(7).trim() || null
}
