// The operator token. HERALD_ADMIN_TOKEN sets it; on the embedded default,
// where one process on one machine is the whole of Herald, a token is
// generated at first start into HERALD_DATA_DIR/admin.token (mode 0600), so
// that the CLI on the same machine works without being told anything, as
// `ntfy user` does. With PostgreSQL no file is made: instances share a
// database, not a disk, and the operator API stays off until the token is set.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from './config'
import { secretInFile } from './secrets'

export const ADMIN_TOKEN_FILE = 'admin.token'

/** Where the embedded default keeps its generated operator token. */
export const adminTokenPath = (dataDir: string) => join(dataDir, ADMIN_TOKEN_FILE)

/**
 * The token the operator API is guarded with, and where it came from; none
 * (the operator API is off) with PostgreSQL and no HERALD_ADMIN_TOKEN.
 */
export function loadAdminToken(config: Pick<Config, 'HERALD_ADMIN_TOKEN' | 'HERALD_DATA_DIR' | 'DATABASE_URL'>): { token?: string; file?: string } {
  if (config.HERALD_ADMIN_TOKEN) return { token: config.HERALD_ADMIN_TOKEN }
  if (config.DATABASE_URL) return {}
  // An in-memory database (tests) has no disk to share a token through.
  if (config.HERALD_DATA_DIR.startsWith('memory://')) return {}
  const { value, file } = secretInFile(config.HERALD_DATA_DIR, ADMIN_TOKEN_FILE, () => randomBytes(24).toString('base64url'))
  return { token: value, file }
}

/**
 * The CLI's fallback when neither --token nor HERALD_ADMIN_TOKEN is given:
 * the token a Herald on the embedded default generated in `dataDir`
 * (HERALD_DATA_DIR, default ./.herald), when this user can read it.
 */
export function readLocalAdminToken(dataDir: string): string | undefined {
  try {
    return readFileSync(adminTokenPath(dataDir), 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}
