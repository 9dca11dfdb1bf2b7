// The catalogue of Herald's errors: each one a named constructor with its
// words, so that a rule that refuses says it the same way from every API, and
// the dashboard and the tests can rely on the words. problems.ts holds the
// types (code, status, title); this file holds what is said. No other file
// writes the text of a HeraldError.
import { HeraldError, validationError, type FieldError } from './problems'

const quoted = (s: string) => JSON.stringify(s)

// --- workspaces and who may act in them ------------------------------------

/** A person asked about a workspace they do not belong to: 404, as if it did not exist. */
export const notAMember = (workspace: string) => new HeraldError('not-found', `You are not a member of a workspace named ${quoted(workspace)}.`)
/** The operator named a workspace that does not exist. */
export const noWorkspace = (name: string) => new HeraldError('not-found', `There is no workspace named ${quoted(name)}.`)
export const forbiddenRole = (workspace: string, who: 'owners and admins' | 'owners', role: string) =>
  new HeraldError('forbidden', `Only ${who} of ${workspace} can do this; you are a ${role}.`)

// --- channels ---------------------------------------------------------------

export const channelNotFound = (slug: string) => new HeraldError('not-found', `There is no channel ${slug}.`)
export const channelExists = (slug: string) => new HeraldError('conflict', `The channel ${slug} exists.`)
export const channelIsDefault = (slug: string) => new HeraldError('conflict', `${slug} is the default channel: make another one the default first.`)
/** The limit on channels a workspace may have, in words, for the problems that name it. */
export const channelLimitDetail = (max: number) =>
  `This workspace has reached its limit of ${max} channels (HERALD_MAX_CHANNELS_PER_WORKSPACE); send to an existing channel, or delete one.`
export const channelLimit = (max: number) => new HeraldError('limit-reached', channelLimitDetail(max))
/** An event whose new channel would pass the limit (422 on the ingest routes, with the field). */
export const eventChannelLimit = (max: number) =>
  new HeraldError('channel-limit', channelLimitDetail(max), [{ pointer: '/channel', detail: `a new channel would pass the limit of ${max} channels per workspace` }])

// --- members ----------------------------------------------------------------

/** The operator named a user who is not a member of the workspace. */
export const userNotAMember = () => new HeraldError('not-found', 'This user is not a member of this workspace.')

// --- signing in, sessions and accounts --------------------------------------

/** No session and no user token: the 401 of every route of a signed-in person. */
export const unauthorizedUser = () =>
  new HeraldError('unauthorized', 'Sign in first: send "Authorization: Bearer <user token>", or the session cookie of the dashboard.', undefined, { 'www-authenticate': 'Bearer' })
/** An app token past its idle time: said as such, so that the app asks its person to sign in again. */
export const idleToken = (days: number) =>
  new HeraldError('unauthorized', `This app token has expired: it was not used for ${days} days (HERALD_APP_TOKEN_IDLE_DAYS). Sign in again.`, undefined, { 'www-authenticate': 'Bearer error="invalid_token"' })
export const csrfFailed = () => new HeraldError('csrf-failed', 'This change needs the X-CSRF-Token header of your session (GET /v1/me gives it).')
/** A request whose client cannot be told apart from the others (no socket address): refused, never counted with everyone's. */
export const clientUnknown = () =>
  new HeraldError('internal', 'Herald could not tell which address this request came from, so it cannot count it against the per-client limits; it was refused. Retry; if it persists, the operator will find it in the logs.')
/** More passwords waiting to be hashed than the server lets queue. */
export const hashingBusy = () =>
  new HeraldError('unavailable', 'Too many sign-ins and sign-ups are being checked at the moment. Retry in a second.', undefined, { 'retry-after': '1' })
const throttled = (wait: number, code: 'signin-throttled' | 'mail-throttled', what: string) =>
  new HeraldError(code, `Too many ${what}; try again in ${wait} seconds.`, undefined, { 'retry-after': String(wait) })
export const signinThrottled = (wait: number) => throttled(wait, 'signin-throttled', 'sign-in attempts')
export const mailThrottled = (wait: number) => throttled(wait, 'mail-throttled', 'e-mails to this address or from this client')
export const wrongCredentials = () => new HeraldError('invalid-credentials', 'The e-mail address or the password is wrong.')
/** A password refused by passwordProblem, whose words say why. */
export const passwordRefused = (why: string, pointer = '/password') => new HeraldError('validation-failed', why, [{ pointer, detail: why }])
/** A change of password whose current one is wrong: counted like a failed sign-in. */
export const currentPasswordWrong = () =>
  new HeraldError('validation-failed', 'currentPassword is wrong: it is not the password of this account.', [{ pointer: '/currentPassword', detail: 'currentPassword is not the password of this account' }])
export const noSuchSession = () => new HeraldError('not-found', 'You have no live session with this id (it ended, or it is not yours).')
export const resetLinkInvalid = () =>
  new HeraldError('validation-failed', 'The reset link is invalid, used or expired; ask for a new one.', [{ pointer: '/token', detail: 'invalid, used or expired' }])
export const signupLinkInvalid = () =>
  new HeraldError('validation-failed', 'The sign-up link is invalid, used or expired; sign up again.', [{ pointer: '/token', detail: 'invalid, used or expired' }])
export const signupInvitationInvalid = () =>
  new HeraldError('validation-failed', 'The invitation is invalid, used or expired.', [{ pointer: '/invitation', detail: 'invalid, used or expired' }])
export const invitationFor = (email: string) => new HeraldError('forbidden', `This invitation is for ${email}; sign up with that address.`)
export const invitedAccountExists = () => new HeraldError('conflict', 'An account with this address exists: sign in, then accept the invitation.')
export const accountExists = () => new HeraldError('conflict', 'An account with this address exists: sign in, or reset its password.')
export const workspaceTaken = (name: string) => new HeraldError('conflict', `The workspace name ${quoted(name)} is taken; choose another.`)
export const inviteOnly = () => new HeraldError('forbidden', 'Sign-up is by invitation only on this Herald.')

// --- the operator API -------------------------------------------------------

export const operatorApiOff = () => new HeraldError('not-found', 'The operator API is off: this server was started without HERALD_ADMIN_TOKEN.')
export const operatorTokenMissing = () =>
  new HeraldError('unauthorized', 'The operator API needs "Authorization: Bearer <HERALD_ADMIN_TOKEN>".', undefined, { 'www-authenticate': 'Bearer' })
export const operatorTokenWrong = () =>
  new HeraldError('unauthorized', 'The admin token is wrong: it is not the HERALD_ADMIN_TOKEN this server was started with.', undefined, { 'www-authenticate': 'Bearer' })

// --- events: sending and reading --------------------------------------------

export const apiKeyRequired = () =>
  new HeraldError('unauthorized', 'A valid API key is required: send "Authorization: Bearer <API key>".', undefined, { 'www-authenticate': 'Bearer' })
/** POST /event's body is JSON or a 400 (docs/events.md), not the 415 of other routes. */
export const eventNotJson = () => new HeraldError('invalid-content-type', 'Content-Type must be application/json.')
/** POST /event also takes a message alone as text (src/ingest/plain_event.ts). */
export const eventTypeUnknown = () =>
  new HeraldError('invalid-content-type', 'Content-Type must be application/json, or text/plain for a message alone (with Title, Priority, Tags, Channel, Event and Click headers).')
export const eventTextNotUtf8 = () => new HeraldError('validation-failed', 'The body is not UTF-8 text.', [{ pointer: '', detail: 'the message (the body) must be UTF-8 text' }])
export const eventTextIsJson = () =>
  new HeraldError('invalid-content-type', 'The body is a JSON object sent as text: send it with Content-Type: application/json (as text/plain it would be the message, JSON and all).')
/** One event of a batch past the size of one event (`max` bytes, POST /event's limit). */
export const eventTooLarge = (max: number) =>
  new HeraldError('payload-too-large', `The event is larger than ${max} bytes (256 KiB), the limit of one event (POST /event's).`)
export const quotaExceeded = () =>
  new HeraldError('quota-exceeded', 'The monthly event quota of this workspace is used up; it resets at 00:00 UTC on the first day of next month.')
export const rateLimited = () =>
  new HeraldError('rate-limited', 'The rate limit of this workspace was reached; retry after the number of seconds in Retry-After.')
/** POST /event's Idempotency-Key header, seen with another body. */
export const idempotencyKeyReused = () =>
  new HeraldError('idempotency-key-reused', 'This Idempotency-Key was already used in the last 24 hours with a different body.')
/** POST /events' per-item idempotencyKey, seen with another event. */
export const batchKeyReused = () =>
  new HeraldError('idempotency-key-reused', 'This idempotencyKey was already used in the last 24 hours with a different event.')
export const eventNotFound = () => new HeraldError('not-found', 'There is no event with this id in this workspace.')
/** A UUIDv7 path or query parameter whose time is past what Herald can have issued. */
export const uuidv7TooLate = (parameter: string) => {
  const detail = `${parameter} must be a UUIDv7 that Herald issued: its time is past the year 9999`
  return new HeraldError('validation-failed', detail, [{ parameter, detail }])
}

// --- devices and the live feed ----------------------------------------------

export const deviceLimit = (max: number) =>
  new HeraldError('conflict', `You have ${max} devices, the most one person may have: delete one you no longer use (DELETE /v1/devices/{id}).`)
/*
 * Another person's token or endpoint: refused, saying nothing of that device
 * (no id, no owner) beyond what the refusal itself tells, and what the person
 * at this device can do about it.
 */
export const subscriptionTaken = () =>
  new HeraldError('conflict', 'This push subscription is registered to another account. Unsubscribe it and subscribe again, which gives a new endpoint (in Herald\'s web app: turn notifications on again).')
export const pushTokenTaken = () =>
  new HeraldError('conflict', 'This push token is registered to another account: sign that account out in the app on this device first, then register again.')
export const deviceNotFound = () => new HeraldError('not-found', 'You have no device with this id.')
export const webPushOff = () => new HeraldError('not-found', 'Web Push is not configured on this server.')
export const tooManyStreams = (max: number) =>
  new HeraldError('too-many-streams', `You have ${max} live streams open; close one first.`, undefined, { 'retry-after': '10' })

// --- the server: assets, metrics, outages -----------------------------------

export const noSuchAsset = () => new HeraldError('not-found', 'There is no such asset; the dashboard may have been updated: reload the page.')
export const noSuchScript = () => new HeraldError('not-found', 'There is no such script; Herald may have been updated: reload /docs.')
export const metricsUnauthorized = () =>
  new HeraldError('unauthorized', '/metrics needs "Authorization: Bearer $HERALD_METRICS_TOKEN".', undefined, { 'www-authenticate': 'Bearer' })
export const metricsOnly = () => new HeraldError('not-found', 'This server answers only /metrics and /healthz.')
/** The database is unreachable: `detail` says what was not done, Retry-After when to try again. */
export const databaseUnavailable = (detail: string, retryAfterSeconds: number) =>
  new HeraldError('unavailable', detail, undefined, { 'retry-after': String(retryAfterSeconds) })

// --- the HTTP layer: requests Herald cannot read --------------------------------

const kib = (n: number) => (n >= 1024 * 1024 ? `${n / (1024 * 1024)} MiB` : `${n / 1024} KiB`)
export const bodyTooLarge = (limit: number) => new HeraldError('payload-too-large', `The body is larger than ${limit} bytes (${kib(limit)}), the limit of this route.`)
export const bodyCutShort = () => new HeraldError('malformed-json', 'The body ended before it was complete: the connection closed while it was being sent.')
export const bodyNotUtf8 = () => new HeraldError('malformed-json', 'The body is not valid UTF-8.')
export const bodyNotJson = (why: string) => new HeraldError('malformed-json', `The body is not valid JSON: ${why}`)
export const bodyUnparsed = () => new HeraldError('malformed-json', 'The body could not be parsed: send JSON with Content-Type: application/json.')
export const bodyNotJsonType = () => new HeraldError('unsupported-media-type', 'Send the body as JSON, with Content-Type: application/json.')
export const nothingHere = () => new HeraldError('not-found', 'There is nothing at this path.')
/** A path that exists, asked with a method it does not take (GET /event): 405 with `Allow`. */
export const methodNotAllowed = (method: string, path: string, allowed: string[]) =>
  new HeraldError('method-not-allowed', `${method} is not allowed on ${path}: it takes ${allowed.join(', ')}.`, undefined, { allow: allowed.join(', ') })
export const unexpected = () => new HeraldError('internal', 'An unexpected error occurred.')
export const requestInvalid = (errors: FieldError[]) => new HeraldError('validation-failed', errors.map((e) => e.detail).join('; ') || 'The request is invalid.', errors)
export const noHost = () => new HeraldError('bad-request', 'The request has no Host header: HTTP/1.1 requires one.')
export const twoHosts = () => new HeraldError('bad-request', 'The request has more than one Host header (or a list of hosts in one): HTTP/1.1 allows exactly one.')
export const bodyOnGet = () => new HeraldError('bad-request', 'A GET or HEAD request has no body, and this one has one (Content-Length or Transfer-Encoding): Herald does not read it.')
/** What a 503 of a database outage says: on a read, and on the write path (nothing was stored). */
export const DATABASE_DOWN = 'The database is unavailable. Retry later.'
export const DATABASE_DOWN_NOT_STORED = 'The database is unavailable; the event was not stored. Retry later.'
// --- API keys ---------------------------------------------------------------

/** A workspace with HERALD_MAX_API_KEYS_PER_WORKSPACE live keys asked for one more. */
export const apiKeyLimit = (max: number) =>
  new HeraldError('limit-reached', `This workspace has reached its limit of ${max} live API keys (HERALD_MAX_API_KEYS_PER_WORKSPACE); revoke one, or have the operator raise the limit.`)
export const apiKeyNotFound = (id: number) => new HeraldError('not-found', `There is no live API key ${id} in this workspace.`)

// --- creating workspaces ----------------------------------------------------

/** The operator's new workspace: its name is taken. */
export const workspaceExists = (name: string) => new HeraldError('conflict', `A workspace named ${quoted(name)} already exists.`)
/** A person's new workspace: its name is taken. */
export const workspaceNameTaken = (name: string) => new HeraldError('conflict', `The workspace name ${quoted(name)} is taken; choose another.`)
export const workspaceLimit = (max: number) =>
  new HeraldError('limit-reached', `You own ${max} workspaces, the most one person may own here (HERALD_MAX_WORKSPACES_PER_USER); delete one, or ask the operator to raise the limit.`)
/** A workspace name the operator gave that is no slug (after lower-casing). */
export const workspaceNameInvalid = () =>
  validationError([{ pointer: '/name', detail: 'name must be a slug of at most 64 characters: lowercase letters, digits, "-" and "_", starting with a letter or digit' }])
/** What only the operator may do (a workspace's limits), asked by a person. */
export const operatorOnly = () => new HeraldError('forbidden', 'Only the operator can do this.')
/** A person named someone who is not a member of the workspace. */
export const personNotAMember = () => new HeraldError('not-found', 'This person is not a member of this workspace.')
/** The person acting left or was removed while they asked. */
export const noLongerAMember = () => new HeraldError('not-found', 'You are no longer a member of this workspace.')
/** A member (no owner or admin) changed or removed someone else. */
export const membersManagedByAdmins = () => new HeraldError('forbidden', 'Only owners and admins change or remove members; you can remove yourself (leave).')
/** An admin made, changed or removed an owner. */
export const ownersManagedByOwners = () => new HeraldError('forbidden', 'Only owners make, change or remove an owner.')
/** The last owner would be demoted or removed: in a person's words, and in the operator's. */
export const workspaceNeedsOwner = () => new HeraldError('conflict', 'A workspace needs an owner: make someone else owner first.')
export const lastOwner = () => new HeraldError('conflict', 'This is the last owner of the workspace: make someone else owner first.')
/** The operator added an address that is a member already. */
export const alreadyAMember = (email: string, workspace: string) => new HeraldError('conflict', `${email} is already a member of ${workspace}.`)

// --- invitations ------------------------------------------------------------

export const invitationInvalid = () => new HeraldError('not-found', 'This invitation is invalid, used or expired.')
export const invitationForAnother = (invited: string, signedIn: string) => new HeraldError('forbidden', `This invitation is for ${invited}; you are signed in as ${signedIn}.`)
export const noPendingInvitation = () => new HeraldError('not-found', 'There is no pending invitation with this id.')
/** An admin invited an owner. */
export const ownersInviteOwners = () => new HeraldError('forbidden', 'Only owners can invite an owner.')
/** The e-mail throttle of the inviter (`you`, or `the operator`) or of the recipient. */
export const invitationsThrottled = (inviter: 'you' | 'the operator', email: string, wait: number) =>
  new HeraldError('mail-throttled', `Too many invitations from ${inviter}, or e-mails to ${email}; try again in ${wait} seconds.`, undefined, { 'retry-after': String(wait) })

// --- routers and deliveries --------------------------------------------------

export const routerNotFound = (id: string, workspace: string) => new HeraldError('not-found', `There is no router ${quoted(id)} in workspace ${quoted(workspace)}.`)
export const routerNameTaken = (name: string) => new HeraldError('conflict', `A router named ${quoted(name)} already exists in this workspace.`)
export const routerLimit = (max: number) =>
  new HeraldError('limit-reached', `This workspace has reached its limit of ${max} routers (HERALD_MAX_ROUTERS_PER_WORKSPACE); delete one, or have the operator raise the limit.`)
/** A preview of a destination whose type Herald does not know. */
export const unknownDestinationType = (types: readonly string[]) =>
  validationError([{ pointer: '/destination/type', detail: `destination.type: Expected one of ${types.join(', ')}` }])
/** A template whose rendering passed its limits (TemplateLimitError's words). */
export const templateTooLarge = (reason: string) => validationError([{ pointer: '/template', detail: `template: ${reason}` }])
/** No delivery to replay; the operator is also told why a pending one is none. */
export const noFinishedDelivery = (operator: boolean) =>
  new HeraldError('not-found', `There is no finished delivery with this id in this workspace${operator ? ' (a pending one is already scheduled)' : ''}.`)
/** A filter's time (a query parameter, or a pointer into a body) that is no real date and time. */
export const filterTimeInvalid = (where: 'parameter' | 'pointer', name: string) => filterError(where, name, `${name} must be a real date and time from 1970 on`)
export const filterSinceAfterUntil = (where: 'parameter' | 'pointer') => filterError(where, 'since', 'since must not be after until')
const filterError = (where: 'parameter' | 'pointer', field: string, detail: string) =>
  new HeraldError('validation-failed', detail, [where === 'parameter' ? { parameter: field, detail } : { pointer: `/${field}`, detail }])

// --- receipts (events that repeat until acknowledged) ------------------------

/** An event with `ack` past the workspace's cap of pending receipts (429 on the ingest routes). */
export const receiptLimit = (max: number) =>
  new HeraldError('receipt-limit', `This workspace has ${max} pending receipts, its most (HERALD_MAX_PENDING_RECEIPTS): acknowledge or cancel some, or wait for them to expire, then send again.`,
    [{ pointer: '/ack', detail: `the workspace has ${max} pending receipts, its most` }])
export const receiptNotFound = () => new HeraldError('not-found', 'There is no receipt with this id in this workspace.')
/** A receipt that is no longer pending, naming how it ended and, when acknowledged, by whom. */
export const receiptEnded = (status: string, by: { email: string } | null, at: string | null) =>
  new HeraldError('conflict', status === 'acknowledged'
    ? `This receipt was already acknowledged${by ? ` by ${by.email}` : ''}${at ? ` at ${at}` : ''}.`
    : `This receipt is no longer pending: it is ${status}.`)
/** An escalation step naming a channel the workspace does not have. */
export const escalationChannelMissing = (index: number, slug: string) =>
  validationError([{ pointer: `/ack/escalate/${index}/channel`, detail: `ack.escalate[${index}].channel: there is no channel ${slug} in this workspace` }])

// --- the acknowledgement link (/ack/<token>) ---------------------------------

/** A token this server did not sign, or whose receipt is gone (asked for other than as a page: a browser gets the 404 page). */
export const ackLinkUnknown = () => new HeraldError('not-found', 'This acknowledgement link is not valid: it was changed or cut short, or the alert it was for is no longer kept.')

// --- preferences (what a member is pushed) -----------------------------------

/** A quiet-hours time zone Intl does not know. */
export const timeZoneUnknown = (name: string) =>
  validationError([{ pointer: '/quietHours/timezone', detail: `quietHours.timezone: ${quoted(name)} is no IANA time zone (such as Europe/Paris or America/New_York)` }])
/** Quiet hours that start when they end. */
export const quietHoursEmpty = () =>
  validationError([{ pointer: '/quietHours/to', detail: 'quietHours.to must differ from quietHours.from: the window would be empty (or the whole day)' }])
/** Levels for channels the workspace does not have, each at its pointer. */
export const preferenceChannelsMissing = (slugs: string[]) =>
  validationError(slugs.map((slug) => ({ pointer: `/channels/${slug.replaceAll('~', '~0').replaceAll('/', '~1')}`, detail: `channels: there is no channel ${quoted(slug)} in this workspace` })))
/** Preferences are a person's own: the operator has none. */
export const preferencesArePersonal = () => new HeraldError('not-found', 'Preferences belong to a member: sign in as that person.')

// --- read state ---------------------------------------------------------------

/** eventIds naming events that are not in the workspace (or not visible to the member): their positions. */
export const readEventsUnknown = (positions: number[]) =>
  validationError(positions.map((i) => ({ pointer: `/eventIds/${i}`, detail: `eventIds/${i} is not an event of this workspace` })))
export const readBeforeUnknown = () => validationError([{ pointer: '/before', detail: 'before is not an event of this workspace' }])
export const readChannelUnknown = (slug: string) => validationError([{ pointer: '/channel', detail: `channel ${quoted(slug)} is not a channel of this workspace` }])
export const readBodyInvalid = () =>
  validationError([{ pointer: '', detail: 'Send either {"eventIds": [...]} (1 to 100 ids) or {"before": "<eventId>", "channel": "<slug>"} (channel optional), not both' }])

/** A scheduled event past the workspace's cap (HERALD_MAX_SCHEDULED_EVENTS). */
export const scheduleLimit = (max: number) =>
  new HeraldError('schedule-limit', `This workspace has ${max} scheduled events, its most (HERALD_MAX_SCHEDULED_EVENTS): cancel some or wait for them to go out, then send again.`,
    [{ pointer: '/deliverAt', detail: `the workspace has ${max} scheduled events, its most` }])
/** A cancel of a scheduled event that has already gone out. */
export const eventSent = (at: string) =>
  new HeraldError('event-sent', `This event went out at ${at}: it can no longer be cancelled.`)
/** A scheduled event that is not there (never was, went out and was deleted by retention, or another workspace's). */
export const scheduledEventNotFound = () => new HeraldError('not-found', 'There is no scheduled event with this id in this workspace.')
/** GET /events without a status it lists. */
export const eventsListStatus = () => {
  const detail = 'status is required: GET /events lists the scheduled events (status=scheduled); read an event by its id with GET /events/{eventId}'
  return new HeraldError('validation-failed', detail, [{ parameter: 'status', detail }])
}
