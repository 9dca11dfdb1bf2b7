// A lane of the write path: the batches of some workspaces, on a connection of
// its own. The batcher gives a workspace always the same lane, so two lanes
// never lock the same workspace row and never wait on each other.
//
// Pipelining. A lane has at most `pipeline` batches in flight on its
// connection: while one commits, the next is already sent, once it holds as
// many events as the one ahead (so that batches stay full), and PostgreSQL
// runs it as soon as the first has committed, rather than after a round trip.
// One connection runs one statement at a time, so the second never waits on
// the first one's locks. A batch with idempotency keys runs in a transaction
// on a pooled connection, not on the lane's: it neither goes alongside another
// batch nor lets one go alongside it, so that a lane's batches still take
// their workspaces' quota and tokens in the order their events came (POST
// /events relies on it).
//
// The watchdog. When the connection is lost, postgres.js 3.4.9 may never
// settle the statements it still held (porsager/postgres#1186), nor the first
// one on a connection that the server closes while it starts up (#1214). So a
// lane settles its batches itself: a batch that fails for a lost connection,
// or is not settled within `timeoutMs`, gives the connection up. Every batch
// still in flight on it fails, and the lane goes on with a new connection.
import type { Sql } from '../core/db'
import { connectionLost } from '../core/db'

export interface LaneOptions<I> {
  /** Most items in one batch. */
  maxEvents: number
  /** How long the first item of an idle lane waits for others (0: it goes at once). */
  windowMs: number
  /** Batches in flight at once on the lane's connection (1: one after the other). */
  pipeline: number
  /** A batch not settled after this long gives up the connection (0: never, for a connection that cannot be replaced). */
  timeoutMs: number
  /** A new connection of the lane's own. */
  connect: () => Sql
  /** Whether an item holds an idempotency key (its batch then goes alone). */
  keyed: (item: I) => boolean
  /** Writes a batch; it may hand items back with `requeue`, for the next batch. */
  write: (lane: Lane<I>, items: I[]) => Promise<void>
  /** A batch whose `write` threw. */
  fail: (lane: Lane<I>, items: I[], err: unknown) => unknown
  /** The lane has settled its last batch and holds nothing. */
  onIdle: () => void
}

/** Thrown into the batches of a lane whose connection is given up. */
const laneLost = (why: string) => Object.assign(new Error(`the batch's database connection was given up: ${why}`), { code: 'CONNECTION_DESTROYED' })

export class Lane<I> {
  /** The lane's connection, replaced when it is given up. */
  conn: Sql
  private queue: I[] = []
  private timer: ReturnType<typeof setTimeout> | null = null
  private inflight = 0
  private keyed = 0 // queued items with an idempotency key
  private keyedInflight = 0 // batches in flight that hold such items
  private last = 0 // items in the batch sent last
  // The batches in flight on `conn`, told when it is given up. Not a promise
  // that every batch races: a promise that stays pending keeps every race's
  // reaction, and with it every batch's outcomes, for as long as the
  // connection lives (it grew the API process by ~2 objects per event,
  // hundreds of MB under load).
  private lost = new Set<(err: Error) => void>()

  constructor(private readonly opts: LaneOptions<I>) {
    this.conn = opts.connect()
  }

  /** Whether a batch is in flight or an item waits. */
  get busy(): boolean {
    return this.inflight > 0 || this.queue.length > 0
  }

  /** Queues an item and sends a batch if the lane is ready for one. */
  add(item: I) {
    this.requeue(item)
    if (this.inflight > 0) return this.ready() ? this.flush() : undefined
    if (this.queue.length >= this.opts.maxEvents || this.opts.windowMs === 0) return this.flush()
    this.timer ??= setTimeout(() => this.flush(), this.opts.windowMs)
  }

  /** Queues an item for the next batch, without sending one. */
  requeue(item: I) {
    this.queue.push(item)
    if (this.opts.keyed(item)) this.keyed++
  }

  /** Sends the queued items as a batch, if the lane is ready for one. */
  flush() {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (!this.queue.length || !this.ready()) return
    const items = this.queue.splice(0, this.opts.maxEvents)
    let keyed = 0
    for (const it of items) if (this.opts.keyed(it)) keyed++
    this.keyed -= keyed
    if (keyed) this.keyedInflight++
    this.last = items.length
    this.inflight++
    this.opts
      .write(this, items)
      .catch((err) => this.opts.fail(this, items, err))
      .finally(() => {
        this.inflight--
        if (keyed) this.keyedInflight--
        // Whatever arrived while this batch committed has waited long enough.
        if (this.queue.length) this.flush()
        else if (!this.busy) this.opts.onIdle()
      })
  }

  /**
   * Runs a statement on the lane's connection and settles it: with its own
   * answer, or with the connection's loss or timeout, whichever comes first.
   */
  settled<T>(statement: (conn: Sql) => Promise<T>): Promise<T> {
    const conn = this.conn
    const inFlight = this.lost
    return new Promise<T>((resolve, reject) => {
      const timer = this.opts.timeoutMs > 0 ? setTimeout(() => this.renew(conn, laneLost(`no answer within ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs) : undefined
      const done = () => {
        clearTimeout(timer)
        inFlight.delete(fail)
      }
      const fail = (err: Error) => {
        done()
        if (connectionLost(err)) this.renew(conn, err)
        reject(err)
      }
      inFlight.add(fail)
      statement(conn).then((v) => {
        done()
        resolve(v)
      }, fail)
    })
  }

  /** Whether a batch may go now: at once when idle, alongside one in flight only once enough has gathered. */
  private ready(): boolean {
    return this.inflight === 0 || (this.inflight < this.opts.pipeline && this.queue.length >= this.last && this.keyed === 0 && this.keyedInflight === 0)
  }

  /** Gives up a connection (once) and goes on with a new one. */
  private renew(conn: Sql, err: Error) {
    if (this.conn !== conn) return
    // The new connection first: a batch told of the loss renews no further.
    const giveUp = this.lost
    this.lost = new Set()
    this.conn = this.opts.connect()
    for (const tell of [...giveUp]) tell(err)
    // A lane handed the pool itself (connect returns it) keeps it.
    if (conn !== this.conn) conn.end({ timeout: 0 }).catch(() => {})
  }
}
