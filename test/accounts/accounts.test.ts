// Accounts, on every backend: sign-up, sign-in and sign-out for apps (bearer
// token) and browsers (HttpOnly cookie + CSRF), password reset through a real
// SMTP receiver, sign-in throttling, and sign-up by invitation only.
import { describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { backends, useMailedHerald, useTestHerald } from '../harness'
import { PASSWORD, bearerCall, browser, newEmail, signUp, signUpLink } from '../users'
import { expectProblem, waitFor } from '../support'
import { SIGNIN_LIMITS } from '../../src/accounts/throttle'
import { createMailer } from '../../src/accounts/mailer'
import { loadConfig } from '../../src/core/config'
import pino from 'pino'

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

for (const backend of backends) {
  describe(`accounts (${backend})`, () => {
    const { h, smtp } = useMailedHerald(backend, { HERALD_PUBLIC_URL: 'https://herald.example.com', SMTP_FROM: 'Herald <noreply@herald.example.com>' })
    const post = (path: string, body: unknown) => fetch(h.url + path, json(body))

    describe('happy path', () => {
      test('sign-up creates the user, a workspace with the channel "general", and makes them its owner', async () => {
        const email = newEmail('jane')
        const res = await post('/v1/auth/signup', { email, password: PASSWORD, workspace: `jane-${process.pid}-${Date.now().toString(36)}` })
        expect(res.status).toBe(201)
        const body = (await res.json()) as { userId: string; token: string; workspace: string; role: string; email: string }
        expect(body.token).toMatch(/^hrlu_[0-9A-Za-z]{36}$/)
        expect(body.role).toBe('owner')
        expect(body.email).toBe(email)
        expect(res.headers.get('set-cookie')).toBeNull() // an app gets no cookie
        const me = (await (await bearerCall(h, body.token)('GET', '/v1/me')).json()) as { email: string; workspaces: unknown[]; csrf?: string }
        expect(me.email).toBe(email)
        expect(me.csrf).toBeUndefined()
        expect(me.workspaces).toEqual([{ workspace: body.workspace, role: 'owner', defaultChannel: 'general' }])
        const channels = ((await (await bearerCall(h, body.token)('GET', `/v1/workspaces/${body.workspace}/channels`)).json()) as { channels: { slug: string; isDefault: boolean }[] }).channels
        expect(channels.map((c) => [c.slug, c.isDefault])).toEqual([['general', true]])
      })

      test('without a workspace name, one is made from the address, and made unique', async () => {
        const a = await signUp(h, { email: `same.name+${Date.now()}@example.com` })
        const b = await signUp(h, { email: `same.name+${Date.now()}@example.org` })
        expect(a.workspace).toMatch(/^same-name/)
        expect(b.workspace).toMatch(/^same-name/)
        expect(a.workspace).not.toBe(b.workspace)
      })

      test('a browser gets an HttpOnly SameSite cookie and a CSRF token; a change without the token is refused', async () => {
        const b = browser(h)
        const res = await b.session('/v1/auth/signup', { email: newEmail('web'), password: PASSWORD })
        expect(res.status).toBe(201)
        const cookie = res.headers.get('set-cookie')!
        expect(cookie).toMatch(/^herald_session=hrls_[0-9A-Za-z]{36}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000$/)
        const { workspace, csrf, token } = (await res.json()) as { workspace: string; csrf: string; token?: string }
        expect(token).toBeUndefined() // the session secret never reaches script
        expect(csrf.length).toBeGreaterThan(20)
        const me = (await (await b.call('GET', '/v1/me')).json()) as { csrf: string }
        expect(me.csrf).toBe(csrf)
        await expectProblem(await b.call('POST', `/v1/workspaces/${workspace}/keys`, { name: 'x' }, { csrf: false }), 403, 'csrf-failed')
        await expectProblem(await b.call('POST', `/v1/workspaces/${workspace}/keys`, { name: 'x' }, { headers: { 'x-csrf-token': 'forged' } }), 403, 'csrf-failed')
        expect((await b.call('POST', `/v1/workspaces/${workspace}/keys`, { name: 'x' })).status).toBe(201)
      })

      test('sign-in answers a token (app) or a cookie (web); sign-out revokes it', async () => {
        const p = await signUp(h)
        const res = await post('/v1/auth/signin', { email: p.email.toUpperCase(), password: PASSWORD })
        expect(res.status).toBe(200)
        const { token } = (await res.json()) as { token: string }
        const call = bearerCall(h, token)
        expect((await call('GET', '/v1/me')).status).toBe(200)
        expect((await call('POST', '/v1/auth/signout')).status).toBe(204)
        await expectProblem(await call('GET', '/v1/me'), 401, 'unauthorized')
        expect((await p.call('GET', '/v1/me')).status).toBe(200) // the sign-up token is another session

        const b = browser(h)
        expect((await b.session('/v1/auth/signin', { email: p.email, password: PASSWORD })).status).toBe(200)
        expect((await b.call('GET', '/v1/me')).status).toBe(200)
        const out = await b.call('POST', '/v1/auth/signout')
        expect(out.status).toBe(204)
        expect(out.headers.get('set-cookie')).toMatch(/^herald_session=; .*Max-Age=0/)
        await expectProblem(await b.call('GET', '/v1/me'), 401, 'unauthorized')
      })

      test('password reset: a link by e-mail, used once; the new password works and every old session ends', async () => {
        const p = await signUp(h)
        smtp.mails.length = 0
        const res = await post('/v1/auth/password-reset', { email: p.email })
        expect(res.status).toBe(202)
        const mail = await waitForMail(smtp.mails, p.email)
        expect(mail.headers.subject).toBe('Reset your Herald password')
        expect(mail.from).toBe('noreply@herald.example.com')
        const token = /https:\/\/herald\.example\.com\/reset\/([A-Za-z0-9_-]+)/.exec(mail.body)![1]!
        await expectProblem(await post('/v1/auth/password-reset/confirm', { token, password: 'short' }), 400, 'validation-failed')
        expect((await post('/v1/auth/password-reset/confirm', { token, password: 'a brand new passphrase' })).status).toBe(204)
        await expectProblem(await post('/v1/auth/password-reset/confirm', { token, password: 'another new passphrase' }), 400, 'validation-failed')
        await expectProblem(await p.call('GET', '/v1/me'), 401, 'unauthorized') // signed out everywhere
        await expectProblem(await post('/v1/auth/signin', { email: p.email, password: PASSWORD }), 401, 'invalid-credentials')
        expect((await post('/v1/auth/signin', { email: p.email, password: 'a brand new passphrase' })).status).toBe(200)
      })

      test('a reset for an unknown address answers the same 202 and sends nothing', async () => {
        smtp.mails.length = 0
        const res = await post('/v1/auth/password-reset', { email: newEmail('nobody') })
        expect(res.status).toBe(202)
        expect(await res.json()).toEqual({})
        await Bun.sleep(300)
        expect(smtp.mails).toHaveLength(0)
      })
    })

    describe('bad input', () => {
      test('a short password, a bad address, a bad workspace name: 400 naming the field', async () => {
        const short = await expectProblem(await post('/v1/auth/signup', { email: newEmail(), password: 'short' }), 400, 'validation-failed')
        expect(short.errors?.[0]?.pointer).toBe('/password')
        expect(short.detail).toContain('at least 10 characters')
        const bad = await expectProblem(await post('/v1/auth/signup', { email: 'not-an-address', password: PASSWORD }), 400, 'validation-failed')
        expect(bad.errors?.map((e) => e.pointer)).toContain('/email')
        await expectProblem(await post('/v1/auth/signup', { email: newEmail(), password: PASSWORD, workspace: 'Not A Slug' }), 400, 'validation-failed')
      })

      test('an address with an account gets the same 202 as a new one, and its owner an e-mail; a taken workspace name is 409', async () => {
        const p = await signUp(h)
        const fresh = newEmail()
        const known = await post('/v1/auth/signup', { email: p.email.toUpperCase(), password: PASSWORD })
        const unknown = await post('/v1/auth/signup', { email: fresh, password: PASSWORD })
        expect([known.status, unknown.status]).toEqual([202, 202])
        const [a, b] = [(await known.json()) as Record<string, string>, (await unknown.json()) as Record<string, string>]
        expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort())
        expect(a.detail!.replace(p.email.toUpperCase(), 'X')).toBe(b.detail!.replace(fresh, 'X'))
        await waitFor(() => smtp.mails.some((m) => m.to.includes(p.email.toUpperCase()) || m.to.includes(p.email)))
        const told = smtp.mails.findLast((m) => m.to.some((t) => t.toLowerCase() === p.email.toLowerCase()))!
        expect(told.headers.subject).toContain('Someone tried to create a Herald account')
        expect(told.body).not.toContain('/signup/confirm/')
        expect(told.body).toContain('https://herald.example.com/reset')
        // Nothing changed: the old password still works, and there is one account.
        expect((await post('/v1/auth/signin', { email: p.email, password: PASSWORD })).status).toBe(200)
        await expectProblem(await post('/v1/auth/signup', { email: newEmail(), password: PASSWORD, workspace: p.workspace }), 409, 'conflict')
      })

      test('a sign-up link creates the account once; a used, forged or malformed one is 400', async () => {
        const email = newEmail()
        expect((await post('/v1/auth/signup', { email, password: PASSWORD, workspace: `ws-${Date.now().toString(36)}` })).status).toBe(202)
        // No account until the link is opened.
        expect((await post('/v1/auth/signin', { email, password: PASSWORD })).status).toBe(401)
        const token = await signUpLink(h, email)
        const link = smtp.mails.findLast((m) => m.to.includes(email))!
        expect(link.body).toContain(`https://herald.example.com/signup/confirm/${token}`)
        const [one, two] = await Promise.all([post('/v1/auth/signup/confirm', { token }), post('/v1/auth/signup/confirm', { token })])
        expect([one.status, two.status].sort()).toEqual([201, 400])
        expect((await post('/v1/auth/signin', { email, password: PASSWORD })).status).toBe(200)
        await expectProblem(await post('/v1/auth/signup/confirm', { token }), 400, 'validation-failed')
        await expectProblem(await post('/v1/auth/signup/confirm', { token: 'x'.repeat(43) }), 400, 'validation-failed')
        await expectProblem(await post('/v1/auth/signup/confirm', { token: 'a b\u0000' }), 400, 'validation-failed')
        await expectProblem(await post('/v1/auth/signup/confirm', {}), 400, 'validation-failed')
      })

      test('a wrong password and an unknown address get the same answer', async () => {
        const p = await signUp(h)
        const wrong = await post('/v1/auth/signin', { email: p.email, password: 'not the password' })
        const unknown = await post('/v1/auth/signin', { email: newEmail('ghost'), password: 'not the password' })
        expect(wrong.status).toBe(401)
        expect(unknown.status).toBe(401)
        expect(await wrong.json()).toEqual(await unknown.json())
      })
    })

    describe('security', () => {
      test('no token, a malformed one, a forged one and an API key are all 401 on /v1/me', async () => {
        await expectProblem(await fetch(h.url + '/v1/me'), 401, 'unauthorized')
        await expectProblem(await bearerCall(h, 'garbage')('GET', '/v1/me'), 401, 'unauthorized')
        await expectProblem(await bearerCall(h, 'hrlu_' + 'A'.repeat(36))('GET', '/v1/me'), 401, 'unauthorized')
        const ws = await h.workspace()
        await expectProblem(await bearerCall(h, ws.apiKey)('GET', '/v1/me'), 401, 'unauthorized')
      })

      test('an expired web session is refused', async () => {
        const b = browser(h)
        await b.session('/v1/auth/signup', { email: newEmail(), password: PASSWORD })
        const sql = h.db.sql
        await sql`UPDATE user_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'web' AND prefix = ${b.cookie.slice('herald_session='.length, 'herald_session='.length + 12)}`
        await Bun.sleep(2100) // past the verification cache
        await expectProblem(await b.call('GET', '/v1/me'), 401, 'unauthorized')
      })

      test(`after ${SIGNIN_LIMITS.email} wrong passwords the account is throttled, even with the right one, with Retry-After`, async () => {
        const p = await signUp(h)
        for (let i = 0; i < SIGNIN_LIMITS.email; i++) expect((await post('/v1/auth/signin', { email: p.email, password: `wrong ${i}` })).status).toBe(401)
        const res = await post('/v1/auth/signin', { email: p.email, password: PASSWORD })
        await expectProblem(res, 429, 'signin-throttled')
        const wait = Number(res.headers.get('retry-after'))
        expect(wait).toBeGreaterThan(0)
        expect(wait).toBeLessThanOrEqual(15 * 60)
        // Another account from the same address is not throttled by it.
        const other = await signUp(h)
        expect((await post('/v1/auth/signin', { email: other.email, password: PASSWORD })).status).toBe(200)
      })

      test('passwords are stored as argon2id, and no token is stored in clear', async () => {
        const p = await signUp(h)
        const [row] = await h.db.sql<{ hash: string }[]>`SELECT password_hash AS hash FROM users WHERE id = ${p.userId}`
        expect(row!.hash).toStartWith('$argon2id$')
        const tokens = await h.db.sql<{ prefix: string; hash: Uint8Array }[]>`SELECT prefix, hash FROM user_tokens WHERE user_id = ${p.userId}`
        expect(tokens).toHaveLength(1)
        expect(tokens[0]!.prefix).toBe(p.token.slice(0, 12))
        expect(Buffer.from(tokens[0]!.hash).toString('hex')).toBe(new Bun.CryptoHasher('sha256').update(p.token).digest('hex'))
      })
    })
  })
}

describe('sign-up by invitation only', () => {
  const h = useTestHerald('embedded', { HERALD_SIGNUP: 'invite' })

  test('an open sign-up is 403; one with an invitation for that address joins the workspace', async () => {
    await expectProblem(await fetch(h.url + '/v1/auth/signup', json({ email: newEmail(), password: PASSWORD })), 403, 'forbidden')
    const { name } = await h.workspace()
    const owner = await h.admin('POST', `/admin/workspaces/${name}/members`, { email: newEmail('owner'), role: 'owner' })
    const { userToken } = (await owner.json()) as { userToken: string }
    const email = newEmail('invitee')
    const invite = await bearerCall(h, userToken)('POST', `/v1/workspaces/${name}/invitations`, { email, role: 'admin' })
    expect(invite.status).toBe(201)
    const { link } = (await invite.json()) as { link: string }
    const token = link.split('/invite/')[1]!
    await expectProblem(await fetch(h.url + '/v1/auth/signup', json({ email: newEmail('other'), password: PASSWORD, invitation: token })), 403, 'forbidden')
    const res = await fetch(h.url + '/v1/auth/signup', json({ email, password: PASSWORD, invitation: token }))
    expect(res.status).toBe(201)
    expect(await res.json()).toMatchObject({ workspace: name, role: 'admin' })
    await expectProblem(await fetch(h.url + `/v1/invitations/${token}`), 404, 'not-found') // used up
  })
})

test('without SMTP_URL, an account e-mail is logged instead, link included', async () => {
  const lines: string[] = []
  const log = pino({ level: 'info' }, { write: (s: string) => lines.push(s) })
  const mailer = createMailer(loadConfig({}), log)
  await mailer.send({ to: 'a@b.c', subject: 'Reset your Herald password', text: 'Here: https://x/reset/abc' })
  const entry = JSON.parse(lines.find((l) => l.includes('SMTP_URL is unset'))!)
  expect(entry).toMatchObject({ to: 'a@b.c', subject: 'Reset your Herald password', text: 'Here: https://x/reset/abc' })
})

async function waitForMail(mails: { to: string[]; headers: Record<string, string>; body: string; from: string }[], to: string) {
  const end = Date.now() + 10_000
  for (;;) {
    const m = mails.find((x) => x.to.includes(to))
    if (m) return m
    if (Date.now() > end) throw new Error(`no mail to ${to}`)
    await Bun.sleep(20)
  }
}
