// The signed-out pages' state: signing in and up (an account made at once,
// or a link e-mailed to finish it), the e-mailed sign-up link, password
// resets, and invitations (read, accepted, or joined by signing up or in).
// Every call asks for a session cookie (client "web"); a sign-in hands its
// CSRF token to the client, for the changes made next. What a failure says
// is the API's ApiError: a wrong password (401), a taken workspace name
// (409), a field the API refuses (400, named in `errors`). Rendering and
// where each page goes next are in page_auth.ts.
import { ApiError, type Api, type Schemas } from '../api'

export type Invitation = Schemas['InvitationPreview']

/** The shortest password Herald takes (the API says so in words too). */
export const PASSWORD_MIN = 10

/** Signs in with a session cookie; the answer's CSRF token goes to the client. */
export async function signIn(api: Api, email: string, password: string): Promise<void> {
  const session = await api.post('/v1/auth/signin', { body: { email, password, client: 'web' } })
  api.setCsrf(session.csrf)
}

/** The outcome of a sign-up: the account made and signed in, or a link e-mailed to finish it (`detail` says so). */
export type SignUpOutcome = { kind: 'created'; workspace: string } | { kind: 'confirmation-sent'; detail: string }

/**
 * Signs up. Mostly the API e-mails a link to finish (the same answer whether
 * the address is new or known); the first account of a fresh install is made
 * at once. An empty workspace name is left out: the API makes one from the address.
 */
export async function signUp(api: Api, email: string, password: string, workspace = ''): Promise<SignUpOutcome> {
  const name = workspace.trim()
  const answer = await api.post('/v1/auth/signup', { body: { email, password, ...(name ? { workspace: name } : {}), client: 'web' } })
  if ('status' in answer) return { kind: 'confirmation-sent', detail: answer.detail }
  api.setCsrf(answer.csrf)
  return { kind: 'created', workspace: answer.workspace }
}

/** On a fresh install, the workspace made at first start that the first to sign up will own; null once it has an owner. */
export const waitingWorkspace = async (api: Api): Promise<string | null> => (await api.get('/v1/auth/signup')).waitingWorkspace

/** Finishes a sign-up with the token of its e-mailed link; resolves to the new account's workspace. */
export async function confirmSignUp(api: Api, token: string): Promise<string> {
  const created = await api.post('/v1/auth/signup/confirm', { body: { token, client: 'web' } })
  api.setCsrf(created.csrf)
  return created.workspace
}

/** Asks for a password-reset link. The API answers the same whether the address has an account or not, and so does the page. */
export const requestReset = async (api: Api, email: string): Promise<void> => void (await api.post('/v1/auth/password-reset', { body: { email } }))

/** What the page says once a reset link is asked for. */
export const resetSent = (email: string) => `If ${email} has an account, a reset link is on its way. It works once, for an hour.`

/** Sets a new password with the token of a reset link. It signs the account out everywhere, this browser too: the page forgets its session. */
export const resetPassword = async (api: Api, token: string, password: string): Promise<void> =>
  void (await api.post('/v1/auth/password-reset/confirm', { body: { token, password } }))

/** Signs out. A failure is no matter (the session may have ended already): the page forgets its session either way. */
export const signOut = async (api: Api): Promise<void> => void (await api.post('/v1/auth/signout').catch(() => {}))

/** The invitation of a link, or, when it cannot be used (unknown, used, expired or revoked: 404), why in the API's words. */
export async function readInvitation(api: Api, token: string): Promise<{ invitation: Invitation } | { unusable: string }> {
  try {
    return { invitation: await api.get('/v1/invitations/{token}', { path: { token } }) }
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err
    return { unusable: err.detail }
  }
}

/**
 * What the invitation page offers: to accept it when signed in with the
 * address it was sent to; to sign out first when signed in with another;
 * else to sign up or sign in with its address, and join.
 */
export function invitationChoice(me: { email: string } | null, inv: Pick<Invitation, 'email'>): 'accept' | 'other-account' | 'join' {
  if (!me) return 'join'
  return me.email.toLowerCase() === inv.email.toLowerCase() ? 'accept' : 'other-account'
}

/** Accepts an invitation as the person signed in; resolves to the workspace joined. */
export const acceptInvitation = async (api: Api, token: string): Promise<string> => (await api.post('/v1/invitations/{token}/accept', { path: { token } })).workspace

/** Signs up with the invitation's address and joins its workspace; resolves to the workspace joined. */
export async function signUpInvited(api: Api, token: string, email: string, password: string): Promise<string> {
  // With an invitation the account is made at once (201), never left to an e-mailed link (202).
  const joined = (await api.post('/v1/auth/signup', { body: { email, password, invitation: token, client: 'web' } })) as Schemas['SignedUp']
  api.setCsrf(joined.csrf)
  return joined.workspace
}
