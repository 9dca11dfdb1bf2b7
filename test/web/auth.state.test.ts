// The signed-out pages' state (src/web/state/auth.ts): which choice an
// invitation page offers, and, against a real Herald that e-mails its links
// to a real SMTP receiver, each flow as a browser runs it with its session
// cookie: the first account made at once, a later one through its e-mailed
// link, sign-in, password reset and invitations; and what a person hits on
// the way: a wrong password, a taken workspace name, a field refused in words,
// a link used twice.
import { describe, expect, test } from 'bun:test'
import { ApiError, type Api } from '../../src/web/api'
import {
  acceptInvitation, confirmSignUp, invitationChoice, PASSWORD_MIN, readInvitation, requestReset, resetPassword, resetSent, signIn, signOut, signUp, signUpInvited,
  waitingWorkspace,
} from '../../src/web/state/auth'
import { peopleChanges } from '../../src/web/state/members'
import { backends, useTestHerald, type TestHerald } from '../harness'
import { newEmail, PASSWORD, signUpLink } from '../users'
import { signUpWeb, visitorApi } from './signed_in'

/** The ApiError a call fails with (the test fails if it succeeds). */
async function failure(call: Promise<unknown>): Promise<ApiError> {
  const err = await call.then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(ApiError)
  return err as ApiError
}

/** Whether the client is signed in, and its CSRF token accepted: it reads who it is, and makes a change. */
async function signedInAs(api: Api, email: string) {
  const me = await api.get('/v1/me')
  expect(me.email).toBe(email)
  await api.post('/v1/workspaces/{workspace}/keys', { path: { workspace: me.workspaces[0]!.workspace }, body: { name: 'proof' } })
  return me
}

const RESET_LINK = /\/reset\/([A-Za-z0-9_-]+)/
/** The token of the newest reset link e-mailed to `email`. */
async function resetLink(h: TestHerald, email: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const mail = h.mails!.findLast((m) => m.to.includes(email) && RESET_LINK.test(m.body))
    if (mail) return RESET_LINK.exec(mail.body)![1]!
    await Bun.sleep(10)
  }
  throw new Error(`no reset link was e-mailed to ${email}`)
}

describe('what the invitation page offers', () => {
  const inv = { email: 'Jane@Example.com' }

  test('signed out: sign up or sign in, and join', () => {
    expect(invitationChoice(null, inv)).toBe('join')
  })

  test('signed in with its address (in any case): accept; with another: sign out first', () => {
    expect(invitationChoice({ email: 'jane@example.com' }, inv)).toBe('accept')
    expect(invitationChoice({ email: 'joe@example.com' }, inv)).toBe('other-account')
  })
})

test('a reset asked for is said the same whether the address has an account or not', () => {
  expect(resetSent('jane@example.com')).toBe('If jane@example.com has an account, a reset link is on its way. It works once, for an hour.')
})

// Only the embedded default makes a workspace at first start (on PostgreSQL
// none waits: test/accounts/first_owner.test.ts).
describe("a fresh install's first sign-up (embedded)", () => {
  // The workspace made at first start, with its key, waits for an owner.
  const h = useTestHerald('embedded', { HERALD_DEMO_WORKSPACE: 'true' })

  test('says whose the waiting workspace will be, then makes the first account at once, signed in', async () => {
    const { api } = visitorApi(h)
    const waiting = await waitingWorkspace(api)
    expect(waiting).toBeString()
    const email = newEmail('first')
    const made = await signUp(api, email, PASSWORD)
    expect(made).toEqual({ kind: 'created', workspace: waiting! })
    await signedInAs(api, email)
    expect(await waitingWorkspace(api)).toBeNull()
  })
})

for (const backend of backends) {
  describe(`auth state against Herald (${backend})`, () => {
    const h = useTestHerald(backend)

    test('a sign-up is finished through its e-mailed link, which works once', async () => {
      await signUpWeb(h, 'someone-first') // not the first account of this Herald, whose sign-up is made at once
      const { api } = visitorApi(h)
      const email = newEmail('signup')
      const sent = await signUp(api, email, PASSWORD, '  my-team  ')
      expect(sent).toEqual({ kind: 'confirmation-sent', detail: `We e-mailed a link to ${email}: open it to finish creating your account.` })
      const token = await signUpLink(h, email)
      expect(await confirmSignUp(api, token)).toBe('my-team')
      await signedInAs(api, email)

      const again = await failure(confirmSignUp(visitorApi(h).api, token))
      expect(again.status).toBe(400)
      expect(again.errors.map((e) => [e.pointer, e.detail])).toEqual([['/token', 'invalid, used or expired']])
    })

    test('a taken workspace name, a short password and a malformed name are refused in words, each on its field', async () => {
      const owner = await signUpWeb(h, 'taken')
      const { api } = visitorApi(h)
      const taken = await failure(signUp(api, newEmail('second'), PASSWORD, owner.workspace))
      expect(taken.status).toBe(409)
      expect(taken.detail).toBe(`The workspace name "${owner.workspace}" is taken; choose another.`)

      const short = await failure(signUp(api, newEmail('short'), 'short'))
      expect(short.status).toBe(400)
      expect(short.errors).toEqual([{ pointer: '/password', detail: `password must be at least ${PASSWORD_MIN} characters` }])

      const malformed = await failure(signUp(api, newEmail('malformed'), PASSWORD, 'My Team!'))
      expect(malformed.status).toBe(400)
      const [workspace, ...rest] = malformed.errors
      expect(rest).toEqual([])
      expect(workspace!.pointer).toBe('/workspace')
      // Words a person reads, not a regular expression.
      expect(workspace!.detail).toContain('must be lower-case letters, digits, "-" and "_"')
      expect(workspace!.detail).not.toMatch(/\^|\$|\[/)

      const address = await failure(signUp(api, 'not an address', PASSWORD))
      expect(address.status).toBe(400)
      expect(address.errors.map((e) => e.pointer)).toEqual(['/email'])
    })

    test('sign-in: a wrong password and an unknown address fail alike; the right one signs in; sign-out ends it', async () => {
      const { email } = await signUpWeb(h, 'signin')
      const { api, cookie } = visitorApi(h)
      for (const [who, password] of [[email, 'not the password'], [newEmail('nobody'), PASSWORD]] as const) {
        const wrong = await failure(signIn(api, who, password))
        expect(wrong.status).toBe(401)
        expect(wrong.detail).toBe('The e-mail address or the password is wrong.')
      }
      expect(cookie()).toBe('')

      await signIn(api, email, PASSWORD)
      await signedInAs(api, email)
      await signOut(api)
      expect(cookie()).toBe('')
      expect((await failure(api.get('/v1/me'))).status).toBe(401)
      await signOut(api) // signed out already: no matter
    })

    test('a password reset: the same answer for any address; a short password refused; the link signs out everywhere and works once', async () => {
      const { email } = await signUpWeb(h, 'reset')
      const elsewhere = visitorApi(h).api
      await signIn(elsewhere, email, PASSWORD)
      const { api } = visitorApi(h)
      await requestReset(api, newEmail('nobody'))
      await requestReset(api, email)
      const token = await resetLink(h, email)

      const short = await failure(resetPassword(api, token, 'short'))
      expect(short.status).toBe(400)
      expect(short.errors.map((e) => e.pointer)).toEqual(['/password'])

      await resetPassword(api, token, 'a brand new passphrase')
      expect((await failure(elsewhere.get('/v1/me'))).status).toBe(401)
      expect((await failure(signIn(api, email, PASSWORD))).status).toBe(401)
      await signIn(api, email, 'a brand new passphrase')
      await signedInAs(api, email)

      const used = await failure(resetPassword(visitorApi(h).api, token, 'yet another passphrase'))
      expect(used.status).toBe(400)
      expect(used.errors.map((e) => e.pointer)).toEqual(['/token'])
    })

    test('an invitation is read, joined by signing up with its address, and then cannot be used again', async () => {
      const owner = await signUpWeb(h, 'inviter')
      const email = newEmail('invited')
      const token = (await peopleChanges(owner.api, owner.workspace).invite(email, 'admin')).link.split('/').at(-1)!
      const { api } = visitorApi(h)
      expect(await readInvitation(api, token)).toEqual({ invitation: { workspace: owner.workspace, email, role: 'admin' } })

      // The invitation makes the account at once: no e-mailed link.
      expect(await signUpInvited(api, token, email, PASSWORD)).toBe(owner.workspace)
      const me = await signedInAs(api, email)
      expect(me.workspaces.map((w) => [w.workspace, w.role])).toEqual([[owner.workspace, 'admin']])

      const used = await readInvitation(visitorApi(h).api, token)
      expect(used).toEqual({ unusable: 'This invitation is invalid, used or expired.' })
      expect(await readInvitation(api, 'no-such-invitation-token')).toEqual(used)
    })

    test('someone with an account signs in and accepts; signing up again with its address says to sign in', async () => {
      const owner = await signUpWeb(h, 'inviter-2')
      const invited = await signUpWeb(h, 'has-account')
      await signOut(invited.api)
      const token = (await peopleChanges(owner.api, owner.workspace).invite(invited.email, 'member')).link.split('/').at(-1)!
      const { api } = visitorApi(h)

      const exists = await failure(signUpInvited(api, token, invited.email, PASSWORD))
      expect(exists.status).toBe(409)
      expect(exists.detail).toBe('An account with this address exists: sign in, then accept the invitation.')

      const wrong = await failure(signIn(api, invited.email, 'not the password'))
      expect(wrong.status).toBe(401)
      await signIn(api, invited.email, PASSWORD)
      const read = await readInvitation(api, token)
      expect('invitation' in read && invitationChoice(await api.get('/v1/me'), read.invitation)).toBe('accept')
      expect(await acceptInvitation(api, token)).toBe(owner.workspace)
      expect((await api.get('/v1/me')).workspaces.map((w) => w.workspace).sort()).toEqual([invited.workspace, owner.workspace].sort())
    })
  })
}
