// A workspace's members and their roles, on both APIs (src/http/routes/side.ts):
// list, change a role, remove (a person removing themselves leaves). The
// operator also adds a member at once, with a user token for the device API,
// for a person who has not signed up (people who have sign in themselves:
// routes/auth.ts; people invite instead: routes/invitations.ts). The rules
// are the operations' (src/accounts/member_ops.ts).
import { Type } from '@sinclair/typebox'
import { addWorkspaceMember, changeMemberRole, listWorkspaceMembers, removeWorkspaceMember } from '../../accounts/member_ops'
import type { Side } from './side'
import { EmailAddress, Uuid, WorkspaceParam, WorkspaceParams } from './input'
import { BODY_PROBLEMS, done, problem, problems } from '../openapi'

const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')], { default: 'member' })
const MemberParams = Type.Object({ workspace: WorkspaceParam, userId: Uuid('userId', "The member's user id.") })

export const MemberSchema = Type.Object({
  userId: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: Role,
  devices: Type.Integer({ description: 'Registered devices of this user (in any workspace).' }),
  mutedChannels: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
}, { $id: 'Member' })

/** A new role: the body of PATCH …/members/{userId}, for the operator and for people alike. */
const ChangeRoleBody = Type.Object(
  { role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')], { description: 'The new role.' }) },
  { $id: 'ChangeRoleBody', additionalProperties: false },
)

export function membersRoute(side: Side) {
  const person = side.kind === 'person'
  const detail = side.documents({ tag: 'Members', common: problems(401, 404, 503) })
  // What a person's change may also answer: a role too low, or a web session's CSRF token missing.
  const changing = side.says({ person: problems(403), operator: {} })
  const noMember = problem(404, side.says({ person: 'No such workspace (of mine), or this person is not a member of it.', operator: 'No such workspace, or this user is not a member of it.' }))
  const lastOwner = problem(409, side.says({ person: 'A workspace needs an owner: make someone else owner first.', operator: 'This is the last owner of the workspace: make someone else owner first.' }))
  const group = side.group({ name: 'route.members', prefix: `${side.root}/members` })
  // The operator's POST comes first: the order of the OpenAPI document.
  const routes = person
    ? group
    : group.post(
        '',
        async ({ request, params, body, set }) => {
          const added = await addWorkspaceMember(await side.ctx(request, params.workspace), body.email, body.role ?? 'member')
          set.status = 201
          return added
        },
        {
          params: WorkspaceParams,
          body: Type.Object({
            email: EmailAddress("The person's e-mail address; one user per address across workspaces."),
            role: Type.Optional(Role),
          }, { $id: 'OperatorAddMemberBody', additionalProperties: false }),
          response: { 201: Type.Object({ userId: Type.String({ format: 'uuid' }), userToken: Type.String({ description: 'Bearer token of this user on the device API; shown once.' }) }, { $id: 'AddedMember' }) },
          detail: detail('Add a member', 'Every member receives pushes for every channel of the workspace, except channels they mute. 409 if already a member.', {
            ...problems(...BODY_PROBLEMS),
            409: problem(409, 'This address is already a member of the workspace.'),
          }),
        },
      )
  return routes
    .get('', async ({ request, params }) => listWorkspaceMembers(await side.ctx(request, params.workspace)), {
      params: WorkspaceParams,
      response: { 200: Type.Array(MemberSchema) },
      detail: detail('List members', side.says({
        person: 'Each with their role, their devices and the channels they muted; every member may read it.',
        operator: 'Each with their role, their devices and the channels they muted.',
      }), problems(400)),
    })
    .patch(
      '/:userId',
      async ({ request, params, body }) => changeMemberRole(await side.ctx(request, params.workspace), params.userId, body.role),
      {
        params: MemberParams,
        body: ChangeRoleBody,
        response: { 200: MemberSchema },
        detail: detail("Change a member's role", side.says({
          person: 'Owners and admins; only owners make or unmake owners; the last owner stays.',
          operator: 'Any role, owners included; the last owner stays one (409): make someone else owner first.',
        }), { ...problems(...BODY_PROBLEMS), ...changing, 404: noMember, 409: lastOwner }),
      },
    )
    .delete(
      '/:userId',
      async ({ request, params, set }) => {
        await removeWorkspaceMember(await side.ctx(request, params.workspace), params.userId)
        set.status = 204
      },
      {
        params: MemberParams,
        detail: detail(side.says({ person: 'Remove a member, or leave', operator: 'Remove a member' }), side.says({
          person: 'Anyone may leave; owners and admins remove others (only owners remove owners).',
          operator: 'The last owner stays (409): make someone else owner first.',
        }), {
          204: done(side.says({ person: 'Removed; their live feeds of the workspace end.', operator: 'Removed.' })),
          ...problems(400),
          ...changing,
          404: noMember,
          409: lastOwner,
        }),
      },
    )
}
