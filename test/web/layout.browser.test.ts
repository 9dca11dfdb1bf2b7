// The dashboard's layout under data that strains it, measured in a real
// Chromium at a desktop (1280×800) and a phone (390×844) viewport, against a
// real Herald and real webhook receivers on loopback. A fresh install, where
// nobody can sign in yet, opens on the sign-up page. Then an event whose
// message is one long unbroken word, delivered by two routers; events with
// long links; a router with a long URL: the deliveries table fits its frame
// with every column showing, the feed's links are cut short inside their
// events, the date filters are wide enough for their value, a router's
// address is shown whole where there is room, and no page of the dashboard
// scrolls sideways. Screenshots go to test/web/screenshots/layout-*.png.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { browserSuite, SCREENSHOTS, useSignedInBrowser, watchPage } from '../browser'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { PASSWORD } from '../users'

const describeBrowser = browserSuite('layout.browser.test.ts')
const STEP_MS = 60_000
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const
type Viewport = keyof typeof VIEWPORTS

// A stack trace's token, a base64 blob: a message with nowhere to break.
const UNBROKEN = `Upload-failed:${'QmFzZTY0RW5jb2RlZEJsb2I'.repeat(24)}`
const LONG_LINKS = [
  'https://status.example.com/incidents/2024-11-23/database-failover-in-eu-west-1-primary-cluster?utm_source=herald&utm_medium=webhook',
  'https://ci.example.com/acme/monorepo/pipelines/123456789/jobs/987654321/artifacts/browse/coverage/lcov-report/index.html',
]

describeBrowser('the dashboard layout, at 1280×800 and 390×844, in Chromium', () => {
  const ws = 'acme'
  const OWNER = 'owner@example.com'
  let good: Receiver
  let bad: Receiver
  beforeAll(() => {
    mkdirSync(SCREENSHOTS, { recursive: true })
    good = startReceiver()
    bad = startReceiver()
    bad.fallback = { status: 500, body: 'receiver is down' }
  })
  // Nobody signs up before the first test: it starts from a fresh install.
  const signedIn = useSignedInBrowser({
    backend: 'embedded', viewport: VIEWPORTS.desktop, email: OWNER, workspace: ws, signUp: 'later',
    env: { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s', CIRCUIT_FAILURES: '1000' },
  })
  const { herald, browser, context, errors } = signedIn
  let made: Promise<void> | undefined
  let apiKey = ''
  let longEvent = ''
  let routerId = ''
  let routerUrl = ''

  const pages: Partial<Record<Viewport, Page>> = {}
  /** The signed-in page of a viewport, opened once. */
  async function at(viewport: Viewport): Promise<Page> {
    pages[viewport] ??= signedIn.watch(await context.newPage())
    await pages[viewport].setViewportSize(VIEWPORTS[viewport])
    return pages[viewport]
  }
  /** Opens a dashboard path and waits until its page has drawn (no loading mark left). */
  async function open(page: Page, path: string) {
    await page.goto(herald.url + path)
    await page.locator('main h1').first().waitFor()
    await page.locator('.loading').first().waitFor({ state: 'detached' })
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `layout-${name}.png`), fullPage: true })
  /** False when the document fits the viewport's width; else how wide it is against the viewport (sideways scrolling). */
  const sideways = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth && `${document.documentElement.scrollWidth} px wide at ${window.innerWidth} px`)

  afterAll(async () => {
    good?.stop()
    bad?.stop()
  })

  /** The first account, made at most once: through the sign-up page by the first test, else through the API. */
  async function signedUp() {
    await signedIn.signUp()
    expect((await context.request.get(`${herald.url}/v1/me`)).status()).toBe(200)
  }

  /** What strains the layout, made once: an unbroken message delivered by two routers (one failing), long links, a long router URL. */
  const data = () => (made ??= makeData())
  async function makeData() {
    await signedUp()
    const key = await herald.admin('POST', `/admin/workspaces/${ws}/keys`, { name: 'layout' })
    apiKey = ((await key.json()) as { apiKey: string }).apiKey
    const router = async (name: string, pattern: string, url: string) => {
      const res = await herald.admin('POST', `/admin/workspaces/${ws}/routers`, { name, pattern, destination: { type: 'webhook', url } })
      expect(res.status).toBe(201)
      return ((await res.json()) as { id: string }).id
    }
    routerUrl = `${good.url}/hooks/services/T024BE7LD/B08J3K8P2CZ/incident-notifications`
    routerId = await router('Incident notifications (platform team)', 'upload.*', routerUrl)
    await router('pager', 'upload.*', `${bad.url}/pager`)
    const post = async (body: Record<string, unknown>) => {
      const res = await herald.post(apiKey, body)
      expect(res.status).toBe(200)
      return ((await res.json()) as { eventId: string }).eventId
    }
    for (const [i, link] of LONG_LINKS.entries()) await post({ event: 'deploy.done', title: `Deploy ${i + 1} finished`, message: 'All checks passed', link, channel: 'deploys', tags: ['prod'] })
    longEvent = await post({ event: 'upload.failed', message: UNBROKEN, link: LONG_LINKS[0], channel: 'uploads', tags: ['storage'] })
    await eventually(async () => {
      const res = await fetch(`${herald.url}/events/${longEvent}`, { headers: { authorization: `Bearer ${apiKey}` } })
      const e = (await res.json()) as { deliveries: { status: string }[] }
      return e.deliveries.length === 2 && e.deliveries.every((d) => d.status !== 'pending')
    }, 20_000, 'the deliveries of the long event')
  }

  test('a fresh install, where nobody can sign in yet, opens on the sign-up page; once someone has signed up, on sign-in', async () => {
    const signupHeading = (page: Page) => page.getByRole('heading', { name: 'Create your Herald account', level: 1 })
    for (const [viewport, size] of Object.entries(VIEWPORTS)) {
      const fresh = await browser.newContext({ viewport: size })
      const page = watchPage(await fresh.newPage(), errors)
      await page.goto(herald.url + '/')
      await signupHeading(page).waitFor({ timeout: 10_000 })
      expect(new URL(page.url()).pathname).toBe('/signup')
      expect({ viewport, sideways: await sideways(page) }).toEqual({ viewport, sideways: false })
      await shot(page, `fresh-install-${viewport}`)
      await fresh.close()
    }

    // A link to a workspace's page leads there too, and to that page once the account is made.
    const page = await at('desktop')
    await page.goto(`${herald.url}/w/${ws}/feed`)
    await signupHeading(page).waitFor()
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(`/signup?next=${encodeURIComponent(`/w/${ws}/feed`)}`)
    await page.getByLabel('E-mail address').fill(OWNER)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByLabel(/Workspace name/).fill(ws)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.waitForURL(`**/w/${ws}/feed`)
    signedIn.signedUp = true

    // From then on, a visitor who is signed out is asked to sign in.
    const later = await browser.newContext({ viewport: VIEWPORTS.desktop })
    const visitor = watchPage(await later.newPage(), errors)
    await visitor.goto(herald.url + '/')
    await visitor.getByRole('heading', { name: 'Sign in to Herald', level: 1 }).waitFor()
    expect(new URL(visitor.url()).pathname).toBe('/signin')
    await later.close()
  }, STEP_MS)

  test('the deliveries table fits its frame and every column shows, with an unbroken message', async () => {
    await data()
    for (const viewport of ['desktop', 'phone'] as const) {
      const page = await at(viewport)
      await open(page, `/w/${ws}/deliveries`)
      await page.locator('tr[data-delivery-id]').nth(1).waitFor()
      const m = await page.evaluate(() => {
        const wrap = document.querySelector('.table-wrap')!
        const table = wrap.querySelector('table')!
        const heads = [...table.querySelectorAll('thead th')].map((th) => ({ text: th.textContent!.trim(), width: Math.round(th.getBoundingClientRect().width) }))
        return { tableWidth: Math.round(table.getBoundingClientRect().width), wrapWidth: wrap.clientWidth, wrapScroll: wrap.scrollWidth, heads, cellsOutside: [...table.querySelectorAll('tbody td, tbody th')].filter((c) => c.getBoundingClientRect().right > wrap.getBoundingClientRect().right + 1).length }
      })
      await shot(page, `deliveries-${viewport}`)
      expect({ viewport, sideways: await sideways(page) }).toEqual({ viewport, sideways: false })
      expect({ viewport, tableWidth: m.tableWidth <= m.wrapWidth, scroll: m.wrapScroll <= m.wrapWidth, cellsOutside: m.cellsOutside }).toEqual({ viewport, tableWidth: true, scroll: true, cellsOutside: 0 })
      // On a desktop every column has room for its heading; on a phone each row is a card.
      if (viewport === 'desktop') expect(m.heads.slice(0, -1).filter((h) => h.width < 60)).toEqual([])
    }
  }, STEP_MS)

  test('the feed with long links does not scroll sideways, on a phone either: each link is cut short inside its event', async () => {
    await data()
    for (const viewport of ['desktop', 'phone'] as const) {
      const page = await at(viewport)
      await open(page, `/w/${ws}/feed`)
      await page.locator('a.event-link').nth(2).waitFor()
      await shot(page, `feed-${viewport}`)
      expect({ viewport, sideways: await sideways(page) }).toEqual({ viewport, sideways: false })
      const links = await page.locator('li.event').evaluateAll((items) =>
        items.map((li) => {
          const a = li.querySelector('a.event-link')
          return a ? { inside: a.getBoundingClientRect().right <= li.getBoundingClientRect().right, saysNewTab: a.textContent!.endsWith(' (opens in a new tab)') } : null
        }).filter(Boolean))
      expect(links).toEqual(Array(3).fill({ inside: true, saysNewTab: true }))
    }
  }, STEP_MS)

  test('the date filters (From, Until) are whole on the screen and wide enough for their value, on a phone too', async () => {
    await data()
    for (const viewport of ['desktop', 'phone'] as const) {
      const page = await at(viewport)
      await open(page, `/w/${ws}/deliveries?since=2024-11-01T08:00:00.000Z&until=2024-12-31T23:59:59.999Z`)
      await shot(page, `deliveries-filters-${viewport}`)
      for (const label of ['From', 'Until']) {
        const input = page.getByLabel(label, { exact: true })
        expect(await input.inputValue()).not.toBe('')
        // The width the field takes when nothing constrains it: what its value and calendar button need.
        const m = await input.evaluate((el) => {
          const probe = el.cloneNode() as HTMLInputElement
          probe.value = (el as HTMLInputElement).value
          probe.style.cssText = 'position: absolute; visibility: hidden; width: auto; min-width: 0; max-width: none'
          el.parentElement!.append(probe)
          const needed = Math.ceil(probe.getBoundingClientRect().width)
          probe.remove()
          const box = el.getBoundingClientRect()
          return { left: box.left, right: box.right, width: Math.ceil(box.width), needed }
        })
        const onScreen = m.left >= 0 && m.right <= VIEWPORTS[viewport].width
        expect({ viewport, label, onScreen, wideEnough: m.width >= m.needed || `${m.width} px for ${m.needed}` }).toEqual({ viewport, label, onScreen: true, wideEnough: true })
      }
    }
  }, STEP_MS)

  test("a router's URL is shown whole where there is room, on one line; its hidden path is said to be hidden", async () => {
    await data()
    for (const viewport of ['desktop', 'phone'] as const) {
      const page = await at(viewport)
      await open(page, `/w/${ws}/routers`)
      const cell = page.locator(`tr[data-router-id="${routerId}"] td[data-label="Destination"]`)
      await cell.waitFor()
      await shot(page, `routers-${viewport}`)
      expect({ viewport, sideways: await sideways(page) }).toEqual({ viewport, sideways: false })
      // The API keeps the path secret (a Slack or Discord token is in it) and shows the origin.
      const origin = new URL(routerUrl).origin
      expect(await cell.innerText()).toBe(`webhook ${origin} (path hidden)`)
      // Neither cut nor broken: at 1280 px and at 390 px there is room for the origin, and the pattern, on one line.
      const row = page.locator(`tr[data-router-id="${routerId}"]`)
      for (const [what, shown] of [['url', origin], ['pattern', 'upload.*']] as const) {
        const m = await row.locator(`.${what}`).evaluate((el) => {
          const range = document.createRange()
          range.selectNodeContents(el)
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size
          return { text: el.textContent, lines, right: el.getBoundingClientRect().right <= window.innerWidth }
        })
        expect({ viewport, what, ...m }).toEqual({ viewport, what, text: shown, lines: 1, right: true })
      }
    }
  }, STEP_MS)

  test('no dashboard page scrolls sideways, at 1280 px or at 390 px', async () => {
    await data()
    const pages = { feed: 'feed', event: `events/${longEvent}`, channels: 'channels', routers: 'routers', 'router-new': 'routers/new', 'router-edit': `routers/${routerId}`, deliveries: 'deliveries', keys: 'keys', members: 'members', usage: 'usage', notifications: 'notifications' }
    const wide: string[] = []
    for (const viewport of ['desktop', 'phone'] as const) {
      const page = await at(viewport)
      for (const [name, path] of Object.entries(pages)) {
        await open(page, `/w/${ws}/${path}`)
        const w = await sideways(page)
        if (w) wide.push(`${path} at ${viewport}: ${w}`)
        await shot(page, `all-${name}-${viewport}`)
      }
    }
    // The signed-out pages, on a phone.
    const out = await browser.newContext({ viewport: VIEWPORTS.phone })
    const guest = watchPage(await out.newPage(), errors)
    for (const path of ['/signin', '/signup', '/reset']) {
      await guest.goto(herald.url + path)
      await guest.locator('main h1').waitFor()
      const w = await sideways(guest)
      if (w) wide.push(`${path} at phone: ${w}`)
    }
    await out.close()
    expect(wide).toEqual([])
  }, 120_000)

  test('no console errors or uncaught exceptions on any page', () => {
    expect(errors).toEqual([])
  })
})
