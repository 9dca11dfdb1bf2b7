// An event sent `to` people in the dashboard, in a real browser (Debian's
// Chromium through playwright-core) against a real Herald: its page lists
// the recipients by e-mail address, its feed card says to how many people it
// went; an event for the whole channel says so.
import { expect, test } from 'bun:test'
import { browserSuite, useSignedInBrowser } from '../browser'
import { backends } from '../harness'

const describeBrowser = browserSuite('recipients.browser.test.ts')
const STEP_MS = 45_000

for (const backend of backends) {
  describeBrowser(`recipients in the dashboard (${backend})`, () => {
    const email = `owner.${backend}.${Date.now()}@example.com`
    const ws = 'addressed'
    const { herald, page, errors } = useSignedInBrowser({ backend, viewport: { width: 1200, height: 860 }, email, workspace: ws })
    let apiKey = ''
    const post = async (body: Record<string, unknown>) => {
      if (!apiKey) apiKey = ((await (await herald.admin('POST', `/admin/workspaces/${ws}/keys`, { name: 'to' })).json()) as { apiKey: string }).apiKey
      const res = await herald.post(apiKey, body)
      expect(res.status).toBe(200)
      return (await res.json()) as { eventId: string }
    }

    test('the event page lists the recipients by address; the feed card says to how many', async () => {
      const jane = `jane.${backend}.${Date.now()}@example.com`
      expect((await herald.admin('POST', `/admin/workspaces/${ws}/members`, { email: jane, role: 'member' })).status).toBe(201)
      const addressed = await post({ message: 'Your export is ready', title: 'Export', to: [jane, email] })
      const plain = await post({ message: 'Deploy finished', title: 'Deploy' })

      await page.goto(`${herald.url}/w/${ws}/feed`)
      const card = page.locator(`li[data-event-id="${addressed.eventId}"]`)
      await card.waitFor()
      expect(await card.locator('.chip.to').textContent()).toBe('to 2 people')
      expect(await page.locator(`li[data-event-id="${plain.eventId}"] .chip.to`).count()).toBe(0)

      await page.goto(`${herald.url}/w/${ws}/events/${addressed.eventId}`)
      await page.getByRole('heading', { name: 'Export', level: 1 }).waitFor()
      expect((await page.getByRole('list', { name: 'Recipients' }).locator('li').allTextContents()).sort()).toEqual([email, jane].sort())

      await page.goto(`${herald.url}/w/${ws}/events/${plain.eventId}`)
      await page.getByRole('heading', { name: 'Deploy', level: 1 }).waitFor()
      expect(await page.locator('.details').textContent()).toContain('everyone in #general')
      expect(errors).toEqual([])
    }, STEP_MS)
  })
}
