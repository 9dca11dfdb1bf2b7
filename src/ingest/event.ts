// The event body of POST /event: its TypeBox schema (which also feeds the
// OpenAPI document) and the rules of docs/events.md that turn a
// parsed body into the event Herald stores, or into a 400.
import { Type, type Static } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { type FieldError, validationError } from '../core/problems'
import { STRING_RULE, storable } from '../core/storable'

export const LIMITS = { message: 500, event: 128, channel: 64, title: 128, link: 1000, tags: 10, tag: 50, dataDepth: 64 } as const
export const SLUG = /^[a-z0-9][a-z0-9_-]*$/
const LINK_SCHEME = /^(https?:\/\/|mailto:|tel:)/i

const opt = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))

export const EventBody = Type.Object(
  {
    message: Type.String({ description: `Notification body. Truncated to ${LIMITS.message} characters (code points). Must not be blank.`, examples: ['Jane Doe signed up'] }),
    event: opt(Type.String({ description: `Event key that routers match, by convention \`domain.action\`. Truncated to ${LIMITS.event} characters.`, examples: ['user.signup'] })),
    channel: opt(Type.String({ description: `Channel slug, lowercased, then truncated to ${LIMITS.channel} characters; must match ^[a-z0-9][a-z0-9_-]*$. Defaults to the workspace's default channel; created on first use.`, examples: ['signups'] })),
    title: opt(Type.String({ description: `Headline above the message. Truncated to ${LIMITS.title} characters.`, examples: ['New user'] })),
    link: opt(Type.String({ description: `URL opened when the notification is tapped: http://, https://, mailto: or tel: (any case). Longer than ${LIMITS.link} characters is rejected.`, examples: ['https://example.com/users/42'] })),
    tags: Type.Optional(Type.Union([Type.Array(Type.String(), { description: `Up to ${LIMITS.tags} tags; extra tags are dropped, each is truncated to ${LIMITS.tag} characters.`, examples: [['signup', 'web']] }), Type.Null()])),
    data: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true, description: 'Arbitrary JSON object, readable by router templates as {{data.field}}.', examples: [{ plan: 'pro' }] }), Type.Null()])),
    ack: Type.Optional(Type.Unknown({ description: 'Requires acknowledgement: {"retry", "expire", "escalate"?} (stand-in until the foundation lands).' })),
  },
  { $id: 'EventBody', additionalProperties: true, description: 'An event. `null` for an optional field means the field is absent; unknown properties are dropped and reported in `errors`.' },
)
export type EventBodyType = Static<typeof EventBody>
const checker = TypeCompiler.Compile(EventBody)
const KNOWN = new Set(Object.keys(EventBody.properties))

export interface NormalizedEvent {
  message: string
  event: string | null
  channel: string | null // null: the workspace's default channel
  title: string | null
  link: string | null
  tags: string[]
  data: Record<string, unknown> | null
  ack?: { retry: number; expire: number; escalate: { after: number; channel: string }[] } | null
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

function typeErrors(body: unknown): FieldError[] {
  const errors: FieldError[] = []
  for (const e of checker.Errors(body)) {
    const field = e.path.split('/')[1]
    if (!field) continue
    if (errors.some((x) => x.pointer === `/${field}`)) continue
    const detail =
      field === 'message' && e.value === undefined ? 'message is required'
      : field === 'tags' ? 'tags must be an array of strings'
      : field === 'data' ? 'data must be a JSON object'
      : `${field} must be a string`
    errors.push({ pointer: `/${field}`, detail })
  }
  return errors
}

/**
 * Applies the rules of docs/events.md to a parsed body. Returns the event and
 * the list of changes made to it (the response's `errors`), or throws a 400.
 */
export function normalizeEvent(body: unknown): { event: NormalizedEvent; changes: string[] } {
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

  const ack = standInAck(b.ack, errors)
  for (const key of Object.keys(b)) {
    if (!KNOWN.has(key)) changes.push(`unknown property ${JSON.stringify(key.slice(0, 64))} was dropped`)
  }
  if (errors.length) throw validationError(errors)
  return { event: { message, event, channel, title, link, tags, data, ack }, changes }
}

/** The Unix-ms timestamp inside a UUIDv7. */
export const uuidv7Time = (id: string) => new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16))

// A UUIDv7's 48-bit timestamp reaches the year 10889; PostgreSQL's timestamps
// end with 294276, but nothing Herald issued is from the future.
const LATEST_MS = Date.UTC(9999, 11, 31)
/** Whether a UUIDv7 could be one Herald issued: its time is a real date, not past the year 9999. */
export const plausibleUuidv7 = (id: string) => uuidv7Time(id).getTime() <= LATEST_MS

// A stand-in for the foundation's parser of `ack` (seconds only), replaced when it lands.
function standInAck(v: unknown, errors: FieldError[]): NormalizedEvent['ack'] {
  if (v == null) return null
  if (typeof v !== 'object' || Array.isArray(v)) return (errors.push({ pointer: '/ack', detail: 'ack must be an object' }), null)
  const a = v as { retry?: unknown; expire?: unknown; escalate?: unknown }
  const int = (x: unknown) => (typeof x === 'number' && Number.isInteger(x) ? x : null)
  const retry = int(a.retry)
  const expire = int(a.expire)
  if (retry === null || retry < 30) errors.push({ pointer: '/ack/retry', detail: 'ack.retry must be at least 30 seconds' })
  if (expire === null || expire > 10800 || (retry !== null && expire < retry)) errors.push({ pointer: '/ack/expire', detail: 'ack.expire must be at least retry and at most 10800 seconds' })
  const escalate = Array.isArray(a.escalate) ? a.escalate.map((s) => ({ after: Number(s?.after), channel: String(s?.channel) })) : []
  return { retry: retry ?? 0, expire: expire ?? 0, escalate }
}
