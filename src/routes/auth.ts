// Accounts: sign-up, sign-in, sign-out, password reset, and who am I. The web
// dashboard asks for a session cookie (`client: "web"`); an app asks for a
// bearer token (`client: "app"`, the default).
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Sql } from '../db'
import type { Config } from '../config'
import type { Logger } from '../log'
import type { Mailer } from '../mailer'
import { HeraldError } from '../problems'
import { SLUG } from '../event'
import { checkPassword, createPasswordReset, createSession, hashPassword, insertUser, normalizeEmail, passwordProblem, resetPassword, revokeSession, PASSWORD_MAX, PASSWORD_MIN } from '../accounts'
import { clearSigninFailures, recordSigninFailure, signinRetryAfter } from '../throttle'
import { clearedSessionCookie, clientAddress, isHttps, sessionCookie, userSecurity, type UserAuth } from '../session'
import { acceptInvitation, findInvitation } from '../invitations'
import { createWorkspaceRow } from '../workspaces'
import { listMyWorkspaces } from '../members'

const Email = Type.String({ pattern: '^\\s*[^@\\s]+@[^@\\s]+\\.[^@\\s]+\\s*$', maxLength: 254, description: 'E-mail address.', examples: ['jane@example.com'] })
const Password = Type.String({ maxLength: PASSWORD_MAX, description: `At least ${PASSWORD_MIN} characters.` })
const Client = Type.Optional(Type.Union([Type.Literal('web'), Type.Literal('app')], { default: 'app', description: 'web: a session cookie (and a CSRF token to send back in X-CSRF-Token); app: a bearer token in the body.' }))
const WorkspaceName = Type.String({ maxLength: 64, pattern: SLUG.source, description: 'Lower-case slug: letters, digits, "-" and "_".', examples: ['acme'] })

export const SessionAnswer = Type.Object({
  userId: Type.String({ format: 'uuid' }),
  email: Type.String(),
  token: Type.Optional(Type.String({ description: 'client "app": the bearer token (hrlu_…), shown once.' })),
  csrf: Type.Optional(Type.String({ description: 'client "web": send it as X-CSRF-Token with every change.' })),
})

export const MyWorkspace = Type.Object({
  workspace: Type.String(),
  role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]),
  defaultChannel: Type.String(),
})

const detail = (summary: string, description?: string, secured = false) => ({ summary, description, tags: ['Accounts'], ...(secured ? { security: userSecurity } : {}) })

export interface AuthRouteDeps {
  sql: Sql
  config: Config
  log: Logger
  mailer: Mailer
  users: UserAuth
}

/** A free workspace name from an e-mail address: "jane.doe@x" → "jane-doe", then "jane-doe-4f2a" if taken. */
function workspaceNameFrom(email: string, attempt: number): string {
  const base = email.split('@')[0]!.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, 40) || 'workspace'
  return attempt === 0 ? base : `${base}-${crypto.randomUUID().slice(0, 4)}`
}

export const authRoute = ({ sql, config, log, mailer, users }: AuthRouteDeps) => {
  const publicUrl = (config.HERALD_PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '')
  const limits = { monthlyQuota: config.HERALD_DEFAULT_MONTHLY_QUOTA, rateLimit: { perSecond: config.HERALD_DEFAULT_RATE_PER_SECOND, burst: config.HERALD_DEFAULT_RATE_BURST } }

  async function answer(request: Request, set: { headers: Record<string, string | number> }, user: { id: string; email: string }, client: 'web' | 'app') {
    const session = await createSession(sql, user.id, client)
    if (client === 'web') {
      set.headers['set-cookie'] = sessionCookie(session.token, isHttps(request, config.HERALD_TRUST_PROXY))
      return { userId: user.id, email: user.email, csrf: session.csrf! }
    }
    return { userId: user.id, email: user.email, token: session.token }
  }

  return new Elysia({ name: 'route.auth', prefix: '/v1' })
    .post(
      '/auth/signup',
      async ({ body, request, set }) => {
        const email = normalizeEmail(body.email)
        const why = passwordProblem(body.password)
        if (why) throw new HeraldError('validation-failed', why, [{ pointer: '/password', detail: why }])
        const invitation = body.invitation ? await findInvitation(sql, body.invitation) : null
        if (body.invitation && !invitation) throw new HeraldError('validation-failed', 'The invitation is invalid, used or expired.', [{ pointer: '/invitation', detail: 'invalid, used or expired' }])
        if (!invitation && config.HERALD_SIGNUP !== 'open') throw new HeraldError('forbidden', 'Sign-up is by invitation only on this Herald.')
        if (invitation && invitation.email.toLowerCase() !== email.toLowerCase()) {
          throw new HeraldError('forbidden', `This invitation is for ${invitation.email}; sign up with that address.`)
        }
        const passwordHash = await hashPassword(body.password)
        const created = await sql.begin(async (tx) => {
          const user = await insertUser(tx, email, passwordHash)
          if (!user) return null
          if (invitation) {
            await acceptInvitation(tx, invitation, user.id)
            return { user, workspace: invitation.workspace, role: invitation.role }
          }
          for (let attempt = 0; ; attempt++) {
            const name = attempt === 0 && body.workspace ? body.workspace : workspaceNameFrom(email, attempt)
            const ws = await createWorkspaceRow(tx, name, limits)
            if (ws) {
              await tx`INSERT INTO memberships (workspace_id, user_id, role) VALUES (${ws.id}, ${user.id}, 'owner')`
              return { user, workspace: name, role: 'owner' as const }
            }
            if (body.workspace) throw new HeraldError('conflict', `The workspace name ${JSON.stringify(body.workspace)} is taken; choose another.`)
          }
        })
        if (!created) throw new HeraldError('conflict', 'An account with this address exists: sign in, or reset its password.')
        log.info({ userId: created.user.id, workspace: created.workspace }, 'signed up')
        set.status = 201
        return { ...(await answer(request, set, { id: created.user.id, email }, body.client ?? 'app')), workspace: created.workspace, role: created.role }
      },
      {
        body: Type.Object({
          email: Email,
          password: Password,
          workspace: Type.Optional(WorkspaceName),
          invitation: Type.Optional(Type.String({ maxLength: 200, description: 'The token of an invitation link: join that workspace instead of creating one.' })),
          client: Client,
        }, { additionalProperties: false }),
        response: { 201: Type.Composite([SessionAnswer, Type.Object({ workspace: Type.String(), role: MyWorkspace.properties.role })]) },
        detail: detail('Sign up', 'Creates the account and its first workspace (with the default channel "general"), of which the new user is the owner; or, with an invitation, joins that workspace. 409 when the address has an account.'),
      },
    )
    .post(
      '/auth/signin',
      async ({ body, request, set, server }) => {
        const email = normalizeEmail(body.email)
        const ip = clientAddress(request, server, config.HERALD_TRUST_PROXY)
        const wait = await signinRetryAfter(sql, email, ip)
        if (wait > 0) throw new HeraldError('signin-throttled', `Too many failed sign-ins; try again in ${wait} seconds.`, undefined, { 'retry-after': String(wait) })
        const user = await checkPassword(sql, email, body.password)
        if (!user) {
          await recordSigninFailure(sql, email, ip)
          throw new HeraldError('invalid-credentials', 'The e-mail address or the password is wrong.')
        }
        await clearSigninFailures(sql, email)
        return answer(request, set, user, body.client ?? 'app')
      },
      {
        body: Type.Object({ email: Email, password: Password, client: Client }, { additionalProperties: false }),
        response: { 200: SessionAnswer },
        detail: detail('Sign in', 'The same 401 for an unknown address and a wrong password. Failed attempts are limited per account and per client address (429 with Retry-After).'),
      },
    )
    .post(
      '/auth/signout',
      async ({ request, set }) => {
        const session = await users.authenticate(request)
        await revokeSession(sql, session.tokenId)
        const token = users.tokenOf(request)
        if (token) users.forget(token)
        set.headers['set-cookie'] = clearedSessionCookie(isHttps(request, config.HERALD_TRUST_PROXY))
        set.status = 204
      },
      { detail: detail('Sign out', 'Revokes this session or token, here and (within seconds) on every instance.', true) },
    )
    .post(
      '/auth/password-reset',
      async ({ body, set }) => {
        const reset = await createPasswordReset(sql, normalizeEmail(body.email))
        if (reset) {
          const link = `${publicUrl}/reset/${reset.token}`
          await mailer.send({
            to: reset.email,
            subject: 'Reset your Herald password',
            text: `Someone (hopefully you) asked to reset the password of your Herald account.\n\nChoose a new password here (the link works once, for an hour):\n${link}\n\nIf it was not you, ignore this e-mail; your password stays as it is.\n`,
          }).catch((err) => log.error({ err }, 'could not send the password-reset e-mail'))
        }
        set.status = 202
        return {}
      },
      {
        body: Type.Object({ email: Email }, { additionalProperties: false }),
        detail: detail('Ask for a password-reset link', 'Always 202, whether the address has an account or not. The link is e-mailed through SMTP_URL, or logged when SMTP_URL is unset.'),
      },
    )
    .post(
      '/auth/password-reset/confirm',
      async ({ body, set }) => {
        const why = passwordProblem(body.password)
        if (why) throw new HeraldError('validation-failed', why, [{ pointer: '/password', detail: why }])
        const user = await resetPassword(sql, body.token, await hashPassword(body.password))
        if (!user) throw new HeraldError('validation-failed', 'The reset link is invalid, used or expired; ask for a new one.', [{ pointer: '/token', detail: 'invalid, used or expired' }])
        log.info({ userId: user.id }, 'password reset; every session revoked')
        set.status = 204
      },
      {
        body: Type.Object({ token: Type.String({ maxLength: 200 }), password: Password }, { additionalProperties: false }),
        detail: detail('Set a new password with a reset link', 'Signs the account out everywhere.'),
      },
    )
    .get(
      '/me',
      async ({ request }) => {
        const session = await users.authenticate(request)
        return {
          userId: session.userId,
          email: session.email,
          ...(session.kind === 'web' && session.csrf ? { csrf: session.csrf } : {}),
          workspaces: await listMyWorkspaces(sql, session.userId),
        }
      },
      {
        response: { 200: Type.Object({ userId: Type.String(), email: Type.String(), csrf: Type.Optional(Type.String()), workspaces: Type.Array(MyWorkspace) }) },
        detail: detail('Who am I', 'The signed-in person, the workspaces they belong to, and (for a web session) the CSRF token.', true),
      },
    )
}
