// The dashboard's client of the JSON API: same-origin fetch with the session
// cookie, the CSRF token on every change, and every failure as one ApiError
// that carries the problem's detail and its field errors. It notes answers
// the service worker gave from its saved copies, so a page can say so.
import { OFFLINE_HEADER } from './offline'

export interface FieldError {
  pointer?: string
  parameter?: string
  detail: string
}

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

export type Role = 'owner' | 'admin' | 'member'
export interface MyWorkspace {
  workspace: string
  role: Role
  defaultChannel: string
}
export interface Me {
  userId: string
  email: string
  csrf?: string
  workspaces: MyWorkspace[]
}

let csrf = ''
let savedAt: string | null = null

/**
 * When answers came from the service worker's saved copies (offline): the
 * time the oldest of them was saved, since `resetOffline`; null when all
 * came from Herald.
 */
export const offlineSince = () => savedAt
export const resetOffline = () => {
  savedAt = null
}

export const setCsrf = (token: string | undefined) => {
  csrf = token ?? ''
}

async function problemOf(res: Response): Promise<ApiError> {
  let body: { detail?: string; title?: string; type?: string; errors?: FieldError[] } = {}
  try {
    body = await res.json()
  } catch {}
  const code = body.type?.split('/').pop() ?? ''
  return new ApiError(res.status, body.detail ?? body.title ?? `Herald answered ${res.status} ${res.statusText}.`, body.errors ?? [], code)
}

/** Calls the API; resolves to the parsed JSON (undefined for 204), rejects with an ApiError. */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf
  let res: Response
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) })
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

/** A query string of the non-empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

const ws = (workspace: string) => `/v1/workspaces/${encodeURIComponent(workspace)}`
/** Paths of the workspace-scoped API. */
export const paths = {
  workspace: ws,
  usage: (w: string) => `${ws(w)}/usage`,
  channels: (w: string, page: { q?: string; cursor?: string | null; limit?: number } = {}) => `${ws(w)}/channels${query(page)}`,
  channel: (w: string, slug: string) => `${ws(w)}/channels/${encodeURIComponent(slug)}`,
  members: (w: string) => `${ws(w)}/members`,
  member: (w: string, userId: string) => `${ws(w)}/members/${encodeURIComponent(userId)}`,
  invitations: (w: string) => `${ws(w)}/invitations`,
  invitation: (w: string, id: string) => `${ws(w)}/invitations/${encodeURIComponent(id)}`,
  keys: (w: string) => `${ws(w)}/keys`,
  key: (w: string, id: number) => `${ws(w)}/keys/${id}`,
  routers: (w: string) => `${ws(w)}/routers`,
  router: (w: string, id: string) => `${ws(w)}/routers/${encodeURIComponent(id)}`,
  event: (w: string, id: string) => `${ws(w)}/events/${encodeURIComponent(id)}`,
  replay: (w: string, id: string) => `${ws(w)}/deliveries/${encodeURIComponent(id)}/replay`,
  deliveries: (w: string) => `${ws(w)}/deliveries`,
  deliveryCounts: (w: string, eventIds: string[]) => `${ws(w)}/deliveries/counts?events=${eventIds.map(encodeURIComponent).join(',')}`,
  replayFailed: (w: string) => `${ws(w)}/deliveries/replay`,
}

/** A page of a workspace's channels, as GET …/channels answers. */
export interface ChannelPage<C = { slug: string; isDefault: boolean; muted: boolean; createdAt: string }> {
  channels: C[]
  nextCursor: string | null
}
