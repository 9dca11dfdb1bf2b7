// The API reference at /docs in a real browser: Debian's Chromium, through
// playwright-core, against a real Herald. Scalar, served by Herald itself,
// renders the OpenAPI document with a navigation entry for every operation,
// turns the Markdown of a description into HTML, and sends a try-it request
// to this same server; all of it under the page's policy, with no console
// error, no CSP violation and no request to another origin. Every icon the
// page names, and /favicon.ico, is an image.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium, SCREENSHOTS, watchPage } from '../browser'
import { startTestHerald, type TestHerald } from '../harness'

const describeBrowser = browserSuite('docs.browser.test.ts')
const STEP_MS = 45_000

interface Operation {
  method: string
  path: string
  summary?: string
}

describeBrowser('the API reference at /docs, in Chromium', () => {
  const errors: string[] = []
  const foreign: string[] = []
  let herald: TestHerald
  let browser: Browser
  let page: Page
  let operations: Operation[] = []

  /** The CSP violations the page reported, as the browser saw them. */
  const violations = () => page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? [])

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true })
    herald = await startTestHerald('embedded')
    const spec = (await (await fetch(`${herald.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { summary?: string }>> }
    operations = Object.entries(spec.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, summary: op.summary })))
    browser = await launchChromium()
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    page = watchPage(await context.newPage(), errors)
    // Every request the page makes, the document's and Scalar's own, must stay on this origin.
    const origin = new URL(herald.url).origin
    page.on('request', (r) => {
      const url = new URL(r.url())
      if (url.protocol !== 'data:' && url.protocol !== 'blob:' && url.origin !== origin) foreign.push(r.url())
    })
    await page.addInitScript(() => {
      const seen: string[] = []
      ;(window as unknown as { cspViolations: string[] }).cspViolations = seen
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective}: ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`))
    })
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await herald?.close()
  })

  test('Scalar renders the reference, with a navigation entry for every operation', async () => {
    await page.goto(`${herald.url}/docs`)
    const sidebar = page.locator('aside')
    await sidebar.locator('a[href$="/POST/event"]').waitFor({ timeout: 20_000 })
    expect(await page.title()).toBe('Herald API reference')
    const entry = (await sidebar.locator('a[href$="/POST/event"]').innerText()).replace(/\s+/g, ' ')
    expect(entry).toContain('Submit an event')
    expect(entry).toContain('POST')
    const nav = await sidebar.innerText()
    expect(operations.length).toBeGreaterThan(20)
    const missing = operations.filter((op) => op.summary && !nav.includes(op.summary)).map((op) => `${op.method} ${op.path}: ${op.summary}`)
    expect(missing).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'docs.png') })
  }, STEP_MS)

  test('a navigation entry leads to its operation, whose description\'s Markdown is rendered: `event` becomes <code>event</code>', async () => {
    await page.locator('aside a[href$="/POST/event"]').click()
    await page.waitForURL(/#tag\/events\/POST\/event$/)
    const heading = page.locator('h3', { hasText: /^Submit an event$/ })
    await expect(heading.isVisible()).resolves.toBe(true)
    const description = page.locator('p', { hasText: 'whose pattern matches its' })
    expect(await description.locator('code').allInnerTexts()).toEqual(['to', 'event', 'Idempotency-Key', 'deliverAt', 'delay'])
    expect(await description.innerText()).not.toContain('`')
    expect(await page.locator('body').innerText()).not.toContain('`event`')
  }, STEP_MS)

  test('a try-it request goes to this same server and shows its answer', async () => {
    // The probes are the last tag of the reference: its entry brings them into view.
    await page.locator('aside a[href$="/GET/healthz"]').click()
    await page.getByRole('button', { name: /Test Request.*get \/healthz/i }).click()
    // The document's server is relative ("/"): Scalar names it as this origin.
    const send = page.getByRole('button', { name: /Send get request to \S*\/healthz/i }).filter({ visible: true }).first()
    await send.waitFor({ timeout: 10_000 })
    const [response] = await Promise.all([page.waitForResponse((r) => r.url() === `${herald.url}/healthz`), send.click()])
    expect(response.status()).toBe(200)
    await page.getByText('200 OK').first().waitFor({ timeout: 10_000 })
    await page.screenshot({ path: join(SCREENSHOTS, 'docs-try-it.png') })
    await page.keyboard.press('Escape')
  }, STEP_MS)

  test('the page names its icons, and they and /favicon.ico are images', async () => {
    const icons = await page.locator('link[rel~="icon"], link[rel="apple-touch-icon"]').evaluateAll((links) => links.map((l) => (l as HTMLLinkElement).href))
    expect(icons.length).toBeGreaterThanOrEqual(2)
    for (const href of [...icons, `${herald.url}/favicon.ico`]) {
      const res = await page.request.get(href)
      expect({ href, status: res.status() }).toEqual({ href, status: 200 })
      expect(res.headers()['content-type']).toStartWith('image/')
    }
  }, STEP_MS)

  test('no console error, no CSP violation, and no request to another origin, all along', async () => {
    expect(await violations()).toEqual([])
    expect(errors).toEqual([])
    expect(foreign).toEqual([])
  })
})
