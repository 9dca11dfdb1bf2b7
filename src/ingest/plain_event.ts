// POST /event with a text body, in the style of ntfy:
//
//   curl -d "Backup done" -H "Authorization: Bearer hrld_…" -H "Priority: high" https://herald.example.com/event
//
// The body is the message. Headers give the other fields: Title, Priority,
// Tags (comma-separated), Channel, Event (the event key) and Click (the
// link), each also as X-Title, X-Priority and so on; when both spellings are
// sent, the X- one wins, as in ntfy. Everything else about the event (its
// limits, errors and answer) is the JSON contract's: the text becomes the
// same body normalizeEvent checks. A JSON body is unchanged, and these
// headers do not apply to it (the answer's `errors` says they were ignored).
import { validationError, type FieldError, HeraldError } from '../core/problems'
import { eventTextIsJson, eventTextNotUtf8 } from '../core/errors'

/** The text types taken as a message alone: curl -d sends the second. */
const PLAIN_TYPE = /^\s*(text\/plain|application\/x-www-form-urlencoded)\s*(;|$)/i

/** A Content-Type POST /event reads as text. */
export const isPlainType = (contentType: string | null) => contentType !== null && PLAIN_TYPE.test(contentType)

/** Each header, as ntfy spells it, and the field of the event it gives. */
export const PLAIN_HEADERS = [
  { header: 'Title', field: 'title' },
  { header: 'Priority', field: 'priority' },
  { header: 'Tags', field: 'tags' },
  { header: 'Channel', field: 'channel' },
  { header: 'Event', field: 'event' },
  { header: 'Click', field: 'link' },
] as const

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * A header's text. HTTP carries header values as bytes (Bun reads them as
 * Latin-1): raw UTF-8, as curl sends `-H "Title: Café"`, is decoded as such,
 * and an RFC 2047 encoded word (`=?UTF-8?B?Q2Fmw6k=?=`, ntfy's way for
 * clients that cannot send raw bytes) is too.
 */
export function headerText(value: string): string {
  const word = /^=\?utf-8\?([bq])\?([^?]*)\?=$/i.exec(value.trim())
  if (word) {
    const bytes = word[1]!.toLowerCase() === 'b'
      ? Buffer.from(word[2]!, 'base64')
      : Buffer.from(word[2]!.replace(/_/g, ' ').replace(/=([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1')
    try {
      return utf8.decode(bytes)
    } catch {
      return value
    }
  }
  if (!/[\u0080-\u00ff]/.test(value)) return value
  try {
    return utf8.decode(Buffer.from(value, 'latin1'))
  } catch {
    return value // Latin-1 text that is not UTF-8: taken as it is
  }
}

/** ntfy's priority names and Herald's: `max` is ntfy's name for 5. */
const PRIORITY_ALIASES: Record<string, string> = { max: 'urgent' }

/**
 * The JSON body a text request stands for, and the header each field came
 * from (for errors: "the Title header: …"). The message is the body's text
 * without its trailing whitespace (curl --data-binary @file keeps the final
 * newline). A body that is a JSON object sent as text (fetch's default type
 * for a string) is a 400 that says so, rather than a message of JSON text.
 */
export function plainEventBody(raw: Uint8Array, headers: Headers): { body: Record<string, unknown>; from: Map<string, string> } {
  let text: string
  try {
    text = utf8.decode(raw)
  } catch {
    throw eventTextNotUtf8()
  }
  const trimmed = text.trim()
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(trimmed)
    } catch {
      parsed = undefined
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) throw eventTextIsJson()
  }
  const body: Record<string, unknown> = { message: text.trimEnd() }
  const from = new Map<string, string>()
  for (const { header, field } of PLAIN_HEADERS) {
    const name = headers.has(`x-${header}`) ? `X-${header}` : headers.has(header) ? header : null
    if (name === null) continue
    const value = headerText(headers.get(name)!).trim()
    from.set(field, name)
    if (field === 'priority') body.priority = /^\d+$/.test(value) ? Number(value) : (PRIORITY_ALIASES[value.toLowerCase()] ?? value.toLowerCase())
    else if (field === 'tags') body.tags = value.split(',').map((t) => t.trim()).filter((t) => t !== '')
    else body[field] = value
  }
  return { body, from }
}

/**
 * A validation error of a text request, told in its own terms: a field that
 * came from a header names the header (as a `parameter`), and the message is
 * the body's text.
 */
export function inHeaderTerms(err: unknown, from: Map<string, string>): unknown {
  if (!(err instanceof HeraldError) || err.code !== 'validation-failed' || !err.errors) return err
  const errors: FieldError[] = err.errors.map((e) => {
    const field = e.pointer?.split('/')[1]
    const header = field === undefined ? undefined : from.get(field)
    if (header) return { parameter: header, detail: `the ${header} header: ${e.detail}` }
    if (field === 'message') return { pointer: '', detail: e.detail.replace(/^message/, 'the message (the body)') }
    return e
  })
  return validationError(errors)
}

/** The headers of a text request that a JSON body ignores, for its answer's `errors`. */
export function ignoredHeaders(headers: Headers): string[] {
  const out: string[] = []
  for (const { header, field } of PLAIN_HEADERS) {
    for (const name of [`X-${header}`, header]) {
      if (headers.has(name)) out.push(`the ${name} header was ignored: with a JSON body, send ${field} in the JSON`)
    }
  }
  return out
}
