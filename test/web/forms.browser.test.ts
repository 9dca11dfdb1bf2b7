// The dashboard's forms, in a real browser (Debian's Chromium through
// playwright-core) against a real Herald: every field is checked at once
// (the browser showed one bubble at a time), each error sits at its field in
// the words of its label (not "name: must not be empty"), an error goes as
// its field is edited, and a template the API cannot render says so in the
// preview instead of showing the last good rendering. At 1280 and 390 px.
import { expect, test } from 'bun:test'
import { browserSuite, useSignedInBrowser } from '../browser'

const describeBrowser = browserSuite('forms.browser.test.ts')
const STEP_MS = 60_000

for (const viewport of [{ width: 1280, height: 860 }, { width: 390, height: 844 }]) {
  describeBrowser(`forms at ${viewport.width} px (embedded)`, () => {
    const ws = 'forms'
    const { herald, browser, page, errors } = useSignedInBrowser({
      backend: 'embedded', viewport, email: `forms.${viewport.width}@example.com`, workspace: ws,
      expected: [{ status: 400, path: `/v1/workspaces/${ws}/routers` }, { status: 400, path: `/v1/workspaces/${ws}/routers/preview` }],
    })
    const errorOf = (label: string) => page.locator(`#${label}-error`)

    test('an empty router form: every missing field at once, by its label; an error goes as its field is filled', async () => {
      await page.goto(`${herald.url}/w/${ws}/routers/new`)
      await page.getByRole('heading', { name: 'New router' }).waitFor()
      await page.getByLabel('Pattern').fill('')
      await page.getByRole('button', { name: 'Create router' }).click()
      await page.locator('.form-error').getByText('Check the 3 fields marked below.').waitFor()
      expect(await errorOf('r-name').textContent()).toBe('Name is required.')
      expect(await errorOf('r-pattern').textContent()).toBe('Pattern is required.')
      const url = page.getByLabel('URL', { exact: true })
      const urlId = await url.getAttribute('id')
      expect(await errorOf(urlId!).textContent()).toBe('URL is required.')
      expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true')
      // The first field at fault has the focus.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('r-name')
      // Typing clears that field's error only; the rest stay until fixed.
      await page.getByLabel('Name').fill('hook')
      expect(await errorOf('r-name').count()).toBe(0)
      expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBeNull()
      expect(await errorOf('r-pattern').count()).toBe(1)
      await page.getByLabel('Pattern').fill('*')
      await url.fill('https://receiver.invalid/hook')
      expect(await page.locator('.form-error').textContent()).toBe('')
      expect(await page.locator('.field-error').count()).toBe(0)
      // Nothing runs off the side at a phone's width.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width)
    }, STEP_MS)

    test('an error the API finds is shown at its field in the words of its label, and goes when the field is fixed', async () => {
      await page.getByLabel('Pattern').fill('a b')
      await page.getByRole('button', { name: 'Create router' }).click()
      const error = errorOf('r-pattern')
      await error.waitFor()
      const text = (await error.textContent())!
      expect(text.startsWith('Pattern ')).toBe(true)
      expect(text).not.toMatch(/^pattern[: ]/)
      await page.getByLabel('Pattern').fill('deploy.*')
      expect(await error.count()).toBe(0)
    }, STEP_MS)

    test('a template the API cannot render: the preview says why instead of showing the last rendering', async () => {
      const body = page.getByLabel('Body template')
      await body.fill('{"text": "{{message}}"}')
      await page.locator('[data-preview-body]').getByText('"text"').first().waitFor()
      await body.fill('{{#events}} never closed')
      await page.locator('[data-preview-error]').getByText(/^Not rendered: /).waitFor()
      expect(await page.locator('[data-preview-body]').textContent()).toBe('…')
      await body.fill('{"text": "{{message}}!"}')
      await page.locator('[data-preview-error]:empty').waitFor({ state: 'attached' })
      await page.locator('[data-preview-body]').getByText('!"').first().waitFor()
    }, STEP_MS)

    test('sign-up: a bad address and a short password are both named before anything is sent', async () => {
      const fresh = await browser.newContext({ viewport })
      const p = await fresh.newPage()
      let posted = 0
      p.on('request', (r) => {
        if (r.method() === 'POST' && r.url().includes('/v1/auth/')) posted++
      })
      await p.goto(`${herald.url}/signup`)
      await p.getByLabel('E-mail address').fill('not-an-address')
      await p.getByLabel('Password').fill('short')
      await p.getByRole('button', { name: /Create account/ }).click()
      await p.locator('.form-error').getByText('Check the 2 fields marked below.').waitFor()
      expect(await p.locator('#signup-email-error').textContent()).toBe('E-mail address must be an e-mail address, such as jane@example.com.')
      expect(await p.locator('#signup-password-error').textContent()).toMatch(/^Password must be at least \d+ characters\.$/)
      expect(posted).toBe(0)
      await fresh.close()
    }, STEP_MS)

    test('no page logged a console error', () => {
      expect(errors).toEqual([])
    })
  })
}
