// People for the accounts and management tests: sign-up through the API, and
// callers that act as a person with a bearer token or as a browser with the
// session cookie and its CSRF token.
import type { TestHerald } from './harness'

export const PASSWORD = 'correct horse battery'
let n = 0
export const newEmail = (tag = 'user') => `${tag}-${process.pid}-${Date.now().toString(36)}-${++n}@example.com`

export type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>

export interface Person {
  email: string
  userId: string
  token: string
  workspace: string
  call: Call
}

/** A caller with a bearer token. */
export const bearerCall = (h: TestHerald, token: string): Call => (method, path, body, headers = {}) =>
  fetch(h.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

/** Signs a person up as an app would (client "app"). */
export async function signUp(h: TestHerald, over: { email?: string; workspace?: string; invitation?: string } = {}): Promise<Person> {
  const email = over.email ?? newEmail()
  const res = await fetch(h.url + '/v1/auth/signup', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD, ...(over.workspace ? { workspace: over.workspace } : {}), ...(over.invitation ? { invitation: over.invitation } : {}) }),
  })
  if (res.status === 202) return confirmSignUp(h, email)
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`)
  const body = (await res.json()) as { userId: string; token: string; workspace: string }
  return { email, userId: body.userId, token: body.token, workspace: body.workspace, call: bearerCall(h, body.token) }
}

/** The token of the newest sign-up link e-mailed to an address. */
export async function signUpLink(h: TestHerald, email: string): Promise<string> {
  if (!h.mails) throw new Error('this Herald has an SMTP_URL of its own: set h.mails to its receiver')
  for (let i = 0; i < 200; i++) {
    const mail = h.mails.findLast((m) => m.to.includes(email) && /\/signup\/confirm\//.test(m.body))
    if (mail) return /\/signup\/confirm\/([A-Za-z0-9_-]+)/.exec(mail.body)![1]!
    await Bun.sleep(10)
  }
  throw new Error(`no sign-up link was e-mailed to ${email}`)
}

/** Finishes a sign-up that answered 202 through its e-mailed link. */
async function confirmSignUp(h: TestHerald, email: string): Promise<Person> {
  const token = await signUpLink(h, email)
  const res = await fetch(h.url + '/v1/auth/signup/confirm', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) })
  if (res.status !== 201) throw new Error(`sign-up confirmation failed: ${res.status} ${await res.text()}`)
  const body = (await res.json()) as { userId: string; token: string; workspace: string }
  return { email, userId: body.userId, token: body.token, workspace: body.workspace, call: bearerCall(h, body.token) }
}

/** A browser: keeps the session cookie, and sends the CSRF token with changes unless told not to. */
export function browser(h: TestHerald) {
  let cookie = ''
  let csrf = ''
  const call = async (method: string, path: string, body?: unknown, opts: { csrf?: boolean; headers?: Record<string, string> } = {}) => {
    const res = await fetch(h.url + path, {
      method,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(opts.csrf === false || method === 'GET' ? {} : { 'x-csrf-token': csrf }),
        ...opts.headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    })
    const set = res.headers.get('set-cookie')
    if (set) cookie = set.split(';')[0]!.endsWith('=') ? '' : set.split(';')[0]!
    return res
  }
  return {
    call,
    get cookie() {
      return cookie
    },
    /** Signs in (or up) with client "web" and keeps the cookie and the CSRF token. */
    async session(path: '/v1/auth/signin' | '/v1/auth/signup', body: Record<string, unknown>) {
      let res = await call('POST', path, { ...body, client: 'web' }, { csrf: false })
      if (res.status === 202 && path === '/v1/auth/signup') {
        res = await call('POST', '/v1/auth/signup/confirm', { token: await signUpLink(h, String(body.email)), client: 'web' }, { csrf: false })
      }
      if (res.ok) csrf = ((await res.clone().json()) as { csrf: string }).csrf
      return res
    },
  }
}
