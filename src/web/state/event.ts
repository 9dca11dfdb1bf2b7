// An event's page: the event with every attempt of every delivery, the names
// of the routers they went to, whether the log is still due to change (and
// so read again), and replaying a failed delivery.
import type { Api, Schemas } from '../api'
import { FANOUT_GRACE_MS } from './delivery_state'
import { routersById } from './deliveries'

export type EventWithDeliveries = Schemas['EventWithDeliveries']
export type Delivery = Schemas['Delivery']

// While the log is due to change, it is read again this often.
export const POLL_MS = 2000

export const readEvent = (api: Api, workspace: string, eventId: string) => api.get('/v1/workspaces/{workspace}/events/{eventId}', { path: { workspace, eventId } })

/** The event and the workspace's routers by id (their names and health). */
export async function loadEvent(api: Api, workspace: string, eventId: string) {
  const [event, routers] = await Promise.all([readEvent(api, workspace, eventId), routersById(api, workspace)])
  return { event, routers }
}

/**
 * Whether the delivery log is due to change: a delivery is pending, or there
 * is none yet while the event is young enough for its fan-out to come (a new
 * event has no deliveries until the worker fans it out).
 */
export const awaited = (deliveries: Pick<Delivery, 'status'>[], createdAt: string, now = Date.now()) =>
  deliveries.some((d) => d.status === 'pending') || (!deliveries.length && now - Date.parse(createdAt) < FANOUT_GRACE_MS)

export const replayDelivery = (api: Api, workspace: string, id: string) => api.post('/v1/workspaces/{workspace}/deliveries/{id}/replay', { path: { workspace, id } })
