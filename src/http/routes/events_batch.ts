// POST /events: up to 1,000 events in one request, each judged by POST
// /event's rules on its own (docs/events.md#batches-post-events). Whole-body
// checks run first, in POST /event's order: 401 from the headers alone, 413
// before more than 4 MiB is read, 400 for a body that is not a batch at all.
// Then every item is validated, and those that pass go to the batcher in
// request order, synchronously, so that quota and tokens go to the earliest
// events that fit; the answer waits until every one has committed.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import { createHash } from 'node:crypto'
import type { ApiKeyAuth, Principal } from '../../ingest/auth'
import { DEFAULT_RULES, EventBody, newEventId, normalizeEvent, uuidv7Time, type EventRules } from '../../ingest/event'
import type { Batcher } from '../../ingest/batcher'
import type { ResolveRecipients } from '../../ingest/recipients'
import type { Outcome, RateState, Submission } from '../../ingest/submission'
import { HeraldError, problemBody, problemResponse, validationError, type FieldError } from '../../core/problems'
import { MAX_JSON_DEPTH, readBody } from '../body'
import { storable, STRING_RULE } from '../../core/storable'
import { limitedProblem, MAX_BODY_BYTES, parseJsonBody, rateHeaders, SubmitResultSchema } from './event'
import { apiKeyRequired, escalationChannelMissing, receiptLimit, scheduleLimit, batchKeyReused, eventChannelLimit, eventTooLarge } from '../../core/errors'
import { problem } from '../openapi'

export const MAX_BATCH_BYTES = 4_194_304
export const MAX_BATCH_EVENTS = 1000

export const BatchItem = Type.Object(
  {
    ...EventBody.properties,
    idempotencyKey: Type.Optional(Type.Union([
      Type.String({ minLength: 1, maxLength: 255, description: 'Makes a retry of this event safe for 24 hours: a repeat returns the original result and stores nothing; the same key with another event is a 422 result.', examples: ['order-1042-paid'] }),
      Type.Null(),
    ])),
  },
  { $id: 'BatchItem', additionalProperties: true, description: "An event, exactly the body of POST /event, plus an optional `idempotencyKey`." },
)

export const BatchBody = Type.Object(
  { events: Type.Array(BatchItem, { minItems: 1, maxItems: MAX_BATCH_EVENTS, description: `1 to ${MAX_BATCH_EVENTS} events, answered in this order.` }) },
  { $id: 'BatchBody', description: `At most ${MAX_BATCH_BYTES} bytes (4 MiB).` },
)

export const ItemProblemSchema = Type.Object(
  {
    status: Type.Integer({ description: 'What POST /event would have answered for this event.', examples: [400] }),
    type: Type.String({ format: 'uri', examples: ['https://herald.dev/problems/validation-failed'] }),
    title: Type.String({ examples: ['Validation Failed'] }),
    detail: Type.String({ examples: ['message must not be empty'] }),
    errors: Type.Optional(Type.Array(Type.Object({ pointer: Type.String({ examples: ['/events/3/message'] }), detail: Type.String() }))),
  },
  { $id: 'BatchItemProblem', description: 'An event that was not stored, as an RFC 9457 problem; pointers start with /events/<index>.' },
)

export const BatchResultSchema = Type.Object({
  results: Type.Array(Type.Union([SubmitResultSchema, ItemProblemSchema]), { description: 'One result per event, in request order.' }),
}, { $id: 'BatchResult' })

type ItemResult = Record<string, unknown>

const itemProblem = (err: HeraldError, index: number): ItemResult => {
  const body = problemBody(err)
  if (err.errors?.length) body.errors = err.errors.map((e) => ({ pointer: `/events/${index}${e.pointer ?? ''}`, detail: e.detail }))
  return body
}

const notABatch = (detail: string) => validationError([{ pointer: '/events', detail }])

/** The `events` array of a body, or the 400 of a body that is not a batch at all. */
function batchEvents(body: unknown): unknown[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([{ pointer: '', detail: 'the body must be a JSON object with an "events" array' }])
  }
  const events = (body as { events?: unknown }).events
  if (!Array.isArray(events)) throw notABatch('events must be an array of events')
  if (events.length === 0) throw notABatch('events must hold at least 1 event')
  if (events.length > MAX_BATCH_EVENTS) throw notABatch(`events holds ${events.length} events; at most ${MAX_BATCH_EVENTS} are taken at once`)
  return events
}

const itemTooLarge = () => eventTooLarge(MAX_BODY_BYTES)

/** Takes the item's idempotencyKey out of it (it is not a field of the event), checked. */
function takeKey(item: Record<string, unknown>): { key: string } | { error: FieldError } | undefined {
  if (!Object.hasOwn(item, 'idempotencyKey')) return undefined
  const key = item.idempotencyKey
  delete item.idempotencyKey
  if (key === null) return undefined
  if (typeof key !== 'string' || key.length < 1 || key.length > 255) return { error: { pointer: '/idempotencyKey', detail: 'idempotencyKey must be a string of 1 to 255 characters' } }
  if (!storable(key)) return { error: { pointer: '/idempotencyKey', detail: `idempotencyKey ${STRING_RULE}` } }
  return { key }
}

/**
 * POST /event's rules on one item: the submission to write, or the problem
 * it gets. `sized`: whether the body is large enough for one item to exceed
 * 256 KiB, measured as compact JSON (the smallest form it could be sent in).
 */
function judge(item: unknown, principal: Principal, sized: boolean, rules: EventRules): Submission | HeraldError {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return validationError([{ pointer: '', detail: 'the body must be a JSON object' }])
  }
  if (sized && Buffer.byteLength(JSON.stringify(item)) > MAX_BODY_BYTES) return itemTooLarge()
  const taken = takeKey(item as Record<string, unknown>)
  let normalized: ReturnType<typeof normalizeEvent>
  try {
    normalized = normalizeEvent(item, rules)
  } catch (err) {
    if (!(err instanceof HeraldError)) throw err
    return taken && 'error' in taken ? validationError([...(err.errors ?? []), taken.error]) : err
  }
  if (taken && 'error' in taken) return validationError([taken.error])
  // The same item bytes parse to the same object and print the same JSON,
  // wherever the key stood in it.
  const idempotency = taken ? { key: taken.key, hash: createHash('sha256').update(JSON.stringify(item)).digest('hex') } : undefined
  const { event, changes } = normalized
  const id = newEventId(event.scheduledFor)
  return { principal, id, createdAt: uuidv7Time(id), channel: event.channel ?? principal.defaultChannel, event, changes, idempotency, receipt: event.ack ? Bun.randomUUIDv7() : null }
}


/**
 * Resolves the `to` of every judged item that has one, in one query for the
 * request: each gets its recipients, or becomes the 400 of its `to`.
 */
async function addressed(judged: (Submission | HeraldError)[], workspaceId: number, recipients: ResolveRecipients): Promise<void> {
  const at = judged.flatMap((j, i) => (j instanceof HeraldError || !j.event.to ? [] : [i]))
  if (!at.length) return
  const resolved = await recipients(workspaceId, at.map((i) => (judged[i] as Submission).event.to!))
  at.forEach((i, k) => {
    const r = resolved[k]!
    const s = judged[i] as Submission
    if (r instanceof HeraldError) judged[i] = r
    else {
      s.recipients = r.recipients
      s.changes.push(...r.changes)
    }
  })
}

/** The answer once every submitted item has its outcome; `slots` holds an outcome's index or an item's problem. */
function answer(slots: (number | HeraldError)[], outcomes: Outcome[]): Response {
  if (outcomes.some((o) => o.kind === 'unknown-workspace')) throw apiKeyRequired() // deleted since the key was checked
  const first = outcomes[0]
  if (first?.kind === 'limited' && outcomes.every((o) => o.kind === 'limited')) {
    const last = outcomes[outcomes.length - 1] as typeof first
    return problemResponse(limitedProblem(first.reason), { 'retry-after': String(first.retryAfter), ...rateHeaders(last.rate) })
  }
  const limited = { quota: undefined as ItemResult | undefined, rate: undefined as ItemResult | undefined }
  let rate: RateState | undefined
  const results = slots.map((slot, i): ItemResult => {
    if (typeof slot !== 'number') return itemProblem(slot, i)
    const o = outcomes[slot]!
    switch (o.kind) {
      case 'accepted':
        rate = o.rate
        return o.body as unknown as ItemResult
      case 'replayed':
        rate ??= o.rate
        return o.body as unknown as ItemResult
      case 'limited':
        rate = o.rate
        return (limited[o.reason] ??= problemBody(limitedProblem(o.reason)))
      case 'channel-limit':
        return problemBody(eventChannelLimit(o.max))
      case 'receipt-limit':
        return itemProblem(receiptLimit(o.max), i)
      case 'escalation-channel':
        return itemProblem(escalationChannelMissing(o.index, o.channel), i)
      case 'schedule-limit':
        return itemProblem(scheduleLimit(o.max), i)
      default:
        return problemBody(batchKeyReused())
    }
  })
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (rate) Object.assign(headers, rateHeaders(rate))
  return new Response(JSON.stringify({ results }), { headers })
}

/** POST /events's handler: the answer to `request`, once every accepted event in it has committed. */
export const submitBatch = (auth: ApiKeyAuth, batcher: Batcher, rules: EventRules, recipients: ResolveRecipients) => async (request: Request): Promise<Response> => {
  const verified = auth.verify(request.headers.get('authorization'))
  const principal = verified instanceof Promise ? await verified : verified
  if (!principal) throw apiKeyRequired()
  const raw = await readBody(request, MAX_BATCH_BYTES)
  // Two levels more than POST /event allows: the batch's object and array.
  const events = batchEvents(parseJsonBody(raw, request.headers.get('content-type'), MAX_JSON_DEPTH + 2))
  if (request.headers.get('idempotency-key') !== null) {
    throw validationError([{ pointer: '', detail: 'POST /events takes no Idempotency-Key header: put an "idempotencyKey" in each event instead' }])
  }
  const sized = raw.byteLength > MAX_BODY_BYTES
  const slots: (number | HeraldError)[] = new Array(events.length)
  const pending: Promise<Outcome>[] = []
  const judged = events.map((item) => judge(item, principal, sized, rules))
  // Only a batch with a `to` in it waits for the one query that resolves them all.
  if (judged.some((j) => !(j instanceof HeraldError) && j.event.to)) await addressed(judged, principal.workspaceId, recipients)
  for (let i = 0; i < events.length; i++) {
    const item = judged[i]!
    if (item instanceof HeraldError) slots[i] = item
    else {
      slots[i] = pending.length
      pending.push(batcher.submit(item)) // enqueued now, in request order
    }
  }
  return Promise.all(pending).then((outcomes) => answer(slots, outcomes))
}

export const eventsBatchRoute = (auth: ApiKeyAuth, batcher: Batcher, rules: EventRules, recipients: ResolveRecipients) => {
  const submit = submitBatch(auth, batcher, rules, recipients)
  return new Elysia({ name: 'route.events-batch' }).post(
    '/events',
    // As POST /event: no body parsing by Elysia, and not an async function.
    ({ request }) => submit(request),
    {
      parse: 'none',
      detail: {
        summary: 'Submit events in a batch',
        description:
          `Up to ${MAX_BATCH_EVENTS} events in one request, each judged by the rules of POST /event on its own: one bad event does not sink the others. Checks of the whole body run in this order: 401, 413 (over 4 MiB), 400 (not a batch). Then each event gets a result, in request order: POST /event's 200 body, or a problem with the status POST /event would have answered (400, 413 for an event over 256 KiB, 422, 429). A 200 means every accepted event in it is committed. When no event fits the rate limit or the quota, the whole answer is a 429. Put an \`idempotencyKey\` in each event to make a retry safe for 24 hours; the Idempotency-Key header is refused here.`,
        tags: ['Events'],
        security: [{ apiKey: [] }],
        requestBody: { required: true, content: { 'application/json': { schema: BatchBody as any } } },
        responses: {
          200: { description: 'One result per event, in request order. Carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset as they stand after the batch.', content: { 'application/json': { schema: BatchResultSchema as any } } },
          400: problem(400, 'Not a batch: not JSON, not an object, `events` missing, empty or over 1,000 events, or an Idempotency-Key header.'),
          401: problem(401, 'Missing or invalid API key.'),
          413: problem(413, `Body over ${MAX_BATCH_BYTES} bytes.`),
          429: problem(429, 'No event fitted the rate limit or the monthly quota; see Retry-After and the problem type.'),
          503: problem(503, 'Database unavailable. Events of the batch may have been stored: retry with an idempotencyKey in each event.'),
        },
      },
    },
  )
}

