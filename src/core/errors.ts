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
