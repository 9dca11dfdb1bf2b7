// Signed-out pages: sign in, sign up, password reset (ask for a link, and
// the page the link opens), and accepting an invitation. What each form
// asks of the API, and what the answers mean, is in state/auth.ts.
import { api } from './api'
import { html, insert, path, render, type Html } from './html'
import { home, navigate, safeNext, type PageContext } from './router'
import { session } from './session'
import { announce, onSubmit } from './ui'
import {
  acceptInvitation, confirmSignUp, invitationChoice, PASSWORD_MIN, readInvitation, requestReset, resetPassword, resetSent, signIn, signOut, signUp, signUpInvited,
  waitingWorkspace,
} from './state/auth'

/** A text field of a submitted form. */
const field = (data: FormData, name: string) => String(data.get(name) ?? '')

const emailField = (id: string, value = '', readonly = false) => html`<div class="field">
  <label for="${id}">E-mail address</label>
  <input id="${id}" name="email" type="email" autocomplete="${readonly ? 'username' : 'email'}" required value="${value}" ${readonly ? html`readonly` : ''}>
</div>`

const passwordField = (id: string, autocomplete: 'current-password' | 'new-password', label = 'Password') => html`<div class="field">
  <label for="${id}">${label}</label>
  <input id="${id}" name="password" type="password" autocomplete="${autocomplete}" required ${autocomplete === 'new-password' ? html`minlength="${PASSWORD_MIN}" aria-describedby="${id}-hint"` : ''}>
  ${autocomplete === 'new-password' ? html`<p class="hint" id="${id}-hint">At least ${PASSWORD_MIN} characters.</p>` : ''}
</div>`

const card = (title: string, body: Html) => html`<div class="auth-card"><h1 tabindex="-1">${title}</h1>${body}</div>`

/** After signing in: load who I am, then go where the visitor was headed. */
async function signedIn(next: string | null) {
  await session.refresh()
  navigate(safeNext(next) ?? home(), true)
}

export function signinPage(ctx: PageContext) {
  ctx.title('Sign in')
  const notice = ctx.query.get('signedout') ? 'You are signed out.' : ctx.query.get('reset') ? 'Your password is changed: sign in with the new one.' : ''
  render(
    ctx.root,
    card(
      'Sign in to Herald',
      html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
      <form class="stack" novalidate>
        <p class="form-error" role="alert"></p>
        ${emailField('signin-email')}
        ${passwordField('signin-password', 'current-password')}
        <button type="submit">Sign in</button>
      </form>
      <p><a href="/reset">Forgot your password?</a></p>
      <p>New to Herald? <a href="/signup${ctx.query.get('next') ? `?next=${encodeURIComponent(ctx.query.get('next')!)}` : ''}">Create an account</a></p>`,
    ),
  )
  onSubmit(ctx.root.querySelector('form')!, async (data) => {
    await signIn(api, field(data, 'email'), field(data, 'password'))
    await signedIn(ctx.query.get('next'))
  })
}

export function signupPage(ctx: PageContext) {
  ctx.title('Sign up')
  render(
    ctx.root,
    card(
      'Create your Herald account',
      html`<form class="stack" novalidate>
        <p class="form-error" role="alert"></p>
        ${emailField('signup-email')}
        ${passwordField('signup-password', 'new-password')}
        <div class="field">
          <label for="signup-workspace">Workspace name <span class="muted">(optional)</span></label>
          <input id="signup-workspace" name="workspace" autocomplete="organization" maxlength="64" aria-describedby="signup-workspace-hint">
          <p class="hint" id="signup-workspace-hint">Lower-case letters, digits, "-" and "_". Left empty, it is made from your address.</p>
        </div>
        <button type="submit">Create account</button>
      </form>
      <p>Have an account? <a href="/signin">Sign in</a></p>`,
    ),
  )
  // On a fresh install, say whose the demo workspace will be before anyone signs up.
  void waitingWorkspace(api).then((waiting) => {
    const form = ctx.root.querySelector('form')
    if (!waiting || !form?.isConnected) return
    insert(form, 'beforebegin', html`<p class="notice" role="status" data-testid="first-owner">You are the first to sign up on this Herald: your account will own the workspace <strong>${waiting}</strong>, where the events sent with the key printed at first start already are.</p>`)
    const hint = form.querySelector('#signup-workspace-hint')
    if (hint) hint.textContent = `Optional: a second workspace of yours, besides ${waiting}.`
  }).catch(() => {})
  onSubmit(ctx.root.querySelector('form')!, async (data) => {
    const created = await signUp(api, field(data, 'email'), field(data, 'password'), field(data, 'workspace'))
    if (created.kind === 'confirmation-sent') {
      render(
        ctx.root,
        card(
          'Check your e-mail',
          html`<p role="status">${created.detail}</p>
          <p class="hint">The link works once, for 24 hours. No e-mail? Look in the spam folder; on a Herald without SMTP_URL, the operator finds the link in the server log.</p>
          <p><a href="/signin">Back to sign in</a></p>`,
        ),
      )
      return
    }
    announce(`Welcome to Herald. Your workspace is ${created.workspace}.`)
    await signedIn(safeNext(ctx.query.get('next')) ?? path('w', created.workspace, 'feed'))
  })
}

/** The page the e-mailed sign-up link opens: one click creates the account. */
export function signupConfirmPage(ctx: PageContext) {
  ctx.title('Finish creating your account')
  render(
    ctx.root,
    card(
      'Finish creating your account',
      html`<form class="stack" novalidate>
        <p class="form-error" role="alert"></p>
        <p>Your address is confirmed once you create the account.</p>
        <button type="submit">Create my account</button>
      </form>
      <p>The link expired? <a href="/signup">Sign up again</a>.</p>`,
    ),
  )
  onSubmit(ctx.root.querySelector('form')!, async () => {
    const workspace = await confirmSignUp(api, ctx.params.token!)
    announce(`Welcome to Herald. Your workspace is ${workspace}.`)
    await signedIn(path('w', workspace, 'feed'))
  })
}

export function resetRequestPage(ctx: PageContext) {
  ctx.title('Reset your password')
  render(
    ctx.root,
    card(
      'Reset your password',
      html`<p>Enter the address of your account; we will e-mail you a link to choose a new password.</p>
      <form class="stack" novalidate>
        <p class="form-error" role="alert"></p>
        ${emailField('reset-email', session.me?.email ?? '')}
        <button type="submit">Send the link</button>
      </form>
      <p id="reset-sent" role="status"></p>
      <p><a href="/signin">Back to sign in</a></p>`,
    ),
  )
  onSubmit(ctx.root.querySelector('form')!, async (data) => {
    await requestReset(api, field(data, 'email'))
    ctx.root.querySelector('#reset-sent')!.textContent = resetSent(field(data, 'email'))
  })
}

export function resetConfirmPage(ctx: PageContext) {
  ctx.title('Choose a new password')
  render(
    ctx.root,
    card(
      'Choose a new password',
      html`<form class="stack" novalidate>
        <p class="form-error" role="alert"></p>
        ${passwordField('reset-password', 'new-password', 'New password')}
        <button type="submit">Set the new password</button>
      </form>
      <p>The link expired? <a href="/reset">Ask for a new one</a>.</p>`,
    ),
  )
  onSubmit(ctx.root.querySelector('form')!, async (data) => {
    await resetPassword(api, ctx.params.token!, field(data, 'password'))
    session.clear() // a reset signs the account out everywhere
    navigate('/signin?reset=1', true)
  })
}

export async function invitePage(ctx: PageContext) {
  ctx.title('Invitation')
  const token = ctx.params.token!
  const read = await readInvitation(api, token)
  if ('unusable' in read) {
    render(ctx.root, card('This invitation cannot be used', html`<p class="error" role="alert">${read.unusable}</p><p>Ask whoever invited you for a new link, or <a href="/">go to the dashboard</a>.</p>`))
    return
  }
  const inv = read.invitation
  const me = session.me
  const choice = invitationChoice(me, inv)
  const intro = html`<p>You are invited to the workspace <strong>${inv.workspace}</strong> as <strong>${inv.role}</strong>, with the address <strong>${inv.email}</strong>.</p>`
  /** Joined: who I am now (my workspaces), then the workspace's feed. */
  const joined = async (workspace: string) => {
    await session.refresh()
    announce(`You joined ${workspace}.`)
    navigate(path('w', workspace, 'feed'), true)
  }
  const accept = async () => joined(await acceptInvitation(api, token))
  if (choice === 'accept') {
    render(ctx.root, card('Join a workspace', html`${intro}<form class="stack" novalidate><p class="form-error" role="alert"></p><button type="submit">Accept the invitation</button></form>`))
    onSubmit(ctx.root.querySelector('form')!, accept)
    return
  }
  if (choice === 'other-account') {
    render(ctx.root, card('Join a workspace', html`${intro}<p class="notice">You are signed in as ${me!.email}. Sign out, then open this link again to accept it with ${inv.email}.</p><button type="button" data-signout>Sign out</button>`))
    ctx.root.querySelector('[data-signout]')!.addEventListener('click', async () => {
      await signOut(api)
      session.clear()
      navigate(location.pathname, true)
    })
    return
  }
  render(
    ctx.root,
    card(
      'Join a workspace',
      html`${intro}
      <div class="split">
        <section aria-labelledby="inv-new"><h2 id="inv-new">New to Herald</h2>
          <form class="stack" data-form="signup" novalidate><p class="form-error" role="alert"></p>
            ${emailField('inv-signup-email', inv.email, true)}${passwordField('inv-signup-password', 'new-password', 'Choose a password')}
            <button type="submit">Create account and join</button></form></section>
        <section aria-labelledby="inv-have"><h2 id="inv-have">I have an account</h2>
          <form class="stack" data-form="signin" novalidate><p class="form-error" role="alert"></p>
            ${emailField('inv-signin-email', inv.email, true)}${passwordField('inv-signin-password', 'current-password')}
            <button type="submit">Sign in and join</button></form></section>
      </div>`,
    ),
  )
  onSubmit(ctx.root.querySelector('form[data-form=signup]')!, async (data) => {
    await joined(await signUpInvited(api, token, inv.email, field(data, 'password')))
  })
  onSubmit(ctx.root.querySelector('form[data-form=signin]')!, async (data) => {
    await signIn(api, inv.email, field(data, 'password'))
    await session.refresh()
    await accept()
  })
}
