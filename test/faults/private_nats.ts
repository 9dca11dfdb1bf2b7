// A nats-server of a test's own, with its own JetStream store directory, which
// the test may kill (SIGKILL) and start again on the same store and port. The
// shared server on 127.0.0.1:4222 is never touched.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { eventually } from '../receiver'

const NATS_SERVER = '/usr/sbin/nats-server'

export const freePort = () =>
  new Promise<number>((res, rej) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => res(port))
    })
    s.once('error', rej)
  })

/** Resolves once something accepts TCP connections on the port. */
export const listening = (port: number, ms = 10_000, what = `port ${port} to listen`) =>
  eventually(async () => {
    const c = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } }).catch(() => null)
    c?.end()
    return !!c
  }, ms, what)

export interface PrivateNats {
  url: string
  port: number
  /** Its directory: the JetStream store (js/) and its configuration file. */
  dir: string
  start(): Promise<void>
  /** Kills it, deletes its JetStream store, and starts it again empty on the same port. */
  wipe(): Promise<void>
  kill(signal?: NodeJS.Signals): Promise<void>
  close(): Promise<void>
}

/** `config`: lines of a nats-server configuration file (`max_payload: 16384`), for limits the command line does not set. */
export async function privateNats(opts: { start?: boolean; config?: string } = {}): Promise<PrivateNats> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'herald-nats-'))
  const conf = opts.config ? join(dir, 'nats.conf') : null
  if (conf) writeFileSync(conf, opts.config!)
  let proc: ReturnType<typeof Bun.spawn> | null = null
  const nats: PrivateNats = {
    url: `nats://127.0.0.1:${port}`,
    port,
    dir,
    async start() {
      proc = Bun.spawn([NATS_SERVER, ...(conf ? ['-c', conf] : []), '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'js')], { stdout: 'ignore', stderr: 'ignore' })
      await listening(port, 10_000, 'nats-server to listen')
    },
    async wipe() {
      await nats.kill('SIGKILL')
      rmSync(join(dir, 'js'), { recursive: true, force: true })
      await nats.start()
    },
    async kill(signal = 'SIGKILL') {
      proc?.kill(signal)
      await proc?.exited
    },
    async close() {
      await nats.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    },
  }
  if (opts.start !== false) await nats.start()
  return nats
}
