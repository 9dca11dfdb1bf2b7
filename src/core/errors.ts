// The catalogue of Herald's errors: each one a named constructor with its
// words, so that a rule that refuses says it the same way from every API, and
// the dashboard and the tests can rely on the words. problems.ts holds the
// types (code, status, title); this file holds what is said. No other file
// writes the text of a HeraldError.
import { HeraldError, validationError } from './problems'

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
