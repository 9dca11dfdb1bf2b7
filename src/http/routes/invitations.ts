// Invitations to a workspace by e-mail link. Anyone holding a link may read
// what it invites to (`invitationLinkRoute`, nobody signed in). On both APIs
// (src/http/routes/side.ts, `invitationsRoute`): list, send and revoke
// invitations, the same single-use link, valid for 7 days, e-mailed through
// SMTP_URL (or logged when it is unset) and returned to pass on another way;
// a person invited accepts signed in with the invited address. The rules are
// the operations' (src/accounts/invitation_ops.ts).
import { Type } from '@sinclair/typebox'
import { routeGroup } from './group'
import { EmailAddress, Token, Uuid, WorkspaceParam, WorkspaceParams } from './input'
import { requestLog } from '../request_id'
import type { UserAuth } from '../../accounts/session'
import { acceptInvitationLink, inviteToWorkspace, listWorkspaceInvitations, revokeWorkspaceInvitation, type AcceptDeps, type MailDeps, type previewInvitation } from '../../accounts/invitation_ops'
import type { Side } from './side'
import { BODY_PROBLEMS, done, problem, problems } from '../openapi'

const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')])
const InvitationParams = Type.Object({ token: Token })
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

const CreatedInvitation = {
  person: Type.Object({ id: Type.String(), email: Type.String(), role: RoleSchema, expiresAt: Type.String(), link: Type.String({ description: 'The link e-mailed to them, to pass on another way if need be.' }) }, { $id: 'CreatedInvitation' }),
  operator: Type.Object({
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    role: RoleSchema,
    expiresAt: Type.String({ format: 'date-time' }),
    link: Type.String({ description: 'The link e-mailed to them, to pass on another way if need be. It works once.' }),
  }, { $id: 'OperatorCreatedInvitation' }),
}

/** Reading an invitation by its link: nobody need be signed in. */
export const invitationLinkRoute = ({ preview }: { preview: (token: string) => ReturnType<typeof previewInvitation> }) =>
  routeGroup({ name: 'route.invitations.link', prefix: '/v1' }).get(
    '/invitations/:token',
    async ({ params }) => preview(params.token),
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

export interface InvitationsRouteOptions {
  side: Side
  /** How invitations are e-mailed (the logger is the request's). */
  mail: MailDeps
  /** Accepting an invitation (people only): who is signed in, and where the membership is made and announced. */
  accept?: AcceptDeps & { users: UserAuth }
}

export function invitationsRoute({ side, mail, accept }: InvitationsRouteOptions) {
  const detail = side.documents({ tag: 'Invitations', common: problems(401, 404, 503) })
  // What a person's call may also answer: a role too low, or a web session's CSRF token missing.
  const managing = side.says({ person: problems(403), operator: {} })
  const routes = side.group({ name: 'route.invitations' })
    .get(
      `${side.root}/invitations`,
      async ({ request, params }) => listWorkspaceInvitations(await side.ctx(request, params.workspace)),
      {
        params: WorkspaceParams,
        response: { 200: Type.Array(InvitationSchema) },
        detail: detail('List invitations, newest first', side.says({ person: 'Pending, accepted, revoked and expired ones. Owners and admins.', operator: 'Pending, accepted, revoked and expired ones; the operator\'s have no inviter.' }), { ...problems(400), ...managing }),
      },
    )
    .post(
      `${side.root}/invitations`,
      async ({ request, params, body, set }) => {
        const ctx = await side.ctx(request, params.workspace)
        const sent = await inviteToWorkspace(ctx, { ...mail, log: requestLog(mail.log, request) }, body.email, body.role ?? 'member')
        set.status = 201
        return sent
      },
      {
        params: WorkspaceParams,
        body: Type.Object(
          {
            email: EmailAddress('The address the invitation is e-mailed to.'),
            role: Type.Optional(side.says({ person: RoleSchema, operator: { ...RoleSchema, description: 'The role they get on accepting; member when left out.' } })),
          },
          { $id: side.id('CreateInvitationBody'), additionalProperties: false },
        ),
        response: { 201: side.says(CreatedInvitation) },
        detail: detail('Invite someone by e-mail', side.says({
          person: 'E-mails a link (through SMTP_URL, or logged when unset) that makes its holder a member once they sign in or sign up with that address. E-mails are throttled per recipient and per inviter (429 with Retry-After).',
          operator: 'E-mails a link (through SMTP_URL, or logged when unset) that makes its holder a member once they sign in or sign up with that address. The invitation has no inviter. E-mails are throttled per recipient and for the operator as a whole (429 with Retry-After).',
        }), {
          ...problems(...BODY_PROBLEMS),
          ...managing,
          429: problem(429, side.says({ person: 'Too many invitations from you, or e-mails to this address: retry after Retry-After seconds.', operator: 'Too many invitations from the operator, or e-mails to this address: retry after Retry-After seconds.' })),
        }),
      },
    )
    .delete(
      `${side.root}/invitations/:id`,
      async ({ request, params, set }) => {
        await revokeWorkspaceInvitation(await side.ctx(request, params.workspace), params.id)
        set.status = 204
      },
      {
        params: Type.Object({ workspace: WorkspaceParam, id: Uuid('id', 'Invitation id, from the list.') }),
        detail: detail('Revoke an invitation', side.says({ person: 'Its link stops working at once. Owners and admins.', operator: 'Its link stops working at once.' }), {
          204: done('Revoked.'),
          ...problems(400),
          ...managing,
          404: problem(404, side.says({ person: 'No such workspace (of mine), or no pending invitation of this id in it.', operator: 'No such workspace, or no pending invitation of this id in it.' })),
        }),
      },
    )
  if (!accept) return routes
  return routes.post(
    '/v1/invitations/:token/accept',
    async ({ request, params }) => acceptInvitationLink(accept, params.token, await accept.users.authenticate(request)),
    {
      params: InvitationParams,
      response: { 200: Type.Object({ workspace: Type.String(), role: RoleSchema }, { $id: 'AcceptedInvitation' }) },
      detail: detail('Accept an invitation', 'Signed in with the invited address.', {
        ...problems(400),
        403: problem(403, 'The invitation is for another address, or a web session sent no X-CSRF-Token.'),
        404: usedLink,
      }),
    },
  )
}
