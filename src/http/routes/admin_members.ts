// Operator API: the members of a workspace. Adding one issues a user token
// for the device API, for a person who has not signed up (people who have
// sign in themselves: routes/auth.ts). The operator is nobody's peer: it may
// give any role and remove anyone, owners included, except that the last
// owner stays one (the same rule, under the same lock, as for people).
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import { HeraldError } from '../../core/problems'
import type { Change } from '../../core/changes'
import { addMember, changeRole, listMembers, removeMemberChecked } from '../../accounts/members'
import { EmailAddress, Uuid, WorkspaceParam, WorkspaceParams } from './input'
import { operatorDetail as detail, workspaceIdOf } from './admin_auth'
import { BODY_PROBLEMS, done, problem, problems } from '../openapi'

const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')], { default: 'member' })
const MemberParams = Type.Object({ workspace: WorkspaceParam, userId: Uuid('userId', 'The member\'s user id.') })

export const MemberSchema = Type.Object({
  userId: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: Role,
  devices: Type.Integer({ description: 'Registered devices of this user (in any workspace).' }),
  mutedChannels: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
}, { $id: 'Member' })

/** A new role: the body of PATCH …/members/{userId}, for the operator and for people alike. */
export const ChangeRoleBody = Type.Object(
  { role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')], { description: 'The new role.' }) },
  { $id: 'ChangeRoleBody', additionalProperties: false },
)
const noMember = problem(404, 'No such workspace, or this user is not a member of it.')
const lastOwner = problem(409, 'This is the last owner of the workspace: make someone else owner first.')

export const adminMembersRoute = (sql: Sql, changed: (c: Change) => void) => {
  const audienceChanged = () => changed({ kind: 'audience' })
  const workspaceId = workspaceIdOf(sql)
  return new Elysia({ name: 'route.admin.members', prefix: '/admin/workspaces/:workspace/members' })
    .post(
      '',
      async ({ params, body, set }) => {
        const added = await addMember(sql, await workspaceId(params.workspace), body.email.trim(), body.role ?? 'member')
        if (!added) throw new HeraldError('conflict', `${body.email} is already a member of ${params.workspace}.`)
        audienceChanged()
        set.status = 201
        return added
      },
      {
        params: WorkspaceParams,
        body: Type.Object({
          email: EmailAddress('The person\'s e-mail address; one user per address across workspaces.'),
          role: Type.Optional(Role),
        }, { $id: 'OperatorAddMemberBody', additionalProperties: false }),
        response: { 201: Type.Object({ userId: Type.String({ format: 'uuid' }), userToken: Type.String({ description: 'Bearer token of this user on the device API; shown once.' }) }, { $id: 'AddedMember' }) },
        detail: detail('Add a member', 'Every member receives pushes for every channel of the workspace, except channels they mute. 409 if already a member.', {
          ...problems(...BODY_PROBLEMS),
          409: problem(409, 'This address is already a member of the workspace.'),
        }),
      },
    )
    .get('', async ({ params }) => listMembers(sql, await workspaceId(params.workspace)), {
      params: WorkspaceParams,
      response: { 200: Type.Array(MemberSchema) },
      detail: detail('List members', 'Each with their role, their devices and the channels they muted.', problems(400)),
    })
    .patch(
      '/:userId',
      async ({ params, body }) => {
        const id = await workspaceId(params.workspace)
        const result = await changeRole(sql, id, 'operator', params.userId, body.role)
        if (result === 'not-member') throw new HeraldError('not-found', 'This user is not a member of this workspace.')
        if (result === 'last-owner') throw new HeraldError('conflict', 'This is the last owner of the workspace: make someone else owner first.')
        // Removed by another request since: as if it had come first.
        const member = (await listMembers(sql, id)).find((m) => m.userId === params.userId)
        if (!member) throw new HeraldError('not-found', 'This user is not a member of this workspace.')
        return member
      },
      {
        params: MemberParams,
        body: ChangeRoleBody,
        response: { 200: MemberSchema },
        detail: detail("Change a member's role", 'Any role, owners included; the last owner stays one (409): make someone else owner first.', { ...problems(...BODY_PROBLEMS), 404: noMember, 409: lastOwner }),
      },
    )
    .delete(
      '/:userId',
      async ({ params, set }) => {
        const id = await workspaceId(params.workspace)
        const result = await removeMemberChecked(sql, id, 'operator', params.userId)
        if (result === 'not-member') throw new HeraldError('not-found', 'This user is not a member of this workspace.')
        if (result === 'last-owner') throw new HeraldError('conflict', 'This is the last owner of the workspace: make someone else owner first.')
        audienceChanged()
        changed({ kind: 'member-removed', workspaceId: id, userId: params.userId })
        set.status = 204
      },
      { params: MemberParams, detail: detail('Remove a member', 'The last owner stays (409): make someone else owner first.', { 204: done('Removed.'), ...problems(400), 404: noMember, 409: lastOwner }) },
    )
}
