// POST /event. The checks run in the order docs/events.md gives: 401 from the
// headers alone, 413 before more than 256 KiB is read, 400, then 429 from the
// batch that also makes the event durable.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import { createHash } from 'node:crypto'
import type { ApiKeyAuth } from '../../ingest/auth'
import { EventBody, newEventId, normalizeEvent, uuidv7Time, type EventRules } from '../../ingest/event'
import type { Batcher } from '../../ingest/batcher'
import type { ResolveRecipients } from '../../ingest/recipients'
import type { Outcome, RateState } from '../../ingest/submission'
import { HeraldError, problemResponse, validationError } from '../../core/problems'
import { isJsonType, MAX_JSON_DEPTH, parseJson, readBody } from '../body'
import { apiKeyRequired, escalationChannelMissing, receiptLimit, scheduleLimit, eventChannelLimit, eventNotJson, eventTypeUnknown, idempotencyKeyReused, quotaExceeded, rateLimited } from '../../core/errors'
import { ignoredHeaders, inHeaderTerms, isPlainType, PLAIN_HEADERS, plainEventBody } from '../../ingest/plain_event'

/** What a text request's header takes, where the JSON field's schema does not say it. */
const PLAIN_HEADER_NOTES: Record<string, string> = {
  priority: ': 1 to 5, or min, low, default, high, urgent (or max)',
  tags: ', comma-separated',
  link: ' (ntfy\'s Click header)',
}
import { problem } from '../openapi'

export const MAX_BODY_BYTES = 262_144

export const SubmitResultSchema = Type.Object({
  workspace: Type.String({ description: 'Name of the workspace the event was sent to.', examples: ['acme'] }),
  channel: Type.String({ description: "Channel the event went to; the workspace's default channel when none was given.", examples: ['general'] }),
  eventId: Type.String({ format: 'uuid', description: 'UUIDv7 of the event; sortable by time.' }),
  remainingQuota: Type.Integer({ description: 'Monthly quota left after this event.', examples: [9999] }),
  receipt: Type.Optional(Type.String({ format: 'uuid', description: 'Present when the event has `ack`: the id of its receipt (GET /receipts/{receipt}).' })),
  scheduledFor: Type.Optional(Type.String({ format: 'date-time', description: 'Present when the event is scheduled (`deliverAt` or `delay`): when it goes out. Cancel it with DELETE /events/{eventId} until then.' })),
  errors: Type.Optional(Type.Array(Type.String(), { description: 'Present only when Herald changed the event: each truncation, each dropped property (with the field it may have meant: `did you mean "message"?`), each recipient of `to` dropped for not being a member, and each text header a JSON body ignored.', examples: [['title was truncated to 128 characters']] })),
}, { $id: 'SubmitResult' })

/** POST /event's body: a Content-Type other than JSON is a 400 here (docs/events.md), not the 415 of other routes. */
export function parseJsonBody(bytes: Uint8Array, contentType: string | null, maxDepth = MAX_JSON_DEPTH): unknown {
  if (!isJsonType(contentType)) throw eventNotJson()
  return parseJson(bytes, maxDepth)
}

export const rateHeaders = (r: RateState): Record<string, string> => ({
  'ratelimit-limit': String(r.limit),
  'ratelimit-remaining': String(r.remaining),
  'ratelimit-reset': String(r.reset),
})

/** The problem of an event refused by the rate limit or the quota; POST /events uses it too. */
export const limitedProblem = (reason: 'quota' | 'rate') =>
  reason === 'quota' ? quotaExceeded() : rateLimited()

function respond(o: Outcome): Response {
  switch (o.kind) {
    case 'accepted':
    case 'replayed':
      return new Response(JSON.stringify(o.body), {
        headers: { 'content-type': 'application/json', 'ratelimit-limit': String(o.rate.limit), 'ratelimit-remaining': String(o.rate.remaining), 'ratelimit-reset': String(o.rate.reset) },
      })
    case 'limited':
      return problemResponse(limitedProblem(o.reason), { 'retry-after': String(o.retryAfter), ...rateHeaders(o.rate) })
    case 'channel-limit':
      return problemResponse(eventChannelLimit(o.max))
    case 'idempotency-mismatch':
      return problemResponse(idempotencyKeyReused())
    case 'unknown-workspace':
      return problemResponse(apiKeyRequired())
    case 'receipt-limit':
      return problemResponse(receiptLimit(o.max))
    case 'escalation-channel':
      return problemResponse(escalationChannelMissing(o.index, o.channel))
    case 'schedule-limit':
      return problemResponse(scheduleLimit(o.max))
  }
}

/** `hashed`: what a retry must repeat, the body's bytes (or, for a text body, the event its headers and text make). */
function idempotency(req: Request, hashed: Uint8Array | string) {
  const key = req.headers.get('idempotency-key')
  if (key === null) return undefined
  if (key.length < 1 || key.length > 255) {
    throw validationError([{ pointer: '', detail: 'the Idempotency-Key header must be 1 to 255 characters' }])
  }
  return { key, hash: createHash('sha256').update(hashed).digest('hex') }
}

/**
 * The event of a request and what Herald changed in it: a JSON body as the
 * contract has it, or a text one as a message with its fields in headers
 * (src/ingest/plain_event.ts). `hashed` is what its Idempotency-Key covers.
 */
function readEvent(request: Request, raw: Uint8Array, rules: EventRules) {
  const contentType = request.headers.get('content-type')
  if (isJsonType(contentType)) {
    const { event, changes } = normalizeEvent(parseJson(raw, MAX_JSON_DEPTH), rules)
    // The text headers on a JSON body are said to be ignored; most requests have none.
    if (request.headers.has('title') || request.headers.has('priority') || request.headers.has('tags') || request.headers.has('x-title') || request.headers.has('x-priority') || request.headers.has('x-tags') || request.headers.has('channel') || request.headers.has('x-channel')) changes.push(...ignoredHeaders(request.headers))
    return { event, changes, hashed: raw as Uint8Array | string }
  }
  if (!isPlainType(contentType)) throw eventTypeUnknown()
  const { body, from } = plainEventBody(raw, request.headers)
  try {
    return { ...normalizeEvent(body, rules), hashed: JSON.stringify(body) }
  } catch (err) {
    throw inHeaderTerms(err, from)
  }
}


/** POST /event's handler: the answer to `request`, once its batch has committed. */
export const submitEvent = (auth: ApiKeyAuth, batcher: Batcher, rules: EventRules, recipients: ResolveRecipients) => async (request: Request): Promise<Response> => {
  const verified = auth.verify(request.headers.get('authorization'))
  const principal = verified instanceof Promise ? await verified : verified // a cached key needs no await
  if (!principal) throw apiKeyRequired()
  const raw = await readBody(request, MAX_BODY_BYTES)
  const { event, changes, hashed } = readEvent(request, raw, rules)
  const idem = idempotency(request, hashed)
  let to: string[] | null = null
  if (event.to) {
    const [resolved] = await recipients(principal.workspaceId, [event.to])
    if (resolved instanceof HeraldError) throw resolved
    to = resolved!.recipients
    changes.push(...resolved!.changes)
  }
  const id = newEventId(event.scheduledFor)
  return batcher
    .submit({ principal, id, createdAt: uuidv7Time(id), channel: event.channel ?? principal.defaultChannel, event, changes, idempotency: idem, receipt: event.ack ? Bun.randomUUIDv7() : null, recipients: to })
    .then(respond)
}

/** `rules`: what the operator set of the event's bounds (HERALD_MAX_ACK_EXPIRE). */
export const eventRoute = (auth: ApiKeyAuth, batcher: Batcher, rules: EventRules, recipients: ResolveRecipients) => {
  const submit = submitEvent(auth, batcher, rules, recipients)
  return new Elysia({ name: 'route.event' }).post(
    '/event',
    // Not an async function: Elysia composes an async handler with more
    // machinery per request (1 µs of POST /event's 13, bench/ingest.ts).
    ({ request }) => submit(request),
    {
      parse: 'none',
      detail: {
        summary: 'Submit an event',
        description:
          'Stores the event, pushes it to the devices of its channel (only its recipients\' with `to`) and hands it to every router whose pattern matches its `event` key. A 200 means the event is committed. Checks run in this order: 401, 413, 400, 429. Send `Idempotency-Key` to make a retry safe for 24 hours. With `deliverAt` or `delay` the event is stored and counted now and goes out (feed, pushes, routers) at its time, not before.',
        tags: ['Events'],
        security: [{ apiKey: [] }],
        parameters: [
          { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 }, description: 'A repeat within 24 h returns the original answer; the same key with another body gets 422.' },
          ...PLAIN_HEADERS.map(({ header, field }) => ({
            name: header, in: 'header' as const, required: false, schema: { type: 'string' as const },
            description: `With a text/plain body only: the event's \`${field}\`${PLAIN_HEADER_NOTES[field] ?? ''}. Also spelled X-${header}, which wins when both are sent. A JSON body ignores it (the answer's \`errors\` says so).`,
          })),
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: EventBody as any },
            'text/plain': { schema: { type: 'string', description: 'The message alone, in the style of ntfy (`curl -d "Backup done" …/event`; curl\'s default application/x-www-form-urlencoded is read the same way). The other fields come from the Title, Priority, Tags, Channel, Event and Click headers. Trailing whitespace is dropped; a JSON object sent as text is a 400.' } as any, example: 'Backup done' },
          },
        },
        responses: {
          200: { description: 'Accepted and durable. Carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset.', content: { 'application/json': { schema: SubmitResultSchema as any } } },
          400: problem(400, 'Validation failed, the body is not JSON (or, as text/plain, not UTF-8 or a JSON object), or its Content-Type is neither application/json nor text/plain.'),
          401: problem(401, 'Missing or invalid API key.'),
          413: problem(413, 'Body over 262,144 bytes.'),
          422: problem(422, 'Idempotency-Key reused with another body, or a new channel past the workspace\'s limit of channels.'),
          429: problem(429, 'Rate limit or monthly quota hit (see Retry-After); for an event with `ack`, the workspace has its most pending receipts (`receipt-limit`); for a scheduled event, its most scheduled events (`schedule-limit`). See the problem type.'),
          503: problem(503, 'Database unavailable; nothing was stored. Retry after Retry-After.'),
        },
      },
    },
  )
}
