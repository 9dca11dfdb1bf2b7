// A workspace's people, for signed-in people: members and their roles, and
// invitations by e-mail link. Owners and admins manage; only owners make or
// unmake owners; a workspace always keeps one owner.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import { routeGroup } from './group'
import { EmailAddress, Token, Uuid, WorkspaceParam, WorkspaceParams } from './input'
import type { Sql } from '../../core/db'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { requestLog } from '../request_id'
import type { Mailer } from '../../accounts/mailer'
import type { AccessCheck } from '../../accounts/access'
import type { UserAuth } from '../../accounts/session'
import type { Change } from '../../delivery/bus'
import { userSecurity } from '../../accounts/session'
import { HeraldError } from '../../core/problems'
import { changeRole, listMembers, removeMemberChecked, type MembershipProblem, type Role } from '../../accounts/members'
import { acceptInvitationAs, findInvitation, inviteByEmail, listInvitations, revokeInvitation } from '../../accounts/invitations'
import { ChangeRoleBody, MemberSchema } from './admin_members'
import { BODY_PROBLEMS, done, problem, problems, type Responses } from '../openapi'

const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')])
const Params = WorkspaceParams
const MemberParams = Type.Object({ workspace: WorkspaceParam, userId: Uuid('userId', "The member's user id.") })
const InvitationParams = Type.Object({ token: Token })

const membershipProblem = (p: MembershipProblem) =>
  ({
    'not-member': new HeraldError('not-found', 'This person is not a member of this workspace.'),
    'actor-gone': new HeraldError('not-found', 'You are no longer a member of this workspace.'),
    'actor-role': new HeraldError('forbidden', 'Only owners and admins change or remove members; you can remove yourself (leave).'),
    'owner-only': new HeraldError('forbidden', 'Only owners make, change or remove an owner.'),
    'last-owner': new HeraldError('conflict', 'A workspace needs an owner: make someone else owner first.'),
  })[p]
const detail = (summary: string, description: string, responses: Responses, tag = 'Members') => ({ summary, description, tags: [tag], security: userSecurity, responses })
const noMember = problem(404, 'No such workspace (of mine), or this person is not a member of it.')
const lastOwner = problem(409, 'A workspace needs an owner: make someone else owner first.')
const usedLink = problem(404, 'This invitation is invalid, used or expired.')

export const InvitationSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: RoleSchema,
  invitedBy: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('revoked'), Type.Literal('expired')]),
}, { $id: 'Invitation' })

export interface MembersRouteDeps {
  sql: Sql
  config: Config
  log: Logger
  mailer: Mailer
  users: UserAuth
  check: AccessCheck
  changed: (c: Change) => void
}

export const membersRoute = ({ sql, config, log, mailer, users, check, changed }: MembersRouteDeps) => {
  const ownerOnly = (role: Role, mine: Role, what: string) => {
    if (role === 'owner' && mine !== 'owner') throw new HeraldError('forbidden', `Only owners can ${what} an owner.`)
  }

  // Reading an invitation by its link needs nobody signed in; the rest does.
  const byLink = routeGroup({ name: 'route.invitations.link', prefix: '/v1' }).get(
    '/invitations/:token',
    async ({ params }) => {
      const inv = await findInvitation(sql, params.token)
      if (!inv) throw new HeraldError('not-found', 'This invitation is invalid, used or expired.')
      return { workspace: inv.workspace, email: inv.email, role: inv.role }
    },
    {
      params: InvitationParams,
      response: { 200: Type.Object({ workspace: Type.String(), email: Type.String(), role: RoleSchema }, { $id: 'InvitationPreview' }) },
      detail: {
        summary: 'Read an invitation by its link',
        description: 'What the page of the link shows before anyone signs in: the workspace, the address invited and the role.',
        tags: ['Invitations'],
        security: [],
        responses: { ...problems(400, 503), 404: usedLink },
      },
    },
  )

  const signedIn = routeGroup({ name: 'route.members', prefix: '/v1', guard: users.authenticate })
    .get(
      '/workspaces/:workspace/members',
      async ({ request, params }) => listMembers(sql, (await check(request, params.workspace)).access.workspaceId),
      { params: Params, response: { 200: Type.Array(MemberSchema) }, detail: detail('List members', 'Each with their role, their devices and the channels they muted; every member may read it.', problems(400, 401, 404, 503)) },
    )
    .patch(
      '/workspaces/:workspace/members/:userId',
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
      '/workspaces/:workspace/members/:userId',
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
    .get(
      '/workspaces/:workspace/invitations',
      async ({ request, params }) => listInvitations(sql, (await check(request, params.workspace, 'manage')).access.workspaceId),
      {
        params: Params,
        response: { 200: Type.Array(InvitationSchema) },
        detail: detail('List invitations, newest first', 'Pending, accepted, revoked and expired ones. Owners and admins.', problems(400, 401, 403, 404, 503), 'Invitations'),
      },
    )
    .post(
      '/workspaces/:workspace/invitations',
      async ({ request, params, body, set }) => {
        const { session, access } = await check(request, params.workspace, 'manage')
        const role = body.role ?? 'member'
        ownerOnly(role, access.role, 'invite')
        const email = body.email.trim()
        const sent = await inviteByEmail({ sql, config, log: requestLog(log, request), mailer }, { id: access.workspaceId, name: access.workspace }, email, role, session)
        if (sent.kind === 'throttled') throw new HeraldError('mail-throttled', `Too many invitations from you, or e-mails to ${email}; try again in ${sent.wait} seconds.`, undefined, { 'retry-after': String(sent.wait) })
        set.status = 201
        return { id: sent.id, email, role, expiresAt: sent.expiresAt, link: sent.link }
      },
      {
        params: Params,
        body: Type.Object({
          email: EmailAddress('The address the invitation is e-mailed to.'),
          role: Type.Optional(RoleSchema),
        }, { $id: 'CreateInvitationBody', additionalProperties: false }),
        response: { 201: Type.Object({ id: Type.String(), email: Type.String(), role: RoleSchema, expiresAt: Type.String(), link: Type.String({ description: 'The link e-mailed to them, to pass on another way if need be.' }) }, { $id: 'CreatedInvitation' }) },
        detail: detail('Invite someone by e-mail', 'E-mails a link (through SMTP_URL, or logged when unset) that makes its holder a member once they sign in or sign up with that address. E-mails are throttled per recipient and per inviter (429 with Retry-After).', {
          ...problems(...BODY_PROBLEMS, 401, 403, 404, 503),
          429: problem(429, 'Too many invitations from you, or e-mails to this address: retry after Retry-After seconds.'),
        }, 'Invitations'),
      },
    )
    .delete(
      '/workspaces/:workspace/invitations/:id',
      async ({ request, params, set }) => {
        const { access } = await check(request, params.workspace, 'manage')
        if (!(await revokeInvitation(sql, access.workspaceId, params.id))) throw new HeraldError('not-found', 'There is no pending invitation with this id.')
        set.status = 204
      },
      {
        params: Type.Object({ workspace: WorkspaceParam, id: Uuid('id', 'Invitation id, from the list.') }),
        detail: detail('Revoke an invitation', 'Its link stops working at once. Owners and admins.', {
          204: done('Revoked.'),
          ...problems(400, 401, 403, 503),
          404: problem(404, 'No such workspace (of mine), or no pending invitation of this id in it.'),
        }, 'Invitations'),
      },
    )
    .post(
      '/invitations/:token/accept',
      async ({ request, params }) => {
        const session = await users.authenticate(request)
        const outcome = await acceptInvitationAs(sql, params.token, session)
        if (outcome.kind === 'invalid') throw new HeraldError('not-found', 'This invitation is invalid, used or expired.')
        if (outcome.kind === 'for-another') throw new HeraldError('forbidden', `This invitation is for ${outcome.email}; you are signed in as ${session.email}.`)
        changed({ kind: 'audience' })
        return { workspace: outcome.workspace, role: outcome.role }
      },
      {
        params: InvitationParams,
        response: { 200: Type.Object({ workspace: Type.String(), role: RoleSchema }, { $id: 'AcceptedInvitation' }) },
        detail: detail('Accept an invitation', 'Signed in with the invited address.', {
          ...problems(400, 401, 503),
          403: problem(403, 'The invitation is for another address, or a web session sent no X-CSRF-Token.'),
          404: usedLink,
        }, 'Invitations'),
      },
    )

  return new Elysia({ name: 'route.members.all' }).use(byLink).use(signedIn)
}
