// Accounts: sign-up, sign-in, sign-out and password reset (who am I is
// routes/me.ts; the e-mails these send are written in src/accounts/signup.ts
// and src/accounts/password_reset.ts). The web dashboard asks for a session
// cookie (`client: "web"`); an app asks for a bearer token (`client: "app"`,
// the default). Bodies are JSON only (415 otherwise), so a plain HTML form on
// another site cannot sign a visitor in. No answer tells whether an address
// has an account: sign-in fails the same way, a reset is always 202, and a
// sign-up (but the first account of a fresh install, or one with an
// invitation) is confirmed by an e-mailed link, the same 202 whether the
// address is new or known.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Config } from '../../core/config'
import type { Logger } from '../../core/log'
import { requestLog } from '../request_id'
import type { Mailer } from '../../accounts/mailer'
import type { Announce } from '../../core/changes'
import { changePassword, endMySession, endSession, mySessions, openSession, setPasswordByLink, signIn, signupState, type SessionDeps } from '../../accounts/session_ops'
import type { HeraldError } from '../../core/problems'
import { accountExists, invitationFor, signupInvitationInvalid, invitedAccountExists, inviteOnly, mailThrottled, signupLinkInvalid, workspaceTaken } from '../../core/errors'
import { SLUG } from '../../ingest/event'
import { normalizeEmail, PASSWORD_MAX, PASSWORD_MIN } from '../../accounts/users'
import { requestPasswordReset } from '../../accounts/password_reset'
import { routeGroup } from './group'
import { EmailAddress, Limit, NextCursor, SessionIdParam, Token } from './input'
import { clearedSessionCookie, clientAddress, isHttps, sessionCookie, userSecurity, type UserAuth } from '../../accounts/session'
import { createSignup, type SignupOutcome } from '../../accounts/signup'
import { BODY_PROBLEMS, done, problem, problems, type Responses } from '../openapi'

const Email = EmailAddress()
const Password = Type.String({ maxLength: PASSWORD_MAX, description: `At least ${PASSWORD_MIN} characters.` })
const Client = Type.Optional(Type.Union([Type.Literal('web'), Type.Literal('app')], { default: 'app', description: 'web: a session cookie (and a CSRF token to send back in X-CSRF-Token); app: a bearer token in the body.' }))
const WorkspaceName = Type.String({ maxLength: 64, pattern: SLUG.source, description: 'Lower-case slug: letters, digits, "-" and "_".', examples: ['acme'] })

export const SessionAnswer = Type.Object({
  userId: Type.String({ format: 'uuid' }),
  email: Type.String(),
  token: Type.Optional(Type.String({ description: 'client "app": the bearer token (hrlu_…), shown once.' })),
  csrf: Type.Optional(Type.String({ description: 'client "web": send it as X-CSRF-Token with every change.' })),
}, { $id: 'Session' })

export const MyWorkspace = Type.Object({
  workspace: Type.String(),
  role: Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]),
  defaultChannel: Type.String(),
}, { $id: 'MyWorkspace' })

/** The account page's list of a person's live sessions. */
const MySessions = Type.Object({
  sessions: Type.Array(Type.Object({
    id: Type.Integer({ description: 'Pass to DELETE /v1/me/sessions/{sessionId} to end it.' }),
    kind: Type.Union([Type.Literal('web'), Type.Literal('app')], { description: 'web: a browser signed in to the dashboard; app: a token (an app, the CLI, a script).' }),
    userAgent: Type.Union([Type.String(), Type.Null()], { description: 'The User-Agent that opened it, cut to 200 characters; null when unknown.' }),
    createdAt: Type.String({ format: 'date-time' }),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Recorded at most once a minute.' }),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'A web session slides 30 days from its last use; an app token has none (it ends after HERALD_APP_TOKEN_IDLE_DAYS unused).' }),
    current: Type.Boolean({ description: 'The session of this request.' }),
  }, { $id: 'MySession' })),
  nextCursor: NextCursor,
}, { $id: 'MySessions' })

/** A new account, signed in: the answer of a sign-up that made one. */
const SignedUp = Type.Composite([SessionAnswer, Type.Object({ workspace: Type.String(), role: MyWorkspace.properties.role })], { $id: 'SignedUp' })

/** A route for anyone (`security: []`), or for the signed-in. */
const detail = (summary: string, description: string, responses: Responses, secured = false) => ({ summary, description, tags: ['Accounts'], security: secured ? userSecurity : [], responses })

export interface AuthRouteDeps {
  /** The accounts' store (sessions and sign-ups are written there by the area). */
  sql: SessionDeps['sql']
  config: Config
  log: Logger
  mailer: Mailer
  users: UserAuth
  /** Announces the sessions that end (sign-out, a reset, the account's cap), so that every instance ends their live streams at once. */
  announce: Announce
}

// Account bodies are an address, a password and a name or two.
const AUTH_BODY_LIMIT = 4 * 1024

export const SignupPending = Type.Object({
  status: Type.Literal('confirmation-sent'),
  email: Type.String(),
  detail: Type.String(),
}, { $id: 'SignupPending' })

export const authRoute = ({ sql, config, log, mailer, users, announce }: AuthRouteDeps) => {
  const sessions = { sql, announce, maxSessions: config.HERALD_MAX_SESSIONS_PER_USER }
  // Per request, so that its log lines name the request.
  const signupFor = (request: Request) => createSignup({ sql, config, log: requestLog(log, request), mailer })

  async function answer(request: Request, set: { headers: Record<string, string | number> }, user: { id: string; email: string }, client: 'web' | 'app') {
    const session = await openSession(sessions, user.id, client, request.headers.get('user-agent'))
    if (client === 'web') {
      set.headers['set-cookie'] = sessionCookie(session.token, isHttps(request, config.HERALD_TRUST_PROXY))
      return { userId: user.id, email: user.email, csrf: session.csrf! }
    }
    return { userId: user.id, email: user.email, token: session.token }
  }

  /** The HTTP answer of a sign-up outcome that is not an account made. */
  function refused(o: Exclude<SignupOutcome, { kind: 'created' } | { kind: 'confirmation-sent' }>): HeraldError {
    switch (o.kind) {
      case 'throttled': return mailThrottled(o.wait)
      case 'invitation-invalid': return signupInvitationInvalid()
      case 'invitation-for': return invitationFor(o.email)
      case 'invited-account-exists': return invitedAccountExists()
      case 'workspace-taken': return workspaceTaken(o.name)
      case 'invite-only': return inviteOnly()
      case 'link-invalid': return signupLinkInvalid()
      case 'account-exists': return accountExists()
    }
  }

  const publicRoutes = routeGroup({ name: 'route.auth', prefix: '/v1', bodyLimit: AUTH_BODY_LIMIT })
    .get(
      '/auth/signup',
      async () => ({ signup: config.HERALD_SIGNUP, ...(await signupState(sessions)) }),
      {
        response: {
          200: Type.Object({
            signup: Type.Union([Type.Literal('open'), Type.Literal('invite')], { description: '`open`: anyone may sign up; `invite`: only with an invitation.' }),
            anyAccount: Type.Boolean({ description: 'Whether anyone has signed up on this Herald yet. While nobody has, nobody can sign in, so the dashboard opens on the sign-up page.' }),
            waitingWorkspace: Type.Union([Type.String(), Type.Null()], { description: 'On a fresh install, the workspace made at first start (`demo`) that the first account to sign up will own; null once it has an owner.' }),
          }, { $id: 'SignupSettings' }),
        },
        detail: detail('How sign-up works here', 'What the dashboard shows before anyone fills a form in: whether sign-up is open, whether anyone has signed up yet, and the workspace the first account will own.', problems(503)),
      },
    )
    .post(
      '/auth/signup',
      async ({ body, request, set }) => {
        const email = normalizeEmail(body.email)
        const client = body.client ?? 'app'
        const outcome = await signupFor(request).signUp({ email, password: body.password, workspace: body.workspace ?? null, invitation: body.invitation, clientAddress: clientAddress(request, config.HERALD_TRUST_PROXY) })
        if (outcome.kind === 'created') {
          set.status = 201
          return { ...(await answer(request, set, { id: outcome.userId, email }, client)), workspace: outcome.workspace, role: outcome.role }
        }
        if (outcome.kind !== 'confirmation-sent') throw refused(outcome)
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
        }, { $id: 'SignupBody', additionalProperties: false }),
        response: { 201: SignedUp, 202: SignupPending },
        detail: detail(
          'Sign up',
          'With an invitation: creates the account, joins that workspace and signs in (201). The first account of a fresh install is also created at once (201), as the owner of the demo workspace made at first start when there is one (and of the named workspace, if one is given), else of a new workspace. Otherwise: 202, and a link is e-mailed (logged when SMTP_URL is unset) that finishes the sign-up through POST /v1/auth/signup/confirm; an address that already has an account gets the same 202, and its owner an e-mail saying someone tried. E-mails are throttled per address (429).',
          {
            ...problems(...BODY_PROBLEMS, 503),
            400: problem(400, 'The request is invalid (`errors` names each field), or so is its invitation: used, expired or unknown.'),
            403: problem(403, 'Sign-up is by invitation only here, or the invitation is for another address.'),
            409: problem(409, 'The workspace name is taken, or (with an invitation) an account with this address exists: sign in, then accept it.'),
            429: problem(429, 'Too many e-mails to this address or from this client: retry after Retry-After seconds.'),
          },
        ),
      },
    )
    .post(
      '/auth/signup/confirm',
      async ({ body, request, set }) => {
        const outcome = await signupFor(request).confirm(body.token)
        if (outcome.kind !== 'created') throw refused(outcome as Exclude<SignupOutcome, { kind: 'created' } | { kind: 'confirmation-sent' }>)
        set.status = 201
        return { ...(await answer(request, set, { id: outcome.userId, email: outcome.email }, body.client ?? 'app')), workspace: outcome.workspace, role: outcome.role }
      },
      {
        body: Type.Object({ token: Token, client: Client }, { $id: 'SignupConfirmBody', additionalProperties: false }),
        response: { 201: SignedUp },
        detail: detail('Finish a sign-up with its e-mailed link', 'Creates the account and its first workspace (with the default channel "general"), of which the new user is the owner, and signs in.', {
          ...problems(...BODY_PROBLEMS, 503),
          400: problem(400, 'The request is invalid, or the link is: used, expired or unknown.'),
          409: problem(409, 'The workspace name was taken since, or an account with this address exists.'),
        }),
      },
    )
    .post(
      '/auth/signin',
      async ({ body, request, set }) => {
        const email = normalizeEmail(body.email)
        const ip = clientAddress(request, config.HERALD_TRUST_PROXY)
        const user = await signIn(sessions, email, body.password, ip)
        return answer(request, set, user, body.client ?? 'app')
      },
      {
        body: Type.Object({ email: Email, password: Password, client: Client }, { $id: 'SigninBody', additionalProperties: false }),
        response: { 200: SessionAnswer },
        detail: detail('Sign in', 'The same 401 for an unknown address and a wrong password. Attempts are counted per account and per client address before the password is checked; past the limit, 429 with Retry-After.', {
          ...problems(...BODY_PROBLEMS, 503),
          401: problem(401, 'The e-mail address or the password is wrong (invalid-credentials).'),
          429: problem(429, 'Too many sign-in attempts for this account or from this client: retry after Retry-After seconds.'),
        }),
      },
    )
    .post(
      '/auth/password-reset',
      async ({ body, request, set }) => {
        const asked = await requestPasswordReset({ sql, config, log: requestLog(log, request), mailer }, normalizeEmail(body.email), clientAddress(request, config.HERALD_TRUST_PROXY))
        if (asked.kind === 'throttled') throw mailThrottled(asked.wait)
        set.status = 202
        return {}
      },
      {
        body: Type.Object({ email: Email }, { $id: 'PasswordResetBody', additionalProperties: false }),
        detail: detail('Ask for a password-reset link', 'Always 202, whether the address has an account or not. The link is e-mailed through SMTP_URL, or logged when SMTP_URL is unset; it voids earlier links. E-mails are throttled per address and per client address (429 with Retry-After).', {
          202: done('Asked: if the address has an account, a link is on its way. The body is an empty object.'),
          ...problems(...BODY_PROBLEMS, 503),
          429: problem(429, 'Too many e-mails to this address or from this client: retry after Retry-After seconds.'),
        }),
      },
    )
    .post(
      '/auth/password-reset/confirm',
      async ({ body, request, set }) => {
        const user = await setPasswordByLink(sessions, body.token, body.password)
        requestLog(log, request).info({ userId: user.id }, 'password reset; every session revoked')
        set.status = 204
      },
      {
        body: Type.Object({ token: Token, password: Password }, { $id: 'PasswordResetConfirmBody', additionalProperties: false }),
        detail: detail('Set a new password with a reset link', 'Voids every other reset link of the account and signs it out everywhere, at once.', {
          204: done('The password is set; every session of the account is signed out.'),
          ...problems(...BODY_PROBLEMS, 503),
          400: problem(400, 'The request is invalid (a password too short, say), or the link is: used, expired or unknown.'),
        }),
      },
    )

  const signedInRoutes = routeGroup({ name: 'route.auth.session', prefix: '/v1', guard: users.authenticate, bodyLimit: AUTH_BODY_LIMIT })
    .post(
      '/auth/signout',
      async ({ request, set }) => {
        const session = await users.authenticate(request)
        await endSession(sessions, session)
        set.headers['set-cookie'] = clearedSessionCookie(isHttps(request, config.HERALD_TRUST_PROXY))
        set.status = 204
      },
      { detail: detail('Sign out', 'Revokes this session or token, at once on every instance.', { 204: done('Signed out; a web session\'s cookie is cleared.'), ...problems(401, 403, 503) }, true) },
    )

    .get(
      '/me/sessions',
      async ({ request, query }) => mySessions(sessions, await users.authenticate(request), { limit: query.limit ?? 50, after: query.cursor === undefined ? null : Number(query.cursor) }),
      {
        query: Type.Object({
          cursor: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'nextCursor of the page before.', error: 'cursor must be the nextCursor of a page' })),
          limit: Type.Optional(Limit(100, 50, 'Sessions per page, at most 100.')),
        }),
        response: { 200: MySessions },
        detail: detail('My sessions', `Every live session of the signed-in person: web sessions and app tokens, newest first, this one marked \`current\`, never their secrets. An account has at most HERALD_MAX_SESSIONS_PER_USER (signing in past it ends the least recently used).`, problems(400, 401, 503), true),
      },
    )
    .delete(
      '/me/sessions/:sessionId',
      async ({ request, params, set }) => {
        await endMySession(sessions, await users.authenticate(request), params.sessionId)
        set.status = 204
      },
      {
        params: Type.Object({ sessionId: SessionIdParam }),
        detail: detail('End one of my sessions', 'Signs that browser or app out at once, on every instance (its live streams end). Ending this very session is a sign-out, but its cookie is not cleared: use POST /v1/auth/signout for that.', { 204: done('The session has ended.'), ...problems(400, 401, 403, 404, 503) }, true),
      },
    )
    .post(
      '/me/password',
      async ({ request, body, set }) => {
        await changePassword(sessions, await users.authenticate(request), body, clientAddress(request, config.HERALD_TRUST_PROXY))
        set.status = 204
      },
      {
        body: Type.Object({
          currentPassword: Type.String({ maxLength: PASSWORD_MAX, description: 'The password the account has now.' }),
          newPassword: Type.String({ maxLength: PASSWORD_MAX, description: `At least ${PASSWORD_MIN} characters.` }),
        }, { $id: 'ChangePasswordBody' }),
        detail: detail(
          'Change my password',
          'Checks the current password (counted like a sign-in, per account and per client address: past the sign-in limit it is a 429 with Retry-After), sets the new one, and ends every other session and reset link of the account at once. This session stays signed in.',
          { 204: done('The password is changed; every other session has ended.'), ...problems(...BODY_PROBLEMS, 401, 403, 429, 503), 400: problem(400, 'The request is invalid: the current password is wrong (at /currentPassword), or the new one is too short (at /newPassword).') },
          true,
        ),
      },
    )

  return new Elysia({ name: 'route.auth.all' }).use(publicRoutes).use(signedInRoutes)
}
