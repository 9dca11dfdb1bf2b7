// The web dashboard end to end, in a real browser: Debian's Chromium driven
// through playwright-core, against a real Herald (embedded, and PostgreSQL
// when DATABASE_URL is set) and a real webhook receiver on loopback. The
// steps build on each other, as a person would use the dashboard: sign up,
// make a key, watch an event arrive live, route events to a webhook, read
// the delivery log. Screenshots of the main pages go to test/screenshots/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { browserSuite, SCREENSHOTS, useSignedInBrowser } from '../browser'
import { backends } from '../harness'
import { startReceiver, type Receiver } from '../receiver'
import { startSmtp } from '../smtp'

const describeBrowser = browserSuite('dashboard.browser.test.ts')
const SHOTS = SCREENSHOTS
const STEP_MS = 45_000
const PASSWORD = 'correct horse battery'
const DESKTOP = { width: 1200, height: 860 }

// Chromium logs every 4xx answer to fetch as a console error; these are the
// ones the steps cause on purpose (a wrong password, a broken template).
const EXPECTED = [
  { status: 401, path: '/v1/auth/signin' },
  { status: 400, path: '/routers/preview' },
  { status: 400, path: '/v1/auth/signup/confirm' }, // a used link, on purpose
]


/** Basic accessibility rules on the current page: labelled controls, named buttons and links, one h1, no skipped heading level. */
const a11yProblems = (page: Page) =>
  page.evaluate(() => {
    const problems: string[] = []
    const snippet = (el: Element) => el.outerHTML.slice(0, 100)
    for (const el of document.querySelectorAll<HTMLInputElement>('input:not([type=hidden]), select, textarea')) {
      if (!el.labels?.length && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby')) problems.push(`unlabelled: ${snippet(el)}`)
    }
    for (const el of document.querySelectorAll('button, a[href]')) if (!el.textContent?.trim() && !el.getAttribute('aria-label')) problems.push(`no name: ${snippet(el)}`)
    if (document.querySelectorAll('h1').length !== 1) problems.push('not exactly one h1')
    let level = 0
    for (const h of document.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
      const n = Number(h.tagName[1])
      if (n > level + 1) problems.push(`${h.tagName} after h${level}: ${h.textContent}`)
      level = n
    }
    return problems
  })

/** Whether the document is wider than the viewport (horizontal scrolling). */
const overflows = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)

for (const backend of backends) {
  describeBrowser(`dashboard in Chromium (${backend})`, () => {
    const email = `owner.${backend}@example.com`
    const ws = 'acme'
    let receiver: Receiver
    let smtp: Awaited<ReturnType<typeof startSmtp>>
    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true })
      receiver = startReceiver()
      smtp = await startSmtp()
    })
    // The first test signs up through the sign-up page.
    const signedIn = useSignedInBrowser({
      backend, viewport: DESKTOP, email, workspace: ws, signUp: 'later', expected: EXPECTED,
      // One attempt per delivery, so that a refused one fails at once and can be replayed.
      env: () => ({ HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s', SMTP_URL: `smtp://127.0.0.1:${smtp.port}` }),
      prepare: (context, herald) => context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: herald.url }),
    })
    const { herald, browser, context, page, errors } = signedIn
    let apiKey = ''
    let eventId = ''
    const shot = async (name: string, p: Page = page, fullPage = true) => {
      // One set is enough; the first backend's.
      if (backend !== backends[0]) return
      await p.evaluate(() => window.scrollTo(0, 0))
      await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage })
    }
    const goto = async (path: string, p: Page = page) => {
      await p.goto(herald.url + path)
      await p.locator('main h1').first().waitFor()
    }

    beforeAll(() => {
      herald.mails = smtp.mails
    })

    afterAll(async () => {
      receiver?.stop()
      await smtp?.close()
    })

    test('sign-up creates an account and lands in its workspace feed', async () => {
      await goto('/signup')
      await shot('signup')
      await page.getByLabel('E-mail address').fill(email)
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByLabel(/Workspace name/).fill(ws)
      await page.getByRole('button', { name: 'Create account' }).click()
      await page.waitForURL(`**/w/${ws}/feed`)
      await page.getByRole('heading', { name: 'Feed', level: 1 }).waitFor()
      expect(await page.getByRole('navigation', { name: ws }).getByRole('link', { name: 'Feed' }).getAttribute('aria-current')).toBe('page')
    }, STEP_MS)

    test('an API key is generated in the settings and shown once, with a copy button', async () => {
      await page.getByRole('link', { name: 'API keys' }).click()
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
      await page.getByLabel('Name').fill('production')
      await page.getByRole('button', { name: 'Generate key' }).click()
      const field = page.getByLabel('API key', { exact: true })
      await field.waitFor()
      apiKey = await field.inputValue()
      expect(apiKey).toMatch(/^hrld_/)
      await page.getByRole('button', { name: 'Copy' }).click()
      await page.getByText('Copied to the clipboard.').waitFor()
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey)
      await shot('keys')
      await page.reload()
      await page.getByRole('row', { name: /production/ }).waitFor()
      expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0)
      expect(await page.getByRole('row', { name: /production/ }).textContent()).toContain(apiKey.slice(0, 12))
    }, STEP_MS)

    test('the longest names fit: a name pasted past its limit is said to be cut, and the keys and routers tables keep every button on screen at 1280 and 390 px', async () => {
      const long = 'k'.repeat(300)
      await goto(`/w/${ws}/keys`)
      await page.getByLabel('Name').fill(long)
      expect((await page.getByLabel('Name').inputValue()).length).toBe(100)
      await page.getByText('At most 100 characters: anything longer is cut.').waitFor()
      await page.getByLabel('Name').fill('short')
      expect(await page.getByText('At most 100 characters').count()).toBe(0)
      await page.getByLabel('Name').fill(long)
      await page.getByRole('button', { name: 'Generate key' }).click()
      await page.getByLabel('API key', { exact: true }).waitFor()
      // The longest router a form allows: a name of 100, a pattern of 200 (routers.ts, pattern.ts).
      const made = await herald.admin('POST', `/admin/workspaces/${ws}/routers`, { name: 'r'.repeat(100), pattern: `${'p'.repeat(199)}*`, destination: { type: 'webhook', url: 'https://example.com/hook' } })
      expect(made.status).toBe(201)
      const routerId = ((await made.json()) as { id: string }).id
      try {
        for (const viewport of [{ width: 1280, height: 860 }, { width: 390, height: 844 }]) {
          await page.setViewportSize(viewport)
          for (const [where, row, button] of [['keys', `tr[data-name="${'k'.repeat(100)}"]`, 'Revoke'], ['routers', `tr[data-router-id="${routerId}"]`, 'Delete']] as const) {
            await goto(`/w/${ws}/${where}`)
            const tr = page.locator(row)
            await tr.waitFor()
            expect(await overflows(page), `${where} at ${viewport.width} px scrolls sideways`).toBe(false)
            const wrap = await page.locator('.table-wrap').first().evaluate((w) => w.scrollWidth - w.clientWidth)
            expect(wrap, `${where}'s table at ${viewport.width} px is wider than its box`).toBeLessThanOrEqual(1)
            const box = await tr.getByRole('button', { name: new RegExp(button) }).first().boundingBox()
            expect(box, `${where}: ${button} at ${viewport.width} px`).not.toBeNull()
            expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width)
          }
        }
      } finally {
        await page.setViewportSize(DESKTOP)
        expect((await herald.admin('DELETE', `/admin/workspaces/${ws}/routers/${routerId}`)).status).toBe(204)
      }
    }, STEP_MS)

    test('an event posted with the key appears live in the open feed, without a reload', async () => {
      await page.getByRole('link', { name: 'Feed' }).click()
      await page.locator('.live[data-live="open"]').waitFor()
      await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true))
      const res = await herald.post(apiKey, { message: 'Jane Doe signed up for Pro', title: 'New signup', event: 'user.signup', channel: 'signups', tags: ['web', 'pro'], link: 'https://example.com/users/42', data: { plan: 'pro', seats: 5 } })
      expect(res.status).toBe(200)
      eventId = ((await res.json()) as { eventId: string }).eventId
      const item = page.locator(`li[data-event-id="${eventId}"]`)
      await item.waitFor()
      expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true)
      expect(await item.getByRole('link', { name: 'New signup' }).getAttribute('href')).toBe(`/w/${ws}/events/${eventId}`)
      await page.locator('#announcer', { hasText: 'New event: New signup' }).waitFor({ state: 'attached' })
      // Untrusted text is text: markup in an event renders as characters.
      const xss = await herald.post(apiKey, { message: '<img src=x onerror="window.pwned=1">', title: '<b>bold?</b>', channel: 'signups' })
      const xssId = ((await xss.json()) as { eventId: string }).eventId
      await page.locator(`li[data-event-id="${xssId}"]`, { hasText: '<b>bold?</b>' }).waitFor()
      expect(await page.locator('.events img, .events b').count()).toBe(0)
      expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
      await shot('feed')
    }, STEP_MS)

    test('filters are reflected in the URL', async () => {
      await page.getByLabel('Tag').fill('pro')
      await page.getByRole('button', { name: 'Apply' }).click()
      await page.waitForURL(/\/feed\?tag=pro$/)
      await page.locator(`li[data-event-id="${eventId}"]`).waitFor()
      expect(await page.locator('li.event').count()).toBe(1)
      await page.reload()
      expect(await page.getByLabel('Tag').inputValue()).toBe('pro')
      await page.getByRole('link', { name: 'Clear' }).click()
      await page.waitForURL(/\/feed$/)
      await page.locator('li.event').nth(1).waitFor()
    }, STEP_MS)

    test('read state: a card marked read, the unread counts, mark all read', async () => {
      const counts = page.locator('[data-unread]')
      await counts.filter({ hasText: /\d+ unread/ }).waitFor()
      const card = page.locator(`li[data-event-id="${eventId}"]`)
      expect(await card.getAttribute('data-status')).toBe('unread')
      const before = Number((await counts.textContent())!.match(/(\d+) unread/)![1])
      await card.getByRole('button', { name: 'Mark read' }).click()
      await page.locator(`li[data-event-id="${eventId}"][data-status="read"]`).waitFor()
      await counts.filter({ hasText: `${before - 1} unread` }).waitFor()
      await page.getByRole('button', { name: 'Mark all read' }).click()
      await counts.filter({ hasText: '0 unread' }).waitFor()
      expect(await page.locator('li.event[data-status="unread"]').count()).toBe(0)
    }, STEP_MS)

    test('older events load with the cursor', async () => {
      const batch = Array.from({ length: 50 }, (_, i) => herald.post(apiKey, { message: `bulk ${i}`, channel: 'bulk' }))
      expect((await Promise.all(batch)).every((r) => r.status === 200)).toBe(true)
      await goto(`/w/${ws}/feed`)
      await page.locator('li.event').nth(49).waitFor()
      expect(await page.locator('li.event').count()).toBe(50)
      await page.getByRole('button', { name: 'Load older events' }).click()
      await page.getByText(/older events? loaded; that is all of them/).waitFor()
      expect(await page.locator('li.event').count()).toBe(52)
    }, STEP_MS)

    test("an event's deep link opens directly in a fresh page", async () => {
      const fresh = signedIn.watch(await context.newPage())
      await fresh.goto(`${herald.url}/w/${ws}/events/${eventId}`)
      await fresh.getByRole('heading', { name: 'New signup', level: 1 }).waitFor()
      const text = await fresh.locator('main').textContent()
      for (const s of ['Jane Doe signed up for Pro', '#signups', 'user.signup', '"plan": "pro"', eventId]) expect(text).toContain(s)
      expect(await fresh.getByRole('link', { name: /example\.com\/users\/42/ }).getAttribute('rel')).toContain('noopener')
      await fresh.close()
    }, STEP_MS)

    test('a webhook router is made with the form and its live preview, and its test event is delivered', async () => {
      await page.getByRole('link', { name: 'Routers' }).click()
      await page.getByRole('link', { name: 'New router' }).click()
      await page.getByRole('heading', { name: 'New router' }).waitFor()
      const preview = page.locator('[data-preview-body]')
      await preview.filter({ hasText: '"type": "event.created"' }).waitFor()
      // Each destination type has its own fields.
      await page.getByLabel('Type').selectOption('slack')
      await page.getByLabel('Incoming-webhook URL').waitFor()
      await preview.filter({ hasText: '"blocks"' }).waitFor()
      // An address not on Slack's host is noted as it is typed, not refused; Slack's own is not.
      const hostNote = page.locator('[data-host-note="url"]')
      await page.getByLabel('Incoming-webhook URL').fill('https://chat.example.com/hooks/abc')
      await hostNote.filter({ hasText: "chat.example.com is not Slack's address (hooks.slack.com)" }).waitFor()
      await page.getByLabel('Incoming-webhook URL').fill('https://hooks.slack.com/services/T/B/X')
      await hostNote.filter({ hasText: /^$/ }).waitFor({ state: 'attached' })
      expect(await hostNote.isVisible()).toBe(false)
      await page.getByLabel('Type').selectOption('webhook')
      await page.getByLabel('Name').fill('everything to the receiver')
      await page.getByLabel('Pattern').fill('*')
      await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/hook`)
      await page.getByLabel('Body template').fill('{"text": "{{message}}", "plan": "{{data.plan}}"}')
      await preview.filter({ hasText: '"plan": "pro"' }).waitFor()
      await page.getByLabel('Title template').fill('{{#broken}')
      await page.getByText(/The preview cannot be rendered/).waitFor()
      await page.getByLabel('Title template').fill('Signup on {{data.plan}}')
      await page.locator('[data-preview-error]:empty').waitFor({ state: 'attached' })
      await shot('router-form')
      await page.getByRole('button', { name: 'Create router' }).click()
      await page.getByRole('heading', { name: /Router “everything to the receiver” created/ }).waitFor()
      expect(await page.getByLabel('Signing secret').inputValue()).toMatch(/^whsec_/)
      const before = receiver.received.length
      await page.getByRole('button', { name: 'Send test event' }).click()
      await page.getByText(/Delivered.*HTTP 200/).waitFor()
      expect(receiver.received.length).toBe(before + 1)
    }, STEP_MS)

    test("a routed event's delivery shows in its log; a failed one is replayed", async () => {
      const res = await herald.post(apiKey, { message: 'Deploy finished', title: 'Deploy', event: 'deploy.done', data: { version: '1.2.3' } })
      const id = ((await res.json()) as { eventId: string }).eventId
      await goto(`/w/${ws}/events/${id}`)
      const delivery = page.locator('.delivery[data-status="succeeded"]')
      await delivery.waitFor()
      expect(await delivery.getByRole('heading').textContent()).toContain('everything to the receiver')
      await delivery.getByRole('cell', { name: '200', exact: true }).waitFor()
      await shot('event-detail')

      receiver.fallback = { status: 503, body: 'down for maintenance' }
      const failed = await herald.post(apiKey, { message: 'Backup failed', event: 'backup.failed' })
      await goto(`/w/${ws}/events/${((await failed.json()) as { eventId: string }).eventId}`)
      await page.locator('.delivery[data-status="failed"]').waitFor()
      await page.getByRole('cell', { name: 'down for maintenance' }).waitFor()
      receiver.fallback = { status: 200, body: 'ok' }
      await page.getByRole('button', { name: 'Replay' }).click()
      await page.locator('.delivery[data-status="succeeded"]').waitFor()
      expect(await page.getByRole('button', { name: 'Replay' }).count()).toBe(0)
    }, STEP_MS)

    test('a router is edited, and empty destination fields keep its destination', async () => {
      await page.getByRole('link', { name: 'Routers' }).click()
      for (const enabled of [false, true]) {
        await page.getByRole('link', { name: 'Edit everything to the receiver' }).click()
        await page.getByRole('heading', { name: /Edit router/ }).waitFor()
        await page.getByLabel('Enabled').setChecked(enabled)
        await page.getByRole('button', { name: 'Save changes' }).click()
        const row = page.getByRole('row', { name: /everything to the receiver/ })
        await row.getByText(enabled ? 'enabled' : 'disabled', { exact: true }).waitFor()
        expect(await row.textContent()).toContain(`${receiver.url} (path hidden)`) // the API shows the origin only
      }
    }, STEP_MS)

    test('the usage page shows the quota and a chart of the last 30 days', async () => {
      await page.getByRole('link', { name: 'Usage' }).click()
      const chart = page.getByRole('img', { name: /Events per day/ })
      await chart.waitFor()
      expect(await chart.locator('rect').count()).toBe(30)
      expect(await page.getByText(/^\s*54 of 100,000 events/).count()).toBe(1)
      expect(await page.locator('meter').getAttribute('value')).toBe('54')
      await shot('usage')
      await page.getByText('Show the numbers as a table').click()
      await page.getByRole('table', { name: 'Events per day (UTC)' }).waitFor()
    }, STEP_MS)

    test('a phone-sized screen shows the pages without horizontal scrolling, and they pass basic accessibility checks', async () => {
      const phone = signedIn.watch(await context.newPage())
      await phone.setViewportSize({ width: 375, height: 812 })
      for (const path of [`/w/${ws}/feed`, `/w/${ws}/events/${eventId}`, `/w/${ws}/keys`, `/w/${ws}/routers`, `/w/${ws}/routers/new`, `/w/${ws}/channels`, `/w/${ws}/members`, `/w/${ws}/usage`]) {
        await goto(path, phone)
        await phone.locator('.loading').waitFor({ state: 'detached' })
        expect({ path, overflows: await overflows(phone) }).toEqual({ path, overflows: false })
        expect({ path, problems: await a11yProblems(phone) }).toEqual({ path, problems: [] })
        for (const link of await phone.getByRole('navigation', { name: ws }).getByRole('link').all()) {
          const box = (await link.boundingBox())!
          expect(box.x + box.width).toBeLessThanOrEqual(375)
        }
      }
      await goto(`/w/${ws}/feed`, phone)
      await phone.locator('li.event').first().waitFor()
      await shot('feed-phone', phone, false)
      await phone.close()
    }, STEP_MS)

    test('a member, invited by e-mail, reads but sees no manage buttons', async () => {
      await page.getByRole('link', { name: 'Members' }).click()
      await page.getByLabel('E-mail address').fill(`member.${backend}@example.com`)
      await page.getByRole('button', { name: 'Send invitation' }).click()
      const link = await page.getByLabel(/Invitation link/).inputValue()
      expect(link).toContain('/invite/')
      const other = await browser.newContext({ viewport: DESKTOP })
      const guest = signedIn.watch(await other.newPage())
      await guest.goto(herald.url + new URL(link).pathname)
      await guest.getByText(/invited to the workspace acme as member/).waitFor()
      await guest.getByLabel('Choose a password').fill(PASSWORD)
      await guest.getByRole('button', { name: 'Create account and join' }).click()
      await guest.waitForURL(`**/w/${ws}/feed`)
      await goto(`/w/${ws}/keys`, guest)
      await guest.getByRole('row', { name: /production/ }).waitFor()
      expect(await guest.getByRole('button', { name: 'Generate key' }).count()).toBe(0)
      expect(await guest.getByRole('button', { name: /Revoke/ }).count()).toBe(0)
      await goto(`/w/${ws}/routers`, guest)
      await guest.getByRole('row', { name: /everything to the receiver/ }).waitFor()
      expect(await guest.getByRole('link', { name: 'New router' }).count()).toBe(0)
      await other.close()
      await page.reload()
      await page.getByRole('row', { name: new RegExp(`member\\.${backend}@example\\.com`) }).waitFor()
    }, STEP_MS)

    test('channels are created and muted; a key revoked after confirming stops working', async () => {
      await page.getByRole('link', { name: 'Channels' }).click()
      await page.getByLabel('New channel').fill('alerts')
      await page.getByRole('button', { name: 'Create channel' }).click()
      const row = page.getByRole('row', { name: /#alerts/ })
      await row.getByRole('button', { name: 'Mute #alerts for me' }).click()
      await row.getByText('muted', { exact: true }).waitFor()
      await page.getByRole('link', { name: 'API keys' }).click()
      await page.getByLabel('Name').fill('temporary')
      await page.getByRole('button', { name: 'Generate key' }).click()
      const temporary = await page.getByLabel('API key', { exact: true }).inputValue()
      expect((await herald.post(temporary, { message: 'still works' })).status).toBe(200)
      await page.getByRole('button', { name: 'Revoke the key temporary' }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click()
      await page.getByRole('row', { name: /temporary/ }).getByText('revoked', { exact: true }).waitFor()
      expect((await herald.post(temporary, { message: 'refused' })).status).toBe(401)
    }, STEP_MS)

    test('the workspace switcher creates a workspace and switches between them', async () => {
      await page.locator('summary', { hasText: ws }).click()
      await page.getByRole('button', { name: 'Create workspace…' }).click()
      await page.getByRole('dialog').getByLabel('Name').fill('beta')
      await page.getByRole('dialog').getByRole('button', { name: 'Create workspace' }).click()
      await page.waitForURL('**/w/beta/feed')
      await page.locator('summary', { hasText: 'beta' }).click()
      await page.getByRole('link', { name: /^acme/ }).click()
      await page.waitForURL(`**/w/${ws}/feed`)
    }, STEP_MS)

    test('sign-out, a wrong password, then sign-in returns to the page asked for', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByText('You are signed out.').waitFor()
      await page.goto(`${herald.url}/w/${ws}/usage`)
      await page.waitForURL(/\/signin\?next=%2Fw%2Facme%2Fusage$/)
      await page.getByLabel('E-mail address').fill(email)
      await page.getByLabel('Password').fill('not the password')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('alert').filter({ hasText: 'The e-mail address or the password is wrong.' }).waitFor()
      await page.getByLabel('Password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(`**/w/${ws}/usage`)
      await page.getByRole('img', { name: /Events per day/ }).waitFor()
    }, STEP_MS)

    test('a password is reset with the e-mailed link', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByRole('link', { name: 'Forgot your password?' }).click()
      await page.getByLabel('E-mail address').fill(email)
      await page.getByRole('button', { name: 'Send the link' }).click()
      await page.getByText(/a reset link is on its way/).waitFor()
      const mail = smtp.mails.find((m) => m.to.includes(email) && /reset/i.test(m.headers.subject ?? ''))!
      const link = /https?:\/\/\S+\/reset\/\S+/.exec(mail.body)![0]
      await page.goto(herald.url + new URL(link).pathname)
      await page.getByLabel('New password').fill('an even longer passphrase')
      await page.getByRole('button', { name: 'Set the new password' }).click()
      await page.getByText('Your password is changed').waitFor()
      await page.getByLabel('E-mail address').fill(email)
      await page.getByLabel('Password').fill('an even longer passphrase')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(`**/w/${ws}/feed`)
    }, STEP_MS)

    test('a `next` that leads off the site is ignored after sign-in, and the page still renders', async () => {
      // `/%09/evil.com` is `//evil.com` once the browser drops the tab: it
      // got past a prefix test, and pushState then threw and left a blank page.
      for (const raw of ['/%09/evil.com', '/%0A/evil.com', '//evil.com', '/%5Cevil.com', '/\\evil.com', 'https://evil.com/x', 'javascript:alert(1)']) {
        await page.getByRole('button', { name: 'Sign out' }).click()
        await page.getByText('You are signed out.').waitFor()
        await page.goto(`${herald.url}/signin?next=${raw}`)
        await page.getByLabel('E-mail address').fill(email)
        await page.getByLabel('Password').fill('an even longer passphrase')
        await page.getByRole('button', { name: 'Sign in' }).click()
        await page.waitForURL(`**/w/${ws}/feed`)
        expect({ raw, origin: new URL(page.url()).origin }).toEqual({ raw, origin: new URL(herald.url).origin })
        await page.getByRole('heading', { name: 'Feed', level: 1 }).waitFor()
      }
      // A path of the site is still followed.
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByText('You are signed out.').waitFor() // before a navigation could cut the sign-out short
      await page.goto(`${herald.url}/signin?next=${encodeURIComponent(`/w/${ws}/keys`)}`)
      await page.getByLabel('E-mail address').fill(email)
      await page.getByLabel('Password').fill('an even longer passphrase')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL(`**/w/${ws}/keys`)
    }, STEP_MS * 3)

    test('a second person signs up through the e-mailed link', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByText('You are signed out.').waitFor() // before a navigation could cut the sign-out short
      const second = `second-${Date.now().toString(36)}@example.com`
      await goto('/signup')
      await page.getByLabel('E-mail address').fill(second)
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByLabel(/Workspace name/).fill('second-ws')
      await page.getByRole('button', { name: 'Create account' }).click()
      await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor()
      await page.getByText(`We e-mailed a link to ${second}`).waitFor()
      let mail: (typeof smtp.mails)[number] | undefined
      for (let i = 0; i < 100 && !mail; i++, await Bun.sleep(20)) mail = smtp.mails.find((m) => m.to.includes(second))
      const link = /https?:\/\/\S+\/signup\/confirm\/\S+/.exec(mail!.body)![0]
      await page.goto(herald.url + new URL(link).pathname)
      await page.getByRole('button', { name: 'Create my account' }).click()
      await page.waitForURL('**/w/second-ws/feed')
      await page.getByRole('heading', { name: 'Feed', level: 1 }).waitFor()
      // The link worked once.
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByText('You are signed out.').waitFor() // before a navigation could cut the sign-out short
      await page.goto(herald.url + new URL(link).pathname)
      await page.getByRole('button', { name: 'Create my account' }).click()
      await page.getByRole('alert').filter({ hasText: 'invalid, used or expired' }).waitFor()
    }, STEP_MS * 2)

    test('a session ended elsewhere: the next visit shows the sign-in page, and never asks /v1/me to be told 401', async () => {
      await goto('/signin')
      await page.getByLabel('E-mail address').fill(email)
      await page.getByLabel('Password').fill('an even longer passphrase')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('heading', { name: 'Feed', level: 1 }).waitFor()
      // Another tab signs this session out: the browser keeps a cookie that no longer works.
      const cookie = (await page.context().cookies()).find((c) => c.name === 'herald_session')!
      const jar = { cookie: `herald_session=${cookie.value}` }
      const { csrf } = (await (await fetch(`${herald.url}/v1/me`, { headers: jar })).json()) as { csrf: string }
      expect((await fetch(`${herald.url}/v1/auth/signout`, { method: 'POST', headers: { ...jar, 'x-csrf-token': csrf } })).status).toBe(204)
      const asked: number[] = []
      const onResponse = (r: { url(): string; status(): number }) => void (new URL(r.url()).pathname === '/v1/me' && asked.push(r.status()))
      page.on('response', onResponse)
      await goto('/')
      await page.getByRole('button', { name: 'Sign in' }).waitFor()
      page.off('response', onResponse)
      expect(asked).toEqual([])
      expect((await page.context().cookies()).some((c) => c.name === 'herald_session')).toBe(false)
    }, STEP_MS)

    test('no page logged a console error', () => {
      expect(errors).toEqual([])
    })
  })
}
