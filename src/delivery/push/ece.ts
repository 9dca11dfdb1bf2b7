// Web Push message encryption (RFC 8291): the payload of a push is encrypted
// for one browser alone, as one aes128gcm record (RFC 8188), on node:crypto.
//
// Per message: a new ephemeral P-256 key pair (RFC 8291 §3.1 requires one
// for every message, so nothing of it is cached), one ECDH with the
// browser's public key, four HMAC-SHA-256 (two HKDF extract-and-expand
// steps whose expansion fits one block, plus the second expansion), and one
// AES-128-GCM. Measured beside the `web-push` package and a WebCrypto
// version (bench/push_webpush.ts): the elliptic-curve steps are nearly all of
// it, and createECDH reaches them with the least around them.
import { createCipheriv, createECDH, createHmac, randomFillSync, type ECDH } from 'node:crypto'

/** RFC 8188 §2.1: the header is salt (16), rs (4), idlen (1) and the key id, here the sender's 65-byte public key. */
export const HEADER_BYTES = 16 + 4 + 1 + 65
/** The padding delimiter (one byte: 2, the last record) and the GCM tag (16) follow the plaintext. */
export const OVERHEAD_BYTES = HEADER_BYTES + 1 + 16
// A push message is one record (RFC 8291 §4), and a push service takes 4096
// bytes of body (RFC 8030 §7.2): the record size says so.
const RECORD_SIZE = 4096

const KEY_INFO = Buffer.from('WebPush: info\0', 'latin1')
const CEK_INFO = Buffer.from('Content-Encoding: aes128gcm\0\x01', 'latin1')
const NONCE_INFO = Buffer.from('Content-Encoding: nonce\0\x01', 'latin1')
const ONE = Buffer.from([1])
const DELIMITER = Buffer.from([2])

/** The browser's side of a subscription: its P-256 public key (65 bytes, uncompressed) and its 16-byte auth secret. */
export interface Receiver {
  publicKey: Uint8Array
  auth: Uint8Array
}

/** Fixed inputs, for RFC 8291's test vector (Appendix A) only: a real message draws both anew. */
export interface Fixed {
  privateKey: Uint8Array // the sender's ephemeral private key
  salt: Uint8Array
}

const hmac = (key: Uint8Array, ...parts: Uint8Array[]) => {
  const h = createHmac('sha256', key)
  for (const p of parts) h.update(p)
  return h.digest()
}

/**
 * The aes128gcm body of one push: header, then the plaintext followed by the
 * delimiter, encrypted and tagged. Throws when the browser's key is not a
 * point of P-256 (a subscription registered before its keys were checked).
 */
export function encryptPush(plaintext: Uint8Array, to: Receiver, fixed?: Fixed): Buffer {
  if (plaintext.length + OVERHEAD_BYTES > RECORD_SIZE) throw new RangeError(`a push payload is at most ${RECORD_SIZE - OVERHEAD_BYTES} bytes, got ${plaintext.length}`)
  const ecdh: ECDH = createECDH('prime256v1')
  let senderPublic: Buffer
  if (fixed) {
    ecdh.setPrivateKey(fixed.privateKey)
    senderPublic = ecdh.getPublicKey()
  } else senderPublic = ecdh.generateKeys()
  const shared = ecdh.computeSecret(to.publicKey)
  const body = Buffer.allocUnsafe(HEADER_BYTES + plaintext.length + 17)
  const salt = body.subarray(0, 16)
  if (fixed) salt.set(fixed.salt)
  else randomFillSync(salt)
  body.writeUInt32BE(RECORD_SIZE, 16)
  body[20] = 65
  senderPublic.copy(body, 21)
  // RFC 8291 §3.4: IKM = HKDF(auth, ecdh_secret, "WebPush: info" || 0 || ua_public || as_public, 32).
  const ikm = hmac(hmac(to.auth, shared), KEY_INFO, to.publicKey, senderPublic, ONE)
  // RFC 8188 §2.2-2.3: the content encryption key and the nonce, from PRK = HMAC(salt, IKM).
  const prk = hmac(salt, ikm)
  const cek = hmac(prk, CEK_INFO).subarray(0, 16)
  const nonce = hmac(prk, NONCE_INFO).subarray(0, 12) // record 0: XORed with 0
  const cipher = createCipheriv('aes-128-gcm', cek, nonce)
  let at = HEADER_BYTES
  at += cipher.update(plaintext).copy(body, at)
  at += cipher.update(DELIMITER).copy(body, at)
  at += cipher.final().copy(body, at)
  cipher.getAuthTag().copy(body, at)
  return body
}
