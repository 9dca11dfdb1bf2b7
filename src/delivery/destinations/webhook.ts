// Webhook destination: a JSON POST signed per Standard Webhooks
// (https://www.standardwebhooks.com), so receivers can verify it with any of
// the reference libraries and drop duplicates by `webhook-id`.
import { createHmac } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { classify, send, type DeliveryResult } from '../outbound'
import { renderTemplate } from '../template'
import { receiptWebhookBody } from '../receipt_notice'
import { HttpUrl, hostOf, originOf, type DestinationJob, type DestinationType } from './destination'

// A header name is an RFC 9110 token. A value is printable ASCII, spaces and
// tabs: a CR or LF would end the header and start another. Bun's fetch
// refuses line breaks and characters beyond U+00FF (a router holding one
// failed every delivery, and retried each, for as long as it existed) and
// sends other control characters raw, garbling the request. The schema's
// `error` is what the API answers, in words rather than a regex.
const HeaderName = Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$" })
const HeaderValue = Type.String({
  maxLength: 1024,
  pattern: '^[\\t\\x20-\\x7e]*$',
  error: 'a header value must be text of at most 1024 printable ASCII characters (letters, digits, punctuation, spaces and tabs), without line breaks, NUL or other control characters',
})
const HeaderNameRefused = Type.Never({ error: "a header name must be 1 to 64 letters, digits and any of ! # $ % & ' * + - . ^ _ ` | ~ (no spaces, colons or control characters)" })

const schema = Type.Object({
  type: Type.Literal('webhook'),
  url: HttpUrl('Receiver URL; POSTed a JSON body signed per Standard Webhooks.'),
  headers: Type.Optional(Type.Record(HeaderName, HeaderValue, { additionalProperties: HeaderNameRefused, maxProperties: 20, description: 'Extra request headers, such as an Authorization the receiver expects: names are tokens (letters, digits and !#$%&\'*+-.^_`|~), values printable ASCII without line breaks.' })),
}, { additionalProperties: false, examples: [{ type: 'webhook', url: 'https://example.com/hooks/herald', headers: { Authorization: 'Bearer s3cr3t-t0ken' } }] })
export type WebhookDestination = Static<typeof schema>

// Headers the signature and the body depend on (and framing headers), which a
// router's custom headers may not replace.
const RESERVED = /^(webhook-.*|content-type|content-length|transfer-encoding|host|connection)$/i

/**
 * The body a webhook receives: the event wrapped as
 * {"type":"event.created","timestamp","data"}, or the router's body template
 * rendered with JSON escaping. A rendered body that is not JSON goes out as
 * text/plain, so the receiver is not told to parse what it cannot.
 */
export function webhookPayload(job: DestinationJob, now: Date): { body: string; contentType: string } {
  if (job.receipt) return { body: receiptWebhookBody(job.receipt, now), contentType: 'application/json' }
  const template = job.router.template?.body
  if (job.digest && template === undefined) {
    // A digest: {"type":"events.digest","timestamp","data":{"key","count","events":[…]}}.
    const { key, count, events } = job.digest
    return { body: JSON.stringify({ type: 'events.digest', timestamp: now.toISOString(), data: { key, count, events } }), contentType: 'application/json' }
  }
  if (template === undefined) {
    const body = JSON.stringify({ type: 'event.created', timestamp: now.toISOString(), data: job.event })
    return { body, contentType: 'application/json' }
  }
  const body = renderTemplate(template, job.event, 'json', job.digest)
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

async function sendWebhook(job: DestinationJob, destination: WebhookDestination): Promise<DeliveryResult> {
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

export const webhook: DestinationType<typeof schema> = {
  type: 'webhook',
  label: 'Webhook',
  description: '`POST` JSON to `url`, signed per Standard Webhooks (below), with any extra `headers` (names are tokens, values printable ASCII without line breaks). Default body: `{"type":"event.created","timestamp":"<ISO 8601>","data":<the event as GET /events/{id} shows it>}`; a digest\'s: `{"type":"events.digest","timestamp","data":{"key","count","events":[…]}}`.',
  schema,
  fields: [
    { key: 'url', label: 'URL', kind: 'url', required: true, placeholder: 'https://example.com/hooks/herald', hint: 'Receives a POST of JSON, signed per Standard Webhooks.' },
    { key: 'headers', label: 'Extra headers', kind: 'lines', placeholder: 'Authorization: Bearer …', hint: 'Optional, one per line: Name: value.' },
  ],
  flag: 'send each event as JSON to this URL, signed (Standard Webhooks)',
  signed: true,
  previewDefaults: { url: 'https://example.com/hook' },
  redact: (d) => ({ type: d.type, url: originOf(d.url), headers: d.headers ? Object.keys(d.headers) : undefined }),
  // A header value, and the token after "Bearer " in it.
  secrets: (d) => ({ urls: [d.url], values: Object.values(d.headers ?? {}).flatMap((v) => [v, v.trim().split(/\s+/).at(-1) ?? '']) }),
  host: (d) => hostOf(d.url),
  summary: (v) => `${v.type} ${v.url ?? ''}${Array.isArray(v.headers) && v.headers.length ? ` (headers: ${v.headers.join(', ')})` : ''}`.trimEnd(),
  preview(job) {
    const { body, contentType } = webhookPayload(job, new Date(job.event.createdAt))
    try {
      return { contentType: 'application/json', body: JSON.stringify(JSON.parse(body), null, 2) }
    } catch {
      return { contentType, body }
    }
  },
  send: sendWebhook,
}
