// The piscina pool of the delivery worker: router matching, template
// rendering, payload building and the outbound calls run on worker threads
// (workers/send.ts), so the main thread only moves rows. A task is a batch of
// deliveries, not one: each hop between threads costs structured clones and a
// wake-up. APNs HTTP/2 sessions, FCM tokens, SMTP transports and compiled
// patterns live per thread and are reused across tasks. WORKER_THREADS=0
// runs the tasks on the worker's own thread (inlinePool, below).
import Piscina from 'piscina'
import { fileURLToPath } from 'node:url'
import type { SendTask, Sent } from './job'
import runTask from './send_task'

const SEND = fileURLToPath(new URL('../../workers/send.ts', import.meta.url))

export interface Pool {
  send(task: SendTask): Promise<Sent[]>
  /** For metrics: piscina's utilization (0 to 1), the tasks waiting for a thread, the threads. */
  stats(): { utilization: number; queueSize: number; threads: number }
  close(): Promise<void>
}

/** `room`: the units of work the fan-out hands the pool at most (backpressure.ts workRoom). */
export function createPool(threads: number, room: number): Pool {
  if (threads === 0) return inlinePool()
  const piscina = new Piscina({
    filename: SEND,
    minThreads: threads,
    maxThreads: threads,
    // A thread limits its sends itself (SendConfig.maxInFlight, and per
    // destination), and the fan-out bounds the tasks it hands the pool (each
    // is one unit of work or more). A task holds its place here until its
    // slowest delivery ends, so a tighter bound let batches held by a hanging
    // destination queue every other batch, healthy destinations too, behind them.
    concurrentTasksPerWorker: room,
    idleTimeout: 60_000,
  })
  return {
    send: (task) => piscina.run(task),
    stats: () => ({ utilization: piscina.utilization, queueSize: piscina.queueSize, threads: piscina.threads.length }),
    close: () => piscina.destroy(),
  }
}

/**
 * WORKER_THREADS=0: the tasks run on the worker's own thread, with no hop:
 * no structured clone each way and no wake-up of another thread. On a
 * machine of one or two cores, where the pool's threads only take turns with
 * the main thread, that is cheaper (docs/benchmarks.md); a task's sends are
 * asynchronous anyway. The task gets a copy, as a thread would, so nothing
 * it does reaches the caller's objects.
 */
function inlinePool(): Pool {
  let running = 0
  return {
    async send(task) {
      running++
      try {
        return await runTask(structuredClone(task))
      } finally {
        running--
      }
    },
    stats: () => ({ utilization: running > 0 ? 1 : 0, queueSize: 0, threads: 0 }),
    close: async () => {},
  }
}
