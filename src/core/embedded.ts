// The embedded database: PGlite inside Herald's own process, spoken to by
// postgres.js through an in-memory socket, so every SQL statement runs as it
// does on PostgreSQL while nothing listens: no port, no Unix socket, nothing
// another process (of this user or another) could connect to, and nobody can
// take Herald's connection from it. Its files live in HERALD_DATA_DIR, made
// 0700 so that other local users cannot read them either (src/core/data_dir.ts).
import { EventEmitter } from 'node:events'
import type { PGlite } from '@electric-sql/pglite'

/**
 * The smallest net.Socket that postgres.js's `socket` option needs: it
 * writes frontend messages, and reads the backend's answers as 'data'. Each
 * whole message goes to PGlite in turn, as pglite-socket's handler did over
 * TCP.
 */
export class InProcessSocket extends EventEmitter {
  readyState: 'open' | 'closed' = 'open'
  private pending = Buffer.alloc(0)
  private started = false
  private work: Promise<void> = Promise.resolve()

  constructor(private readonly db: PGlite) {
    super()
  }

  write(chunk: Uint8Array, callback?: (err?: Error) => void): boolean {
    if (this.readyState !== 'open') {
      queueMicrotask(() => callback?.(new Error('the embedded database connection is closed')))
      return false
    }
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : Buffer.from(chunk)
    for (let message = this.next(); message; message = this.next()) {
      const m = message
      this.work = this.work.then(() => this.run(m))
    }
    queueMicrotask(() => callback?.())
    return true
  }

  /** The next whole message, or null until more bytes come. */
  private next(): Uint8Array | null {
    const b = this.pending
    // The startup message has no type byte: a length, then the protocol version.
    const length = this.started ? (b.length >= 5 ? 1 + b.readInt32BE(1) : 0) : (b.length >= 4 ? b.readInt32BE(0) : 0)
    if (!length || b.length < length) return null
    this.started = true
    this.pending = b.subarray(length)
    return new Uint8Array(b.subarray(0, length))
  }

  private async run(message: Uint8Array): Promise<void> {
    if (this.readyState !== 'open') return
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(message, { onRawData: (data) => data.length && this.emit('data', Buffer.from(data)) }),
      )
    } catch (err) {
      this.emit('error', err)
      this.destroy()
    }
  }

  end(chunk?: Uint8Array): void {
    if (chunk) this.write(chunk)
    this.work.then(() => this.destroy())
  }

  destroy(): void {
    if (this.readyState === 'closed') return
    this.readyState = 'closed'
    // A transaction the connection left open would hold the next one's statements.
    this.db.runExclusive(async () => { if (this.db.isInTransaction()) await this.db.exec('ROLLBACK') }).catch(() => {})
    setImmediate(() => this.emit('close', false))
  }

  pause(): void {}
  resume(): void {}
  setKeepAlive(): void {}
}
