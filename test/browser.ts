// What every browser test shares: Debian's Chromium, driven through
// playwright-core (never `npx playwright install`), skipped with a warning
// where it is missing but required under CI=true, and a watch on each page
// for console errors and uncaught exceptions.
import { describe } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
const haveChromium = existsSync(CHROMIUM)

/** `describe` when Chromium is there; under CI=true its absence fails the file. */
export function browserSuite(file: string): typeof describe | typeof describe.skip {
  if (process.env.CI === 'true' && !haveChromium) throw new Error(`CI=true but ${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium)`)
  if (!haveChromium) console.warn(`${file}: skipped, ${CHROMIUM} is missing (apt-get install chromium)`)
  return haveChromium ? describe : describe.skip
}

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })

/** Screenshots go to the git-ignored test/web/screenshots/. */
export const SCREENSHOTS = join(import.meta.dir, 'web', 'screenshots')

/** An answer a test causes on purpose: Chromium logs every 4xx to fetch as a console error. */
export interface ExpectedError {
  status: number
  path: string
}

/** Collects a page's console errors and uncaught exceptions into `errors`, except the expected ones. */
export function watchPage(page: Page, errors: string[], expected: ExpectedError[] = []): Page {
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() !== 'error') return
    if (expected.some((x) => m.text().includes(`status of ${x.status}`) && m.location().url.endsWith(x.path))) return
    errors.push(`${page.url()}: ${m.text()} (${m.location().url})`)
  })
  page.on('pageerror', (e) => errors.push(`${page.url()}: uncaught ${e.message}`))
  return page
}
