// The account page in a real browser (Debian's Chromium through
// playwright-core) against a real Herald, at 1280 and 390 px: reached from the
// header; the sessions with what opened each, one signed out (its token stops
// working); the password changed (every other session ends, this browser
// stays); a workspace renamed (the dashboard follows it).
import { expect, test } from 'bun:test'
import { browserSuite, useSignedInBrowser } from '../browser'
import { PASSWORD } from '../users'

const describeBrowser = browserSuite('account.browser.test.ts')
const STEP_MS = 60_000

for (const viewport of [{ width: 1280, height: 860 }, { width: 390, height: 844 }]) {
  describeBrowser(`the account page at ${viewport.width} px (embedded)`, () => {
    const email = `account.${viewport.width}@example.com`
    const ws = `acct${viewport.width}`
    const { herald, page, errors } = useSignedInBrowser({
      backend: 'embedded', viewport, email, workspace: ws,
      expected: [{ status: 400, path: '/v1/me/password' }],
    })
    const signIn = async (userAgent: string, password = PASSWORD) => {
      const res = await fetch(`${herald.url}/v1/auth/signin`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': userAgent }, body: JSON.stringify({ email, password }) })
      expect(res.status).toBe(200)
      return ((await res.json()) as { token: string }).token
    }
    const live = async (token: string) => (await fetch(`${herald.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status

    test('from the header; the sessions, one signed out', async () => {
      const phone = await signIn('Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Version/17.4 Mobile/15E148 Safari/604.1')
      await page.goto(`${herald.url}/w/${ws}/feed`)
      // The address on a wide screen, "Account" on a phone's.
      const link = page.locator('header').getByRole('link', { name: viewport.width > 720 ? email : 'Account' })
      expect(await link.getAttribute('href')).toBe('/account')
      await link.click()
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
      const rows = page.locator('[data-sessions] tr')
      await rows.first().waitFor()
      expect(await rows.count()).toBe(2)
      await page.getByText('this browser').waitFor()
      const row = page.getByRole('row', { name: /Safari on iPhone or iPad/ })
      await row.getByRole('button', { name: /Sign out Safari on iPhone or iPad/ }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click()
      await page.locator('[data-sessions-status]').getByText('Signed out.').waitFor()
      expect(await rows.count()).toBe(1)
      expect(await live(phone)).toBe(401)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width)
    }, STEP_MS)

    test('the password: both fields named at once, a wrong current one at its field, then changed; other sessions end', async () => {
      const laptop = await signIn('curl/8.5.0')
      const form = page.locator('form[data-password]')
      await form.getByRole('button', { name: 'Change password' }).click()
      await form.locator('.form-error').getByText('Check the 2 fields marked below.').waitFor()
      expect(await page.locator('#pw-current-error').textContent()).toBe('Current password is required.')
      expect(await page.locator('#pw-new-error').textContent()).toBe('New password is required.')
      await page.getByLabel('Current password').fill('not my password')
      await page.getByLabel('New password').fill('a whole new password')
      await form.getByRole('button', { name: 'Change password' }).click()
      await page.locator('#pw-current-error').getByText('Current password is not the password of this account').waitFor()
      await page.getByLabel('Current password').fill(PASSWORD)
      expect(await page.locator('#pw-current-error').count()).toBe(0)
      await form.getByRole('button', { name: 'Change password' }).click()
      await form.locator('[data-password-status]').getByText(/Password changed/).waitFor()
      expect(await live(laptop)).toBe(401)
      expect(await page.locator('[data-sessions] tr').count()).toBe(1)
      // This browser is still signed in.
      await page.reload()
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
    }, STEP_MS)

    test('a workspace renamed: the dashboard goes to it under its new name', async () => {
      await page.getByLabel('New name').fill(`${ws}-renamed`)
      await page.getByRole('button', { name: 'Rename' }).click()
      await page.waitForURL(`**/w/${ws}-renamed/feed`)
      await page.locator('header .switcher summary').getByText(`${ws}-renamed`).waitFor()
    }, STEP_MS)

    test('no page logged a console error', () => {
      expect(errors).toEqual([])
    })
  })
}
