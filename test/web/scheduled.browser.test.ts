// The Scheduled page in a real browser (Debian's Chromium through
// playwright-core) against a real Herald, on every backend: events scheduled
// through the API are listed soonest first with the time until they go out,
// their channel, title and recipients; "Show more" reads the next page;
// Cancel confirms, calls the user API and removes the row (the event is then
// cancelled); the last one gone, the empty state says how to schedule. A plain
// member has no Scheduled link and is told the page is not theirs.
import { expect, test } from 'bun:test'
import { browserSuite, useSignedInBrowser } from '../browser'
import { backends } from '../harness'
import { browser as signUpBrowser, PASSWORD } from '../users'

const describeBrowser = browserSuite('scheduled.browser.test.ts')
const STEP_MS = 60_000

for (const backend of backends) {
  describeBrowser(`the Scheduled page (${backend})`, () => {
    const email = `owner.sched.${backend}.${Date.now()}@example.com`
    const ws = 'later'
    const { herald, browser, page, errors } = useSignedInBrowser({ backend, viewport: { width: 1200, height: 860 }, email, workspace: ws, timeoutMs: 120_000 })
    let apiKey = ''
    const schedule = async (body: Record<string, unknown>) => {
      if (!apiKey) apiKey = ((await (await herald.admin('POST', `/admin/workspaces/${ws}/keys`, { name: 'sched' })).json()) as { apiKey: string }).apiKey
      const res = await herald.post(apiKey, body)
      expect(res.status).toBe(200)
      return (await res.json()) as { eventId: string; scheduledFor: string }
    }
    const rowIds = () => page.$$eval('tr[data-event-id]', (trs) => trs.map((tr) => (tr as HTMLElement).dataset.eventId))

    test('empty, then the scheduled events soonest first, paged, each cancelled after confirming', async () => {
      await page.goto(`${herald.url}/w/${ws}/scheduled`)
      await page.locator('main h1', { hasText: 'Scheduled' }).waitFor()
      expect(await page.locator('[data-empty]').textContent()).toContain('herald send "Maintenance starts" --in 30m')
      expect(await page.locator('nav.sections a', { hasText: 'Scheduled' }).count()).toBe(1)

      const jane = `jane.sched.${backend}.${Date.now()}@example.com`
      expect((await herald.admin('POST', `/admin/workspaces/${ws}/members`, { email: jane, role: 'member' })).status).toBe(201)
      const later = await schedule({ message: 'Quarterly report', delay: '2h' })
      const sooner = await schedule({ message: 'Database maintenance starts', title: 'Maintenance', channel: 'ops', delay: '30m', to: [jane] })
      // More than a page (50): the 51st comes with "Show more".
      for (let i = 0; i < 50; i++) await schedule({ message: `Reminder ${i}`, delay: 3 * 3600 + i })
      await page.reload()
      await page.locator('tr[data-event-id]').first().waitFor()
      const first = await rowIds()
      expect(first.length).toBe(50)
      expect(first.slice(0, 2)).toEqual([sooner.eventId, later.eventId])
      const top = page.locator(`tr[data-event-id="${sooner.eventId}"]`)
      expect(await top.locator('th').textContent()).toContain('Maintenance: Database maintenance starts')
      expect(await top.textContent()).toContain('#ops')
      expect(await top.textContent()).toContain('1 recipient')
      expect(await top.locator('[data-in]').textContent()).toMatch(/^in (29m \d+s|30m)$/)
      await page.click('[data-more]')
      await page.waitForFunction(() => document.querySelectorAll('tr[data-event-id]').length === 52)
      expect(await page.locator('[data-more]').isHidden()).toBe(true)

      // Cancel: the dialog's "Cancel" keeps it, "Cancel event" cancels it.
      await top.locator('[data-cancel]').click()
      await page.locator('dialog.confirm button[value=cancel]').click()
      expect(await top.count()).toBe(1)
      await top.locator('[data-cancel]').click()
      await page.locator('dialog.confirm button[value=ok]').click()
      await page.locator('[data-status]', { hasText: 'Cancelled “Maintenance: Database maintenance starts”' }).waitFor()
      expect(await top.count()).toBe(0)
      const read = await fetch(`${herald.url}/events/${sooner.eventId}`, { headers: { authorization: `Bearer ${apiKey}` } })
      expect(((await read.json()) as { status: string }).status).toBe('cancelled')
      expect(errors).toEqual([])
    }, STEP_MS)

    test('a plain member has no Scheduled link, and the page says it is for owners and admins', async () => {
      const member = `member.sched.${backend}.${Date.now()}@example.com`
      // Signed up through the API (with the e-mail's confirmation), the session cookie handed to a fresh context.
      const person = signUpBrowser(herald)
      expect((await person.session('/v1/auth/signup', { email: member, password: PASSWORD, workspace: `own-${backend}` })).ok).toBe(true)
      expect((await herald.admin('POST', `/admin/workspaces/${ws}/members`, { email: member, role: 'member' })).status).toBe(201)
      const context = await browser.newContext({ viewport: { width: 1200, height: 860 } })
      const [name, ...value] = person.cookie.split('=')
      await context.addCookies([{ name: name!, value: value.join('='), url: herald.url }])
      const p = await context.newPage()
      await p.goto(`${herald.url}/w/${ws}/feed`)
      await p.locator('nav.sections a', { hasText: 'Feed' }).waitFor()
      expect(await p.locator('nav.sections a', { hasText: 'Scheduled' }).count()).toBe(0)
      await p.goto(`${herald.url}/w/${ws}/scheduled`)
      await p.locator('[data-members-only]').waitFor()
      expect(await p.locator('tr[data-event-id]').count()).toBe(0)
      // And the API agrees.
      expect((await context.request.get(`${herald.url}/v1/workspaces/${ws}/scheduled`)).status()).toBe(403)
      await context.close()
    }, STEP_MS)
  })
}
