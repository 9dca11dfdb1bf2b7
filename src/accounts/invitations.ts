// Invitations to a workspace: a link with a single-use secret, e-mailed to
// one address, valid for a week. Accepting it (signed in with that address,
// or signing up with it) makes the person a member with the invited role.
// An owner or admin invites from the dashboard, the operator through its API
// (with no inviter): both through `inviteByEmail`.
import { randomBytes } from 'node:crypto'
import type { Sql, Tx } from '../core/db'
import type { Config } from '../core/config'
import type { Logger } from '../core/log'
import { hashSecret } from '../core/keys'
import { linkBase, type Mailer } from './mailer'
import { countAttempt, invitationCounters } from './throttle'
import type { Role } from './members'

const INVITATION_MS = 7 * 24 * 3600 * 1000

export interface Invitation {
  id: string
  workspaceId: number
  workspace: string
  email: string
  role: Role
}

export interface InvitationView {
  id: string
  email: string
  role: Role
  invitedBy: string | null
  createdAt: string
  expiresAt: string
  status: 'pending' | 'accepted' | 'revoked' | 'expired'
}

export async function createInvitation(sql: Tx, workspaceId: number, email: string, role: Role, invitedBy: string | null) {
  const token = randomBytes(32).toString('base64url')
  const [row] = await sql<{ id: string; expiresAt: string }[]>`
    INSERT INTO invitations (id, workspace_id, email, role, hash, invited_by, expires_at)
    VALUES (${Bun.randomUUIDv7()}, ${workspaceId}, ${email}, ${role}, ${hashSecret(token)}, ${invitedBy}, ${new Date(Date.now() + INVITATION_MS)})
    RETURNING id, iso_time(expires_at) AS "expiresAt"`
  return { id: row!.id, expiresAt: row!.expiresAt, token }
}

/** A live invitation (not accepted, revoked or expired), or null. */
export async function findInvitation(sql: Tx, token: string): Promise<Invitation | null> {
  const [row] = await sql<Invitation[]>`
    SELECT i.id, i.workspace_id AS "workspaceId", w.name AS workspace, i.email, i.role
    FROM invitations i JOIN workspaces w ON w.id = i.workspace_id
    WHERE i.hash = ${hashSecret(token)} AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()`
  return row ?? null
}

/**
 * Uses up the invitation and makes the user a member (someone who already is
 * keeps their role). False when it was used, revoked or expired meanwhile:
 * the check and the use are one statement, so a link works once.
 */
export async function acceptInvitation(sql: Tx, invitation: Invitation, userId: string): Promise<boolean> {
  const [used] = await sql`
    UPDATE invitations SET accepted_at = now()
    WHERE id = ${invitation.id} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() RETURNING id`
  if (!used) return false
  await sql`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${invitation.workspaceId}, ${userId}, ${invitation.role}) ON CONFLICT DO NOTHING`
  return true
}

export type AcceptOutcome =
  | { kind: 'accepted'; workspace: string; role: Invitation['role'] }
  | { kind: 'invalid' } // unknown, used, revoked or expired
  | { kind: 'for-another'; email: string } // the invitation names another address

/**
 * Accepts the invitation of `token` for a signed-in user: only with the
 * address it was sent to, and only once (the UPDATE that marks it used and
 * the membership commit together).
 */
export async function acceptInvitationAs(sql: Sql, token: string, user: { userId: string; email: string }): Promise<AcceptOutcome> {
  const inv = await findInvitation(sql, token)
  if (!inv) return { kind: 'invalid' }
  if (inv.email.toLowerCase() !== user.email.toLowerCase()) return { kind: 'for-another', email: inv.email }
  if (!(await sql.begin((tx) => acceptInvitation(tx, inv, user.userId)))) return { kind: 'invalid' }
  return { kind: 'accepted', workspace: inv.workspace, role: inv.role }
}

export const listInvitations = (sql: Tx, workspaceId: number) => sql<InvitationView[]>`
  SELECT i.id, i.email, i.role, u.email AS "invitedBy", iso_time(i.created_at) AS "createdAt", iso_time(i.expires_at) AS "expiresAt",
    CASE WHEN i.accepted_at IS NOT NULL THEN 'accepted' WHEN i.revoked_at IS NOT NULL THEN 'revoked'
      WHEN i.expires_at <= now() THEN 'expired' ELSE 'pending' END AS status
  FROM invitations i LEFT JOIN users u ON u.id = i.invited_by
  WHERE i.workspace_id = ${workspaceId} ORDER BY i.created_at DESC LIMIT 200`

export async function revokeInvitation(sql: Tx, workspaceId: number, id: string): Promise<boolean> {
  const rows = await sql`UPDATE invitations SET revoked_at = now() WHERE id = ${id} AND workspace_id = ${workspaceId} AND accepted_at IS NULL AND revoked_at IS NULL RETURNING id`
  return rows.length > 0
}

export interface InviteDeps {
  sql: Sql
  config: Config
  /** The request's logger, so that a failed e-mail names its request. */
  log: Logger
  mailer: Mailer
}

/** Who invites: a person, named in the e-mail, or the operator (null), whose e-mail names only the workspace. */
export type Inviter = { userId: string; email: string } | null

export type InviteOutcome =
  | { kind: 'throttled'; wait: number } // seconds until the recipient or the inviter may be sent another
  | { kind: 'invited'; id: string; email: string; role: Role; expiresAt: string; link: string }

const article = (role: Role) => (role === 'member' ? 'a member' : `an ${role}`)

function invitationEmail(workspace: string, role: Role, by: Inviter, link: string) {
  const accept = `\n\nAccept here (the link works once, for 7 days):\n${link}\n`
  if (!by) return { subject: `You are invited to ${workspace} on Herald`, text: `You are invited to join the workspace "${workspace}" on Herald as ${article(role)}.${accept}` }
  return { subject: `${by.email} invited you to ${workspace} on Herald`, text: `${by.email} invited you to join the workspace "${workspace}" on Herald as ${article(role)}.${accept}` }
}

/**
 * Invites `email` to a workspace: counts the e-mail against the recipient's
 * and the inviter's throttle (the operator counts as one inviter), makes the
 * invitation and e-mails its link. An e-mail that cannot be sent is logged,
 * not an error: the link is in the outcome, to pass on another way.
 */
export async function inviteByEmail(deps: InviteDeps, workspace: { id: number; name: string }, email: string, role: Role, by: Inviter): Promise<InviteOutcome> {
  const { sql, config, log, mailer } = deps
  const wait = await countAttempt(sql, invitationCounters(email, by?.userId ?? 'operator'))
  if (wait > 0) return { kind: 'throttled', wait }
  const inv = await createInvitation(sql, workspace.id, email, role, by?.userId ?? null)
  const link = `${linkBase(config)}/invite/${inv.token}`
  await mailer.send({ to: email, ...invitationEmail(workspace.name, role, by, link) }).catch((err) => log.error({ err }, 'could not send the invitation e-mail'))
  return { kind: 'invited', id: inv.id, email, role, expiresAt: inv.expiresAt, link }
}
