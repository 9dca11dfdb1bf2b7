// Writing what the fan-out owes PostgreSQL (the deliveries of a chunk, the
// ledger of its events) through a database that may be restarting: a few
// tries before the batch is given back to the bus, which redelivers it.
import type { Logger } from '../core/log'

// Three tries, 500 ms and then 1 s apart: a database back within a couple
// of seconds (a failover, a restart) costs no redelivery.
const TRIES = 3
const PAUSE_MS = 500

/** Runs `write`, again after a pause when it throws, up to TRIES times; then throws its error. `deliveries`: how many it records, for the log. */
export async function persist(write: () => Promise<void>, deliveries: number, log: Logger): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await write()
    } catch (err) {
      if (i === TRIES) throw err
      log.warn({ err, deliveries }, 'could not record deliveries; retrying')
      await Bun.sleep(PAUSE_MS * i)
    }
  }
}
