// A workspace's channels, for the channels page and the notifications page:
// read a page at a time (a workspace may hold HERALD_MAX_CHANNELS_PER_WORKSPACE
// of them), found by slug, and changed: created, renamed, made the default,
// muted or unmuted for me, deleted.
import type { Api, Schemas } from '../api'
import { path } from '../html'
import { pager, type Pager } from './pager'

export type Channel = Schemas['Channel']

export const CHANNEL_PAGE = 100

/** The channels of `workspace` in slug order, those whose slug contains `q` when it is given. */
export function channelPages(api: Api, workspace: string, q = '', limit = CHANNEL_PAGE): Pager<Channel> {
  return pager(async (cursor) => {
    const page = await api.get('/v1/workspaces/{workspace}/channels', { path: { workspace }, query: { q, cursor, limit } })
    return { items: page.channels, nextCursor: page.nextCursor }
  })
}

/** Where the search form goes: the channels page, with the search (trimmed, lower-case, as slugs are) in the address. */
export function searchHref(workspace: string, raw: string): string {
  const q = raw.trim().toLowerCase()
  return path('w', workspace, 'channels') + (q ? `?q=${encodeURIComponent(q)}` : '')
}

/** The changes a person makes to the channels of `workspace`. */
export function channelChanges(api: Api, workspace: string) {
  const at = (channel: string) => ({ path: { workspace, channel } })
  return {
    create: async (slug: string) => void (await api.post('/v1/workspaces/{workspace}/channels', { path: { workspace }, body: { slug } })),
    rename: async (slug: string, to: string) => void (await api.patch('/v1/workspaces/{workspace}/channels/{channel}', { ...at(slug), body: { slug: to } })),
    makeDefault: async (slug: string) => void (await api.patch('/v1/workspaces/{workspace}/channels/{channel}', { ...at(slug), body: { default: true } })),
    remove: (slug: string) => api.delete('/v1/workspaces/{workspace}/channels/{channel}', at(slug)),
    /** Mutes (or unmutes) the channel for me: no pushes of its events to any of my devices. */
    setMuted: (slug: string, mute: boolean) =>
      mute ? api.put('/v1/workspaces/{workspace}/channels/{channel}/mute', at(slug)) : api.delete('/v1/workspaces/{workspace}/channels/{channel}/mute', at(slug)),
  }
}
