// Invitations to a workspace by e-mail link. Anyone holding a link may read
// what it invites to (`invitationLinkRoute`, nobody signed in); owners and
// admins list, send and revoke invitations, only owners invite an owner, and
// the person invited accepts signed in with the invited address
// (`invitationsRoute`). The operator's invitations are
// routes/admin_invites.ts; both are sent by src/accounts/invitations.ts.
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
import type { Change } from '../../core/changes'
import type { Role } from '../../accounts/members'
import { userSecurity } from '../../accounts/session'
import { HeraldError } from '../../core/problems'
import { acceptInvitationAs, findInvitation, inviteByEmail, listInvitations, revokeInvitation } from '../../accounts/invitations'
import { BODY_PROBLEMS, done, problem, problems, type Responses } from '../openapi'

const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')])
const InvitationParams = Type.Object({ token: Token })

const detail = (summary: string, description: string, responses: Responses) => ({ summary, description, tags: ['Invitations'], security: userSecurity, responses })
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

/** Reading an invitation by its link: nobody need be signed in. */
export const invitationLinkRoute = (sql: Sql) =>
  routeGroup({ name: 'route.invitations.link', prefix: '/v1' }).get(
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

export interface InvitationsRouteDeps {
  sql: Sql
  config: Config
  log: Logger
  mailer: Mailer
  users: UserAuth
  check: AccessCheck
  changed: (c: Change) => void
}

export const invitationsRoute = ({ sql, config, log, mailer, users, check, changed }: InvitationsRouteDeps) => {
  const ownerOnly = (role: Role, mine: Role, what: string) => {
    if (role === 'owner' && mine !== 'owner') throw new HeraldError('forbidden', `Only owners can ${what} an owner.`)
  }

  return routeGroup({ name: 'route.invitations', prefix: '/v1', guard: users.authenticate })
    .get(
      '/workspaces/:workspace/invitations',
      async ({ request, params }) => listInvitations(sql, (await check(request, params.workspace, 'manage')).access.workspaceId),
      {
        params: WorkspaceParams,
        response: { 200: Type.Array(InvitationSchema) },
        detail: detail('List invitations, newest first', 'Pending, accepted, revoked and expired ones. Owners and admins.', problems(400, 401, 403, 404, 503)),
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
        params: WorkspaceParams,
        body: Type.Object({
          email: EmailAddress('The address the invitation is e-mailed to.'),
          role: Type.Optional(RoleSchema),
        }, { $id: 'CreateInvitationBody', additionalProperties: false }),
        response: { 201: Type.Object({ id: Type.String(), email: Type.String(), role: RoleSchema, expiresAt: Type.String(), link: Type.String({ description: 'The link e-mailed to them, to pass on another way if need be.' }) }, { $id: 'CreatedInvitation' }) },
        detail: detail('Invite someone by e-mail', 'E-mails a link (through SMTP_URL, or logged when unset) that makes its holder a member once they sign in or sign up with that address. E-mails are throttled per recipient and per inviter (429 with Retry-After).', {
          ...problems(...BODY_PROBLEMS, 401, 403, 404, 503),
          429: problem(429, 'Too many invitations from you, or e-mails to this address: retry after Retry-After seconds.'),
        }),
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
        }),
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
        }),
      },
    )
}
