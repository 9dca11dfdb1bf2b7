// A PostgreSQL cluster of a test's own (initdb in a temporary directory, on a
// free port), which the test may kill and start again on the same data
// directory and port. The shared server on 127.0.0.1:5432 is never touched:
// other test files run against it at the same time.
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './private_nats'

export interface PrivatePostgres {
  url: string
  port: number
  /** Starts the cluster (again) on its data directory and port; resolves once it accepts connections. */
  start(): Promise<void>
  /** A crash: `pg_ctl -m immediate stop` (backends are killed, no checkpoint; the next start recovers from WAL). */
  kill(): Promise<void>
  /** Stops the cluster and deletes its directory. */
  close(): Promise<void>
}

/** The newest Debian PostgreSQL under /usr/lib/postgresql; fails loudly when there is none. */
function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
  if (!versions.length) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)')
  return `/usr/lib/postgresql/${versions[0]}/bin`
}

// PostgreSQL refuses to run as root, and the tests run as root in CI.
const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : []

async function run(cmd: string[], what: string) {
  const p = Bun.spawn([...asPostgres, ...cmd], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  if (code !== 0) throw new Error(`${what} failed (${code}):\n${out}${err}`)
}

export async function privatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir()
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'herald-pg-'))
  if (asPostgres.length) {
    const id = async (flag: string) => Number((await new Response(Bun.spawn(['id', flag, 'postgres']).stdout).text()).trim())
    chownSync(dir, await id('-u'), await id('-g'))
  }
  const data = join(dir, 'data')
  // -N and fsync=off: a killed process (not a killed machine) loses nothing
  // the kernel already has, which is the failure this cluster is for.
  await run([`${bin}/initdb`, '-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale', '-N'], 'initdb')
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c max_connections=200`
  const pg: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: () => run([`${bin}/pg_ctl`, '-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '60', 'start'], 'pg_ctl start'),
    kill: () => run([`${bin}/pg_ctl`, '-D', data, '-m', 'immediate', '-w', 'stop'], 'pg_ctl stop'),
    async close() {
      await pg.kill().catch(() => {}) // already stopped, or never started
      rmSync(dir, { recursive: true, force: true })
    },
  }
  try {
    await pg.start()
  } catch (err) {
    await pg.close()
    throw err
  }
  return pg
}
