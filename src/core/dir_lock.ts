// One process per data directory. PGlite keeps no lock of its own: two
// `herald start` on one HERALD_DATA_DIR both opened it, both answered 200,
// and one's events were lost when its pages were overwritten by the other's.
// The lock is flock(2) on HERALD_DATA_DIR/herald.lock, taken before the
// database is opened: the kernel gives it to exactly one of two processes
// that try at once, and lets it go when its holder ends, even by SIGKILL, so
// a stale lock cannot block a restart (a pid file would need a liveness check
// and a take-over, both racy, and a pid reused after a reboot looks alive).
// Node has no flock; Bun reaches libc's through bun:ffi. The pid written in
// the file only names the holder in the second process's message.
import { dlopen, FFIType, read } from 'bun:ffi'
import { closeSync, constants, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ConfigError } from './config'

export const LOCK_FILE = 'herald.lock'

const LOCK_EX = 2
const LOCK_NB = 4
// EWOULDBLOCK: 11 on Linux, 35 on macOS and the BSDs.
const HELD = process.platform === 'linux' ? 11 : 35

type Libc = { flock(fd: number, op: number): number; errno(): number }
let libc: Libc | null | undefined

/** libc's flock and errno, or null where neither can be loaded (Windows). */
function loadLibc(): Libc | null {
  if (libc !== undefined) return libc
  const errnoName = process.platform === 'linux' ? '__errno_location' : '__error'
  const names = process.platform === 'darwin' ? ['libSystem.B.dylib'] : ['libc.so.6', `/lib/ld-musl-${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}.so.1`, 'libc.so']
  for (const name of names) {
    try {
      const lib = dlopen(name, {
        flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
        [errnoName]: { args: [], returns: FFIType.ptr },
      })
      const errnoAt = lib.symbols[errnoName] as () => number
      return (libc = { flock: lib.symbols.flock as (fd: number, op: number) => number, errno: () => read.i32(errnoAt() as never, 0) })
    } catch {
      // the next name
    }
  }
  return (libc = null)
}

/** The pid the holder wrote, waiting a little for it: the holder writes it just after it locks. */
function holderPid(file: string): string {
  for (let i = 0; i < 20; i++) {
    try {
      const pid = readFileSync(file, 'utf8').trim()
      if (/^\d+$/.test(pid)) return pid
    } catch {
      // not readable yet
    }
    Bun.sleepSync(50)
  }
  return 'unknown'
}

export interface DirLock {
  /** False where the platform offers no flock: nothing keeps a second process out. */
  held: boolean
  release(): void
}

/**
 * Takes the data directory's lock, or throws a ConfigError naming the
 * directory and the pid of the Herald that holds it. Held until release(),
 * or until the process ends.
 */
export function lockDataDir(dir: string): DirLock {
  const lib = loadLibc()
  if (!lib) return { held: false, release() {} }
  const file = join(dir, LOCK_FILE)
  const fd = openSync(file, constants.O_RDWR | constants.O_CREAT, 0o600)
  if (lib.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = lib.errno()
    closeSync(fd)
    if (errno !== HELD) throw new Error(`cannot lock the data directory ${resolve(dir)} (flock on ${LOCK_FILE}: errno ${errno})`)
    throw new ConfigError(`the data directory ${resolve(dir)} (HERALD_DATA_DIR) is in use by another Herald, pid ${holderPid(file)}: stop it first, or give this one another HERALD_DATA_DIR`)
  }
  ftruncateSync(fd, 0)
  writeSync(fd, `${process.pid}\n`, 0)
  let open = true
  return {
    held: true,
    release() {
      if (open) closeSync(fd) // closing the descriptor lets the lock go
      open = false
    },
  }
}
