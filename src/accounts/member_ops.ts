// What a person or the operator can do with a workspace's members: each
// operation checks the actor's right, keeps its rule, throws its named error
// and announces its own change (src/core/operation.ts). The queries, and the
// lock under which roles are read and changed, are in members.ts.
//
// Every member may read the list; owners and admins manage; only owners make
// or unmake owners; anyone may leave; a workspace always keeps one owner. The
// operator is nobody's peer: it may give any role and remove anyone, owners
// included, except that the last owner stays one (the same rule, under the
// same lock). The two APIs word "no such member" and "the last owner" each
// their own way.
import type { Actor, Ctx, Role } from '../core/operation'
import { requireRight } from '../core/operation'
import {
  alreadyAMember,
  lastOwner,
  membersManagedByAdmins,
  noLongerAMember,
  ownersManagedByOwners,
  personNotAMember,
  userNotAMember,
  workspaceNeedsOwner,
} from '../core/errors'
import { addMember, listMembers, removeMember, setRole, underMembershipsLock, type MemberView, type RolesNow } from './members'

const notAMember = (actor: Actor) => (actor.kind === 'person' ? personNotAMember() : userNotAMember())
const keepsOwner = (actor: Actor) => (actor.kind === 'person' ? workspaceNeedsOwner() : lastOwner())

/** The roles under the lock, once the actor (a person: read again) and the member are known to belong. */
function checked(actor: Actor, r: RolesNow): RolesNow {
  if (actor.kind === 'person' && r.actor === null) throw noLongerAMember()
  if (r.target === null) throw notAMember(actor)
  return r
}

/** The workspace's members, each with their role, their devices and the channels they muted. */
export async function listWorkspaceMembers(ctx: Ctx): Promise<MemberView[]> {
  requireRight(ctx, 'read')
  return listMembers(ctx.sql, ctx.workspace.id)
}

/**
 * Adds a person at once, without an invitation (the operator's API only, a
 * contract kept stable for outside callers: docs/accounts.md), creating the user on
 * first sight of the address, and issues a user token for the device API,
 * answered once. 409 when they are a member already.
 */
export async function addWorkspaceMember(ctx: Ctx, email: string, role: Role): Promise<{ userId: string; userToken: string }> {
  requireRight(ctx, 'own')
  const added = await addMember(ctx.sql, ctx.workspace.id, email.trim(), role)
  if (!added) throw alreadyAMember(email, ctx.workspace.name)
  ctx.announce({ kind: 'audience' })
  return added
}

/** Gives a member a new role; answers the member as they are now. */
export async function changeMemberRole(ctx: Ctx, userId: string, role: Role): Promise<MemberView> {
  requireRight(ctx, 'manage')
  const { sql, actor, workspace } = ctx
  await underMembershipsLock(sql, workspace.id, actor.kind === 'person' ? actor.userId : null, userId, async (tx, roles) => {
    const r = checked(actor, roles)
    if (actor.kind === 'person' && r.actor === 'member') throw membersManagedByAdmins()
    if (actor.kind === 'person' && (role === 'owner' || r.target === 'owner') && r.actor !== 'owner') throw ownersManagedByOwners()
    if (r.target === 'owner' && role !== 'owner' && r.owners <= 1) throw keepsOwner(actor)
    await setRole(tx, workspace.id, userId, role)
  })
  // Removed (or gone) by another request since: as if that had come first.
  const member = (await listMembers(sql, workspace.id)).find((m) => m.userId === userId)
  if (!member) throw notAMember(actor)
  return member
}

/**
 * Removes a member, or, when a person removes themselves, leaves: owners and
 * admins remove others, only owners remove owners, the last owner stays.
 * Every process drops its audiences, and the member's live feeds of the
 * workspace end.
 */
export async function removeWorkspaceMember(ctx: Ctx, userId: string): Promise<void> {
  requireRight(ctx, 'read')
  const { sql, actor, workspace } = ctx
  await underMembershipsLock(sql, workspace.id, actor.kind === 'person' ? actor.userId : null, userId, async (tx, roles) => {
    const r = checked(actor, roles)
    const leaving = actor.kind === 'person' && actor.userId === userId
    if (actor.kind === 'person' && !leaving && r.actor === 'member') throw membersManagedByAdmins()
    if (actor.kind === 'person' && !leaving && r.target === 'owner' && r.actor !== 'owner') throw ownersManagedByOwners()
    if (r.target === 'owner' && r.owners <= 1) throw keepsOwner(actor)
    await removeMember(tx, workspace.id, userId)
  })
  ctx.announce({ kind: 'audience' })
  ctx.announce({ kind: 'member-removed', workspaceId: workspace.id, userId })
}
