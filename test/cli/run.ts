// Runs the real CLI as a child process, as a person or a CI job would.
import { join } from 'node:path'

export const CLI = join(import.meta.dir, '..', '..', 'src', 'cli', 'main.ts')

export interface Run {
  code: number
  stdout: string
  stderr: string
}

export interface RunOptions {
  stdin?: string
  cwd?: string
}

/**
 * `herald …` with the given environment over this one's, minus the settings
 * that would point it somewhere a test did not choose (DATABASE_URL, NATS_URL,
 * HERALD_URL, HERALD_ADMIN_TOKEN, HERALD_KEY, HERALD_USER_TOKEN, HERALD_DATA_DIR, PORT).
 */
export async function herald(args: string[], env: Record<string, string | undefined> = {}, opts: RunOptions = {}): Promise<Run> {
  const { DATABASE_URL: _d, NATS_URL: _n, NATS_STREAM: _s, HERALD_URL: _u, HERALD_ADMIN_TOKEN: _t, HERALD_KEY: _k, HERALD_USER_TOKEN: _ut, HERALD_DATA_DIR: _dd, PORT: _p, ...inherited } = process.env
  // process.execPath is the bun binary under `bun test`; `bun` may not be on PATH.
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    env: { ...inherited, LOG_LEVEL: 'silent', ...env },
    cwd: opts.cwd,
    stdin: opts.stdin === undefined ? 'ignore' : new Blob([opts.stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

/** The usage error's shape: one line, then the hint; nothing on stdout. */
export const USAGE_ERROR = /^error: [^\n]+\nRun 'herald help' to see every command and option\.\n$/
