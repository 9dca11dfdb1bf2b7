// A nats-server of a test's own, with its own JetStream store directory, which
// the test may kill (SIGKILL) and start again on the same store and port. The
// shared server on 127.0.0.1:4222 is never touched.
import { mkdtempSync, rmSync } from 'node:fs'
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
  /** Its JetStream store directory. */
  dir: string
  start(): Promise<void>
  /** Kills it, deletes its JetStream store, and starts it again empty on the same port. */
  wipe(): Promise<void>
  kill(signal?: NodeJS.Signals): Promise<void>
  close(): Promise<void>
}

export async function privateNats(opts: { start?: boolean } = {}): Promise<PrivateNats> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'herald-nats-'))
  let proc: ReturnType<typeof Bun.spawn> | null = null
  const nats: PrivateNats = {
    url: `nats://127.0.0.1:${port}`,
    port,
    dir,
    async start() {
      proc = Bun.spawn([NATS_SERVER, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdout: 'ignore', stderr: 'ignore' })
      await listening(port, 10_000, 'nats-server to listen')
    },
    async wipe() {
      await nats.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
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
