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
import { apiKeyRequired, escalationChannelMissing, receiptLimit, scheduleLimit, eventChannelLimit, eventNotJson, idempotencyKeyReused, quotaExceeded, rateLimited } from '../../core/errors'
import { problem } from '../openapi'

export const MAX_BODY_BYTES = 262_144

export const SubmitResultSchema = Type.Object({
  workspace: Type.String({ description: 'Name of the workspace the event was sent to.', examples: ['acme'] }),
  channel: Type.String({ description: "Channel the event went to; the workspace's default channel when none was given.", examples: ['general'] }),
  eventId: Type.String({ format: 'uuid', description: 'UUIDv7 of the event; sortable by time.' }),
  remainingQuota: Type.Integer({ description: 'Monthly quota left after this event.', examples: [9999] }),
  receipt: Type.Optional(Type.String({ format: 'uuid', description: 'Present when the event has `ack`: the id of its receipt (GET /receipts/{receipt}).' })),
  scheduledFor: Type.Optional(Type.String({ format: 'date-time', description: 'Present when the event is scheduled (`deliverAt` or `delay`): when it goes out. Cancel it with DELETE /events/{eventId} until then.' })),
  errors: Type.Optional(Type.Array(Type.String(), { description: 'Present only when Herald changed the event: each truncation, each dropped property and each recipient of `to` dropped for not being a member.', examples: [['title was truncated to 128 characters']] })),
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

function idempotency(req: Request, raw: Uint8Array) {
  const key = req.headers.get('idempotency-key')
  if (key === null) return undefined
  if (key.length < 1 || key.length > 255) {
    throw validationError([{ pointer: '', detail: 'the Idempotency-Key header must be 1 to 255 characters' }])
  }
  return { key, hash: createHash('sha256').update(raw).digest('hex') }
}


/** POST /event's handler: the answer to `request`, once its batch has committed. */
export const submitEvent = (auth: ApiKeyAuth, batcher: Batcher, rules: EventRules, recipients: ResolveRecipients) => async (request: Request): Promise<Response> => {
  const verified = auth.verify(request.headers.get('authorization'))
  const principal = verified instanceof Promise ? await verified : verified // a cached key needs no await
  if (!principal) throw apiKeyRequired()
  const raw = await readBody(request, MAX_BODY_BYTES)
  const body = parseJsonBody(raw, request.headers.get('content-type'))
  const { event, changes } = normalizeEvent(body, rules)
  const idem = idempotency(request, raw)
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
        ],
        requestBody: { required: true, content: { 'application/json': { schema: EventBody as any } } },
        responses: {
          200: { description: 'Accepted and durable. Carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset.', content: { 'application/json': { schema: SubmitResultSchema as any } } },
          400: problem(400, 'Validation failed, the body is not JSON, or its Content-Type is not application/json.'),
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
