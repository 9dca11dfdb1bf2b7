// Piscina task: one attempt of one router delivery. Runs in a worker thread;
// the job and the result are plain data (structured-cloned across threads),
// and an expected failure comes back as { ok: false, retryable }, not a throw.
import { deliver } from '../src/destinations'
import type { DeliveryJob, DeliveryResult } from './job'

export default function (job: DeliveryJob): Promise<DeliveryResult> {
  return deliver(job)
}
