// Operator API: invite someone to a workspace by e-mail, as an owner or admin
// does from the dashboard (routes/invitations.ts; both send it with
// inviteByEmail, src/accounts/invitations.ts): the same single-use link,
// valid for 7 days, e-mailed through SMTP_URL (or logged when it is unset),
// and returned so that the operator can pass it on another way. An
// invitation from the operator has no inviter: it is listed with
// `invitedBy: null`, and the e-mail says the workspace invites them rather
// than naming a person. The operator counts as one inviter for the e-mail
// throttle, and the recipient's own limit is the same as for anyone.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { requestLog } from '../request_id'
import type { Mailer } from '../../accounts/mailer'
import { HeraldError } from '../../core/problems'
import { inviteByEmail } from '../../accounts/invitations'
import { operatorDetail as detail, workspaceIdOf } from './admin_auth'
import { EmailAddress, WorkspaceParams } from './input'
import { BODY_PROBLEMS, problem, problems } from '../openapi'

const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')])

export const CreatedInvitation = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: RoleSchema,
  expiresAt: Type.String({ format: 'date-time' }),
  link: Type.String({ description: 'The link e-mailed to them, to pass on another way if need be. It works once.' }),
}, { $id: 'OperatorCreatedInvitation' })

export interface AdminInvitesDeps {
  sql: Sql
  config: Config
  log: Logger
  mailer: Mailer
}

export const adminInvitesRoute = ({ sql, config, log, mailer }: AdminInvitesDeps) => {
  const workspaceId = workspaceIdOf(sql)
  return new Elysia({ name: 'route.admin.invites', prefix: '/admin/workspaces/:workspace/invitations' }).post(
    '',
    async ({ params, body, request, set }) => {
      const id = await workspaceId(params.workspace)
      const email = body.email.trim()
      const role = body.role ?? 'member'
      const sent = await inviteByEmail({ sql, config, log: requestLog(log, request), mailer }, { id, name: params.workspace }, email, role, null)
      if (sent.kind === 'throttled') throw new HeraldError('mail-throttled', `Too many invitations from the operator, or e-mails to ${email}; try again in ${sent.wait} seconds.`, undefined, { 'retry-after': String(sent.wait) })
      set.status = 201
      return { id: sent.id, email, role, expiresAt: sent.expiresAt, link: sent.link }
    },
    {
      params: WorkspaceParams,
      body: Type.Object(
        {
          email: EmailAddress('The address the invitation is e-mailed to.'),
          role: Type.Optional({ ...RoleSchema, description: 'The role they get on accepting; member when left out.' }),
        },
        { $id: 'OperatorCreateInvitationBody', additionalProperties: false },
      ),
      response: { 201: CreatedInvitation },
      detail: detail(
        'Invite someone by e-mail',
        'E-mails a link (through SMTP_URL, or logged when unset) that makes its holder a member once they sign in or sign up with that address. The invitation has no inviter. E-mails are throttled per recipient and for the operator as a whole (429 with Retry-After).',
        { ...problems(...BODY_PROBLEMS), 429: problem(429, 'Too many invitations from the operator, or e-mails to this address: retry after Retry-After seconds.') },
      ),
    },
  )
}
