// The Preferences page in a real Chromium whose time zone is Pacific/Auckland:
// quiet hours start from the browser's zone, a level per channel and the
// default are saved as one document (what the API then answers), a channel
// left at "Default" has no level of its own, and a server's refusal shows at
// the form. Embedded only: the route is tested on both databases in
// test/accounts/preferences.test.ts.
import { expect, test } from 'bun:test'
import { browserSuite, useSignedInBrowser } from '../browser'

const describeBrowser = browserSuite('preferences.browser.test.ts')
const STEP_MS = 45_000

describeBrowser('the Preferences page in Chromium (embedded)', () => {
  const ws = 'quiet'
  const signedIn = useSignedInBrowser({
    backend: 'embedded', viewport: { width: 1100, height: 900 }, email: 'owner.prefs@example.com', workspace: ws,
    device: { timezoneId: 'Pacific/Auckland' }, timeoutMs: 120_000,
  })
  const { herald, context, page, errors } = signedIn
  const prefs = async () => (await context.request.get(`${herald.url}/v1/workspaces/${ws}/preferences`)).json()

  test('quiet hours in the browser\'s zone, channel levels and the default, saved as one document', async () => {
    for (const slug of ['ops', 'marketing']) expect((await herald.admin('POST', `/admin/workspaces/${ws}/channels`, { slug })).status).toBe(201)
    await page.goto(`${herald.url}/w/${ws}/preferences`)
    await page.locator('main h1', { hasText: 'Preferences' }).waitFor()
    expect(await page.inputValue('#q-zone')).toBe('Pacific/Auckland')
    await page.check('input[name=quiet]')
    await page.fill('#q-from', '21:30')
    await page.fill('#q-to', '06:45')
    await page.selectOption('#q-except', '4')
    await page.selectOption('#lvl-ops', 'high')
    await page.selectOption('#lvl-marketing', 'none')
    await page.selectOption('#p-default', 'urgent')
    await page.click('button[type=submit]')
    await page.locator('[data-prefs-status]', { hasText: 'Saved' }).waitFor()
    expect(await prefs()).toEqual({ quietHours: { timezone: 'Pacific/Auckland', from: '21:30', to: '06:45', except: 4 }, channels: { marketing: 'none', ops: 'high' }, default: 'urgent' })
    // Back to Default: the channel has no level of its own; quiet hours off.
    await page.selectOption('#lvl-marketing', '')
    await page.uncheck('input[name=quiet]')
    await page.click('button[type=submit]')
    await page.locator('[data-prefs-status]', { hasText: 'Saved' }).waitFor()
    expect(await prefs()).toEqual({ quietHours: null, channels: { ops: 'high' }, default: 'urgent' })
    expect(errors).toEqual([])
  }, STEP_MS)

  test('a zone Intl does not know: the server\'s 400 shows at the form, nothing saved', async () => {
    await page.check('input[name=quiet]')
    await page.fill('#q-zone', 'Mars/Olympus_Mons')
    await page.click('button[type=submit]')
    await page.getByText('Mars/Olympus_Mons', { exact: false }).first().waitFor()
    expect((await prefs()).quietHours).toBeNull()
  }, STEP_MS)
})
