// The event body of POST /event: its TypeBox schema (which also feeds the
// OpenAPI document) and the rules of docs/events.md that turn a
// parsed body into the event Herald stores, or into a 400.
import { Type, type Static } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { type FieldError, validationError } from '../core/problems'
import { STRING_RULE, storable } from '../core/storable'
import { closest } from '../core/spelling'
import { formatDuration, parseDuration } from '../core/duration'

export const LIMITS = { message: 500, event: 128, channel: 64, title: 128, link: 1000, tags: 10, tag: 50, dataDepth: 64 } as const

/** The bounds of the fields that say how an event notifies (docs/events.md, "Priority, expiry, acknowledgement"). */
export const NOTIFY_LIMITS = {
  ttlMax: 2_419_200, // 28 days: the longest FCM keeps a message
  collapseKey: /^[A-Za-z0-9_-]{1,32}$/, // a Web Push Topic's alphabet and length (RFC 8030 5.4)
  ackRetryMin: 30, // Pushover's minimum: a phone that rings more often than this is unusable
  ackExpireMax: 10_800, // 3 h, unless HERALD_MAX_ACK_EXPIRE raises it
  escalateMax: 3,
  to: 100, // recipients of one event: a team, not a mailing list
} as const
/** The nearest an event may be scheduled: the contract's 10 s, so that a schedule is never a race with the release. */
export const SCHEDULE_MIN_S = 10
export const PRIORITY_NAMES = { min: 1, low: 2, default: 3, high: 4, urgent: 5 } as const
export const DEFAULT_PRIORITY = 3
export const SLUG = /^[a-z0-9][a-z0-9_-]*$/
const LINK_SCHEME = /^(https?:\/\/|mailto:|tel:)/i

const opt = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))
const Duration = (description: string, examples: unknown[]) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,9}(s|m|h|d)$' })], { description, examples })

/** `ack`: the event repeats until a member acknowledges it (docs/events.md, "Receipts"). */
export const AckSpec = Type.Object(
  {
    retry: Duration(`Seconds (or a duration: 90s, 15m, 2h) between repeats; at least ${NOTIFY_LIMITS.ackRetryMin} s.`, [60, '1m']),
    expire: Duration(`How long the event repeats unless acknowledged: at least \`retry\`, at most ${NOTIFY_LIMITS.ackExpireMax} s (3 h) unless the operator raises it (HERALD_MAX_ACK_EXPIRE).`, [3600, '1h']),
    escalate: Type.Optional(Type.Array(
      Type.Object({
        after: Duration('When this step starts, counted from the event: shorter than `expire`.', ['10m']),
        channel: Type.String({ description: 'Slug of a channel whose members are pushed too, from then on.', examples: ['oncall'] }),
      }, { additionalProperties: false }),
      { maxItems: NOTIFY_LIMITS.escalateMax, description: `Up to ${NOTIFY_LIMITS.escalateMax} steps.` },
    )),
  },
  { $id: 'AckSpec', additionalProperties: false, description: 'Makes the event require acknowledgement: the 200 answer holds a `receipt`.' },
)

export const EventBody = Type.Object(
  {
    message: Type.String({ description: `Notification body. Truncated to ${LIMITS.message} characters (code points). Must not be blank.`, examples: ['Jane Doe signed up'] }),
    event: opt(Type.String({ description: `Event key that routers match, by convention \`domain.action\`. Truncated to ${LIMITS.event} characters.`, examples: ['user.signup'] })),
    channel: opt(Type.String({ description: `Channel slug, lowercased, then truncated to ${LIMITS.channel} characters; must match ^[a-z0-9][a-z0-9_-]*$. Defaults to the workspace's default channel; created on first use.`, examples: ['signups'] })),
    title: opt(Type.String({ description: `Headline above the message. Truncated to ${LIMITS.title} characters.`, examples: ['New user'] })),
    link: opt(Type.String({ description: `URL opened when the notification is tapped: http://, https://, mailto: or tel: (any case). Longer than ${LIMITS.link} characters is rejected.`, examples: ['https://example.com/users/42'] })),
    tags: Type.Optional(Type.Union([Type.Array(Type.String(), { description: `Up to ${LIMITS.tags} tags; extra tags are dropped, each is truncated to ${LIMITS.tag} characters.`, examples: [['signup', 'web']] }), Type.Null()])),
    data: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true, description: 'Arbitrary JSON object, readable by router templates as {{data.field}}.', examples: [{ plan: 'pro' }] }), Type.Null()])),
    priority: Type.Optional(Type.Union([
      Type.Integer({ minimum: 1, maximum: 5 }),
      Type.Union(Object.keys(PRIORITY_NAMES).map((n) => Type.Literal(n))),
      Type.Null(),
    ], { description: 'How urgent the event is: 1-5, or min, low, default, high, urgent. Absent or null is 3. Each push carries the headers of its priority (docs/push.md); routers may forward only events at or above their `minPriority`.', examples: [4, 'urgent'] })),
    ttl: Type.Optional(Type.Union([
      Type.Integer({ minimum: 0, maximum: NOTIFY_LIMITS.ttlMax }),
      Type.String({ pattern: '^[0-9]{1,9}(s|m|h|d)$' }),
      Type.Null(),
    ], { description: `How long the notification is worth sending, in seconds (0-${NOTIFY_LIMITS.ttlMax}) or as a duration (90s, 15m, 2h, 7d). A push or router delivery not sent by then ends \`expired\`. Returned as seconds.`, examples: [3600, '15m'] })),
    collapseKey: opt(Type.String({ pattern: NOTIFY_LIMITS.collapseKey.source, description: 'A newer event with the same key replaces the older notification on a device: 1-32 of A-Z a-z 0-9 _ -.', examples: ['deploy-status'] })),
    ack: Type.Optional(Type.Union([AckSpec, Type.Null()])),
    to: Type.Optional(Type.Union([
      Type.Array(Type.String({ minLength: 1, maxLength: 320 }), { minItems: 1, maxItems: NOTIFY_LIMITS.to }),
      Type.Null(),
    ], { description: `Send to these members only: up to ${NOTIFY_LIMITS.to}, each a member's e-mail address or \`user:<userId>\`. Only they are pushed, and only they and the workspace's owners and admins see the event (feed, stream, event page, deliveries). A recipient who is not a member is dropped and reported in \`errors\`; none left is a 400. Absent or null: the channel's whole audience.`, examples: [['jane@example.com', 'user:0196f3c2-5b1e-7c2a-9d4e-3f2a1b0c9d8e']] })),
    deliverAt: opt(Type.String({ format: 'date-time', description: `Schedules the event for this time (RFC 3339, e.g. 2030-01-01T09:00:00Z): it is stored and counted now, and shown, pushed and routed then, not before. At least ${SCHEDULE_MIN_S} s ahead, at most HERALD_MAX_SCHEDULE (30 days) ahead. Not with \`delay\`. The answer carries \`scheduledFor\`; DELETE /events/{eventId} cancels it until it goes out.`, examples: ['2030-01-01T09:00:00Z'] })),
    delay: Type.Optional(Type.Union([
      Type.Integer({ minimum: 0 }),
      Type.String({ pattern: '^[0-9]{1,9}(s|m|h|d)$' }),
      Type.Null(),
    ], { description: `Schedules the event this long from now: seconds or a duration (90s, 30m, 2h, 7d), at least ${SCHEDULE_MIN_S} s, at most HERALD_MAX_SCHEDULE (30 days). Not with \`deliverAt\`.`, examples: ['30m', 600] })),
  },
  { $id: 'EventBody', additionalProperties: true, description: 'An event. `null` for an optional field means the field is absent; unknown properties are dropped and reported in `errors`.' },
)
export type EventBodyType = Static<typeof EventBody>
// The fields of notifyFields are checked by hand, for errors that name the
// bound and point inside `ack`; the compiled check sees the rest.
const NOTIFY = ['priority', 'ttl', 'collapseKey', 'ack', 'to', 'deliverAt', 'delay'] as const
const checker = TypeCompiler.Compile(Type.Omit(EventBody, [...NOTIFY], { additionalProperties: true }))
const KNOWN = new Set(Object.keys(EventBody.properties))
/**
 * How far a property may be from a field's name to be taken for a misspelling
 * of it: one edit for a short one (`tag`, `tp`; but `x` is not `to`), two or a
 * quarter of its length for a longer one (`mesage`, `chanel`).
 */
const NEAR_FIELD = (key: string) => (key.length <= 4 ? 1 : Math.max(2, Math.floor(key.length / 4)))
/** `: did you mean "message"?` for a property that is a misspelling of a field (`mesage`, `Title`), else nothing. */
const meant = (key: string) => {
  const field = closest(key.slice(0, 64), KNOWN, true, NEAR_FIELD)
  return field && field !== key ? `: did you mean ${JSON.stringify(field)}?` : ''
}

export interface NormalizedEvent {
  message: string
  event: string | null
  channel: string | null // null: the workspace's default channel
  title: string | null
  link: string | null
  tags: string[]
  data: Record<string, unknown> | null
  priority: number // 1-5
  ttl: number | null // seconds
  collapseKey: string | null
  ack: Ack | null
  to: Recipient[] | null // as sent, checked; resolved to members' user ids at ingest (src/ingest/recipients.ts)
  scheduledFor: Date | null // deliverAt or now + delay, to the millisecond; null: at once
}

/** One entry of `to`: a member's e-mail (lowercased) or user id (lowercased), at its index in the body's array. */
export type Recipient = { index: number; email: string; userId?: undefined } | { index: number; userId: string; email?: undefined }

/** An event's acknowledgement, in seconds. */
export interface Ack {
  retry: number
  expire: number
  escalate: { after: number; channel: string }[]
}

/** Truncates to `max` Unicode code points, never splitting a surrogate pair. */
export function truncate(s: string, max: number): string | null {
  if (s.length <= max) return null // UTF-16 length bounds the code-point count
  let units = 0
  for (let points = 0; points < max && units < s.length; points++) {
    const c = s.charCodeAt(units)
    units += c >= 0xd800 && c <= 0xdbff && units + 1 < s.length ? 2 : 1
  }
  return units < s.length ? s.slice(0, units) : null
}

const codePoints = (s: string) => {
  let n = 0
  for (const _ of s) n++
  return n
}


// Where a value sits in the body, as a chain of keys: its JSON pointer is
// spelled out only for an error, not for every key of every valid event.
interface Path {
  parent: Path | null
  key: string
}
const pointerOf = (p: Path | null): string => (p ? `${pointerOf(p.parent)}/${p.key.replaceAll('~', '~0').replaceAll('/', '~1')}` : '')

function checkData(value: unknown, path: Path, depth: number, errors: FieldError[]): void {
  if (errors.length >= 10) return
  if (typeof value === 'string') {
    if (!storable(value)) {
      const pointer = pointerOf(path)
      errors.push({ pointer, detail: `${pointer.slice(1)} ${STRING_RULE}` })
    }
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      const pointer = pointerOf(path)
      errors.push({ pointer, detail: `${pointer.slice(1)} is a number out of range` })
    }
  } else if (value !== null && typeof value === 'object') {
    if (depth > LIMITS.dataDepth) {
      errors.push({ pointer: pointerOf(path), detail: `data is nested deeper than ${LIMITS.dataDepth} levels` })
      return
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) checkData(value[i], { parent: path, key: String(i) }, depth + 1, errors)
      return
    }
    // JSON.parse makes own properties only; for...in spares the pairs Object.entries would allocate.
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue
      if (!storable(k)) errors.push({ pointer: pointerOf({ parent: path, key: k }), detail: `a key in ${pointerOf(path).slice(1)} ${STRING_RULE}` })
      checkData((value as Record<string, unknown>)[k], { parent: path, key: k }, depth + 1, errors)
    }
  }
}

/** ` (the body has "mesage")` when a property of `body` is a misspelling of `field`. */
function misspelt(body: unknown, field: string): string {
  const near = Object.keys(body as object).find((key) => !KNOWN.has(key) && closest(key.slice(0, 64), [field], true, NEAR_FIELD) === field)
  return near === undefined ? '' : ` (the body has ${JSON.stringify(near.slice(0, 64))}: did you mean ${JSON.stringify(field)}?)`
}

function typeErrors(body: unknown): FieldError[] {
  const errors: FieldError[] = []
  for (const e of checker.Errors(body)) {
    const field = e.path.split('/')[1]
    if (!field) continue
    if (errors.some((x) => x.pointer === `/${field}`)) continue
    const detail =
      field === 'message' && e.value === undefined ? `message is required${misspelt(body, 'message')}`
      : field === 'tags' ? 'tags must be an array of strings'
      : field === 'data' ? 'data must be a JSON object'
      : `${field} must be a string`
    errors.push({ pointer: `/${field}`, detail })
  }
  return errors
}

/** The operator's bounds on an event (config: HERALD_MAX_ACK_EXPIRE, HERALD_MAX_SCHEDULE). */
export interface EventRules {
  maxAckExpire: number // seconds
  maxSchedule: number // seconds
}
export const DEFAULT_RULES: EventRules = { maxAckExpire: NOTIFY_LIMITS.ackExpireMax, maxSchedule: 2_592_000 }

const isNull = (v: unknown) => v === undefined || v === null

function priorityOf(v: unknown, errors: FieldError[]): number {
  if (isNull(v)) return DEFAULT_PRIORITY
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 5) return v
  if (typeof v === 'string' && Object.hasOwn(PRIORITY_NAMES, v)) return PRIORITY_NAMES[v as keyof typeof PRIORITY_NAMES]
  errors.push({ pointer: '/priority', detail: 'priority must be an integer from 1 to 5, or one of min, low, default, high, urgent' })
  return DEFAULT_PRIORITY
}

/** A duration field in seconds within [min, max], or an error at `pointer`. */
function durationOf(v: unknown, pointer: string, min: number, max: number, errors: FieldError[]): number | null {
  const s = parseDuration(v)
  const name = pointer.slice(1).replaceAll('/', '.')
  if (s === null) errors.push({ pointer, detail: `${name} must be whole seconds or a duration such as 90s, 15m, 2h or 7d` })
  else if (s < min) errors.push({ pointer, detail: `${name} must be at least ${formatDuration(min)} (${min} s)` })
  else if (s > max) errors.push({ pointer, detail: `${name} must be at most ${formatDuration(max)} (${max} s)` })
  else return s
  return null
}

function ackOf(v: unknown, rules: EventRules, errors: FieldError[]): Ack | null {
  if (isNull(v)) return null
  if (typeof v !== 'object' || Array.isArray(v)) {
    errors.push({ pointer: '/ack', detail: 'ack must be an object: {"retry": 60, "expire": 3600}' })
    return null
  }
  const a = v as Record<string, unknown>
  const before = errors.length
  for (const k of Object.keys(a)) {
    if (k !== 'retry' && k !== 'expire' && k !== 'escalate') errors.push({ pointer: `/ack/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, detail: `ack has no property ${JSON.stringify(k.slice(0, 64))}: it takes retry, expire and escalate` })
  }
  if (a.retry === undefined) errors.push({ pointer: '/ack/retry', detail: 'ack.retry is required' })
  if (a.expire === undefined) errors.push({ pointer: '/ack/expire', detail: 'ack.expire is required' })
  const retry = a.retry === undefined ? null : durationOf(a.retry, '/ack/retry', NOTIFY_LIMITS.ackRetryMin, rules.maxAckExpire, errors)
  const expire = a.expire === undefined ? null : durationOf(a.expire, '/ack/expire', NOTIFY_LIMITS.ackRetryMin, rules.maxAckExpire, errors)
  if (retry !== null && expire !== null && expire < retry) errors.push({ pointer: '/ack/expire', detail: `ack.expire must be at least ack.retry (${retry} s)` })
  const escalate: Ack['escalate'] = []
  if (!isNull(a.escalate)) {
    if (!Array.isArray(a.escalate)) errors.push({ pointer: '/ack/escalate', detail: 'ack.escalate must be an array of {"after", "channel"}' })
    else if (a.escalate.length > NOTIFY_LIMITS.escalateMax) errors.push({ pointer: '/ack/escalate', detail: `ack.escalate holds at most ${NOTIFY_LIMITS.escalateMax} steps` })
    else a.escalate.forEach((step, i) => {
      const at = `/ack/escalate/${i}`
      if (step === null || typeof step !== 'object' || Array.isArray(step)) return errors.push({ pointer: at, detail: `ack.escalate[${i}] must be an object: {"after": "10m", "channel": "oncall"}` })
      const st = step as Record<string, unknown>
      for (const k of Object.keys(st)) if (k !== 'after' && k !== 'channel') errors.push({ pointer: `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`, detail: `ack.escalate[${i}] has no property ${JSON.stringify(k.slice(0, 64))}` })
      const after = st.after === undefined
        ? (errors.push({ pointer: `${at}/after`, detail: `ack.escalate[${i}].after is required` }), null)
        : durationOf(st.after, `${at}/after`, 0, rules.maxAckExpire, errors)
      if (after !== null && expire !== null && after >= expire) errors.push({ pointer: `${at}/after`, detail: `ack.escalate[${i}].after must be shorter than ack.expire (${expire} s)` })
      const channel = typeof st.channel === 'string' ? st.channel.toLowerCase() : null
      if (channel === null || channel.length > LIMITS.channel || !SLUG.test(channel)) {
        errors.push({ pointer: `${at}/channel`, detail: `ack.escalate[${i}].channel must be a channel slug: lowercase letters, digits, "-" and "_", at most ${LIMITS.channel} characters` })
      } else if (after !== null) escalate.push({ after, channel })
    })
  }
  return errors.length > before || retry === null || expire === null ? null : { retry, expire, escalate: escalate.sort((x, y) => x.after - y.after) }
}

const USER_REF = /^user:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i
// What a person types as an address: something@domain, no spaces, within
// RFC 5321's 254 characters. Whether it is a member is for the resolution.
const EMAIL = /^[^\s@]+@[^\s@]+$/

/**
 * `to`, checked: an array of 1 to 100 e-mails or user:<id>, none named twice
 * (e-mails in any case). Naming one person by e-mail and by id is found
 * once both are resolved to members (src/ingest/recipients.ts).
 */
function toOf(v: unknown, errors: FieldError[]): Recipient[] | null {
  if (isNull(v)) return null
  const rule = 'a member\'s e-mail address or user:<userId>'
  if (!Array.isArray(v)) return errors.push({ pointer: '/to', detail: `to must be an array, each entry ${rule}` }), null
  if (v.length === 0) return errors.push({ pointer: '/to', detail: 'to must name at least 1 recipient (leave it out to send to the whole channel)' }), null
  if (v.length > NOTIFY_LIMITS.to) return errors.push({ pointer: '/to', detail: `to names ${v.length} recipients; at most ${NOTIFY_LIMITS.to}` }), null
  const out: Recipient[] = []
  const seen = new Map<string, number>()
  v.forEach((x, index) => {
    const pointer = `/to/${index}`
    if (typeof x !== 'string' || x.trim() === '') return errors.push({ pointer, detail: `to[${index}] must be ${rule}` })
    const user = USER_REF.exec(x)
    const r: Recipient | null = user ? { index, userId: user[1]!.toLowerCase() }
      : x.length <= 254 && EMAIL.test(x) && storable(x) ? { index, email: x.toLowerCase() } : null
    if (!r) return errors.push({ pointer, detail: `to[${index}] must be ${rule}` })
    const key = r.email ?? `user:${r.userId}`
    const first = seen.get(key)
    if (first !== undefined) return errors.push({ pointer, detail: `to[${index}] names the same recipient as to[${first}] (/to/${first})` })
    seen.set(key, index)
    out.push(r)
  })
  return out
}

// RFC 3339's date-time (section 5.6), any case of T and Z, with an offset.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/

/** When `deliverAt` or `delay` schedules the event, checked against the bounds; null: at once. */
function scheduleOf(b: Record<string, unknown>, rules: EventRules, now: number, errors: FieldError[]): Date | null {
  const at = b.deliverAt, delay = b.delay
  if (isNull(at) && isNull(delay)) return null
  if (!isNull(at) && !isNull(delay)) return errors.push({ pointer: '/delay', detail: 'send deliverAt or delay, not both' }), null
  const bounds = `at least ${SCHEDULE_MIN_S} s and at most ${formatDuration(rules.maxSchedule)} (${rules.maxSchedule} s) ahead`
  if (!isNull(delay)) {
    const s = durationOf(delay, '/delay', SCHEDULE_MIN_S, rules.maxSchedule, errors)
    return s === null ? null : new Date(now + s * 1000)
  }
  const ms = typeof at === 'string' && RFC3339.test(at) ? Date.parse(at) : NaN
  if (!Number.isFinite(ms)) return errors.push({ pointer: '/deliverAt', detail: 'deliverAt must be an RFC 3339 date-time with an offset, such as 2030-01-01T09:00:00Z' }), null
  if (ms < now + SCHEDULE_MIN_S * 1000 || ms > now + rules.maxSchedule * 1000) {
    return errors.push({ pointer: '/deliverAt', detail: `deliverAt must be ${bounds}; it is ${Math.round((ms - now) / 1000)} s from now` }), null
  }
  return new Date(Math.floor(ms)) // a UUIDv7 holds milliseconds
}

/** priority, ttl, collapseKey and ack of a body, each checked against its bound. */
function notifyFields(b: Record<string, unknown>, rules: EventRules, errors: FieldError[]) {
  const priority = priorityOf(b.priority, errors)
  const ttl = isNull(b.ttl) ? null : durationOf(b.ttl, '/ttl', 0, NOTIFY_LIMITS.ttlMax, errors)
  let collapseKey: string | null = null
  if (!isNull(b.collapseKey)) {
    if (typeof b.collapseKey === 'string' && NOTIFY_LIMITS.collapseKey.test(b.collapseKey)) collapseKey = b.collapseKey
    else errors.push({ pointer: '/collapseKey', detail: 'collapseKey must be 1 to 32 characters of A-Z, a-z, 0-9, "_" and "-"' })
  }
  return { priority, ttl, collapseKey, ack: ackOf(b.ack, rules, errors), to: toOf(b.to, errors), scheduledFor: scheduleOf(b, rules, Date.now(), errors) }
}

/**
 * Applies the rules of docs/events.md to a parsed body. Returns the event and
 * the list of changes made to it (the response's `errors`), or throws a 400.
 */
export function normalizeEvent(body: unknown, rules: EventRules = DEFAULT_RULES): { event: NormalizedEvent; changes: string[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError([{ pointer: '', detail: 'the body must be a JSON object' }])
  }
  if (!checker.Check(body)) throw validationError(typeErrors(body))
  const b = body as EventBodyType & Record<string, unknown>
  const errors: FieldError[] = []
  const changes: string[] = []
  const text = (field: 'message' | 'event' | 'title' | 'channel', value: string | null | undefined, max: number) => {
    if (value == null) return null
    if (!storable(value)) errors.push({ pointer: `/${field}`, detail: `${field} ${STRING_RULE}` })
    const cut = truncate(value, max)
    if (cut === null) return value
    changes.push(`${field} was truncated to ${max} characters`)
    return cut
  }

  if (b.message.trim() === '') errors.push({ pointer: '/message', detail: 'message must not be empty' })
  const message = text('message', b.message, LIMITS.message) ?? ''
  const event = text('event', b.event, LIMITS.event)
  const title = text('title', b.title, LIMITS.title)
  const channel = text('channel', b.channel?.toLowerCase(), LIMITS.channel)
  if (channel !== null && !SLUG.test(channel)) {
    errors.push({ pointer: '/channel', detail: 'channel must be a slug: lowercase letters, digits, "-" and "_", starting with a letter or digit' })
  }

  let link: string | null = null
  if (b.link != null) {
    link = b.link
    if (link.length > LIMITS.link && codePoints(link) > LIMITS.link) {
      errors.push({ pointer: '/link', detail: `link is longer than ${LIMITS.link} characters` })
    } else if (!LINK_SCHEME.test(link)) {
      errors.push({ pointer: '/link', detail: 'link must start with http://, https://, mailto: or tel:' })
    } else if (!storable(link)) {
      errors.push({ pointer: '/link', detail: `link ${STRING_RULE}` })
    }
  }

  let tags: string[] = []
  if (b.tags != null) {
    if (b.tags.length > LIMITS.tags) changes.push(`tags beyond the first ${LIMITS.tags} were dropped (${b.tags.length} sent)`)
    tags = b.tags.slice(0, LIMITS.tags).map((tag, i) => {
      if (!storable(tag)) errors.push({ pointer: `/tags/${i}`, detail: `tags[${i}] ${STRING_RULE}` })
      const cut = truncate(tag, LIMITS.tag)
      if (cut === null) return tag
      changes.push(`tags[${i}] was truncated to ${LIMITS.tag} characters`)
      return cut
    })
  }

  const data = b.data ?? null
  if (data !== null) checkData(data, { parent: null, key: 'data' }, 1, errors)
  const notify = notifyFields(b, rules, errors)

  for (const key of Object.keys(b)) {
    if (!KNOWN.has(key)) changes.push(`unknown property ${JSON.stringify(key.slice(0, 64))} was dropped${meant(key)}`)
  }
  if (errors.length) throw validationError(errors)
  return { event: { message, event, channel, title, link, tags, data, ...notify }, changes }
}

/** A new event's id: a UUIDv7 of now, or of its scheduled time (the time it goes out, sits in the feed and counts its ttl from). */
export const newEventId = (scheduledFor: Date | null) => (scheduledFor ? Bun.randomUUIDv7('hex', scheduledFor) : Bun.randomUUIDv7())

/** The greatest UUIDv7 of the millisecond `at`: `id <= latestUuidv7(at)` is "its time is at or before `at`", on any index by id. */
export function latestUuidv7(at: Date | number): string {
  const h = Math.max(0, Math.floor(+at)).toString(16).padStart(12, '0')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7fff-bfff-ffffffffffff`
}

/** The Unix-ms timestamp inside a UUIDv7. */
export const uuidv7Time = (id: string) => new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16))

// A UUIDv7's 48-bit timestamp reaches the year 10889; PostgreSQL's timestamps
// end with 294276, but nothing Herald issued is from the future.
const LATEST_MS = Date.UTC(9999, 11, 31)
/** Whether a UUIDv7 could be one Herald issued: its time is a real date, not past the year 9999. */
export const plausibleUuidv7 = (id: string) => uuidv7Time(id).getTime() <= LATEST_MS
