// A workspace's people: members and pending invitations (owners and admins
// see those), who may change whose role to what, and the changes: a role, a
// removal (or leaving), an invitation sent or revoked.
import type { Api, Role, Schemas } from '../api'

export type Member = Schemas['Member']
export type Invitation = Schemas['Invitation']
export type CreatedInvitation = Schemas['CreatedInvitation']

export const ROLES: Role[] = ['member', 'admin', 'owner']

/** The roles someone of role `mine` may give: only an owner makes owners. */
export const rolesOffered = (mine: Role) => ROLES.filter((r) => r !== 'owner' || mine === 'owner')

/** Whether I may change the role of `m` and remove them: an owner or admin, not myself, and an owner only if I am one. */
export const canEdit = (m: Member, me: { userId?: string; role: Role; canManage: boolean }) =>
  me.canManage && m.userId !== me.userId && (m.role !== 'owner' || me.role === 'owner')

/** The members, and the pending invitations when I may manage them (null otherwise: members do not see them). */
export async function loadPeople(api: Api, workspace: string, canManage: boolean): Promise<{ members: Member[]; invitations: Invitation[] | null }> {
  const at = { path: { workspace } }
  const [members, invitations] = await Promise.all([
    api.get('/v1/workspaces/{workspace}/members', at),
    canManage ? api.get('/v1/workspaces/{workspace}/invitations', at) : Promise.resolve(null),
  ])
  return { members, invitations: invitations && invitations.filter((i) => i.status === 'pending') }
}

/** The changes an owner or admin makes (and anyone's leaving, `remove` of themselves). */
export function peopleChanges(api: Api, workspace: string) {
  return {
    setRole: (userId: string, role: Role) => api.patch('/v1/workspaces/{workspace}/members/{userId}', { path: { workspace, userId }, body: { role } }),
    remove: (userId: string) => api.delete('/v1/workspaces/{workspace}/members/{userId}', { path: { workspace, userId } }),
    /** Sends an invitation by e-mail; the answer holds its link, to pass on by hand. */
    invite: (email: string, role: Role) => api.post('/v1/workspaces/{workspace}/invitations', { path: { workspace }, body: { email: email.trim(), role } }),
    revokeInvitation: (id: string) => api.delete('/v1/workspaces/{workspace}/invitations/{id}', { path: { workspace, id } }),
  }
}
