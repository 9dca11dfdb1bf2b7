// The signed-in person's account: their live sessions (paged, newest first),
// ending one, changing their password, and renaming a workspace they own.
import type { Api, Schemas } from '../api'

export type MySession = Schemas['MySession']

/** The sessions a page at a time: first(), then next() while `more`. */
export function sessionPages(api: Api) {
  let cursor: string | null = null
  const pages = {
    more: false,
    async first(): Promise<MySession[]> {
      cursor = null
      return pages.next()
    },
    async next(): Promise<MySession[]> {
      const page = await api.get('/v1/me/sessions', { query: { limit: 50, ...(cursor ? { cursor } : {}) } })
      cursor = page.nextCursor
      pages.more = cursor !== null
      return page.sessions
    },
  }
  return pages
}

/** Signs that browser or app out at once. */
export const endSession = (api: Api, id: number) => api.delete('/v1/me/sessions/{sessionId}', { path: { sessionId: id } })

/** Every other session of the account ends; this one stays. */
export const changePassword = (api: Api, currentPassword: string, newPassword: string) => api.post('/v1/me/password', { body: { currentPassword, newPassword } })

export const renameWorkspace = (api: Api, workspace: string, name: string) => api.patch('/v1/workspaces/{workspace}', { path: { workspace }, body: { name: name.trim().toLowerCase() } })

/** "Chrome on Linux", "Safari on iPhone": enough of a User-Agent to tell sessions apart; the whole one is the title. */
export function deviceName(userAgent: string | null): string {
  if (!userAgent) return 'Unknown'
  const browser = /Edg\//.test(userAgent) ? 'Edge' : /Firefox\//.test(userAgent) ? 'Firefox' : /Chrome\//.test(userAgent) ? 'Chrome' : /Safari\//.test(userAgent) ? 'Safari' : /^herald-cli|^herald\//i.test(userAgent) ? 'herald CLI' : userAgent.split(/[\s/]/)[0]!
  const os = /iPhone|iPad/.test(userAgent) ? 'iPhone or iPad' : /Android/.test(userAgent) ? 'Android' : /Mac OS X|Macintosh/.test(userAgent) ? 'macOS' : /Windows/.test(userAgent) ? 'Windows' : /Linux|X11/.test(userAgent) ? 'Linux' : ''
  return os ? `${browser} on ${os}` : browser
}
