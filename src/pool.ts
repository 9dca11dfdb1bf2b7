// The piscina pool of the delivery worker: router matching, template
// rendering, payload building and the outbound calls run on worker threads
// (task modules in workers/), so the main thread only moves rows. APNs
// HTTP/2 sessions and FCM tokens live per thread and are reused across tasks.
import Piscina from 'piscina'
import { fileURLToPath } from 'node:url'
import type { DeliveryJob, DeliveryResult } from '../workers/job'
import type { MatchJob } from '../workers/match'
import type { PushJob, PushResult } from '../workers/push_job'

const DELIVER = fileURLToPath(new URL('../workers/deliver.ts', import.meta.url))
const MATCH = fileURLToPath(new URL('../workers/match.ts', import.meta.url))
const PUSH = fileURLToPath(new URL('../workers/push.ts', import.meta.url))

export interface Pool {
  match(job: MatchJob): Promise<string[][]>
  deliver(job: DeliveryJob): Promise<DeliveryResult>
  push(job: PushJob): Promise<PushResult>
  close(): Promise<void>
}

export function createPool(threads: number, concurrency: number): Pool {
  const piscina = new Piscina({
    filename: DELIVER,
    minThreads: threads,
    maxThreads: threads,
    // Deliveries mostly wait on the network: each thread runs many at once.
    concurrentTasksPerWorker: Math.max(1, Math.ceil(concurrency / threads)),
    idleTimeout: 60_000,
  })
  return {
    match: (job) => piscina.run(job, { filename: MATCH }),
    deliver: (job) => piscina.run(job),
    push: (job) => piscina.run(job, { filename: PUSH }),
    close: () => piscina.destroy(),
  }
}
