// Webhook destination: a JSON POST signed per Standard Webhooks
// (https://www.standardwebhooks.com), so receivers can verify it with any of
// the reference libraries and drop duplicates by `webhook-id`.
import { createHmac } from 'node:crypto'
import type { DeliveryJob, DeliveryResult } from '../job'
import { classify, send } from '../outbound'
import { renderTemplate } from '../template'
import type { Destination } from './schema'

export type WebhookDestination = Extract<Destination, { type: 'webhook' }>

// Headers the signature and the body depend on (and framing headers), which a
// router's custom headers may not replace.
const RESERVED = /^(webhook-.*|content-type|content-length|transfer-encoding|host|connection)$/i

/**
 * The body a webhook receives: the event wrapped as
 * {"type":"event.created","timestamp","data"}, or the router's body template
 * rendered with JSON escaping. A rendered body that is not JSON goes out as
 * text/plain, so the receiver is not told to parse what it cannot.
 */
export function webhookPayload(job: DeliveryJob, now: Date): { body: string; contentType: string } {
  const template = job.router.template?.body
  if (template === undefined) {
    const body = JSON.stringify({ type: 'event.created', timestamp: now.toISOString(), data: job.event })
    return { body, contentType: 'application/json' }
  }
  const body = renderTemplate(template, job.event, 'json')
  // RFC 8259 defines no charset for JSON (it is UTF-8); text needs one.
  return { body, contentType: isJson(body) ? 'application/json' : 'text/plain; charset=utf-8' }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/**
 * `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`, keyed with the
 * base64-decoded secret after `whsec_` (as the reference libraries do, a
 * secret without the prefix is decoded whole).
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64')
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')
}

export async function sendWebhook(job: DeliveryJob, destination: WebhookDestination): Promise<DeliveryResult> {
  const now = new Date()
  const { body, contentType } = webhookPayload(job, now)
  const timestamp = Math.floor(now.getTime() / 1000)
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(destination.headers ?? {})) {
    if (!RESERVED.test(name)) headers[name.toLowerCase()] = value
  }
  Object.assign(headers, {
    'content-type': contentType,
    // The delivery id, not the attempt: the same on every retry, so the
    // receiver's idempotency check sees a duplicate as one.
    'webhook-id': job.deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(job.router.signingSecret, job.deliveryId, timestamp, body),
  })
  return classify(await send({ method: 'POST', url: destination.url, headers, body }, job.outbound))
}
