// Router secrets (destination URLs, tokens, SMTP passwords, signing secrets)
// are encrypted at rest with AES-256-GCM under HERALD_SECRET_KEY. Layout of a
// sealed value: version byte (1), 12-byte IV, 16-byte tag, ciphertext.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from './config'
import type { Logger } from './log'
import { privateDataDir, privateFile } from './data_dir'

const VERSION = 1

export interface SecretBox {
  seal(value: unknown): Uint8Array
  open<T>(sealed: Uint8Array): T
}

export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.byteLength !== 32) throw new Error('the secret key must be 32 bytes')
  return {
    seal(value) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()])
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body])
    },
    open<T>(sealed: Uint8Array): T {
      const buf = Buffer.from(sealed)
      if (buf[0] !== VERSION) throw new Error(`unknown secret format ${buf[0]}`)
      const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(1, 13))
      decipher.setAuthTag(buf.subarray(13, 29))
      const text = Buffer.concat([decipher.update(buf.subarray(29)), decipher.final()]).toString('utf8')
      return JSON.parse(text) as T
    },
  }
}

/**
 * The key from HERALD_SECRET_KEY, or else from HERALD_DATA_DIR/secret.key,
 * generated on first use (mode 0600). Instances that share a database must
 * share the key, hence the warning when a file key is used with PostgreSQL.
 */
export function loadSecretKey(config: Pick<Config, 'HERALD_SECRET_KEY' | 'HERALD_DATA_DIR' | 'DATABASE_URL'>, log?: Logger): Uint8Array {
  if (config.HERALD_SECRET_KEY) return Buffer.from(config.HERALD_SECRET_KEY, 'base64')
  // An in-memory database (tests) gets an in-memory key: its secrets die with it.
  if (config.HERALD_DATA_DIR.startsWith('memory://')) return randomBytes(32)
  const { value, file } = secretInFile(config.HERALD_DATA_DIR, 'secret.key', () => randomBytes(32).toString('base64'))
  if (config.DATABASE_URL) log?.warn({ file }, 'HERALD_SECRET_KEY is unset: router secrets use the key in this file; give every instance the same key')
  return Buffer.from(value, 'base64')
}

/**
 * The secret kept in `dir`/`name`, made by `make` on first use and written
 * with mode 0600 in a directory of mode 0700 (src/core/data_dir.ts); when
 * two processes start at once, the first file wins.
 */
export function secretInFile(dir: string, name: string, make: () => string): { value: string; file: string } {
  const file = join(dir, name)
  if (!existsSync(file)) {
    privateDataDir(dir)
    try {
      writeFileSync(file, make() + '\n', { mode: 0o600, flag: 'wx' })
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err // another process made it first
    }
  }
  privateFile(file)
  return { value: readFileSync(file, 'utf8').trim(), file }
}
