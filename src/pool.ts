// The piscina pool of the delivery worker: router matching, template
// rendering, payload building and the outbound calls run on worker threads
// (workers/send.ts), so the main thread only moves rows. A task is a batch of
// deliveries, not one: each hop between threads costs structured clones and a
// wake-up. APNs HTTP/2 sessions, FCM tokens, SMTP transports and compiled
// patterns live per thread and are reused across tasks.
import Piscina from 'piscina'
import { fileURLToPath } from 'node:url'
import type { SendTask, Sent } from '../workers/send'

const SEND = fileURLToPath(new URL('../workers/send.ts', import.meta.url))

export interface Pool {
  send(task: SendTask): Promise<Sent[]>
  close(): Promise<void>
}

export function createPool(threads: number, concurrency: number): Pool {
  const piscina = new Piscina({
    filename: SEND,
    minThreads: threads,
    maxThreads: threads,
    // A thread limits its sends itself (SendConfig.maxInFlight); tasks only
    // wait here when a thread already holds this many batches.
    concurrentTasksPerWorker: Math.max(4, Math.ceil(concurrency / threads)),
    idleTimeout: 60_000,
  })
  return {
    send: (task) => piscina.run(task),
    close: () => piscina.destroy(),
  }
}
