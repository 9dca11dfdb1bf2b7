// The dashboard's client of the JSON API: same-origin fetch with the session
// cookie, the CSRF token on every change, and every failure as one ApiError
// that carries the problem's detail and its field errors. It notes answers
// the service worker gave from its saved copies, so a page can say so.
//
// Calls are typed from the OpenAPI document: `paths` and `components` of
// clients/typescript/src/openapi.ts (generated from /openapi.json, checked
// current by test/client/types.test.ts). `api.get('/v1/workspaces/{workspace}/usage',
// { path: { workspace } })` takes its path, parameters and body from the
// document and resolves to the schema of its 2xx answer, so a path the API
// lacks, a missing parameter or a wrong body fails type-checking. The import
// is of types only: nothing of it reaches the bundle.
import type { components, paths as Paths } from '../../clients/typescript/src/openapi'
import { OFFLINE_HEADER } from './offline'

/** The named schemas of the OpenAPI document. */
export type Schemas = components['schemas']
export type Me = Schemas['Me']
export type MyWorkspace = Schemas['MyWorkspace']
export type FieldError = Schemas['FieldError']
export type Problem = Schemas['Problem']
export type Role = MyWorkspace['role']

export class ApiError extends Error {
  constructor(
    readonly status: number, // 0 when Herald could not be reached
    readonly detail: string,
    readonly errors: FieldError[] = [],
    readonly code = '',
  ) {
    super(detail)
  }
}

// --- types of a call, from the document ---------------------------------------

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
/** The paths that answer `method`. */
export type PathOf<M extends Method> = { [P in keyof Paths]: Paths[P][M] extends { responses: object } ? P : never }[keyof Paths]
/** The operation of `method` on `path`. */
export type Operation<P extends keyof Paths, M extends Method> = NonNullable<Paths[P][M]>

type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never
/** `{ key: V }` when the operation requires it, `{ key?: V }` when it may have it, `{}` when it has none. */
type Slot<T, K extends string, V> = T extends Record<K, unknown> ? Record<K, V> : [V] extends [never] ? {} : Partial<Record<K, V>>
type Params<O> = O extends { parameters: infer P } ? P : never
type Value<T, K extends string> = T extends Partial<Record<K, infer V>> ? NonNullable<V> : never
type BodyOf<O> = O extends { requestBody?: infer B } ? Json<NonNullable<B>> : never
type Slots<O> = Slot<Params<O>, 'path', Value<Params<O>, 'path'>> & Slot<Params<O>, 'query', Value<Params<O>, 'query'>> & Slot<O, 'requestBody', BodyOf<O>>
/** What a call passes besides its path: `path` and `query` parameters, and the JSON `body`. */
export type Init<O> = Slots<O> extends infer I ? { [K in keyof I as K extends 'requestBody' ? 'body' : K]: I[K] } : never
/** The JSON of the operation's success answers (undefined for one without a body, such as 204). */
export type Answer<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? (R[S] extends { content: { 'application/json': infer J } } ? J : undefined) : never }[keyof R]
  : never
type Args<O> = {} extends Init<O> ? [init?: Init<O>] : [init: Init<O>]
/** A typed call: `api.get(path, { path, query })`, `api.post(path, { path, body })`. */
export type Call<M extends Method> = <P extends PathOf<M>>(path: P, ...init: Args<Operation<P, M>>) => Promise<Answer<Operation<P, M>>>

interface LooseInit {
  path?: object
  query?: object
  body?: unknown
}

/** A query string of the non-empty values. */
export function query(params: object): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

/** A path of the document with its parameters filled in (each encoded), and its query. */
export function urlOf(template: string, init: LooseInit = {}): string {
  const params = (init.path ?? {}) as Record<string, unknown>
  const path = template.replace(/\{(\w+)\}/g, (_, k: string) => {
    if (params[k] === undefined || params[k] === null) throw new TypeError(`${template}: no value for {${k}}`)
    return encodeURIComponent(String(params[k]))
  })
  return path + query(init.query ?? {})
}

// --- the client ---------------------------------------------------------------

/** How a request goes out: the browser's fetch in the dashboard, a fetch with a base URL and a cookie in the tests. */
export type Send = (url: string, init: RequestInit) => Promise<Response>

async function problemOf(res: Response): Promise<ApiError> {
  let body: Partial<Problem> & { errors?: FieldError[] } = {}
  try {
    body = await res.json()
  } catch {}
  const code = body.type?.split('/').pop() ?? ''
  return new ApiError(res.status, body.detail ?? body.title ?? `Herald answered ${res.status} ${res.statusText}.`, body.errors ?? [], code)
}

/** A client of the API over `send`, with its own CSRF token and offline mark. */
export function createApi(send: Send = (url, init) => fetch(url, init)) {
  let csrf = ''
  let savedAt: string | null = null

  /** Calls the API; resolves to the parsed JSON (undefined for 204), rejects with an ApiError. Untyped: prefer `api.get` and the others. */
  async function request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf
    let res: Response
    try {
      res = await send(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) })
    } catch {
      throw new ApiError(0, 'Herald could not be reached: check your connection, then try again.')
    }
    if (!res.ok) throw await problemOf(res)
    const saved = res.headers.get(OFFLINE_HEADER)
    if (saved && (!savedAt || saved < savedAt)) savedAt = saved
    if (res.status === 204) return undefined as T
    const text = await res.text()
    return (text ? JSON.parse(text) : undefined) as T
  }

  const typed = <M extends Method>(method: M): Call<M> =>
    ((path: string, init?: LooseInit) => request(method.toUpperCase(), urlOf(path, init), init?.body)) as Call<M>

  return Object.assign(request, {
    get: typed('get'),
    post: typed('post'),
    put: typed('put'),
    patch: typed('patch'),
    delete: typed('delete'),
    setCsrf(token: string | undefined) {
      csrf = token ?? ''
    },
    /**
     * When answers came from the service worker's saved copies (offline): the
     * time the oldest of them was saved, since `resetOffline`; null when all
     * came from Herald.
     */
    offlineSince: () => savedAt,
    resetOffline() {
      savedAt = null
    },
  })
}

export type Api = ReturnType<typeof createApi>

/** The dashboard's client: same origin, the page's session cookie. */
export const api = createApi()
export const setCsrf = (token: string | undefined) => api.setCsrf(token)
export const offlineSince = () => api.offlineSince()
export const resetOffline = () => api.resetOffline()
