// What every browser test shares: Debian's Chromium, driven through
// playwright-core (never `npx playwright install`), skipped with a warning
// where it is missing but required under CI=true, and a watch on each page
// for console errors and uncaught exceptions.
import { describe } from 'bun:test'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core'

const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
const haveChromium = existsSync(CHROMIUM)

/** `describe` when Chromium is there; under CI=true its absence fails the file. */
export function browserSuite(file: string): typeof describe | typeof describe.skip {
  if (process.env.CI === 'true' && !haveChromium) throw new Error(`CI=true but ${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium)`)
  if (!haveChromium) console.warn(`${file}: skipped, ${CHROMIUM} is missing (apt-get install chromium)`)
  return haveChromium ? describe : describe.skip
}

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })

/**
 * Chromium with a profile on disk, in a fresh temporary directory: every
 * context of launchChromium() is incognito, where Chromium installs no app.
 */
export const launchChromiumProfile = (): Promise<BrowserContext> =>
  chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'herald-chromium-')), { executablePath: CHROMIUM, args: CHROMIUM_ARGS })

/** Screenshots go to the git-ignored test/web/screenshots/. */
export const SCREENSHOTS = join(import.meta.dir, 'web', 'screenshots')

/**
 * A console error a test causes on purpose: an answer (Chromium logs every
 * 4xx to fetch as a console error), or a message, while `when` holds (a page
 * that is offline on purpose logs its failed fetches).
 */
export type ExpectedError = { status: number; path: string } | { text: RegExp; when: () => boolean }

const isExpected = (m: ConsoleMessage, x: ExpectedError) =>
  'status' in x ? m.text().includes(`status of ${x.status}`) && m.location().url.endsWith(x.path) : x.text.test(m.text()) && x.when()

/** Collects a page's console errors and uncaught exceptions into `errors`, except the expected ones. */
export function watchPage(page: Page, errors: string[], expected: ExpectedError[] = []): Page {
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() !== 'error') return
    if (expected.some((x) => isExpected(m, x))) return
    errors.push(`${page.url()}: ${m.text()} (${m.location().url})`)
  })
  page.on('pageerror', (e) => errors.push(`${page.url()}: uncaught ${e.message}`))
  return page
}
