// What the service worker saves for offline use and how the pages know they
// were answered from it: shared by src/web/sw.ts and the dashboard, so both
// name the same cache, header and paths.

/** Feed data the app has shown, kept across versions of the app; emptied at sign-out. */
export const DATA_CACHE = 'herald-data-v1'
/** The app shell and its hashed assets, one cache per build (the SW's version). */
export const SHELL_CACHE_PREFIX = 'herald-shell-'
/**
 * Set on a saved copy of an API answer, to the time it was saved (ISO 8601).
 * Only copies carry it, so an answer that has it came from the cache, and
 * the page can say how old what it shows is.
 */
export const OFFLINE_HEADER = 'x-herald-offline'

// The GET answers the feed and event pages read, and /v1/me, without which
// the app cannot start: nothing else is saved (no auth endpoint, no keys, no
// members, no live stream).
const SAVED = [
  /^\/v1\/me$/,
  /^\/v1\/feed$/,
  /^\/v1\/workspaces\/[^/]+\/channels$/,
  /^\/v1\/workspaces\/[^/]+\/routers$/,
  /^\/v1\/workspaces\/[^/]+\/events\/[^/]+$/,
]

/** The paths src/http/routes/web.ts answers with the app shell: offline, the saved shell answers them. */
export const isShellPath = (pathname: string) => /^\/(?:|signin|signup(?:\/.*)?|reset(?:\/.*)?|invite\/.*|feed|w\/.*)$/.test(pathname)

/** Whether the answer to GET `pathname` is saved for offline use. */
export const isSavedData = (pathname: string) => SAVED.some((p) => p.test(pathname))

/** Deletes the saved feed data (sign-out: a shared device keeps nobody's events). */
export async function clearSavedData(): Promise<void> {
  if (typeof caches !== 'undefined') await caches.delete(DATA_CACHE)
}
