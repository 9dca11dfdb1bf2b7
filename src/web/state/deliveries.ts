// The deliveries page's state: the filters (state, router, device, time) as
// the address holds them, the first page read again (and drawn again only
// when it changed), older pages from the cursor, replays, and reading the
// list again for a while after one. Rendering is in page_deliveries.ts.
import { query, type Api, type Schemas } from '../api'
import { path } from '../html'
import { plural } from '../ui'

export type DeliveryItem = Schemas['DeliveryListItem']
export type DeliveryStatus = DeliveryItem['status']
export type BulkReplay = Schemas['BulkReplayResult']

export const DELIVERY_FILTERS = ['state', 'router', 'device', 'since', 'until'] as const
export type DeliveryFilters = Partial<Record<(typeof DELIVERY_FILTERS)[number], string>>

export const DELIVERY_PAGE = 50
// After a replay, the list is read again this often, for this long.
export const POLL_MS = 2000
export const POLL_FOR_MS = 30_000

/** The filters of a deliveries address; an empty one is no filter. */
export function deliveryFilters(params: { get(name: string): string | null }): DeliveryFilters {
  return Object.fromEntries(DELIVERY_FILTERS.flatMap((k) => (params.get(k) ? [[k, params.get(k)!]] : [])))
}

export const isFiltered = (f: DeliveryFilters) => DELIVERY_FILTERS.some((k) => f[k])

const pad = (n: number) => String(n).padStart(2, '0')
/** An ISO time as the value of a datetime-local field, in the visitor's zone. */
export function localValue(iso: string | undefined): string {
  const d = iso ? new Date(iso) : null
  if (!d || Number.isNaN(d.getTime())) return ''
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}
/** A datetime-local value (the visitor's zone) as an ISO time; `end` takes the last millisecond of its minute, so "until 12:30" includes 12:30. */
export function isoOf(value: string, end: boolean): string {
  const d = value ? new Date(value) : null
  if (!d || Number.isNaN(d.getTime())) return ''
  return new Date(d.getTime() + (end ? 59_999 : 0)).toISOString()
}

/** Where the filter form goes: the deliveries page with the form's values in the address, its times as ISO times. */
export function deliveriesHref(workspace: string, form: { get(name: string): unknown }): string {
  const text = (k: string) => String(form.get(k) ?? '').trim()
  return path('w', workspace, 'deliveries') + query({ state: text('state'), router: text('router'), device: text('device'), since: isoOf(text('since'), false), until: isoOf(text('until'), true) })
}

/** The deliveries page with the filters of `f` and those of `more`. */
export const filteredHref = (workspace: string, f: DeliveryFilters, more: DeliveryFilters) => path('w', workspace, 'deliveries') + query({ ...f, ...more })

/** Whether "Replay failed…" is offered: to owners and admins, when the filter can hold failed deliveries. */
export const canReplayAll = (canManage: boolean, f: DeliveryFilters) => canManage && (!f.state || f.state === 'failed')

/** The question asked before replaying the failed deliveries of a filter, `count` being the dry run's answer; null when there is nothing to replay. */
export function replayQuestion(count: BulkReplay): string | null {
  if (count.matched === 0) return null
  const what = plural(count.matched, 'failed delivery', 'failed deliveries')
  const message = count.more
    ? `Replay the newest ${what} that match these filters? More match: replay again afterwards for the rest.`
    : `Replay ${count.matched === 1 ? 'the' : 'all'} ${what} that match${count.matched === 1 ? 'es' : ''} these filters?`
  return `${message} Each is sent again under its own id, with a fresh retry schedule.`
}

/** What a bulk replay did, in words. */
export function replayedMessage(done: BulkReplay): string {
  const taken = done.replayed < done.matched ? ' Some were being replayed already.' : ''
  return `${plural(done.replayed, 'delivery', 'deliveries')} replayed.${taken}${done.more ? ' More failed deliveries match: replay again for the rest.' : ''}`
}

/** A router as the delivery log names it: its name, and whether and how its destination fails. */
export type RouterInfo = Pick<Schemas['Router'], 'name' | 'enabled' | 'health'>

/** The workspace's routers by id; none when they cannot be read (the log then says "deleted router"). */
export async function routersById(api: Api, workspace: string): Promise<Map<string, RouterInfo>> {
  const routers = await api.get('/v1/workspaces/{workspace}/routers', { path: { workspace } }).catch(() => [])
  return new Map(routers.map((r) => [r.id, { name: r.name, enabled: r.enabled, health: r.health }]))
}

/** The names of the workspace's routers by id; none when they cannot be read (the list then says "Deleted router"). */
export async function routerNames(api: Api, workspace: string): Promise<Map<string, string>> {
  return new Map([...(await routersById(api, workspace))].map(([id, r]) => [id, r.name]))
}

/** The deliveries of `workspace` under the filters `f`. */
export function createDeliveries(api: Api, workspace: string, f: DeliveryFilters, pageSize = DELIVERY_PAGE) {
  let cursor: string | null = null
  let pages = 0
  let shown = ''
  let pollUntil = 0
  // A state the API does not know is passed on as it is: the list then says what the API answers (400).
  const filter = { ...f, state: f.state as DeliveryStatus | undefined }
  const read = (at?: string) => api.get('/v1/workspaces/{workspace}/deliveries', { path: { workspace }, query: { ...filter, cursor: at, limit: pageSize } })
  const replayed = () => {
    pollUntil = Date.now() + POLL_FOR_MS
  }
  return {
    /** Whether there are older deliveries than those read. */
    get more() {
      return cursor !== null
    },
    /**
     * Reads the first page again. `changed` is false when it is the page
     * shown already (and no older page is shown), so the list need not be
     * drawn again: a read after a replay then keeps the focus of someone moving through it.
     */
    async first(): Promise<{ deliveries: DeliveryItem[]; changed: boolean }> {
      const page = await read()
      const json = JSON.stringify(page)
      const changed = json !== shown || pages !== 1
      if (changed) {
        shown = json
        pages = 1
        cursor = page.nextCursor
      }
      return { deliveries: page.deliveries, changed }
    },
    /** The next older page. */
    async older(): Promise<DeliveryItem[]> {
      if (cursor === null) return []
      const page = await read(cursor)
      pages++
      cursor = page.nextCursor
      return page.deliveries
    },
    /**
     * Whether to read the first page again in POLL_MS: for POLL_FOR_MS after
     * a replay (replayed deliveries may leave the filter, failed ones being
     * pending for a while), while only the first page is shown.
     */
    polling: (now = Date.now()) => now < pollUntil && pages === 1,
    async replay(id: string) {
      await api.post('/v1/workspaces/{workspace}/deliveries/{id}/replay', { path: { workspace, id } })
      replayed()
    },
    /** How many failed deliveries of the filter a replay would take (nothing is replayed). */
    countFailed: () => api.post('/v1/workspaces/{workspace}/deliveries/replay', { path: { workspace }, body: { ...filter, dryRun: true } }),
    async replayFailed(): Promise<BulkReplay> {
      const done = await api.post('/v1/workspaces/{workspace}/deliveries/replay', { path: { workspace }, body: filter })
      replayed()
      return done
    },
  }
}
