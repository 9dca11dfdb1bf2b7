// Priority and acknowledgement where a person touches them, in a real
// browser (Debian's Chromium through playwright-core) against a real Herald
// (embedded, and PostgreSQL when DATABASE_URL is set): the priority badges
// and the minPriority filter of the feed; the receipt on the event's page
// and its Acknowledge button, which stops the receipt (acknowledged, via
// "web", by the person signed in); the same button on a feed card; and the
// installed app's notification, whose "Acknowledge" action (run by the
// service worker itself) acknowledges via "push" without opening the app.
import { describe, expect, test } from 'bun:test'
import type { BrowserContext, Page } from 'playwright-core'
import { browserSuite, useSignedInBrowser } from '../browser'
import { webPushPayload } from '../../src/delivery/push/webpush'
import type { EventView } from '../../src/delivery/event_view'
import { backends } from '../harness'
import { eventually } from '../receiver'
import { devtoolsPush } from './devtools_push'

const describeBrowser = browserSuite('receipts.browser.test.ts')
const STEP_MS = 45_000
const DESKTOP = { width: 1200, height: 860 }

/** Pushes `data` to the app's service worker as its push service would (devtools_push.ts), until `shown()`. */
async function pushTo(context: BrowserContext, page: Page, origin: string, data: string, shown: () => Promise<boolean>) {
  const { push, detach } = await devtoolsPush(context, page, origin)
  await push(data, shown)
  await detach()
}

/**
 * The person picks the action `action` of the notification tagged `tag`: the
 * event dispatched in the worker to its own notificationclick listener, as
 * the browser would, awaiting what the listener waits on (waitUntil).
 */
function pickAction(context: BrowserContext, origin: string, tag: string, action: string) {
  const worker = context.serviceWorkers().find((w) => w.url() === `${origin}/sw.js`)!
  return worker.evaluate(async ([tag, action]) => {
    const scope = self as unknown as { registration: ServiceWorkerRegistration; NotificationEvent: new (type: string, init: { notification: Notification; action: string }) => Event }
    const [notification] = await scope.registration.getNotifications({ tag })
    const click = new scope.NotificationEvent('notificationclick', { notification: notification!, action })
    const waited: Promise<unknown>[] = []
    Object.defineProperty(click, 'waitUntil', { value: (p: Promise<unknown>) => waited.push(p) })
    self.dispatchEvent(click)
    await Promise.all(waited)
  }, [tag, action] as const)
}

for (const backend of backends) {
  describeBrowser(`priority and receipts in Chromium (${backend})`, () => {
    const email = `acker.${backend}.${Date.now()}@example.com`
    const ws = 'pager'
    const { herald, context, page, errors } = useSignedInBrowser({
      backend, viewport: DESKTOP, email, workspace: ws,
      prepare: (context, herald) => context.grantPermissions(['notifications'], { origin: herald.url }),
    })
    let apiKey = ''
    const post = async (body: Record<string, unknown>) => {
      if (!apiKey) apiKey = ((await (await herald.admin('POST', `/admin/workspaces/${ws}/keys`, { name: 'alerts' })).json()) as { apiKey: string }).apiKey
      const res = await herald.post(apiKey, body)
      expect(res.status).toBe(200)
      return (await res.json()) as { eventId: string; receipt?: string }
    }
    const receiptOf = async (id: string) =>
      (await (await fetch(`${herald.url}/receipts/${id}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { status: string; acknowledgedVia: string | null; acknowledgedBy: { email: string } | null }
    const ACK = { retry: '60s', expire: '1h' }
    const card = (eventId: string) => page.locator(`li[data-event-id="${eventId}"]`)

    test('the feed shows priorities as badges (urgent and high stand out, low muted, default none) and filters by the least', async () => {
      const low = await post({ message: 'Nightly backup done', priority: 'low' })
      const plain = await post({ message: 'Deploy finished' })
      const high = await post({ message: 'Latency above 2 s', priority: 4 })
      const urgent = await post({ message: 'Disk full on db-1', title: 'Disk full', priority: 'urgent', ack: ACK })
      await page.goto(`${herald.url}/w/${ws}/feed`)
      await card(urgent.eventId).waitFor()
      expect(await card(urgent.eventId).locator('.priority').textContent()).toBe('Priority: urgent')
      expect(await card(urgent.eventId).locator('.priority').getAttribute('data-priority')).toBe('5')
      expect(await card(high.eventId).locator('.priority').textContent()).toBe('Priority: high')
      expect(await card(low.eventId).locator('.priority').textContent()).toBe('Priority: low')
      expect(await card(plain.eventId).locator('.priority').count()).toBe(0)
      // Urgent stands out, low is muted: their colours differ from the default text.
      const styles = await page.evaluate(([u, l]) => [u, l].map((id) => getComputedStyle(document.querySelector(`li[data-event-id="${id}"] .priority`)!).backgroundColor), [urgent.eventId, low.eventId])
      expect(styles[0]).not.toBe(styles[1])
      // The urgent one awaits acknowledgement, with its button in the card.
      await card(urgent.eventId).locator('.receipt[data-receipt-status="pending"]').waitFor()
      expect(await card(urgent.eventId).getByRole('button', { name: 'Acknowledge' }).count()).toBe(1)
      expect(await card(plain.eventId).locator('.receipt-slot').count()).toBe(0)

      await page.getByLabel('Priority').selectOption('4')
      await page.getByRole('button', { name: 'Apply' }).click()
      await page.waitForURL(/minPriority=4/)
      await card(urgent.eventId).waitFor()
      await card(high.eventId).waitFor()
      expect(await page.locator('li[data-event-id]').count()).toBe(2)
      // A live event below the filter is left out, one above it shown.
      const liveLow = await post({ message: 'Cache warmed', priority: 2 })
      const liveUrgent = await post({ message: 'Replica lag 30 s', priority: 5 })
      await card(liveUrgent.eventId).waitFor()
      expect(await card(liveLow.eventId).count()).toBe(0)
    }, STEP_MS)

    test('the event page shows the priority and the receipt; its Acknowledge button stops the receipt (via web, by this person)', async () => {
      const { eventId, receipt } = await post({ message: 'Primary is down', title: 'DB down', priority: 'urgent', ack: ACK })
      await page.goto(`${herald.url}/w/${ws}/events/${eventId}`)
      await page.getByRole('heading', { name: 'DB down', level: 1 }).waitFor()
      expect(await page.locator('.details .priority').textContent()).toBe('Priority: urgent')
      const part = page.locator('.receipt-section .receipt')
      await part.locator('.badge', { hasText: 'Awaiting acknowledgement' }).waitFor()
      await page.getByRole('button', { name: 'Acknowledge' }).click()
      await page.locator('.receipt-section .receipt[data-receipt-status="acknowledged"]').waitFor()
      expect(await page.locator('.receipt-section .receipt-text').textContent()).toContain(`Acknowledged by ${email} on the dashboard`)
      expect(await page.getByRole('button', { name: 'Acknowledge' }).count()).toBe(0)
      expect(await receiptOf(receipt!)).toMatchObject({ status: 'acknowledged', acknowledgedVia: 'web', acknowledgedBy: { email } })
      // Read again, the page says who acknowledged it.
      await page.reload()
      await page.locator('.receipt-section .receipt[data-receipt-status="acknowledged"]').waitFor()
    }, STEP_MS)

    test('the Acknowledge button of a feed card stops the receipt', async () => {
      const { eventId, receipt } = await post({ message: 'Queue backed up', title: 'Queue', priority: 'high', ack: ACK })
      await page.goto(`${herald.url}/w/${ws}/feed`)
      await card(eventId).getByRole('button', { name: 'Acknowledge' }).click()
      await card(eventId).locator('.receipt[data-receipt-status="acknowledged"]').waitFor()
      expect(await receiptOf(receipt!)).toMatchObject({ status: 'acknowledged', acknowledgedVia: 'web' })
    }, STEP_MS)

    test('the installed app\'s notification has an Acknowledge action, which acknowledges (via push) from the service worker', async () => {
      const { eventId, receipt } = await post({ message: 'Certificate expires in 1 day', title: 'TLS', priority: 'urgent', ack: ACK })
      await page.goto(`${herald.url}/w/${ws}/feed`)
      await page.evaluate(() => navigator.serviceWorker.ready)
      const event = (await (await context.request.get(`${herald.url}/v1/workspaces/${ws}/events/${eventId}`)).json()) as EventView
      const payload = webPushPayload(event)
      expect(JSON.parse(payload)).toMatchObject({ receipt, workspace: ws })
      const shownTag = (tag: string) => () => page.evaluate(async (tag) => (await (await navigator.serviceWorker.ready).getNotifications({ tag })).length > 0, tag)
      await pushTo(context, page, herald.url, payload, shownTag(eventId))
      const shown = await eventually(
        () => page.evaluate(async (tag) => (await (await navigator.serviceWorker.ready).getNotifications({ tag })).map((n) => ({ title: n.title, actions: (n as unknown as { actions: { action: string; title: string }[] }).actions })), eventId).then((l) => (l.length ? l : null)),
        15_000, 'the notification')
      expect(shown).toEqual([{ title: 'TLS', actions: [expect.objectContaining({ action: 'ack', title: 'Acknowledge' })] }])
      const before = page.url()
      await pickAction(context, herald.url, eventId, 'ack')
      expect(await receiptOf(receipt!)).toMatchObject({ status: 'acknowledged', acknowledgedVia: 'push', acknowledgedBy: { email } })
      // The action acknowledged without opening the event's page.
      expect(page.url()).toBe(before)

      // A notification of an event without a receipt has no action.
      const plain = await post({ message: 'Deploy finished', title: 'Deploy' })
      await pushTo(context, page, herald.url, webPushPayload((await (await context.request.get(`${herald.url}/v1/workspaces/${ws}/events/${plain.eventId}`)).json()) as EventView), shownTag(plain.eventId))
      const plainShown = await eventually(
        () => page.evaluate(async (tag) => (await (await navigator.serviceWorker.ready).getNotifications({ tag })).map((n) => (n as unknown as { actions: unknown[] }).actions), plain.eventId).then((l) => (l.length ? l : null)),
        15_000, 'the plain notification').catch(async (err) => {
        // What the worker shows instead, if anything: which of injection and handler lost the push.
        console.error('[receipts.browser] notifications shown:', JSON.stringify(await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, tag: n.tag })))))
        throw err
      })
      expect(plainShown).toEqual([[]])
    }, STEP_MS)

    test('no page logged a console error', () => {
      expect(errors).toEqual([])
    })
  })
}
