// A batch of events cut into pool tasks of at most CHUNK deliveries: events
// share a task while they fit, and an event whose channel has more devices is
// cut into several tasks, so that a large channel is spread over the pool's
// threads and recorded as it goes.
import { channelKey, type ChannelKey } from '../core/channel_key'
import type { Incoming } from './bus'
import type { RouterSpec } from './job'
import type { PushTarget } from './push/job'

// Deliveries per pool task at most: a task's results are written in one
// statement, and a thread sends a task's deliveries together.
export const CHUNK = 500

/** A pool task's share of a batch: its events, and the routers and devices they may go to. */
export interface Chunk {
  events: Incoming[]
  routers: Record<string, RouterSpec[]> // by workspace id
  devices: Record<ChannelKey, PushTarget[]> // by channel (channelKey)
  /** Per event (its index in `events`) whose devices are not all of its channel's (recipients, preferences): those, in place of the channel's. */
  only?: Record<number, PushTarget[]>
  units: number // of work (backpressure.ts): one per event, plus one per device
}

/**
 * The chunks of `batch`, given the routers that match each event (`routersOf`)
 * and the devices of its channels, or of the event itself when `only` has it. A chunk carries, per workspace, only the
 * routers some event of it matched, each once; the pool thread matches every
 * event against those. Routers count as one unit (they are few), devices as
 * one each. An event with neither is in no chunk.
 */
export function chunkBatch(batch: Incoming[], routersOf: (e: Incoming) => RouterSpec[], byChannel: Record<ChannelKey, PushTarget[]>, only?: Map<Incoming, PushTarget[]>): Chunk[] {
  const chunks: Chunk[] = []
  let open: Chunk | null = null
  const taken = new Map<RouterSpec[], Set<RouterSpec>>() // per chunk and workspace: the routers in it
  const add = (chunk: Chunk, ws: number, routers: RouterSpec[]) => {
    const list = (chunk.routers[ws] ??= [])
    let set = taken.get(list)
    if (!set) taken.set(list, (set = new Set()))
    for (const r of routers) if (!set.has(r)) (set.add(r), list.push(r))
  }
  for (const e of batch) {
    const key = channelKey(e.workspaceId, e.channel)
    const routerList = routersOf(e)
    const own = only?.get(e)
    const deviceList = own ?? byChannel[key] ?? []
    if (!routerList.length && !deviceList.length) continue
    const units = 1 + deviceList.length
    if (units > CHUNK) {
      for (let i = 0; i < deviceList.length; i += CHUNK) {
        const devices = deviceList.slice(i, i + CHUNK)
        const routers = i === 0 && routerList.length ? { [e.workspaceId]: routerList } : {}
        chunks.push(own ? { events: [e], routers, devices: {}, only: { 0: devices }, units: 1 + devices.length } : { events: [e], routers, devices: { [key]: devices }, units: 1 + devices.length })
      }
      continue
    }
    if (!open || open.units + units > CHUNK) chunks.push((open = { events: [], routers: {}, devices: {}, units: 0 }))
    open.events.push(e)
    open.units += units
    if (routerList.length) add(open, e.workspaceId, routerList)
    if (own) (open.only ??= {})[open.events.length - 1] = own
    else if (deviceList.length) open.devices[key] = deviceList
  }
  return chunks
}
