// A channel across workspaces, as one string: `${workspace id}/${slug}`. The
// batcher files the channels it has seen committed under it, the fan-out and
// the pool's tasks the devices of a channel; it is made and taken apart here
// only. The workspace id is a number, so the first '/' ends it.
export type ChannelKey = `${number}/${string}`

/** A channel of a workspace, by id and slug. */
export interface ChannelRef {
  ws: number
  channel: string
}

/** The key of channel `channel` of workspace `ws`. */
export const channelKey = (ws: number, channel: string): ChannelKey => `${ws}/${channel}`

/** The workspace and channel a key names (channelKey's inverse). */
export function parseChannelKey(key: ChannelKey): ChannelRef {
  const at = key.indexOf('/')
  return { ws: Number(key.slice(0, at)), channel: key.slice(at + 1) }
}
