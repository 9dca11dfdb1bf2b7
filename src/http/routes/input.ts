// The path parameters and query values the routes share, as TypeBox schemas:
// every one says what it accepts, with lengths and ranges, and refuses what
// PostgreSQL cannot take (U+0000, an unpaired surrogate, a number past
// bigint, a timestamp past the year 9999) with a 400 at the edge instead of a
// 500 from the driver. `error` is the detail the 400 shows.
import { t } from 'elysia'
import { Type } from '@sinclair/typebox'
import { uuidv7TooLate } from '../../core/errors'
import { plausibleUuidv7 } from '../../ingest/event'

// Any text but U+0000 and unpaired surrogates (the pattern is compiled
// without the u flag, so it sees UTF-16 units).
const STORABLE = '^(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$'
const SLUG = '^[a-z0-9][a-z0-9_-]{0,63}$'
const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
const UUIDV7 = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-7[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$'

/** Free text of at most `maxLength` characters. */
export const Text = (name: string, maxLength: number, description: string) =>
  Type.String({ maxLength, pattern: STORABLE, description, error: `${name} must be text of at most ${maxLength} characters, without U+0000 or unpaired surrogates` })

export const WorkspaceParam = Type.String({
  pattern: SLUG,
  description: 'Workspace name.',
  error: 'workspace must be a workspace name: 1 to 64 lower-case letters, digits, "-" and "_", starting with a letter or digit',
})
export const ChannelParam = Type.String({
  pattern: SLUG,
  description: 'Channel slug.',
  error: 'channel must be a channel slug: 1 to 64 lower-case letters, digits, "-" and "_", starting with a letter or digit',
})
export const Uuid = (name: string, description: string) => Type.String({ pattern: UUID, description, error: `${name} must be a UUID` })
export const UuidV7 = (name: string, description: string) => Type.String({ pattern: UUIDV7, description, error: `${name} must be a UUIDv7, as Herald issues them` })
// Elysia checks the numbers it coerces from the path or the query one by one,
// without saying which parameter failed: 'x-parameter' names it for the 400.
export const KeyIdParam = t.Integer({ 'x-parameter': 'id', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Key id, from the list.', error: 'id must be the id of an API key: a whole number from 1' })
export const SessionIdParam = t.Integer({ 'x-parameter': 'sessionId', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Session id, from GET /v1/me/sessions.', error: 'sessionId must be the id of a session: a whole number from 1' })
/** The secret of an e-mailed link (invitation, reset, sign-up). */
export const Token = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$', description: 'The token from the link.', error: 'token must be the token of a link: letters, digits, "-" and "_"' })
export const Limit = (max: number, def: number, description: string) =>
  t.Integer({ 'x-parameter': 'limit', minimum: 1, maximum: max, default: def, description, error: `limit must be a whole number from 1 to ${max}` })

export const WorkspaceParams = Type.Object({ workspace: WorkspaceParam })

// The address syntax browsers check in <input type="email"> (WHATWG HTML),
// with a dot in the domain: what an SMTP server takes, so an address that
// passes here is not one the mailer then fails on. Spaces around it are
// trimmed by the routes.
const EMAIL = "^\\s*[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+\\s*$"
/** An e-mail address that Herald may send mail to. */
export const EmailAddress = (description = 'E-mail address.') =>
  Type.String({ pattern: EMAIL, maxLength: 254, description, error: 'email must be an e-mail address, such as jane@example.com', examples: ['jane@example.com'] })

/** A 400 naming the parameter unless the UUIDv7 could be one Herald issued (a pattern cannot compare times). */
export function checkUuidv7Time(parameter: string, id: string | undefined) {
  if (id === undefined || plausibleUuidv7(id)) return
  throw uuidv7TooLate(parameter)
}

/** The query of a paged channel list: a search, the cursor of the previous page and the page size. */
export const ChannelListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 64, pattern: '^[a-z0-9_-]*$', description: 'Only the channels whose slug contains this text.', error: 'q must be part of a channel slug: lower-case letters, digits, "-" and "_"' })),
  cursor: Type.Optional(ChannelParam),
  limit: Type.Optional(Limit(500, 100, 'Channels per page, at most 500.')),
})
export const channelPageOf = (query: { q?: string; cursor?: string; limit?: number }) => ({ q: query.q || undefined, after: query.cursor, limit: query.limit ?? 100 })
export const NextCursor = Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null at the end.' })
