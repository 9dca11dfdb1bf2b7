// Request bodies, the same way on every route: at most the route's limit in
// bytes, counted while the body streams in (chunked too), so a larger one is
// refused with 413 before more than the limit is held in memory; JSON only;
// nested at most MAX_JSON_DEPTH levels, checked on the bytes before parsing,
// so no parser or validator ever recurses deeper; and no string PostgreSQL
// cannot store.
import { HeraldError, validationError, type FieldError } from '../core/problems'
import { bodyCutShort, bodyNotJson, bodyNotJsonType, bodyNotUtf8, bodyTooLarge } from '../core/errors'
import { STRING_RULE, storable } from '../core/storable'
import { leaveUnread } from './linger'

/** Bun refuses a declared body above this before any route sees it: a backstop above every route's own limit. */
export const SERVER_MAX_BODY_BYTES = 16 * 1024 * 1024
/** The limit of a route that says nothing else: management bodies are small objects. */
export const DEFAULT_BODY_LIMIT = 16 * 1024
// Deep enough for an event's `data` (64 levels) inside any body that carries
// one; far below what would strain a recursive parser or validator.
export const MAX_JSON_DEPTH = 100

const JSON_TYPE = /^application\/json\s*(;|$)/i
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

// The 413 is sent at once; the server then reads the rest of the body for a
// bounded time and size and closes the connection (src/http/linger.ts), so a
// client that writes its whole body before it reads (Node's http) still
// reads its 413, and no client makes Herald read more than the bound.
export const tooLarge = bodyTooLarge

// A client that hangs up mid-body makes the read reject: that is bad input
// (a 400, logged at debug), not a 500 logged as an error.
const cutShort = (): never => {
  throw bodyCutShort()
}

/** Reads at most `limit` bytes; a larger body is refused without being buffered. */
export async function readBody(req: Request, limit: number): Promise<Uint8Array> {
  const length = req.headers.get('content-length')
  if (length !== null) {
    if (Number(length) > limit) throw tooLarge(limit)
    let buf: Uint8Array
    try {
      buf = await req.bytes()
    } catch {
      return cutShort()
    }
    if (buf.byteLength > limit) throw tooLarge(limit)
    return buf
  }
  if (!req.body) return new Uint8Array(0)
  const reader = req.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read().catch(cutShort)
    if (done) break
    total += value.byteLength
    if (total > limit) {
      // Not cancelled: the drain reads the rest within its bound.
      leaveUnread(req, reader)
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

export const isJsonType = (contentType: string | null) => contentType !== null && JSON_TYPE.test(contentType)

/** The deepest nesting of arrays and objects in JSON text, strings skipped; stops counting past `max`. */
export function jsonDepth(text: string, max = MAX_JSON_DEPTH): number {
  let depth = 0
  let deepest = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // a string: skip to its closing quote, past escaped characters
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c) i++
        else if (d === 0x22) break
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest && (deepest = depth) > max) return deepest
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return deepest
}

/** UTF-8 bytes to a JSON value; 400 for bytes that are not UTF-8 or not JSON, or that nest deeper than `maxDepth`. */
export function parseJson(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): unknown {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw bodyNotUtf8()
  }
  // Each level takes two characters at least: a shorter text cannot be too deep.
  if (text.length > 2 * maxDepth && jsonDepth(text, maxDepth) > maxDepth) throw validationError([{ pointer: '', detail: `the body nests arrays and objects deeper than ${maxDepth} levels` }])
  try {
    return JSON.parse(text)
  } catch (err) {
    throw bodyNotJson((err as Error).message)
  }
}

const escapePointer = (k: string) => k.replaceAll('~', '~0').replaceAll('/', '~1')

// A key that replaces how JavaScript turns an object into text: Elysia puts
// a refused value into its error message as text, and an object whose own
// `toString` is not a function cannot be made text at all (a TypeError).
const RESERVED_KEYS = new Set(['toString', 'valueOf'])

/** Every string (keys too) PostgreSQL could not store, and every reserved key, as field errors; at most 10. */
export function unstorableStrings(value: unknown, pointer = '', errors: FieldError[] = []): FieldError[] {
  if (errors.length >= 10) return errors
  if (typeof value === 'string') {
    if (!storable(value)) errors.push({ pointer, detail: `${pointer.slice(1).replaceAll('/', '.') || 'the body'} ${STRING_RULE}` })
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => unstorableStrings(v, `${pointer}/${i}`, errors))
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = `${pointer}/${escapePointer(k)}`
      if (!storable(k)) errors.push({ pointer: p, detail: `a key in ${pointer.slice(1).replaceAll('/', '.') || 'the body'} ${STRING_RULE}` })
      else if (RESERVED_KEYS.has(k)) errors.push({ pointer: p, detail: `${pointer.slice(1).replaceAll('/', '.') || 'the body'} must not have a key named ${k}` })
      unstorableStrings(v, p, errors)
    }
  }
  return errors
}

/**
 * The JSON object a management route takes: 415 unless the Content-Type is
 * JSON (so a plain HTML form from another site cannot post here), 413 past
 * `limit`, 400 for anything that is not a storable JSON object. An empty body
 * is `undefined`, for the routes whose body is optional.
 */
export async function readJsonObject(request: Request, limit: number): Promise<Record<string, unknown> | undefined> {
  const contentType = request.headers.get('content-type')
  const declared = request.headers.get('content-length')
  if (!request.body || declared === '0') return undefined
  if (!isJsonType(contentType)) {
    throw bodyNotJsonType()
  }
  const bytes = await readBody(request, limit)
  if (bytes.byteLength === 0) return undefined
  const value = parseJson(bytes)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw validationError([{ pointer: '', detail: 'the body must be a JSON object' }])
  }
  const errors = unstorableStrings(value)
  if (errors.length) throw validationError(errors)
  return value as Record<string, unknown>
}
