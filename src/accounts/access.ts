// What a signed-in person may do in a workspace. Owners and admins manage
// keys, routers, channels and members; members read. A workspace the person
// does not belong to answers 404, as if it did not exist, so its name leaks
// nothing.
import type { Sql } from '../core/db'
import { forbiddenRole, notAMember } from '../core/errors'
import type { Role } from './members'
import type { UserAuth } from './session'

export interface Access {
  workspaceId: number
  workspace: string
  defaultChannel: string
  role: Role
}

export type Need = 'read' | 'manage' | 'own'

export async function findAccess(sql: Sql, userId: string, workspace: string): Promise<Access | null> {
  const [row] = await sql<Access[]>`
    SELECT w.id AS "workspaceId", w.name AS workspace, w.default_channel AS "defaultChannel", m.role
    FROM workspaces w JOIN memberships m ON m.workspace_id = w.id
    WHERE w.name = ${workspace} AND m.user_id = ${userId}`
  return row ?? null
}

export const canManage = (role: Role) => role === 'owner' || role === 'admin'

/** The person's access to `workspace`, or 404 (not a member) / 403 (role too low for `need`). */
export async function requireAccess(sql: Sql, userId: string, workspace: string, need: Need = 'read'): Promise<Access> {
  const access = await findAccess(sql, userId, workspace)
  if (!access) throw notAMember(workspace)
  if (need === 'manage' && !canManage(access.role)) throw forbiddenRole(workspace, 'owners and admins', access.role)
  if (need === 'own' && access.role !== 'owner') throw forbiddenRole(workspace, 'owners', access.role)
  return access
}

/**
 * Authenticates the request as a person and checks their access to a
 * workspace, in one call. The route groups of signed-in people
 * (routes/group.ts) have already authenticated the request from its headers,
 * before its body was read; this reuses that.
 */
export function accessCheck(sql: Sql, users: UserAuth) {
  return async (request: Request, workspace: string, need: Need = 'read') => {
    const session = await users.authenticate(request)
    return { session, access: await requireAccess(sql, session.userId, workspace, need) }
  }
}
export type AccessCheck = ReturnType<typeof accessCheck>
