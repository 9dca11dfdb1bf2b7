// Queries on invitations to a workspace: a link with a single-use secret,
// e-mailed to one address, valid for a week. Accepting it (signed in with
// that address, or signing up with it) makes the person a member with the
// invited role. What people and the operator do with them (invite, revoke,
// accept) is in invitation_ops.ts.
import { randomBytes } from 'node:crypto'
import type { Sql, Tx } from '../core/db'
import { hashSecret } from '../core/keys'
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
