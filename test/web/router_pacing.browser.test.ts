// A router's delivery pacing in the dashboard, in a real browser (Debian's
// Chromium through playwright-core) against a real Herald: the form shows the
// fields of the chosen kind with their bounds, names a slip at its field
// (before sending, and as the API says it), keeps the values on edit, swaps
// a throttle for a digest; the routers list says the pacing in a word.
import { expect, test } from 'bun:test'
import { browserSuite, useSignedInBrowser } from '../browser'
import { backends } from '../harness'

const describeBrowser = browserSuite('router_pacing.browser.test.ts')
const STEP_MS = 60_000

for (const backend of backends) {
  describeBrowser(`router pacing in the dashboard (${backend})`, () => {
    const email = `owner.${backend}.${Date.now()}@example.com`
    const ws = 'paced'
    const { herald, page, errors } = useSignedInBrowser({
      backend, viewport: { width: 1200, height: 860 }, email, workspace: ws,
      expected: [{ status: 400, path: `/v1/workspaces/${ws}/routers` }],
    })

    test('a throttle is set with the form, kept on edit, swapped for a digest, then removed; the list says each in a word', async () => {
      await page.goto(`${herald.url}/w/${ws}/routers/new`)
      await page.getByRole('heading', { name: 'New router' }).waitFor()
      expect(await page.getByRole('radio', { name: 'None' }).isChecked()).toBe(true)
      expect(await page.getByLabel('Limit').isVisible()).toBe(false)
      await page.getByLabel('Name').fill('disk alerts')
      await page.getByLabel('URL', { exact: true }).fill('https://receiver.invalid/hook')

      await page.getByRole('radio', { name: 'Throttle' }).check()
      await page.getByLabel('Limit').waitFor()
      expect(await page.locator('#t-limit-hint').textContent()).toContain('1 to 10,000')
      expect(await page.locator('#t-per-hint').textContent()).toContain('from 1s to 1d')
      expect(await page.locator('#t-key-hint').textContent()).toContain('Up to 200 characters')
      expect(await page.getByLabel('Window').isVisible()).toBe(false)
      // A slip is named at its field, by its label, before anything is sent.
      await page.getByLabel('Per').fill('1 h')
      await page.getByRole('button', { name: 'Create router' }).click()
      await page.locator('#t-per-error').filter({ hasText: 'Per must be whole seconds or a duration' }).waitFor()
      expect(await page.locator('#t-limit-error').textContent()).toContain('Limit is required')
      // A bound the API checks is named at its field as the API says it.
      await page.getByLabel('Limit').fill('5')
      await page.getByLabel('Per').fill('2d')
      await page.getByRole('button', { name: 'Create router' }).click()
      await page.locator('#t-per-error').filter({ hasText: 'Per must be at most 1d' }).waitFor()
      expect(await page.getByLabel('Per').getAttribute('aria-invalid')).toBe('true')
      await page.getByLabel('Per').fill('1h')
      await page.getByLabel('Throttle key').fill('{{data.host}}')
      await page.getByRole('button', { name: 'Create router' }).click()
      await page.getByRole('heading', { name: /Router “disk alerts” created/ }).waitFor()

      await page.goto(`${herald.url}/w/${ws}/routers`)
      const row = page.getByRole('row', { name: /disk alerts/ })
      await row.getByText('at most 5 per 1h per {{data.host}}').waitFor()

      // On edit, the form starts with the router's throttle.
      await page.getByRole('link', { name: 'Edit disk alerts' }).click()
      await page.getByRole('heading', { name: /Edit router/ }).waitFor()
      expect(await page.getByRole('radio', { name: 'Throttle' }).isChecked()).toBe(true)
      expect([await page.getByLabel('Limit').inputValue(), await page.getByLabel('Per').inputValue(), await page.getByLabel('Throttle key').inputValue()]).toEqual(['5', '1h', '{{data.host}}'])

      // Swapped for a digest in one save.
      await page.getByRole('radio', { name: 'Digest' }).check()
      await page.getByLabel('Window').fill('10m')
      expect(await page.getByLabel('Most events in a digest').inputValue()).toBe('100')
      expect(await page.locator('#d-window-hint').textContent()).toContain('from 10s to 1d')
      expect(await page.locator('#d-max-hint').textContent()).toContain('1 to 1,000')
      await page.getByLabel('Bypass priority').selectOption('5')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await row.getByText('digest every 10m').waitFor()
      const [router] = (await (await herald.admin('GET', `/admin/workspaces/${ws}/routers`)).json()) as { throttle: unknown; digest: unknown }[]
      expect(router).toMatchObject({ throttle: null, digest: { window: 600, key: '', max: 100, bypassPriority: 5 } })

      await page.getByRole('link', { name: 'Edit disk alerts' }).click()
      await page.getByRole('heading', { name: /Edit router/ }).waitFor()
      expect(await page.getByRole('radio', { name: 'Digest' }).isChecked()).toBe(true)
      expect([await page.getByLabel('Window').inputValue(), await page.getByLabel('Bypass priority').inputValue()]).toEqual(['10m', '5'])
      await page.getByRole('radio', { name: 'None' }).check()
      await page.getByRole('button', { name: 'Save changes' }).click()
      await row.getByText('each event as it comes').waitFor()

      // The deliveries page offers the two states a throttle or digest gives.
      await page.goto(`${herald.url}/w/${ws}/deliveries`)
      await page.getByRole('heading', { name: 'Deliveries' }).waitFor()
      await page.getByLabel('State').waitFor()
      const options = await page.getByLabel('State').locator('option').allTextContents()
      expect(options).toContain('Throttled (router throttle)')
      expect(options).toContain('Sent in a digest')
      expect(errors).toEqual([])
    }, STEP_MS)
  })
}
