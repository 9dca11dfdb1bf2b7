// A workspace's routers as the routers page lists them: read, sent a test
// event, deleted; and what the API shows of a destination (its secrets never
// are). The form that creates and edits one is page_router_form.ts; it reads
// the router it edits with readRouter, and its previews and saving are in
// state/router_form.ts.
import type { Api, Schemas } from '../api'

/** A router as the API shows it; its destination always names its type. */
export type RouterView = Omit<Schemas['Router'], 'destination'> & { destination: Record<string, unknown> & { type: string } }
export type TestResult = Schemas['RouterTestResult']

export const listRouters = async (api: Api, workspace: string): Promise<RouterView[]> =>
  (await api.get('/v1/workspaces/{workspace}/routers', { path: { workspace } })) as RouterView[]

export const readRouter = async (api: Api, workspace: string, id: string): Promise<RouterView> =>
  (await api.get('/v1/workspaces/{workspace}/routers/{id}', { path: { workspace, id } })) as RouterView

/** Sends a test event through the router; the outcome says whether its destination took it. */
export const testRouter = (api: Api, workspace: string, id: string) => api.post('/v1/workspaces/{workspace}/routers/{id}/test', { path: { workspace, id } })

/** Ends every pending delivery of the router, failed or cancelled; how many. */
export const settleRouterDeliveries = async (api: Api, workspace: string, id: string, state: 'failed' | 'cancelled') =>
  (await api.post('/v1/workspaces/{workspace}/routers/{id}/deliveries/settle', { path: { workspace, id }, body: { state } })).settled

export const deleteRouter = (api: Api, workspace: string, id: string) => api.delete('/v1/workspaces/{workspace}/routers/{id}', { path: { workspace, id } })

/**
 * A destination's URL as the API shows it: its origin, and "/…" for its path
 * and query, which may hold a token (Slack's and Discord's do) and are never
 * shown after creation. `hidden` says so, for the page to say it in words
 * rather than end the address with an ellipsis that reads as a cut for want of room.
 */
export function shownUrl(url: string): { url: string; hidden: boolean } {
  const hidden = url.endsWith('/…')
  return { url: hidden ? url.slice(0, -2) : url, hidden }
}

/** What the API shows of a destination without a URL: its chat, its recipients. */
export function destinationParts(d: RouterView['destination']): string[] {
  const parts = [d.chatId !== undefined ? `chat ${d.chatId}` : undefined, Array.isArray(d.to) ? d.to.join(', ') : d.to]
  return parts.filter((p) => p !== undefined && p !== null).map(String)
}
