// What every browser test shares: Debian's Chromium, driven through
// playwright-core (never `npx playwright install`), skipped with a warning
// where it is missing but required under CI=true, and a watch on each page
// for console errors and uncaught exceptions; and the signed-in browser most
// suites start from (useSignedInBrowser).
import { afterAll, beforeAll, describe } from 'bun:test'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type ConsoleMessage, type Page } from 'playwright-core'
import { startTestHerald, type Backend, type TestEnv, type TestHerald } from './harness'
import { PASSWORD } from './users'

const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
const haveChromium = existsSync(CHROMIUM)

/** `describe` when Chromium is there; under CI=true its absence fails the file. */
export function browserSuite(file: string): typeof describe | typeof describe.skip {
  if (process.env.CI === 'true' && !haveChromium) throw new Error(`CI=true but ${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium)`)
  if (!haveChromium) console.warn(`${file}: skipped, ${CHROMIUM} is missing (apt-get install chromium)`)
  return haveChromium ? describe : describe.skip
}

/** Chromium, with `args` after the usual ones (a host resolver rule, say). */
export const launchChromium = (args: string[] = []): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...args] })

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

export interface SignedInBrowserOptions {
  backend: Backend
  /** The Herald's settings, or a function that gives them when it starts (after the suite's earlier beforeAll hooks). */
  env?: TestEnv
  viewport: { width: number; height: number }
  /** More options of the context (a phone's isMobile and hasTouch). */
  device?: Omit<BrowserContextOptions, 'viewport'>
  /** The owner and the workspace made at sign-up. */
  email: string
  workspace: string
  /**
   * 'now': signed up through the API (client "web") before the first test,
   * the context keeping the session cookie. 'later': the suite signs up
   * itself, through the sign-up page or with signUp(), because what comes
   * first is a fresh install or the sign-up page under test.
   */
  signUp?: 'now' | 'later'
  /** The console errors the steps cause on purpose (see watchPage). */
  expected?: ExpectedError[]
  /** Runs on the context before the page opens: permissions, init scripts. */
  prepare?: (context: BrowserContext, herald: TestHerald) => unknown
  timeoutMs?: number
}

export interface SignedInBrowser {
  herald: TestHerald
  browser: Browser
  context: BrowserContext
  /** A page of the context, watched into `errors`. */
  page: Page
  /** Console errors and uncaught exceptions of every page watched with watch(). */
  errors: string[]
  /** Watches another page into `errors`, with the same expected errors. */
  watch(page: Page): Page
  email: string
  workspace: string
  /** Whether the owner has signed up (set it when a test signed up through the page). */
  signedUp: boolean
  /** Signs the owner up through the API unless they have; the context keeps the session cookie. */
  signUp(): Promise<void>
}

/**
 * A Herald, a Chromium and one page of a context that carries the owner's
 * session: what a browser suite starts from. Call it in a `describe`; the
 * values are there from its beforeAll on (reading them earlier throws, as
 * useTestHerald does). One afterAll closes Chromium first, then Herald (a
 * page still open holds the live stream Herald would wait for); bun runs
 * afterAll hooks in registration order, so clean-ups the suite registers
 * after this call (receivers) run after both.
 */
export function useSignedInBrowser(o: SignedInBrowserOptions): SignedInBrowser {
  const timeoutMs = o.timeoutMs ?? 60_000
  let started: { herald: TestHerald; browser: Browser; context: BrowserContext; page: Page } | undefined
  const errors: string[] = []
  const watch = (page: Page) => watchPage(page, errors, o.expected)
  const s: SignedInBrowser = {
    herald: late('herald', () => started?.herald),
    browser: late('browser', () => started?.browser),
    context: late('context', () => started?.context),
    page: late('page', () => started?.page),
    errors,
    watch,
    email: o.email,
    workspace: o.workspace,
    signedUp: false,
    async signUp() {
      if (s.signedUp) return
      const res = await s.context.request.post(`${s.herald.url}/v1/auth/signup`, { data: { email: o.email, password: PASSWORD, workspace: o.workspace, client: 'web' } })
      if (res.status() !== 201) throw new Error(`sign-up failed: ${res.status()} ${await res.text()}`)
      s.signedUp = true
    },
  }
  let herald: TestHerald | undefined
  let browser: Browser | undefined
  beforeAll(async () => {
    herald = await startTestHerald(o.backend, typeof o.env === 'function' ? await o.env() : (o.env ?? {}))
    browser = await launchChromium()
    const context = await browser.newContext({ ...o.device, viewport: o.viewport })
    await o.prepare?.(context, herald)
    started = { herald, browser, context, page: watch(await context.newPage()) }
    if (o.signUp !== 'later') await s.signUp()
  }, timeoutMs)
  afterAll(async () => {
    await browser?.close()
    await herald?.close()
  }, timeoutMs)
  return s
}

/** A stand-in for what a beforeAll makes: reads go to it once made, and throw before. */
function late<T extends object>(name: string, get: () => T | undefined): T {
  const real = (key: PropertyKey): T => {
    const v = get()
    if (v) return v
    throw new Error(`useSignedInBrowser: read ${name}.${String(key)} before its beforeAll made it; use it inside a hook or a test`)
  }
  return new Proxy({} as T, {
    get: (_, key) => {
      const target = real(key)
      const v = Reflect.get(target, key)
      return typeof v === 'function' ? v.bind(target) : v
    },
    set: (_, key, value) => Reflect.set(real(key), key, value),
    has: (_, key) => Reflect.has(real(key), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real('prototype')),
  })
}
