// The catalogue of Herald's errors: each one a named constructor with its
// words, so that a rule that refuses says it the same way from every API, and
// the dashboard and the tests can rely on the words. problems.ts holds the
// types (code, status, title); this file holds what is said. No other file
// writes the text of a HeraldError.
import { HeraldError } from './problems'

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
