// The dashboard as an installable app, in a real browser: Debian's Chromium
// driven through playwright-core, against a real Herald (embedded, and
// PostgreSQL when DATABASE_URL is set). The manifest and its icons as
// Chromium reads them (its own installability check through the DevTools
// protocol), the service worker controlling the page, the feed read offline
// from what the worker saved, a push delivered to the worker through the
// DevTools protocol and the click on its notification, and the
// "Notifications on this device" page. Headless Chromium reaches no push
// service, so the page's PushManager is a stand-in whose subscription
// carries a real P-256 key: what reaches Herald's API is what a browser
// sends. Screenshots go to test/web/screenshots/pwa-*.png.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createECDH, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { browserSuite, launchChromium, launchChromiumProfile, SCREENSHOTS, useSignedInBrowser } from '../browser'
import { webPushPayload } from '../../src/delivery/push/webpush'
import type { EventView } from '../../src/delivery/event_view'
import { backends } from '../harness'
import { PASSWORD } from '../users'
import { CA_FILE } from '../stand_ins'
import { startPushService, type PushService, type WebPushSubscription } from '../web_push_service'
import { devtoolsPush } from './devtools_push'

const describeBrowser = browserSuite('pwa.browser.test.ts')

// Like the dashboard's, into the ignored test/web/screenshots/; the README's
// copies in docs/screenshots/ are taken from there, so a test run leaves the
// tree clean.
const SHOTS = SCREENSHOTS
const STEP_MS = 45_000
const DESKTOP = { width: 1200, height: 860 }
const PHONE = { width: 375, height: 812 }
const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1'
const STYLE = readFileSync(join(import.meta.dir, '..', '..', 'src', 'web', 'style.css'), 'utf8')
const cssVar = (name: string) => new RegExp(`--${name}:\\s*(#[0-9a-f]{6})`).exec(STYLE)![1]

/** The width and height in a PNG's header (its IHDR chunk), or null when it is no PNG. */
function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (bytes.length < 24 || signature.some((b, i) => bytes[i] !== b)) return null
  if (new TextDecoder().decode(bytes.subarray(12, 16)) !== 'IHDR') return null
  const view = new DataView(bytes.buffer, bytes.byteOffset)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

/**
 * Stands in for the push service: PushManager's subscribe and
 * getSubscription give a subscription with the keys the test made (kept in
 * localStorage, as a browser keeps its own across reloads), and note the
 * application server key the page subscribed with.
 */
function fakePushService({ keys, endpoint }: { keys: { p256dh: string; auth: string }; endpoint?: string }) {
  const KEY = 'test.fakeSubscription'
  const make = (endpoint: string, serverKey: string) => ({
    endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: Uint8Array.from(atob(serverKey), (c) => c.charCodeAt(0)).buffer },
    toJSON: () => ({ endpoint, expirationTime: null, keys }),
    unsubscribe: async () => {
      localStorage.removeItem(KEY)
      return true
    },
  })
  const saved = () => {
    const s = JSON.parse(localStorage.getItem(KEY) ?? 'null') as { endpoint: string; serverKey: string } | null
    return s && make(s.endpoint, s.serverKey)
  }
  PushManager.prototype.getSubscription = async () => saved() as unknown as PushSubscription
  PushManager.prototype.subscribe = async (options?: PushSubscriptionOptionsInit) => {
    const serverKey = btoa(String.fromCharCode(...new Uint8Array(options!.applicationServerKey as ArrayBuffer)))
    const s = { endpoint: endpoint ?? `https://push.example.test/send/${crypto.randomUUID()}`, serverKey }
    localStorage.setItem(KEY, JSON.stringify(s))
    return make(s.endpoint, s.serverKey) as unknown as PushSubscription
  }
}


/**
 * A click on the notification tagged `tag`, dispatched in the worker to its
 * own notificationclick listener with the shown notification; the browser
 * would also keep the worker alive for what the listener waits on
 * (waitUntil), which a synthetic event may not: this awaits that itself.
 * Answers how many notifications with the tag are left.
 */
function clickNotification(context: BrowserContext, origin: string, tag: string): Promise<number> {
  const worker = context.serviceWorkers().find((w) => w.url() === `${origin}/sw.js`)!
  return worker.evaluate(async (tag) => {
    const scope = self as unknown as { registration: ServiceWorkerRegistration; NotificationEvent: new (type: string, init: { notification: Notification }) => Event }
    const [notification] = await scope.registration.getNotifications({ tag })
    const click = new scope.NotificationEvent('notificationclick', { notification: notification! })
    const waited: Promise<unknown>[] = []
    Object.defineProperty(click, 'waitUntil', { value: (p: Promise<unknown>) => waited.push(p) })
    self.dispatchEvent(click)
    await Promise.all(waited)
    return (await scope.registration.getNotifications({ tag })).length
  }, tag)
}

for (const backend of backends) {
  describeBrowser(`the installable app in Chromium (${backend})`, () => {
    const email = `pwa.${backend}@example.com`
    const ws = 'acme'
    let offline = false
    let apiKey = ''
    let posted: string[] = []
    const keys = { p256dh: createECDH('prime256v1').generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') }

    beforeAll(() => mkdirSync(SHOTS, { recursive: true }))
    // The first test signs up through the sign-up page. Console errors and
    // uncaught exceptions count, but the failed requests of the offline step.
    const signedIn = useSignedInBrowser({
      backend, viewport: DESKTOP, email, workspace: ws, signUp: 'later',
      expected: [{ text: /ERR_INTERNET_DISCONNECTED|Failed to fetch|net::ERR_FAILED/, when: () => offline }],
      prepare: async (context, herald) => {
        await context.grantPermissions(['notifications'], { origin: herald.url })
        await context.addInitScript(fakePushService, { keys })
      },
    })
    const { herald, browser, context, page, errors, watch } = signedIn
    const shot = async (name: string, p: Page = page) => {
      if (backend !== backends[0]) return // one set is enough; the first backend's
      await p.evaluate(() => window.scrollTo(0, 0))
      await p.screenshot({ path: join(SHOTS, `pwa-${name}.png`), fullPage: true })
    }
    const goto = async (path: string, p: Page = page) => {
      await p.goto(herald.url + path)
      await p.locator('main h1').first().waitFor()
    }
    /** The notifications this origin's worker shows. */
    const notifications = (p: Page = page) =>
      p.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data as { url: string } })))
    const myDevices = async () => (await (await context.request.get(`${herald.url}/v1/devices`)).json()) as { id: string; provider: string; platform: string; endpoint?: string }[]
    const post = async (body: Record<string, unknown>) => {
      const res = await herald.post(apiKey, body)
      expect(res.status).toBe(200)
      return ((await res.json()) as { eventId: string }).eventId
    }

    test('a person signs up, and events are posted with a key of the workspace', async () => {
      await goto('/signup')
      await page.getByLabel('E-mail address').fill(email)
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByLabel(/Workspace name/).fill(ws)
      await page.getByRole('button', { name: 'Create account' }).click()
      await page.waitForURL(`**/w/${ws}/feed`)
      const res = await herald.admin('POST', `/admin/workspaces/${ws}/keys`, { name: 'pwa' })
      expect(res.status).toBe(201)
      apiKey = ((await res.json()) as { apiKey: string }).apiKey
    }, STEP_MS)

    test('the manifest is complete, its icons load at their sizes, and Chromium finds the app installable', async () => {
      const res = await context.request.get(`${herald.url}/manifest.webmanifest`)
      expect(res.headers()['content-type']).toBe('application/manifest+json')
      const manifest = (await res.json()) as Record<string, unknown> & { icons: { src: string; sizes: string; type: string; purpose: string }[]; shortcuts: { url: string }[] }
      expect(manifest).toMatchObject({ name: 'Herald', short_name: 'Herald', display: 'standalone', start_url: '/?source=pwa', scope: '/', id: '/' })
      expect(String(manifest.description).length).toBeGreaterThan(20)
      expect(manifest.theme_color).toBe(cssVar('header'))
      expect(manifest.background_color).toBe(cssVar('bg'))
      expect(manifest.shortcuts.map((s) => s.url)).toEqual(['/feed'])
      const purposes = manifest.icons.map((i) => `${i.sizes} ${i.purpose}`)
      for (const want of ['192x192 any', '512x512 any', '512x512 maskable']) expect(purposes).toContain(want)
      const shellIcons = await page.evaluate(() => [...document.querySelectorAll<HTMLLinkElement>('link[rel="icon"], link[rel="apple-touch-icon"]')].map((l) => ({ src: new URL(l.href).pathname, sizes: l.sizes.value || (l.rel === 'apple-touch-icon' ? '180x180' : 'any'), type: l.type || 'image/png' })))
      for (const icon of [...manifest.icons, ...shellIcons]) {
        const got = await context.request.get(herald.url + icon.src)
        const headers = got.headers()
        expect({ src: icon.src, status: got.status(), type: headers['content-type'], nosniff: headers['x-content-type-options'], cache: headers['cache-control'] }).toEqual({ src: icon.src, status: 200, type: icon.type, nosniff: 'nosniff', cache: 'public, max-age=31536000, immutable' })
        const body = await got.body()
        if (icon.type === 'image/svg+xml') expect(body.toString('utf8')).toStartWith('<svg')
        else expect({ src: icon.src, size: pngSize(body) }).toEqual({ src: icon.src, size: { width: Number(icon.sizes.split('x')[0]), height: Number(icon.sizes.split('x')[1]) } })
      }
      // Chromium installs nothing from an incognito profile, which every
      // context of launch() is: its own check runs in a profile on disk.
      const profile = await launchChromiumProfile()
      try {
        const fresh = profile.pages()[0] ?? (await profile.newPage())
        await fresh.goto(`${herald.url}/signin`)
        await fresh.locator('main h1').waitFor()
        const cdp = await profile.newCDPSession(fresh)
        const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: unknown[] }
        expect(installabilityErrors).toEqual([])
        const read = (await cdp.send('Page.getAppManifest')) as { url: string; errors: unknown[]; data: string }
        expect(read.url).toBe(`${herald.url}/manifest.webmanifest`)
        expect(read.errors).toEqual([])
        expect(JSON.parse(read.data)).toEqual(manifest)
      } finally {
        await profile.close()
      }
    }, STEP_MS)

    test('the service worker registers with the scope / and controls the page after a reload', async () => {
      const registered = await page.evaluate(async () => {
        const r = await navigator.serviceWorker.ready
        return { scope: r.scope, script: r.active?.scriptURL }
      })
      expect(registered).toEqual({ scope: `${herald.url}/`, script: `${herald.url}/sw.js` })
      await page.reload()
      await page.getByRole('heading', { name: 'Feed', level: 1 }).waitFor()
      expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${herald.url}/sw.js`)
      expect(await page.evaluate(() => caches.keys())).toEqual(expect.arrayContaining([expect.stringMatching(/^herald-shell-[0-9a-f]{12}$/)]))
    }, STEP_MS)

    test('offline, a reload shows the events the feed showed last, marked as saved', async () => {
      posted = []
      for (const n of [1, 2, 3]) posted.push(await post({ message: `Order #${n} paid`, title: `Payment ${n}`, event: 'payment.succeeded', channel: 'billing' }))
      await goto(`/w/${ws}/feed`)
      await page.locator(`li[data-event-id="${posted[2]}"]`).waitFor()
      expect(await page.locator('.offline-mark').count()).toBe(0)
      offline = true
      await context.setOffline(true)
      try {
        await page.reload()
        const mark = page.locator('.offline-mark')
        await mark.waitFor()
        expect(await mark.textContent()).toMatch(/^Offline — showing the events from .+\d/)
        for (const id of posted) await page.locator(`li[data-event-id="${id}"]`).waitFor()
        await shot('offline-feed')
        // A page opened offline starts from the saved shell too.
        const phone = watch(await context.newPage())
        await phone.setViewportSize(PHONE)
        await goto(`/w/${ws}/feed`, phone)
        await phone.locator('.offline-mark').waitFor()
        await phone.locator(`li[data-event-id="${posted[0]}"]`).waitFor()
        await shot('offline-feed-phone', phone)
        await phone.close()
      } finally {
        await context.setOffline(false)
        offline = false
      }
      await page.reload()
      await page.locator(`li[data-event-id="${posted[2]}"]`).waitFor()
      expect(await page.locator('.offline-mark').count()).toBe(0)
    }, STEP_MS)

    test('a push shows a notification with the event, one per event, and a click opens the event', async () => {
      const { push, detach } = await devtoolsPush(context, page, herald.url)
      const id = await post({ message: 'Deploy of api finished', title: 'Deploy', event: 'deploy.done', channel: 'ops' })
      const event = (await (await context.request.get(`${herald.url}/v1/workspaces/${ws}/events/${id}`)).json()) as EventView
      // The payload as Herald's Web Push sender makes it.
      const payload = webPushPayload(event)
      const hasTag = (tag: string) => async () => (await notifications()).some((n) => n.tag === tag)
      await push(payload, hasTag(id))
      await push(payload) // a repeat replaces the notification
      let shown: Awaited<ReturnType<typeof notifications>> = []
      // Bounded by time, not by tries: under a loaded CI machine one look can take a second.
      for (const end = Date.now() + 15_000; Date.now() < end && !shown.length; await Bun.sleep(50)) shown = await notifications()
      expect(shown).toEqual([{ title: 'Deploy', body: `Deploy of api finished\n${ws} · #ops`, tag: id, data: expect.objectContaining({ url: `/w/${ws}/events/${id}` }) }])
      // Not JSON: still a notification, a generic one.
      await push('not json', async () => (await notifications()).some((n) => n.tag !== id))
      for (const end = Date.now() + 15_000; Date.now() < end && shown.length < 2; await Bun.sleep(50)) shown = await notifications()
      expect(shown.find((n) => n.tag !== id)).toMatchObject({ title: 'New event', data: { url: '/' } })

      const left = await clickNotification(context, herald.url, id)
      expect(left).toBe(0) // closed by the click
      await page.waitForURL(`**/w/${ws}/events/${id}`)
      await page.getByRole('heading', { name: 'Deploy', level: 1 }).waitFor()
      await detach()
    }, STEP_MS)

    test('priority 1 shows silent, 5 until dismissed and re-alerting; a collapse key is the tag, and a newer event with it replaces the older', async () => {
      const { push, detach } = await devtoolsPush(context, page, herald.url)
      const id = await post({ message: 'CPU at 95%', title: 'db-1', event: 'host.cpu', channel: 'ops' })
      const event = (await (await context.request.get(`${herald.url}/v1/workspaces/${ws}/events/${id}`)).json()) as EventView
      const shownWith = async (tag: string, what: (n: { title: string; tag: string }[]) => boolean, ms = 15_000) => {
        let all: { title: string; body: string; tag: string; silent: boolean | null; requireInteraction: boolean; renotify: boolean }[] = []
        for (const end = Date.now() + ms; ; await Bun.sleep(50)) {
          all = await page.evaluate(async (tag) => (await (await navigator.serviceWorker.ready).getNotifications({ tag })).map((n) => ({
            title: n.title, body: n.body, tag: n.tag, silent: n.silent, requireInteraction: n.requireInteraction, renotify: (n as Notification & { renotify: boolean }).renotify,
          })), tag)
          if (what(all) || Date.now() >= end) break
        }
        return all
      }
      const hasTitle = (tag: string, title: string) => async () => (await shownWith(tag, () => true, 0))[0]?.title === title
      await push(webPushPayload({ ...event, eventId: `${id.slice(0, -4)}0001`, priority: 1, title: 'quiet' }), hasTitle(`${id.slice(0, -4)}0001`, 'quiet'))
      expect(await shownWith(`${id.slice(0, -4)}0001`, (n) => n.length > 0)).toEqual([expect.objectContaining({ title: 'quiet', silent: true, requireInteraction: false, renotify: false })])
      await push(webPushPayload({ ...event, priority: 5, title: 'urgent' }), hasTitle(id, 'urgent'))
      expect(await shownWith(id, (n) => n[0]?.title === 'urgent')).toEqual([expect.objectContaining({ title: 'urgent', tag: id, silent: false, requireInteraction: true, renotify: true })])
      await push(webPushPayload({ ...event, priority: 3, collapseKey: 'db-1_cpu', title: 'older' }))
      await push(webPushPayload({ ...event, eventId: `${id.slice(0, -4)}0002`, priority: 3, collapseKey: 'db-1_cpu', title: 'newer' }), hasTitle('db-1_cpu', 'newer'))
      expect(await shownWith('db-1_cpu', (n) => n[0]?.title === 'newer')).toEqual([expect.objectContaining({ title: 'newer', tag: 'db-1_cpu', silent: false, requireInteraction: false, renotify: true })])
      await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).forEach((n) => n.close()))
      await detach()
    }, STEP_MS)

    test('notifications on this device are turned on and off, and channels muted, on the Notifications page', async () => {
      await page.getByRole('link', { name: 'Notifications' }).click()
      await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor()
      await page.locator('[data-push-state="off"]').waitFor()
      const phone = watch(await context.newPage())
      await phone.setViewportSize(PHONE)
      await goto(`/w/${ws}/notifications`, phone)
      await shot('notifications-phone', phone)
      await phone.close()

      const registered = page.waitForResponse((r) => r.url() === `${herald.url}/v1/devices` && r.request().method() === 'POST')
      await page.getByRole('button', { name: 'Turn on notifications' }).click()
      const answer = await registered
      expect(answer.status()).toBe(201)
      expect(JSON.parse(answer.request().postData()!)).toEqual({ provider: 'webpush', platform: 'web', subscription: { endpoint: expect.stringMatching(/^https:\/\/push\.example\.test\//), expirationTime: null, keys } })
      await page.locator('[data-push-status]', { hasText: 'Notifications are on for this device.' }).waitFor()
      await page.locator('[data-push-state="on"]').waitFor()
      const { id } = (await answer.json()) as { id: string }
      const endpoint = await page.evaluate(async () => (await (await navigator.serviceWorker.ready).pushManager.getSubscription())!.endpoint)
      expect(await myDevices()).toContainEqual(expect.objectContaining({ id, provider: 'webpush', platform: 'web', endpoint }))
      // The page subscribed with Herald's key.
      const { publicKey } = (await (await context.request.get(`${herald.url}/v1/push/vapid-public-key`)).json()) as { publicKey: string }
      const used = await page.evaluate(() => (JSON.parse(localStorage.getItem('test.fakeSubscription')!) as { serverKey: string }).serverKey)
      expect(Buffer.from(used, 'base64').toString('base64url')).toBe(publicKey.replace(/=+$/, ''))

      await page.reload()
      await page.locator('[data-push-state="on"]').waitFor()
      await page.getByRole('button', { name: 'Turn off notifications' }).click()
      await page.locator('[data-push-status]', { hasText: 'Notifications are off for this device.' }).waitFor()
      expect((await myDevices()).filter((d) => d.provider === 'webpush')).toEqual([])

      const row = page.getByRole('row', { name: /#billing/ })
      await row.getByRole('button', { name: 'Mute #billing on all my devices' }).click()
      await row.getByText('muted', { exact: true }).waitFor()
      const channels = ((await (await context.request.get(`${herald.url}/v1/workspaces/${ws}/channels`)).json()) as { channels: { slug: string; muted: boolean }[] }).channels
      expect(channels.find((c) => c.slug === 'billing')?.muted).toBe(true)
      await row.getByRole('button', { name: 'Unmute #billing on all my devices' }).click()
      await page.getByRole('status').filter({ hasText: '#billing unmuted on all your devices.' }).waitFor()
    }, STEP_MS)

    test('the install area offers the browser\'s install prompt, and Add to Home Screen on iOS', async () => {
      await page.reload()
      const area = page.getByRole('region', { name: 'Install Herald' })
      await area.waitFor()
      // Chromium offers installing only to a window it could install into;
      // headless has none, so the offer is made here as Chromium makes it.
      if (!(await area.getByRole('button', { name: 'Install Herald' }).count())) {
        await page.evaluate(() => {
          const offer = Object.assign(new Event('beforeinstallprompt'), { prompt: async () => {}, userChoice: Promise.resolve({ outcome: 'dismissed' }) })
          window.dispatchEvent(offer)
        })
      }
      await area.getByRole('button', { name: 'Install Herald' }).waitFor()
      await shot('notifications')
      if (backend === backends[0]) await area.screenshot({ path: join(SHOTS, 'pwa-install.png') })
      await area.getByRole('button', { name: 'Install Herald' }).click()
      await area.getByText(/Not installed|being installed/).waitFor()

      const iphone = await browser.newContext({ viewport: PHONE, userAgent: IPHONE_UA, isMobile: true, hasTouch: true })
      await iphone.addCookies(await context.cookies())
      const ios = watch(await iphone.newPage())
      await goto(`/w/${ws}/notifications`, ios)
      await ios.locator('[data-push-state="ios-install"]').getByText(/Add Herald to your Home Screen first/).waitFor()
      await ios.getByRole('region', { name: 'Install Herald' }).getByText(/Share.*Add to Home Screen/).waitFor()
      expect(await ios.getByRole('button', { name: 'Turn on notifications' }).count()).toBe(0)
      if (backend === backends[0]) await ios.getByRole('region', { name: 'Install Herald' }).screenshot({ path: join(SHOTS, 'pwa-install-ios.png') })
      await shot('notifications-ios', ios)
      await iphone.close()
    }, STEP_MS)

    test('notifications the browser blocks are said to be blocked, with what to do', async () => {
      const other = await browser.newContext({ viewport: DESKTOP })
      await other.addCookies(await context.cookies())
      const blocked = watch(await other.newPage())
      const { targetInfo } = (await (await other.newCDPSession(blocked)).send('Target.getTargetInfo')) as { targetInfo: { browserContextId: string } }
      const cdp = await browser.newBrowserCDPSession()
      await cdp.send('Browser.setPermission', { permission: { name: 'notifications' }, setting: 'denied', origin: herald.url, browserContextId: targetInfo.browserContextId })
      await goto(`/w/${ws}/notifications`, blocked)
      await blocked.locator('[data-push-state="denied"]').getByText(/Blocked by the browser: allow notifications for this site in its settings/).waitFor()
      expect(await blocked.getByRole('button', { name: 'Turn on notifications' }).count()).toBe(0)
      await cdp.detach()
      await other.close()
    }, STEP_MS)

    test('on plain http from another machine, the page says why notifications cannot be turned on, and how to get https', async () => {
      // A phone opening http://<the machine>:8080: herald.test is mapped to
      // this machine, so the origin is neither https nor localhost, and
      // Chromium makes it an insecure context as a phone's browser would.
      const port = new URL(herald.url).port
      const remote = await launchChromium([`--host-resolver-rules=MAP herald.test 127.0.0.1`])
      try {
        for (const viewport of [{ width: 1280, height: 860 }, { width: 390, height: 844 }]) {
          const other = await remote.newContext({ viewport })
          // The session cookie is not Secure on plain http, so it serves this origin as it is.
          await other.addCookies((await context.cookies()).map(({ name, value }) => ({ name, value, url: `http://herald.test:${port}` })))
          const p = watch(await other.newPage())
          await p.goto(`http://herald.test:${port}/w/${ws}/notifications`)
          await p.locator('main h1').first().waitFor()
          expect(await p.evaluate(() => window.isSecureContext)).toBe(false)
          const why = p.locator('[data-push-state="insecure"]')
          await why.getByText(/This page is on plain http/).waitFor()
          expect(await why.locator('code').first().textContent()).toBe(`http://herald.test:${port}`)
          expect(await p.getByRole('button', { name: 'Turn on notifications' }).count()).toBe(0)
          await why.getByText('How to give Herald an https address').click()
          for (const recipe of [/Caddy in front/, /tailscale serve --bg 8080/, /mkcert/, /https for a phone/]) await why.getByText(recipe).first().waitFor()
          await p.locator('[data-install-insecure]').getByText(/Installing Herald needs https too/).waitFor()
          // Nothing runs off the side of a phone's screen.
          expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width)
          if (backend === backends[0]) await p.screenshot({ path: join(SHOTS, `pwa-notifications-insecure-${viewport.width}.png`), fullPage: true })
          await other.close()
        }
      } finally {
        await remote.close()
      }
    }, STEP_MS)

    test('sign-out removes the device and the saved events from this browser', async () => {
      await page.getByRole('button', { name: 'Turn on notifications' }).click()
      await page.locator('[data-push-status]', { hasText: 'Notifications are on for this device.' }).waitFor()
      expect(await page.evaluate(() => caches.has('herald-data-v1'))).toBe(true)
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByText('You are signed out.').waitFor()
      expect(await page.evaluate(() => caches.has('herald-data-v1'))).toBe(false)
      expect(await page.evaluate(async () => (await (await navigator.serviceWorker.ready).pushManager.getSubscription()) === null)).toBe(true)
      await page.getByLabel('E-mail address').fill(email)
      await page.getByLabel('Password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(`**/w/${ws}/feed`)
      expect((await myDevices()).filter((d) => d.provider === 'webpush')).toEqual([])
    }, STEP_MS)

    test('no page logged a console error', () => {
      expect(errors).toEqual([])
    })
  })
}

// The whole way, on the embedded default, as "done" was defined: a person
// signs up, installs the app, turns notifications on, an event is posted
// with curl, and a system notification shows it; a tap opens the event. The
// only stand-in is the browser vendor's push service (test/web_push_service.ts):
// the subscription the page gets is one it made, so Herald's real push
// (VAPID-signed, encrypted for that subscription) arrives there, is checked
// and decrypted as the browser's push service and the browser would, and is
// handed to this Chromium's service worker through the DevTools protocol.
describeBrowser('from sign-up to a tapped notification, on the embedded default', () => {
  let service: PushService
  let subscription: WebPushSubscription
  const ws = 'chain'

  // The test signs up through the sign-up page, on a phone.
  const { herald, context, page, errors, email } = useSignedInBrowser({
    backend: 'embedded', viewport: PHONE, device: { isMobile: true, hasTouch: true }, email: `chain.${Date.now()}@example.com`, workspace: ws, signUp: 'later',
    env: { HERALD_OUTBOUND_ALLOW: '127.0.0.1', NODE_EXTRA_CA_CERTS: CA_FILE }, // the push service's certificate
    prepare: async (context, herald) => {
      const { publicKey } = (await (await fetch(`${herald.url}/v1/push/vapid-public-key`)).json()) as { publicKey: string }
      service = startPushService({ vapidPublicKey: publicKey })
      subscription = await service.newSubscription({ applicationServerKey: publicKey })
      await context.grantPermissions(['notifications'], { origin: herald.url })
      await context.addInitScript(fakePushService, { keys: subscription.keys, endpoint: subscription.endpoint })
    },
  })
  afterAll(() => service?.stop())

  test('sign up, install, turn on, curl an event, see it, tap it', async () => {
    // Sign up.
    await page.goto(`${herald.url}/signup`)
    await page.getByLabel('E-mail address').fill(email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByLabel(/Workspace name/).fill(ws)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.waitForURL(`**/w/${ws}/feed`)
    // Installable: the manifest is linked and the worker controls the app.
    expect(await page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel="manifest"]')?.getAttribute('href'))).toBe('/manifest.webmanifest')
    await page.evaluate(() => navigator.serviceWorker.ready)
    // Turn notifications on: the page subscribes (with the push service's
    // subscription) and registers it with Herald.
    await page.getByRole('link', { name: 'Notifications' }).click()
    await page.getByRole('button', { name: 'Turn on notifications' }).click()
    await page.locator('[data-push-state="on"]').waitFor()

    // An event, posted with curl and a key of the workspace.
    const key = await herald.admin('POST', `/admin/workspaces/${ws}/keys`, { name: 'curl' })
    const { apiKey } = (await key.json()) as { apiKey: string }
    const arrived = service.next(subscription.endpoint, 15_000)
    // (Herald answers in this process: curl runs beside it, not blocking it.)
    const curl = Bun.spawn(['curl', '-sS', '--noproxy', '*', '-X', 'POST', `${herald.url}/event`, '-H', `Authorization: Bearer ${apiKey}`, '-H', 'Content-Type: application/json',
      '-d', JSON.stringify({ message: 'Jane signed up (pro plan)', title: 'New signup', event: 'user.signup', channel: 'signups' })], { stderr: 'pipe' })
    const out = await new Response(curl.stdout).text()
    expect(await curl.exited, await new Response(curl.stderr).text()).toBe(0)
    const { eventId } = JSON.parse(out) as { eventId: string }

    // Herald's push reached the push service, signed and encrypted for this subscription.
    const push = await arrived
    expect(service.problems).toEqual([])
    expect(JSON.parse(push.text!)).toMatchObject({ eventId, title: 'New signup', body: 'Jane signed up (pro plan)', url: `/w/${ws}/events/${eventId}` })

    // The push service hands it to the browser: a system notification.
    const { push: deliver, detach } = await devtoolsPush(context, page, herald.url)
    const shown = async () => page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag })))
    await deliver(push.text!, async () => (await shown()).length > 0)
    let list: Awaited<ReturnType<typeof shown>> = []
    // Bounded by time, not by tries: under a loaded machine one look can take a second.
    for (const end = Date.now() + 15_000; Date.now() < end && !list.length; await Bun.sleep(50)) list = await shown()
    expect(list).toEqual([{ title: 'New signup', body: `Jane signed up (pro plan)\n${ws} · #signups`, tag: eventId }])

    // A tap: the worker's notificationclick opens the event's page.
    await page.goto(`${herald.url}/w/${ws}/feed`)
    expect(await clickNotification(context, herald.url, eventId)).toBe(0)
    await page.waitForURL(`**/w/${ws}/events/${eventId}`)
    await page.getByRole('heading', { name: 'New signup', level: 1 }).waitFor()
    // The delivery is in the event's log, succeeded.
    const event = (await (await context.request.get(`${herald.url}/v1/workspaces/${ws}/events/${eventId}`)).json()) as { deliveries: { kind: string; status: string }[] }
    expect(event.deliveries).toEqual([expect.objectContaining({ kind: 'push', status: 'succeeded' })])
    await detach()
    expect(errors).toEqual([])
  }, 90_000)
})
