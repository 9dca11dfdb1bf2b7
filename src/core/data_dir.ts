// HERALD_DATA_DIR is Herald's user's alone: the embedded database's files and
// the secrets Herald generates (the router key, the operator token, the Web
// Push pair) are read by nobody else. The directory was narrowed to 0700 only
// when the embedded database opened it: with DATABASE_URL it was made by
// whichever secret came first, with the umask's mode (0777 under umask 000).
// Now it is made 0700 wherever it is made, and narrowed at every start on
// either database, with the secret files in it.
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from './config'
import type { Logger } from './log'

/** The files Herald keeps secrets in, in HERALD_DATA_DIR. */
export const SECRET_FILES = ['secret.key', 'admin.token', 'vapid.json'] as const

/** HERALD_DATA_DIR, made (or narrowed to) mode 0700. */
export function privateDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700)
}

/**
 * A secret file narrowed to mode 0600 when others could read it (one copied
 * or restored keeps the mode it was given), said in the log. Narrowed rather
 * than refused: Herald's user owns the file and nothing is lost by it. When
 * the mode cannot be changed (the file is another user's), Herald refuses to
 * start rather than use a secret others can read.
 */
export function privateFile(file: string, log?: Logger): void {
  let mode: number
  try {
    mode = statSync(file).mode
  } catch {
    return // not there: nothing to narrow
  }
  if ((mode & 0o077) === 0) return
  const was = (mode & 0o777).toString(8)
  try {
    chmodSync(file, 0o600)
  } catch (err) {
    throw new ConfigError(`${file} is readable by other users (mode ${was}) and Herald cannot change its mode (${(err as { code?: string }).code ?? err}): make it Herald's user's, mode 0600 (chmod 600 ${file})`)
  }
  log?.warn({ file, mode: was }, 'a secret file was readable by other users: narrowed to mode 0600')
}

/** At every start, on either database: the data directory (when there is one yet) and the secret files in it narrowed. */
export function narrowDataDir(dir: string, log: Logger): void {
  if (dir.startsWith('memory://') || !existsSync(dir)) return
  privateDataDir(dir)
  for (const name of SECRET_FILES) privateFile(join(dir, name), log)
}
