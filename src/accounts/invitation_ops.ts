// What a person or the operator can do with invitations to a workspace: each
// operation checks the actor's right, keeps its rule, throws its named error
// and announces its own change (src/core/operation.ts). The queries are in
// invitations.ts.
//
// Owners and admins (and the operator) list, send and revoke invitations;
// only owners invite an owner. An invitation from the operator has no
// inviter: it is listed with `invitedBy: null`, and its e-mail says the
// workspace invites them rather than naming a person. E-mails are throttled
// per recipient and per inviter (the operator counts as one). Whoever holds a
// link may read what it invites to; the person invited accepts it signed in
// with the invited address.
import type { Sql } from '../core/db'
import type { Announce } from '../core/changes'
import type { Config } from '../core/config'
import type { Logger } from '../core/log'
import type { Ctx, Role } from '../core/operation'
import { requireRight } from '../core/operation'
import { invitationForAnother, invitationInvalid, invitationsThrottled, noPendingInvitation, ownersInviteOwners } from '../core/errors'
import { linkBase, type Mailer } from './mailer'
import { countAttempt, invitationCounters } from './throttle'
import { acceptInvitation, createInvitation, findInvitation, listInvitations, revokeInvitation, type InvitationView } from './invitations'

/** What sending an invitation needs besides the context. */
export interface MailDeps {
  config: Config
  /** The request's logger, so that a failed e-mail names its request. */
  log: Logger
  mailer: Mailer
}

/** Who invites: a person, named in the e-mail, or the operator (null), whose e-mail names only the workspace. */
type Inviter = { userId: string; email: string } | null

const article = (role: Role) => (role === 'member' ? 'a member' : `an ${role}`)

function invitationEmail(workspace: string, role: Role, by: Inviter, link: string) {
  const accept = `\n\nAccept here (the link works once, for 7 days):\n${link}\n`
  if (!by) return { subject: `You are invited to ${workspace} on Herald`, text: `You are invited to join the workspace "${workspace}" on Herald as ${article(role)}.${accept}` }
  return { subject: `${by.email} invited you to ${workspace} on Herald`, text: `${by.email} invited you to join the workspace "${workspace}" on Herald as ${article(role)}.${accept}` }
}

/** The workspace's invitations, newest first: pending, accepted, revoked and expired ones. */
export async function listWorkspaceInvitations(ctx: Ctx): Promise<InvitationView[]> {
  requireRight(ctx, 'manage')
  return listInvitations(ctx.sql, ctx.workspace.id)
}

/**
 * Invites `email` to the workspace: counts the e-mail against the
 * recipient's and the inviter's throttle (429 with Retry-After), makes the
 * invitation and e-mails its link. An e-mail that cannot be sent is logged,
 * not an error: the link is in the answer, to pass on another way.
 */
export async function inviteToWorkspace(ctx: Ctx, mail: MailDeps, email: string, role: Role) {
  requireRight(ctx, 'manage')
  const { sql, actor, workspace } = ctx
  if (actor.kind === 'person' && role === 'owner' && actor.role !== 'owner') throw ownersInviteOwners()
  email = email.trim()
  const by: Inviter = actor.kind === 'person' ? { userId: actor.userId, email: actor.email } : null
  const wait = await countAttempt(sql, invitationCounters(email, by?.userId ?? 'operator'))
  if (wait > 0) throw invitationsThrottled(by ? 'you' : 'the operator', email, wait)
  const inv = await createInvitation(sql, workspace.id, email, role, by?.userId ?? null)
  const link = `${linkBase(mail.config)}/invite/${inv.token}`
  await mail.mailer.send({ to: email, ...invitationEmail(workspace.name, role, by, link) }).catch((err) => mail.log.error({ err }, 'could not send the invitation e-mail'))
  return { id: inv.id, email, role, expiresAt: inv.expiresAt, link }
}

/** Revokes a pending invitation: its link stops working at once. */
export async function revokeWorkspaceInvitation(ctx: Ctx, id: string): Promise<void> {
  requireRight(ctx, 'manage')
  if (!(await revokeInvitation(ctx.sql, ctx.workspace.id, id))) throw noPendingInvitation()
}

/** What a live invitation's link invites to, for anyone holding it. */
export async function previewInvitation(sql: Sql, token: string): Promise<{ workspace: string; email: string; role: Role }> {
  const inv = await findInvitation(sql, token)
  if (!inv) throw invitationInvalid()
  return { workspace: inv.workspace, email: inv.email, role: inv.role }
}

/**
 * Accepts the invitation of `token` for a signed-in person: only with the
 * address it was sent to, and only once (the UPDATE that marks it used and
 * the membership commit together). Every process drops its audiences.
 */
/** What accepting an invitation needs: the store, and the announcement of the new member. */
export type AcceptDeps = { sql: Sql; announce: Announce }

export async function acceptInvitationLink(deps: AcceptDeps, token: string, user: { userId: string; email: string }): Promise<{ workspace: string; role: Role }> {
  const { sql } = deps
  const inv = await findInvitation(sql, token)
  if (!inv) throw invitationInvalid()
  if (inv.email.toLowerCase() !== user.email.toLowerCase()) throw invitationForAnother(inv.email, user.email)
  if (!(await sql.begin((tx) => acceptInvitation(tx, inv, user.userId)))) throw invitationInvalid()
  deps.announce({ kind: 'audience' })
  return { workspace: inv.workspace, role: inv.role }
}
