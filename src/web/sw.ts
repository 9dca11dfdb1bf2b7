// The service worker, served at /sw.js with the scope /. It keeps the app
// usable offline (the shell and this build's assets precached, navigations
// and the feed data network-first with the saved copy as the fallback), and
// it is the Web Push end of Herald: a push shows a notification, a click on
// it opens the event. src/http/routes/web.ts builds it and defines
// HERALD_BUILD: the build's version and the URLs to precache.
import { api, ApiError, setCsrf, type Me } from './api'
import { DATA_CACHE, OFFLINE_HEADER, SHELL_CACHE_PREFIX, isSavedData, isShellPath } from './offline'
import { VAPID_KEY_PATH, deviceBody, keyBytes, type PushPayload } from './push'
import { showUnread } from './badge'

declare const HERALD_BUILD: { version: string; precache: string[]; icon: string; badge: string }

// The service-worker types the DOM library lacks (the WebWorker library
// cannot be loaded beside it), as far as this file uses them.
interface ExtendableEvent extends Event {
  waitUntil(work: Promise<unknown>): void
}
interface FetchEvt extends ExtendableEvent {
  request: Request
  respondWith(response: Promise<Response>): void
}
interface PushEvt extends ExtendableEvent {
  data: { json(): unknown } | null
}
interface NotificationEvt extends ExtendableEvent {
  notification: Notification
  action: string // '' for a click on the notification itself
}
interface SubscriptionChangeEvt extends ExtendableEvent {
  oldSubscription: PushSubscription | null
  newSubscription: PushSubscription | null
}
interface WindowClient {
  url: string
  focus(): Promise<WindowClient>
  navigate(url: string): Promise<WindowClient | null>
}
interface Events {
  install: ExtendableEvent
  activate: ExtendableEvent
  fetch: FetchEvt
  push: PushEvt
  notificationclick: NotificationEvt
  pushsubscriptionchange: SubscriptionChangeEvt
}
interface WorkerScope {
  registration: ServiceWorkerRegistration
  location: Location
  clients: {
    matchAll(options: { type: 'window' }): Promise<WindowClient[]>
    openWindow(url: string): Promise<WindowClient | null>
    claim(): Promise<void>
  }
  skipWaiting(): Promise<void>
  addEventListener<K extends keyof Events>(type: K, listener: (event: Events[K]) => void): void
}

const sw = self as unknown as WorkerScope
const BUILD = HERALD_BUILD // named once: the bundler writes the definition out at each use
const SHELL_CACHE = SHELL_CACHE_PREFIX + BUILD.version
const SHELL = '/' // every dashboard path is the same shell; it is kept under this key
const precached = new Set(BUILD.precache.filter((url) => url !== SHELL))

sw.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL_CACHE)
      .then((cache) => cache.addAll(BUILD.precache))
      .then(() => sw.skipWaiting()), // the shell names this build's bundle, so it takes over at once
  )
})

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith(SHELL_CACHE_PREFIX) && n !== SHELL_CACHE).map((n) => caches.delete(n))))
      .then(() => sw.clients.claim()),
  )
})

// --- offline ------------------------------------------------------------------

sw.addEventListener('fetch', (event) => {
  const { request } = event
  if (request.method !== 'GET') return
  const url = new URL(request.url)
  if (url.origin !== sw.location.origin) return
  if (request.mode === 'navigate') {
    if (isShellPath(url.pathname)) event.respondWith(navigation(request))
  } else if (precached.has(url.pathname)) event.respondWith(fromShellCache(request))
  else if (isSavedData(url.pathname)) event.respondWith(data(request, url))
})

async function navigation(request: Request): Promise<Response> {
  const cache = await caches.open(SHELL_CACHE)
  try {
    const response = await fetch(request)
    if (response.ok) await cache.put(SHELL, response.clone())
    return response
  } catch (err) {
    const saved = await cache.match(SHELL)
    if (!saved) throw err
    return offlineShell(saved)
  }
}

/**
 * The saved shell, telling the page to ask /v1/me (which it will find
 * saved) when there is a saved /v1/me: the shell was perhaps saved before
 * the person signed in, when it said there was no session.
 */
async function offlineShell(saved: Response): Promise<Response> {
  const signedIn = (await (await caches.open(DATA_CACHE)).match('/v1/me')) !== undefined
  const text = (await saved.text()).replace('<meta name="herald-session" content="none">', `<meta name="herald-session" content="${signedIn ? 'maybe' : 'none'}">`)
  const headers = new Headers(saved.headers)
  headers.delete('content-length')
  headers.delete('content-encoding')
  return new Response(text, { status: 200, headers })
}

async function fromShellCache(request: Request): Promise<Response> {
  return (await caches.match(request, { cacheName: SHELL_CACHE })) ?? fetch(request)
}

/** Feed data: the network's answer, saved; offline, the saved copy, marked with the time it was saved. */
async function data(request: Request, url: URL): Promise<Response> {
  const cache = await caches.open(DATA_CACHE)
  let response: Response
  try {
    response = await fetch(request)
  } catch (err) {
    const saved = await cache.match(request, { ignoreVary: true })
    if (!saved) throw err
    return saved
  }
  // The session is over: what was saved under it goes.
  if (response.status === 401) await caches.delete(DATA_CACHE)
  else if (response.status === 200) await cache.put(request, await savedCopy(response.clone(), url))
  return response
}

async function savedCopy(response: Response, url: URL): Promise<Response> {
  let body = await response.text()
  // The CSRF token belongs to the session, not to what the page shows.
  if (url.pathname === '/v1/me') body = JSON.stringify({ ...(JSON.parse(body) as Me), csrf: undefined })
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  headers.delete('content-encoding')
  headers.set(OFFLINE_HEADER, new Date().toISOString())
  return new Response(body, { status: 200, headers })
}

// --- Web Push -----------------------------------------------------------------

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined)

/** A path of this site, or undefined: a push names only pages of the app. */
function samePath(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v.startsWith('/')) return undefined
  const url = new URL(v, sw.location.origin)
  return url.origin === sw.location.origin ? url.pathname + url.search : undefined
}

function readPush(data: PushEvt['data']): Partial<PushPayload> {
  try {
    const json = data?.json()
    return json && typeof json === 'object' ? (json as Partial<PushPayload>) : {}
  } catch {
    return {} // not JSON: still a notification, a generic one
  }
}

/**
 * How the event's priority and collapse key show: 1 makes no sound or
 * vibration; 5 stays until dismissed and alerts again when it replaces a
 * notification (a repeat). The tag is the collapse key, so that a newer event
 * with the same key replaces the older one (and alerts, being news, unless
 * it is priority 1); without one, the event id: a repeat of the event
 * replaces it silently.
 */
function shownAs(p: Partial<PushPayload>): { tag: string; silent: boolean; requireInteraction: boolean; renotify: boolean } {
  const priority = typeof p.priority === 'number' ? p.priority : 3
  const collapseKey = text(p.collapseKey)
  return {
    tag: collapseKey ?? text(p.eventId) ?? 'herald',
    silent: priority <= 1,
    requireInteraction: priority >= 5,
    renotify: priority >= 5 || (collapseKey !== undefined && priority > 1),
  }
}

// A push always shows a notification: browsers penalise (and Safari ends)
// subscriptions that push silently.
sw.addEventListener('push', (event) => {
  const p = readPush(event.data)
  // An event read on another device: close its notification here (same tag).
  const dismiss = p as { type?: unknown; tags?: unknown; workspace?: unknown }
  if (dismiss.type === 'dismiss' && Array.isArray(dismiss.tags)) {
    event.waitUntil(closeNotifications(dismiss.tags.filter((t): t is string => typeof t === 'string'), text(dismiss.workspace)))
    return
  }
  const workspace = text(p.workspace)
  const where = workspace && text(p.channel) ? `${workspace} · #${p.channel}` : workspace
  const url = samePath(p.url) ?? (workspace ? `/w/${encodeURIComponent(workspace)}/feed` : '/')
  const options = {
    body: [text(p.body), where].filter(Boolean).join('\n') || 'Open Herald to read it.',
    ...shownAs(p),
    icon: BUILD.icon,
    badge: BUILD.badge,
    timestamp: Date.parse(String(p.createdAt)) || Date.now(),
    data: { url, eventId: text(p.eventId) ?? null, workspace: workspace ?? null, channel: text(p.channel) ?? null, receipt: text(p.receipt) ?? null },
    ...ackAction(p, workspace),
  }
  // The notification first; the badge's count (a request) after it, so that nothing it does can hold the notification back.
  event.waitUntil(sw.registration.showNotification(text(p.title) ?? 'New event', options as NotificationOptions).then(() => (workspace ? badgeUnread(workspace) : undefined)))
})

/** Closes the notifications shown with these tags, and counts the unread again for the badge. */
async function closeNotifications(tags: string[], workspace: string | undefined): Promise<void> {
  for (const tag of tags.slice(0, 100)) for (const n of await sw.registration.getNotifications({ tag })) n.close()
  if (workspace) await badgeUnread(workspace)
}

/** The app's badge: the member's unread count in the workspace of the push (best effort: signed out or offline, it stays). */
async function badgeUnread(workspace: string): Promise<void> {
  try {
    const page = await api.get('/v1/feed', { query: { workspace, limit: 1 } })
    showUnread(globalThis.navigator as never, page.counts.unread)
  } catch {}
}

sw.addEventListener('notificationclick', (event) => {
  event.notification.close()
  const data = event.notification.data as { url?: unknown; workspace?: unknown; receipt?: unknown } | null
  const page = samePath(data?.url) ?? '/'
  if (event.action === ACK_ACTION && text(data?.workspace) && text(data?.receipt)) {
    // Acknowledged from the notification, without opening the app; when that
    // fails (signed out, offline), the event's page opens to do it there.
    event.waitUntil(acknowledge(data!.workspace as string, data!.receipt as string).catch(() => showPage(page)))
  } else event.waitUntil(showPage(page))
})

// --- receipts: the "Acknowledge" action -----------------------------------------

const ACK_ACTION = 'ack'

/** The action of a notification whose event must be acknowledged. */
const ackAction = (p: Partial<PushPayload>, workspace: string | undefined) =>
  text(p.receipt) && workspace ? { actions: [{ action: ACK_ACTION, title: 'Acknowledge' }] } : {}

/**
 * Acknowledges as the person signed in to the app (the session cookie, and
 * the CSRF token of /v1/me), as done from a notification. A receipt no
 * longer pending (409) is done too.
 */
async function acknowledge(workspace: string, receipt: string): Promise<void> {
  const me = await api.get('/v1/me')
  setCsrf(me.csrf)
  try {
    await api.post('/v1/workspaces/{workspace}/receipts/{receipt}/ack', { path: { workspace, receipt }, body: { via: 'push' } })
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 409)) throw err
  }
}

/** Shows `url` in a window of the app that is open, else in a new one. */
async function showPage(url: string): Promise<void> {
  const [client] = await sw.clients.matchAll({ type: 'window' })
  if (!client) {
    await sw.clients.openWindow(url)
    return
  }
  // Browsers let a worker focus a window only in the moments after a click,
  // and refuse otherwise; the window is brought to the event either way.
  await client.focus().catch(() => client)
  await client.navigate(url)
}

// The push service replaced the subscription (it expired, or the browser
// renewed its keys): subscribe again with the same key, register the new
// one with Herald and remove the old. Best effort: without a session (the
// person signed out) there is nobody to register it for.
sw.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(resubscribe(event.oldSubscription, event.newSubscription).catch((err) => console.warn('could not renew the push subscription', err)))
})

async function resubscribe(old: PushSubscription | null, renewed: PushSubscription | null): Promise<void> {
  const key = old?.options.applicationServerKey ?? keyBytes((await api.get(VAPID_KEY_PATH)).publicKey)
  const subscription = renewed ?? (await sw.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }))
  let me: Me
  try {
    me = await api.get('/v1/me')
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return
    throw err
  }
  setCsrf(me.csrf)
  await api.post('/v1/devices', { body: deviceBody(subscription) })
  if (!old) return
  const devices = await api.get('/v1/devices')
  const stale = devices.find((d) => d.endpoint === old.endpoint)
  if (stale) await api.delete('/v1/devices/{id}', { path: { id: stale.id } })
}
