// Pushes to the installed app's service worker as its push service would,
// through the DevTools protocol (ServiceWorker.deliverPushMessage).
import type { BrowserContext, CDPSession, Page } from 'playwright-core'

// DevTools answers deliverPushMessage before the worker has the push event,
// and on a loaded machine Chromium now and then loses one: no notification,
// and none in the worker's list (seen in three full CI runs out of five,
// always right after the worker had handled a click or an action). A push
// service delivers again until the push is acknowledged; so does this, when
// the notification the test waits for has not shown within a few seconds.
const SHOWN_WITHIN_MS = 4_000
const DELIVERIES = 3

/** The registration of `origin`/ as this session sees it. */
function registrationOf(cdp: CDPSession, origin: string): Promise<string> {
  return new Promise<string>((resolve) =>
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }: { registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] }) => {
      const r = registrations.find((x) => x.scopeURL === `${origin}/` && !x.isDeleted)
      if (r) resolve(r.registrationId)
    }),
  )
}

/**
 * A session on `page` that pushes to the registration of `origin`/:
 * `push(data, shown?)` delivers `data`, and again (up to three times in all)
 * while `shown()` stays false for a few seconds. The session stays open until
 * `detach()`.
 */
export async function devtoolsPush(context: BrowserContext, page: Page, origin: string) {
  const cdp = await context.newCDPSession(page)
  const registrationId = registrationOf(cdp, origin)
  await cdp.send('ServiceWorker.enable')
  return {
    async push(data: string, shown?: () => Promise<boolean>) {
      for (let i = 1; ; i++) {
        await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: await registrationId, data })
        if (!shown || i === DELIVERIES) return
        for (const end = Date.now() + SHOWN_WITHIN_MS; Date.now() < end; await Bun.sleep(50)) if (await shown()) return
        console.error(`[devtools push] nothing shown ${SHOWN_WITHIN_MS} ms after delivery ${i}: delivering again`)
      }
    },
    detach: () => cdp.detach(),
  }
}
