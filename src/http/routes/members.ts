// A workspace's members and their roles, for signed-in people. Every member
// may read the list; owners and admins manage; only owners make or unmake
// owners; a workspace always keeps one owner; anyone may leave. Invitations
// are routes/invitations.ts.
import { Type } from '@sinclair/typebox'
import { routeGroup } from './group'
import { Uuid, WorkspaceParam, WorkspaceParams } from './input'
import type { Sql } from '../../core/db'
import type { AccessCheck } from '../../accounts/access'
import type { UserAuth } from '../../accounts/session'
import type { Change } from '../../core/changes'
import { userSecurity } from '../../accounts/session'
import { HeraldError } from '../../core/problems'
import { changeRole, listMembers, removeMemberChecked, type MembershipProblem } from '../../accounts/members'
import { ChangeRoleBody, MemberSchema } from './admin_members'
import { BODY_PROBLEMS, done, problem, problems, type Responses } from '../openapi'

const MemberParams = Type.Object({ workspace: WorkspaceParam, userId: Uuid('userId', "The member's user id.") })

const membershipProblem = (p: MembershipProblem) =>
  ({
    'not-member': new HeraldError('not-found', 'This person is not a member of this workspace.'),
    'actor-gone': new HeraldError('not-found', 'You are no longer a member of this workspace.'),
    'actor-role': new HeraldError('forbidden', 'Only owners and admins change or remove members; you can remove yourself (leave).'),
    'owner-only': new HeraldError('forbidden', 'Only owners make, change or remove an owner.'),
    'last-owner': new HeraldError('conflict', 'A workspace needs an owner: make someone else owner first.'),
  })[p]
const detail = (summary: string, description: string, responses: Responses) => ({ summary, description, tags: ['Members'], security: userSecurity, responses })
const noMember = problem(404, 'No such workspace (of mine), or this person is not a member of it.')
const lastOwner = problem(409, 'A workspace needs an owner: make someone else owner first.')

export const membersRoute = (sql: Sql, users: UserAuth, check: AccessCheck, changed: (c: Change) => void) =>
  routeGroup({ name: 'route.members', prefix: '/v1/workspaces/:workspace/members', guard: users.authenticate })
    .get(
      '',
      async ({ request, params }) => listMembers(sql, (await check(request, params.workspace)).access.workspaceId),
      { params: WorkspaceParams, response: { 200: Type.Array(MemberSchema) }, detail: detail('List members', 'Each with their role, their devices and the channels they muted; every member may read it.', problems(400, 401, 404, 503)) },
    )
    .patch(
      '/:userId',
      async ({ request, params, body }) => {
        const { session, access } = await check(request, params.workspace, 'manage')
        const result = await changeRole(sql, access.workspaceId, { userId: session.userId }, params.userId, body.role)
        if (typeof result === 'string') throw membershipProblem(result)
        // Removed (or gone) by another request since: as if that had come first.
        const member = (await listMembers(sql, access.workspaceId)).find((m) => m.userId === params.userId)
        if (!member) throw membershipProblem('not-member')
        return member
      },
      {
        params: MemberParams,
        body: ChangeRoleBody,
        response: { 200: MemberSchema },
        detail: detail("Change a member's role", 'Owners and admins; only owners make or unmake owners; the last owner stays.', {
          ...problems(...BODY_PROBLEMS, 401, 403, 503),
          404: noMember,
          409: lastOwner,
        }),
      },
    )
    .delete(
      '/:userId',
      async ({ request, params, set }) => {
        const { session, access } = await check(request, params.workspace)
        const result = await removeMemberChecked(sql, access.workspaceId, { userId: session.userId }, params.userId)
        if (typeof result === 'string') throw membershipProblem(result)
        changed({ kind: 'audience' })
        changed({ kind: 'member-removed', workspaceId: access.workspaceId, userId: params.userId })
        set.status = 204
      },
      {
        params: MemberParams,
        detail: detail('Remove a member, or leave', 'Anyone may leave; owners and admins remove others (only owners remove owners).', {
          204: done('Removed; their live feeds of the workspace end.'),
          ...problems(400, 401, 403, 503),
          404: noMember,
          409: lastOwner,
        }),
      },
    )
