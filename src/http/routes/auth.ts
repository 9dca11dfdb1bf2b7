// Accounts: sign-up, sign-in, sign-out, password reset, and who am I. The web
// dashboard asks for a session cookie (`client: "web"`); an app asks for a
// bearer token (`client: "app"`, the default). Bodies are JSON only (415
// otherwise), so a plain HTML form on another site cannot sign a visitor in.
// No answer tells whether an address has an account: sign-in fails the same
// way, a reset is always 202, and a sign-up (but the first account of a fresh
// install, or one with an invitation) is confirmed by an e-mailed link, the
// same 202 whether the address is new or known.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import type { Mailer } from '../../accounts/mailer'
import { HeraldError } from '../../core/problems'
import { SLUG } from '../../ingest/event'
import type { Tx } from '../../core/db'
import { checkPassword, countUsers, createPasswordReset, createSession, createSignupRequest, hashPassword, insertUser, normalizeEmail, passwordProblem, resetPassword, revokeSession, takeSignupRequest, userExists, PASSWORD_MAX, PASSWORD_MIN } from '../../accounts/users'
import { countAttempt, forgiveSignin, mailCounters, signinCounters } from '../../accounts/throttle'
import { routeGroup } from './group'
import { EmailAddress, Token } from './input'
import { clearedSessionCookie, clientAddress, isHttps, sessionCookie, userSecurity, type UserAuth } from '../../accounts/session'
import { acceptInvitation, findInvitation } from '../../accounts/invitations'
import { claimWaitingWorkspace, createOwnedWorkspace, waitingWorkspace, workspaceNameTaken } from '../../accounts/workspaces'
import { listMyWorkspaces } from '../../accounts/members'

const Email = EmailAddress()
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

// Account bodies are an address, a password and a name or two.
const AUTH_BODY_LIMIT = 4 * 1024

export const SignupPending = Type.Object({
  status: Type.Literal('confirmation-sent'),
  email: Type.String(),
  detail: Type.String(),
})

export const authRoute = ({ sql, config, log, mailer, users }: AuthRouteDeps) => {
  const publicUrl = (config.HERALD_PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '')
  const limits = { monthlyQuota: config.HERALD_DEFAULT_MONTHLY_QUOTA, rateLimit: { perSecond: config.HERALD_DEFAULT_RATE_PER_SECOND, burst: config.HERALD_DEFAULT_RATE_BURST } }
  const throttled = (wait: number, code: 'signin-throttled' | 'mail-throttled', what: string) =>
    new HeraldError(code, `Too many ${what}; try again in ${wait} seconds.`, undefined, { 'retry-after': String(wait) })
  const mail = (to: string, subject: string, text: string) =>
    mailer.send({ to, subject, text }).catch((err) => log.error({ err }, `could not send the e-mail "${subject}"`))

  async function answer(request: Request, set: { headers: Record<string, string | number> }, user: { id: string; email: string }, client: 'web' | 'app') {
    const session = await createSession(sql, user.id, client)
    if (client === 'web') {
      set.headers['set-cookie'] = sessionCookie(session.token, isHttps(request, config.HERALD_TRUST_PROXY))
      return { userId: user.id, email: user.email, csrf: session.csrf! }
    }
    return { userId: user.id, email: user.email, token: session.token }
  }

  /** The user, their first workspace (named, or made from the address) and its owner membership; null when the address has an account. */
  async function createAccount(tx: Tx, email: string, passwordHash: string, workspace: string | null) {
    const user = await insertUser(tx, email, passwordHash)
    if (!user) return null
    // On a fresh install the first account owns the demo workspace, where the
    // events posted with the key printed at first start already are; a name
    // given as well still makes that workspace.
    const demo = await claimWaitingWorkspace(tx, user.id)
    if (demo && workspace && !(await createOwnedWorkspace(tx, workspace, limits, user.id))) throw workspaceTaken(workspace)
    if (demo) return { user, email, workspace: demo, role: 'owner' as const }
    for (let attempt = 0; ; attempt++) {
      const name = attempt === 0 && workspace ? workspace : workspaceNameFrom(email, attempt)
      const ws = await createOwnedWorkspace(tx, name, limits, user.id)
      if (ws) {
        return { user, email, workspace: name, role: 'owner' as const }
      }
      if (workspace) throw workspaceTaken(workspace)
    }
  }

  const workspaceTaken = (name: string) => new HeraldError('conflict', `The workspace name ${JSON.stringify(name)} is taken; choose another.`)
  const accountExists = () => new HeraldError('conflict', 'An account with this address exists: sign in, or reset its password.')

  const publicRoutes = routeGroup({ name: 'route.auth', prefix: '/v1', bodyLimit: AUTH_BODY_LIMIT })
    .get(
      '/auth/signup',
      async () => ({ signup: config.HERALD_SIGNUP, waitingWorkspace: await waitingWorkspace(sql) }),
      {
        response: {
          200: Type.Object({
            signup: Type.Union([Type.Literal('open'), Type.Literal('invite')], { description: '`open`: anyone may sign up; `invite`: only with an invitation.' }),
            waitingWorkspace: Type.Union([Type.String(), Type.Null()], { description: 'On a fresh install, the workspace made at first start (`demo`) that the first account to sign up will own; null once it has an owner.' }),
          }),
        },
        detail: detail('How sign-up works here', 'What the sign-up page shows before anyone fills it in: whether sign-up is open, and the workspace the first account will own.'),
      },
    )
    .post(
      '/auth/signup',
      async ({ body, request, set, server }) => {
        const email = normalizeEmail(body.email)
        const why = passwordProblem(body.password)
        if (why) throw new HeraldError('validation-failed', why, [{ pointer: '/password', detail: why }])
        const client = body.client ?? 'app'
        if (body.invitation) {
          // The link was e-mailed to this address: whoever holds it may learn
          // that the address has an account, and needs no further proof.
          const invitation = await findInvitation(sql, body.invitation)
          if (!invitation) throw new HeraldError('validation-failed', 'The invitation is invalid, used or expired.', [{ pointer: '/invitation', detail: 'invalid, used or expired' }])
          if (invitation.email.toLowerCase() !== email.toLowerCase()) throw new HeraldError('forbidden', `This invitation is for ${invitation.email}; sign up with that address.`)
          const passwordHash = await hashPassword(body.password)
          const user = await sql.begin(async (tx) => {
            const user = await insertUser(tx, email, passwordHash)
            if (user && !(await acceptInvitation(tx, invitation, user.id))) throw new HeraldError('validation-failed', 'The invitation is invalid, used or expired.', [{ pointer: '/invitation', detail: 'invalid, used or expired' }])
            return user
          })
          if (!user) throw new HeraldError('conflict', 'An account with this address exists: sign in, then accept the invitation.')
          log.info({ userId: user.id, workspace: invitation.workspace }, 'signed up by invitation')
          set.status = 201
          return { ...(await answer(request, set, { id: user.id, email }, client)), workspace: invitation.workspace, role: invitation.role }
        }
        if (config.HERALD_SIGNUP !== 'open') throw new HeraldError('forbidden', 'Sign-up is by invitation only on this Herald.')
        if (body.workspace && (await workspaceNameTaken(sql, body.workspace))) throw workspaceTaken(body.workspace)
        const passwordHash = await hashPassword(body.password)
        // The first account of a fresh install has nobody to hide from.
        if ((await countUsers(sql)) === 0) {
          const created = await sql.begin((tx) => createAccount(tx, email, passwordHash, body.workspace ?? null))
          if (created) {
            log.info({ userId: created.user.id, workspace: created.workspace }, 'signed up (the first account)')
            set.status = 201
            return { ...(await answer(request, set, { id: created.user.id, email }, client)), workspace: created.workspace, role: created.role }
          }
        }
        const wait = await countAttempt(sql, mailCounters(email, clientAddress(request, server, config.HERALD_TRUST_PROXY)))
        if (wait > 0) throw throttled(wait, 'mail-throttled', 'e-mails to this address or from this client')
        if (await userExists(sql, email)) {
          await mail(email, 'Someone tried to create a Herald account with your address',
            `Someone (perhaps you) tried to create a Herald account with this address, which already has one. No account was created and nothing changed.\n\nTo sign in: ${publicUrl}/signin\nForgot your password? ${publicUrl}/reset\n\nIf it was not you, you can ignore this e-mail.\n`)
        } else {
          const token = await createSignupRequest(sql, email, passwordHash, body.workspace ?? null)
          await mail(email, 'Finish creating your Herald account',
            `Open this link to finish creating your Herald account (it works once, for 24 hours):\n${publicUrl}/signup/confirm/${token}\n\nIf you did not sign up for Herald, ignore this e-mail: no account is created without it.\n`)
        }
        set.status = 202
        return { status: 'confirmation-sent' as const, email, detail: `We e-mailed a link to ${email}: open it to finish creating your account.` }
      },
      {
        body: Type.Object({
          email: Email,
          password: Password,
          workspace: Type.Optional(WorkspaceName),
          invitation: Type.Optional(Type.String({ maxLength: 200, description: 'The token of an invitation link: join that workspace instead of creating one.' })),
          client: Client,
        }, { additionalProperties: false }),
        response: { 201: Type.Composite([SessionAnswer, Type.Object({ workspace: Type.String(), role: MyWorkspace.properties.role })]), 202: SignupPending },
        detail: detail(
          'Sign up',
          'With an invitation: creates the account, joins that workspace and signs in (201). The first account of a fresh install is also created at once (201), as the owner of the demo workspace made at first start when there is one (and of the named workspace, if one is given), else of a new workspace. Otherwise: 202, and a link is e-mailed (logged when SMTP_URL is unset) that finishes the sign-up through POST /v1/auth/signup/confirm; an address that already has an account gets the same 202, and its owner an e-mail saying someone tried. E-mails are throttled per address (429).',
        ),
      },
    )
    .post(
      '/auth/signup/confirm',
      async ({ body, request, set }) => {
        const created = await sql.begin(async (tx) => {
          const pending = await takeSignupRequest(tx, body.token)
          if (!pending) throw new HeraldError('validation-failed', 'The sign-up link is invalid, used or expired; sign up again.', [{ pointer: '/token', detail: 'invalid, used or expired' }])
          return (await createAccount(tx, pending.email, pending.passwordHash, pending.workspace)) ?? accountExists()
        })
        if (created instanceof HeraldError) throw created
        log.info({ userId: created.user.id, workspace: created.workspace }, 'signed up')
        set.status = 201
        return { ...(await answer(request, set, { id: created.user.id, email: created.email }, body.client ?? 'app')), workspace: created.workspace, role: created.role }
      },
      {
        body: Type.Object({ token: Token, client: Client }, { additionalProperties: false }),
        response: { 201: Type.Composite([SessionAnswer, Type.Object({ workspace: Type.String(), role: MyWorkspace.properties.role })]) },
        detail: detail('Finish a sign-up with its e-mailed link', 'Creates the account and its first workspace (with the default channel "general"), of which the new user is the owner, and signs in.'),
      },
    )
    .post(
      '/auth/signin',
      async ({ body, request, set, server }) => {
        const email = normalizeEmail(body.email)
        const ip = clientAddress(request, server, config.HERALD_TRUST_PROXY)
        const wait = await countAttempt(sql, signinCounters(email, ip))
        if (wait > 0) throw throttled(wait, 'signin-throttled', 'sign-in attempts')
        const user = await checkPassword(sql, email, body.password)
        if (!user) throw new HeraldError('invalid-credentials', 'The e-mail address or the password is wrong.')
        await forgiveSignin(sql, email, ip)
        return answer(request, set, user, body.client ?? 'app')
      },
      {
        body: Type.Object({ email: Email, password: Password, client: Client }, { additionalProperties: false }),
        response: { 200: SessionAnswer },
        detail: detail('Sign in', 'The same 401 for an unknown address and a wrong password. Attempts are counted per account and per client address before the password is checked; past the limit, 429 with Retry-After.'),
      },
    )
    .post(
      '/auth/password-reset',
      async ({ body, request, set, server }) => {
        const email = normalizeEmail(body.email)
        const wait = await countAttempt(sql, mailCounters(email, clientAddress(request, server, config.HERALD_TRUST_PROXY)))
        if (wait > 0) throw throttled(wait, 'mail-throttled', 'e-mails to this address or from this client')
        const reset = await createPasswordReset(sql, email)
        if (reset) {
          await mail(reset.email, 'Reset your Herald password',
            `Someone (hopefully you) asked to reset the password of your Herald account.\n\nChoose a new password here (the link works once, for an hour, and only the newest link works):\n${publicUrl}/reset/${reset.token}\n\nIf it was not you, ignore this e-mail; your password stays as it is.\n`)
        }
        set.status = 202
        return {}
      },
      {
        body: Type.Object({ email: Email }, { additionalProperties: false }),
        detail: detail('Ask for a password-reset link', 'Always 202, whether the address has an account or not. The link is e-mailed through SMTP_URL, or logged when SMTP_URL is unset; it voids earlier links. E-mails are throttled per address and per client address (429 with Retry-After).'),
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
        body: Type.Object({ token: Token, password: Password }, { additionalProperties: false }),
        detail: detail('Set a new password with a reset link', 'Voids every other reset link of the account and signs it out everywhere, at once.'),
      },
    )

  const signedInRoutes = routeGroup({ name: 'route.auth.session', prefix: '/v1', guard: users.authenticate, bodyLimit: AUTH_BODY_LIMIT })
    .post(
      '/auth/signout',
      async ({ request, set }) => {
        const session = await users.authenticate(request)
        await revokeSession(sql, session.tokenId)
        set.headers['set-cookie'] = clearedSessionCookie(isHttps(request, config.HERALD_TRUST_PROXY))
        set.status = 204
      },
      { detail: detail('Sign out', 'Revokes this session or token, at once on every instance.', true) },
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

  return new Elysia({ name: 'route.auth.all' }).use(publicRoutes).use(signedInRoutes)
}
