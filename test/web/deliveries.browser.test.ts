// The feed as a person reads it, and the deliveries page, in a real
// Chromium against a real Herald (embedded, and PostgreSQL when
// DATABASE_URL is set) and real webhook receivers on loopback, one of which
// answers 500: an event's title leads to its page, its deliveries show as
// delivered or failed with counts (live, without a reload), its link is
// shown, a channel first seen live joins the filter, the deliveries page
// filters by state and router, and a bulk replay asks first and says how
// many. Last, the usage chart with a single day of data.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { browserSuite, SCREENSHOTS, useSignedInBrowser } from '../browser'
import { backends } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'

const describeBrowser = browserSuite('deliveries.browser.test.ts')
const STEP_MS = 45_000
const DESKTOP = { width: 1200, height: 860 }
const BAD_EVENTS = 2

for (const backend of backends) {
  describeBrowser(`the feed's deliveries and the deliveries page in Chromium (${backend})`, () => {
    const ws = 'acme'
    let good: Receiver
    let bad: Receiver
    beforeAll(() => {
      mkdirSync(SCREENSHOTS, { recursive: true })
      good = startReceiver()
      bad = startReceiver()
      bad.fallback = { status: 500, body: 'receiver is down' }
    })
    // One attempt per delivery, so that a 500 fails it for good; the
    // receiver fails on purpose more often than the circuit breaker allows.
    // The first account of a fresh Herald is made at once; the context keeps its session cookie.
    const signedIn = useSignedInBrowser({
      backend, viewport: DESKTOP, email: `owner.${backend}@example.com`, workspace: ws,
      env: { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s', CIRCUIT_FAILURES: '1000' },
    })
    const { herald, context, page, errors } = signedIn
    let apiKey = ''
    let okEvent = ''
    let mailEvent = ''
    const badEvents: string[] = []
    const routers = { ok: '', bad: '', copy: '' }

    const shot = async (name: string) => {
      if (backend !== backends[0]) return
      await page.evaluate(() => window.scrollTo(0, 0))
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
    }
    const goto = async (path: string) => {
      await page.goto(herald.url + path)
      await page.locator('main h1').first().waitFor()
    }
    const post = async (body: Record<string, unknown>) => {
      const res = await herald.post(apiKey, body)
      expect(res.status).toBe(200)
      return ((await res.json()) as { eventId: string }).eventId
    }
    const router = async (name: string, pattern: string, url: string) => {
      const res = await herald.admin('POST', `/admin/workspaces/${ws}/routers`, { name, pattern, destination: { type: 'webhook', url } })
      expect(res.status).toBe(201)
      return ((await res.json()) as { id: string }).id
    }
    /** Waits until the event's deliveries are all made and none is pending. */
    const settled = (eventId: string, n: number) =>
      eventually(async () => {
        const res = await fetch(`${herald.url}/events/${eventId}`, { headers: { authorization: `Bearer ${apiKey}` } })
        const e = (await res.json()) as { deliveries: { status: string }[] }
        return e.deliveries.length === n && e.deliveries.every((d) => d.status !== 'pending')
      }, 20_000, `the deliveries of ${eventId}`)
    const item = (id: string) => page.locator(`li[data-event-id="${id}"]`)

    beforeAll(async () => {
      expect((await context.request.get(`${herald.url}/v1/me`)).status()).toBe(200)
      const key = await herald.admin('POST', `/admin/workspaces/${ws}/keys`, { name: 'test' })
      apiKey = ((await key.json()) as { apiKey: string }).apiKey
      routers.ok = await router('ok', 'ok.*', `${good.url}/ok`)
      routers.bad = await router('bad', 'bad.*', `${bad.url}/bad`)
      routers.copy = await router('copy', 'bad.*', `${good.url}/copy`)
    }, 60_000)

    afterAll(async () => {
      good?.stop()
      bad?.stop()
    })

    test('events arrive live and their deliveries show as delivered or failed, with counts, without a reload', async () => {
      await goto(`/w/${ws}/feed`)
      await page.locator('.live[data-live="open"]').waitFor()
      okEvent = await post({ event: 'ok.done', title: 'Order shipped', message: 'Order 7 left the warehouse', link: 'https://example.com/orders/7?from=herald', channel: 'orders' })
      for (let i = 0; i < BAD_EVENTS; i++) badEvents.push(await post({ event: 'bad.done', title: `Payment webhook ${i}`, message: 'Card declined', channel: 'orders' }))
      mailEvent = await post({ event: 'other.thing', title: 'Mail link', message: 'Links that are not web addresses are not shown', link: 'mailto:ops@example.com', channel: 'orders' })
      await item(badEvents[0]!).waitFor()
      await settled(okEvent, 1)
      for (const id of badEvents) await settled(id, 2)
      // The live events had no deliveries yet; the page counts them again until they settle.
      await item(okEvent).locator('[data-delivery-state="delivered"]', { hasText: 'Delivered' }).waitFor()
      for (const id of badEvents) await item(id).locator('[data-delivery-state="failed"]', { hasText: '1 of 2 failed' }).waitFor()
      expect(await item(mailEvent).locator('[data-delivery-state]').getAttribute('data-delivery-state')).toMatch(/^(waiting|none)$/)

      // After a reload, the states come with the feed itself.
      await page.reload()
      await item(okEvent).locator('[data-delivery-state="delivered"]').waitFor()
      expect(await item(badEvents[1]!).locator('.delivery-state').textContent()).toBe('Deliveries: 1 of 2 failed')
      await shot('feed-delivery-states')
    }, STEP_MS)

    test("an event's web link is shown safely; other links are not", async () => {
      const link = item(okEvent).locator('a.event-link')
      expect(await link.getAttribute('href')).toBe('https://example.com/orders/7?from=herald')
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer')
      expect(await link.getAttribute('target')).toBe('_blank')
      expect(await link.textContent()).toContain('example.com/orders/7?from=herald')
      expect(await item(mailEvent).locator('a.event-link').count()).toBe(0)
      expect(await item(mailEvent).locator('a[href^="mailto:"]').count()).toBe(0)
    }, STEP_MS)

    test("the title looks like a link and leads to the event's page", async () => {
      const title = item(badEvents[0]!).getByRole('link', { name: 'Payment webhook 0' })
      const style = await title.evaluate((a) => {
        const s = getComputedStyle(a)
        return { color: s.color, underline: s.textDecorationLine }
      })
      expect(style).toEqual({ color: 'rgb(10, 88, 166)', underline: 'underline' })
      await title.click()
      await page.waitForURL(`**/w/${ws}/events/${badEvents[0]}`)
      await page.getByRole('heading', { name: 'Payment webhook 0', level: 1 }).waitFor()
      await page.locator('.delivery[data-status="failed"]').waitFor()
      await page.goBack()
      await page.getByRole('heading', { name: 'Feed', level: 1 }).waitFor()
    }, STEP_MS)

    test('a channel first seen live joins the channel filter without a reload', async () => {
      await page.locator('.live[data-live="open"]').waitFor()
      const filter = page.getByLabel('Channel', { exact: true })
      expect(await filter.locator('option[value="brand-new"]').count()).toBe(0)
      await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true))
      const id = await post({ message: 'The first of its channel', channel: 'brand-new' })
      await item(id).waitFor()
      await filter.locator('option[value="brand-new"]').waitFor({ state: 'attached' })
      expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true)
      const options = await filter.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))
      expect(options.slice(1)).toEqual([...options.slice(1)].sort())
      await filter.selectOption('brand-new')
      await page.getByRole('button', { name: 'Apply' }).click()
      await page.waitForURL(/\/feed\?channel=brand-new$/)
      await item(id).waitFor()
      expect(await page.locator('li.event').count()).toBe(1)
    }, STEP_MS)

    test('the deliveries page lists every delivery and filters by state and by router', async () => {
      await page.getByRole('navigation', { name: ws }).getByRole('link', { name: 'Deliveries' }).click()
      await page.getByRole('heading', { name: 'Deliveries', level: 1 }).waitFor()
      expect(await page.getByRole('navigation', { name: ws }).getByRole('link', { name: 'Deliveries' }).getAttribute('aria-current')).toBe('page')
      const rows = page.locator('tr[data-delivery-id]')
      await rows.first().waitFor()
      expect(await rows.count()).toBe(1 + 2 * BAD_EVENTS)

      await page.getByLabel('State').selectOption('failed')
      await page.getByRole('button', { name: 'Apply' }).click()
      await page.waitForURL(/\/deliveries\?state=failed$/)
      await page.locator('tr[data-delivery-id]').first().waitFor()
      expect(await rows.evaluateAll((rs) => rs.map((r) => (r as HTMLElement).dataset.status))).toEqual(Array(BAD_EVENTS).fill('failed'))
      expect(await rows.first().textContent()).toContain('HTTP 500')
      await shot('deliveries-failed')

      await page.getByLabel('State').selectOption('')
      await page.getByLabel('Router').selectOption({ label: 'copy' })
      await page.getByRole('button', { name: 'Apply' }).click()
      await page.waitForURL(new RegExp(`/deliveries\\?router=${routers.copy}$`))
      await eventually(async () => (await rows.count()) === BAD_EVENTS && (await rows.evaluateAll((rs) => rs.every((r) => r.textContent!.includes('copy') && (r as HTMLElement).dataset.status === 'succeeded'))), 10_000, 'the router filter')
      expect(await page.getByRole('button', { name: 'Replay failed…' }).count()).toBe(1)
    }, STEP_MS)

    test('a bulk replay asks first: cancel replays nothing, confirm replays them and says how many', async () => {
      await goto(`/w/${ws}/deliveries?state=failed`)
      await page.locator('tr[data-status="failed"]').nth(BAD_EVENTS - 1).waitFor()
      const before = bad.received.length

      await page.getByRole('button', { name: 'Replay failed…' }).click()
      const dialog = page.getByRole('dialog')
      await dialog.waitFor()
      expect(await dialog.textContent()).toContain(`Replay all ${BAD_EVENTS} failed deliveries that match these filters?`)
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'detached' })
      await Bun.sleep(500)
      expect(bad.received.length).toBe(before)
      expect(await page.locator('tr[data-status="failed"]').count()).toBe(BAD_EVENTS)

      await page.getByRole('button', { name: 'Replay failed…' }).click()
      await dialog.getByRole('button', { name: `Replay ${BAD_EVENTS} deliveries` }).click()
      await page.getByRole('status').filter({ hasText: `${BAD_EVENTS} deliveries replayed.` }).waitFor()
      // The receiver sees the new attempts (it still answers 500, so they fail again).
      await bad.waitFor(before + BAD_EVENTS)
      await eventually(async () => (await page.locator('tr[data-status="failed"]').count()) === BAD_EVENTS && (await page.locator('tr[data-status="pending"]').count()) === 0, 15_000, 'the replays to fail again')
      await Bun.sleep(300)
      expect(bad.received.length).toBe(before + BAD_EVENTS)

      // One delivery alone, from its row.
      bad.fallback = { status: 200, body: 'ok' }
      await page.getByRole('button', { name: 'Replay the delivery of Payment webhook 0' }).click()
      await bad.waitFor(before + BAD_EVENTS + 1)
      await eventually(async () => (await page.locator('tr[data-status="failed"]').count()) === BAD_EVENTS - 1, 15_000, 'the replayed delivery to leave the failed list')
    }, STEP_MS)

    test('the deliveries page fits a phone and its controls are labelled', async () => {
      const phone = signedIn.watch(await context.newPage())
      await phone.setViewportSize({ width: 375, height: 812 })
      await phone.goto(`${herald.url}/w/${ws}/deliveries`)
      await phone.locator('tr[data-delivery-id]').first().waitFor()
      const problems = await phone.evaluate(() => {
        const out: string[] = []
        if (document.documentElement.scrollWidth > document.documentElement.clientWidth) out.push('scrolls sideways')
        for (const el of document.querySelectorAll<HTMLInputElement>('input, select')) if (!el.labels?.length && !el.getAttribute('aria-label')) out.push(`unlabelled ${el.name}`)
        for (const el of document.querySelectorAll('button, a[href]')) if (!el.textContent?.trim() && !el.getAttribute('aria-label')) out.push(`no name: ${el.outerHTML.slice(0, 80)}`)
        if (document.querySelectorAll('h1').length !== 1) out.push('not exactly one h1')
        return out
      })
      expect(problems).toEqual([])
      await phone.close()
    }, STEP_MS)

    test('the usage chart with one day of data: 30 day slots, whole-number ticks, the day labelled', async () => {
      await goto(`/w/${ws}/usage`)
      const chart = page.getByRole('img', { name: /Events per day/ })
      await chart.waitFor()
      const today = new Date().toISOString().slice(0, 10)
      const bars = chart.locator('.bars rect')
      expect(await bars.count()).toBe(30)
      const events = await bars.evaluateAll((rs) => rs.map((r) => Number((r as SVGRectElement).dataset.events)))
      const total = 1 + BAD_EVENTS + 2 // the events posted above, all today (UTC)
      expect(events.slice(0, 29)).toEqual(Array(29).fill(0))
      expect(events[29]).toBe(total)
      expect(await bars.last().getAttribute('data-day')).toBe(today)
      // Every slot has the same width: one day is not a bar stretched across.
      const widths = new Set(await bars.evaluateAll((rs) => rs.map((r) => r.getAttribute('width'))))
      expect(widths.size).toBe(1)
      expect(await chart.locator('.values text').allTextContents()).toEqual([String(total)])
      const ticks = (await chart.locator('.axis text[text-anchor="end"]').allTextContents()).map(Number)
      expect(ticks.every(Number.isInteger)).toBe(true)
      expect(ticks[0]).toBe(0)
      expect(ticks.at(-1)!).toBeGreaterThanOrEqual(total)
      expect(await chart.locator('desc').textContent()).toContain(`${total} events over 30 days`)
      await shot('usage-one-day')
    }, STEP_MS)

    test("a router whose circuit is open: the event's page says the delivery is held back and why, at 1280 and 390 px", async () => {
      const held = await router('held', 'held.*', `${bad.url}/held`)
      // Last: it adds an event and a pending delivery the tests above do not count.
      // As the circuit leaves it (src/delivery/health.ts): open for ten minutes, failing for five.
      await herald.db.sql`INSERT INTO router_health (router_id, open_until, failing_since, last_error)
        VALUES (${held}, now() + interval '10 minutes', now() - interval '5 minutes', 'HTTP 500 from 127.0.0.1')`
      await Bun.sleep(600) // the workers' view of parked routers is at most 500 ms old
      const id = await post({ message: 'Held back', title: 'Held', event: 'held.one' })
      try {
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 860 })
          await goto(`/w/${ws}/events/${id}`)
          const delivery = page.locator('.delivery[data-kind="router"]')
          await delivery.locator('[data-held]').waitFor()
          expect(await delivery.getAttribute('data-status')).toBe('pending')
          const health = (await delivery.locator('[data-router-health]').innerText()).replace(/\s+/g, ' ')
          expect(health).toContain('circuit open')
          expect(health).toContain('HTTP 500 from 127.0.0.1')
          expect(await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)).toBe(false)
          if (width === 390) await shot('event-router-held-phone')
        }
      } finally {
        await page.setViewportSize(DESKTOP)
        expect((await herald.admin('DELETE', `/admin/workspaces/${ws}/routers/${held}`)).status).toBe(204)
      }
    }, STEP_MS)

    test('no console errors or uncaught exceptions on any page', () => {
      expect(errors).toEqual([])
    })
  })
}
