// Piscina task: one push to one device (APNs or FCM). Runs in a worker
// thread, where the APNs HTTP/2 sessions, the APNs provider token and the FCM
// access tokens live on across tasks. The job and the result are plain data;
// an expected failure comes back as { ok: false, retryable }, not a throw.
import { sendApns } from '../src/push/apns'
import { sendFcm } from '../src/push/fcm'
import type { PushJob, PushResult } from './push_job'

function dispatch(job: PushJob): Promise<PushResult> | undefined {
  switch (job.device.provider) {
    case 'apns':
      return sendApns(job)
    case 'fcm':
      return sendFcm(job)
  }
}

/** Never throws: the unexpected (a bug, a library throwing) is retried like a network error. */
export default async function (job: PushJob): Promise<PushResult> {
  const started = performance.now()
  try {
    const result = await dispatch(job)
    if (result) return result
    return { ok: false, retryable: false, durationMs: 0, error: `unknown push provider ${JSON.stringify((job.device as { provider?: unknown }).provider)}` }
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err)
    return { ok: false, retryable: true, durationMs: Math.round(performance.now() - started), error: `unexpected error: ${error}` }
  }
}
