// The installed app's badge: the member's unread count (the Badging API),
// from the feed page while it is open and from the service worker on a push.
// Best effort: browsers without the API, or outside an installed app, ignore it.
type Badging = { setAppBadge?(n?: number): Promise<void>; clearAppBadge?(): Promise<void> }

/** Shows `unread` on the app's icon (nothing at 0). */
export function showUnread(target: Badging, unread: number): void {
  const done = unread > 0 ? target.setAppBadge?.(unread) : target.clearAppBadge?.()
  void done?.catch(() => {})
}
