// The dispatcher: one delivery attempt to whatever the router points at.
// Every expected failure is already a value; this only adds a net for a
// template over its budget, which fails for good (the same template on the
// same event would fail again), and for the unexpected (a bug, a library
// throwing), which is retried like a network error because a later attempt
// may well succeed.
import type { DeliveryJob, DeliveryResult } from '../job'
import { sendDiscord } from './discord'
import { sendEmail } from './email'
import { sendSlack } from './slack'
import { sendSms } from './sms'
import { sendTeams } from './teams'
import { sendTelegram } from './telegram'
import { sendWebhook } from './webhook'
import { TemplateLimitError } from '../template'
import { redact } from '../redaction'
import { destinationSecrets } from './schema'

function dispatch(job: DeliveryJob): Promise<DeliveryResult> {
  const d = job.router.destination
  switch (d.type) {
    case 'webhook':
      return sendWebhook(job, d)
    case 'slack':
      return sendSlack(job, d)
    case 'discord':
      return sendDiscord(job, d)
    case 'teams':
      return sendTeams(job, d)
    case 'telegram':
      return sendTelegram(job, d)
    case 'email':
      return sendEmail(job, d)
    case 'sms':
      return sendSms(job, d)
  }
}

/**
 * Sends one attempt of one router delivery; never throws. What comes back
 * names no secret of the destination: the error and the response are kept
 * on the attempt for every member of the workspace to read, and logged, so
 * the destination's URLs (path and query), tokens, passwords and header
 * values are cut out of them, whatever produced the text (outbound.send
 * already redacts the URLs it requested; SMTP and the unexpected do not).
 */
export async function deliver(job: DeliveryJob): Promise<DeliveryResult> {
  const result = await attempt(job)
  const { urls, values } = destinationSecrets(job.router.destination)
  if (result.error !== undefined) result.error = redact(result.error, urls, values)
  if (result.response !== undefined) result.response = redact(result.response, urls, values)
  return result
}

async function attempt(job: DeliveryJob): Promise<DeliveryResult> {
  const started = performance.now()
  try {
    const result = await dispatch(job)
    if (result) return result
    return { ok: false, retryable: false, durationMs: 0, error: `unknown destination type ${JSON.stringify((job.router.destination as { type?: unknown }).type)}` }
  } catch (err) {
    if (err instanceof TemplateLimitError) return { ok: false, retryable: false, durationMs: Math.round(performance.now() - started), error: `not sent: ${err.message}` }
    const error = err instanceof Error ? err.message : String(err)
    return { ok: false, retryable: true, durationMs: Math.round(performance.now() - started), error: `unexpected error: ${error}` }
  }
}
