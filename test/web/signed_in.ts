// The dashboard's API client (src/web/api.ts) as a signed-in browser uses it,
// for the tests of the page state modules (src/web/state/): a person signed up
// with client "web" against a real Herald, the session cookie on every
// request, and the CSRF token from GET /v1/me.
import { createApi, type Api, type Me } from '../../src/web/api'
import type { TestHerald } from '../harness'
import { browser, newEmail, PASSWORD } from '../users'

export interface SignedIn {
  api: Api
  me: Me
  email: string
  /** The workspace made at sign-up, owned by this person. */
  workspace: string
  /** The session cookie, for what the client does not call (the live stream). */
  cookie: string
}

/** A client of `h` with the cookie of a browser session (`browser` of test/users.ts). */
export function sessionApi(h: TestHerald, cookie: () => string): Api {
  return createApi((url, init) => fetch(h.url + url, { ...init, headers: { ...(init.headers as Record<string, string>), cookie: cookie() } }))
}

/**
 * A client of `h` as a browser that has not signed in yet: it keeps the
 * session cookie that answers set (and drops it when one clears it), as the
 * browser does, for the tests of signing in and up (state/auth.ts).
 */
export function visitorApi(h: TestHerald): { api: Api; cookie: () => string } {
  let cookie = ''
  const api = createApi(async (url, init) => {
    const res = await fetch(h.url + url, { ...init, headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } })
    const set = res.headers.get('set-cookie')?.split(';')[0]
    if (set) cookie = set.endsWith('=') ? '' : set
    return res
  })
  return { api, cookie: () => cookie }
}

/** Signs a new person up as the dashboard does and returns their client, with the CSRF token set. */
export async function signUpWeb(h: TestHerald, tag = 'web'): Promise<SignedIn> {
  const person = browser(h)
  const email = newEmail(tag)
  const res = await person.session('/v1/auth/signup', { email, password: PASSWORD })
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`)
  const api = sessionApi(h, () => person.cookie)
  const me = await api.get('/v1/me')
  api.setCsrf(me.csrf)
  return { api, me, email, workspace: me.workspaces[0]!.workspace, cookie: person.cookie }
}

/** Posts events to `workspace` with a fresh API key of it; their ids, in order. */
export async function postEvents(h: TestHerald, api: Api, workspace: string, bodies: Record<string, unknown>[]): Promise<string[]> {
  const { apiKey } = await api.post('/v1/workspaces/{workspace}/keys', { path: { workspace }, body: { name: 'events' } })
  const ids: string[] = []
  for (const body of bodies) {
    const res = await h.post(apiKey, body)
    if (res.status !== 200) throw new Error(`POST /event: ${res.status} ${await res.text()}`)
    ids.push(((await res.json()) as { eventId: string }).eventId)
  }
  return ids
}
