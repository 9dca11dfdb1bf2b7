// The first ten minutes, as the README's front page tells them, with nothing
// but the two commands' Herald: `herald start` on the embedded default in a
// fresh data directory, the banner read for the dashboard's URL and the demo
// key, an event sent with that key before anyone has an account, the first
// sign-up in Chromium (told that it will own `demo`) landing on a feed that
// holds that event, then the CLI on the same machine, without a token in its
// environment, making a webhook router that delivers the next event sent by
// `herald send`, whose delivery the feed shows.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { browserSuite, launchChromium, SCREENSHOTS, watchPage } from '../browser'
import { spawnHerald, type HeraldProcess } from '../processes'
import { eventually, startReceiver, type Receiver } from '../receiver'
import { PASSWORD } from '../users'

const describeBrowser = browserSuite('first_start.browser.test.ts')
const ROOT = join(import.meta.dir, '..', '..')

describeBrowser('the first ten minutes (embedded, a real `herald start`)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-first-'))
  const errors: string[] = []
  let herald: HeraldProcess
  let receiver: Receiver
  let browser: Browser
  let page: Page
  let dashboard = ''
  let demoKey = ''

  /** The CLI as a person runs it beside the server: same machine, same directory, no token given. */
  async function cli(...args: string[]) {
    const { DATABASE_URL: _, NATS_URL: __, HERALD_ADMIN_TOKEN: ___, HERALD_URL: ____, ...inherited } = process.env
    const proc = Bun.spawn([process.execPath, 'src/cli/main.ts', ...args], { cwd: ROOT, env: { ...inherited, HERALD_DATA_DIR: dir, PORT: String(herald.port) }, stdout: 'pipe', stderr: 'pipe' })
    const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
    return { code, stdout, stderr }
  }

  /** A failure says what the server printed: the CLI, the worker and the page all go through it. */
  async function withServerLog(f: () => Promise<void>) {
    try {
      await f()
    } catch (err) {
      const e = err as Error
      const feed = await page.locator('li').allTextContents().catch(() => [])
      e.message += `\n--- the feed shows ---\n${feed.map((t) => t.replace(/\s+/g, ' ').trim()).join('\n')}`
      e.message += `\n--- the last of Herald's output ---\n${herald.output.slice(-60).join('\n')}\n--- the receiver got ---\n${receiver.received.map((r) => `${r.method} ${r.path} ${r.body.slice(0, 200)}`).join('\n')}`
      throw e
    }
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true })
    receiver = startReceiver()
    // Loopback receivers are private addresses: the one setting a test needs.
    herald = await spawnHerald({ HERALD_DATA_DIR: dir, HERALD_ADMIN_TOKEN: '', HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,200ms' }, 'start')
    browser = await launchChromium()
    page = watchPage(await (await browser.newContext({ viewport: { width: 1200, height: 860 } })).newPage(), errors)
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await herald?.kill('SIGTERM')
    receiver?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  test('the banner gives the dashboard, who will own demo, the demo key and where the operator token is', () => {
    const banner = herald.output.join('\n')
    dashboard = /Dashboard: +(http:\/\/\S+)/.exec(banner)?.[1] ?? ''
    expect(dashboard).toBe(`http://localhost:${herald.port}`)
    expect(banner).toContain('(the first account to sign up owns the workspace "demo")')
    demoKey = /^ {4}(hrld_\S+)$/m.exec(banner)?.[1] ?? ''
    expect(demoKey).toMatch(/^hrld_[0-9A-Za-z]{36}$/)
    expect(banner).toContain(`reads the token in ${join(dir, 'admin.token')}`)
    // The README's first command: no NATS, the events are delivered in-process.
    expect(banner).toContain('"bus":"in-process"')
  })

  test('an event sent with the demo key before anyone signed up is in the first account\'s feed', async () => {
    const sent = await fetch(`${dashboard}/event`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demoKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Hello from the first ten minutes', event: 'hello.world' }),
    })
    expect(sent.status).toBe(200)

    await page.goto(`${dashboard}/signup`)
    const note = page.getByTestId('first-owner')
    await note.waitFor()
    expect(await note.textContent()).toContain('your account will own the workspace demo')
    await page.getByLabel('E-mail address').fill('first@example.com')
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.waitForURL('**/w/demo/feed')
    await page.getByText('Hello from the first ten minutes').waitFor()
    await page.screenshot({ path: join(SCREENSHOTS, 'first-start-feed.png') })
  }, 45_000)

  test('the CLI beside the server needs no token: a webhook router, then `herald send`, delivered and shown delivered', () => withServerLog(async () => {
    const made = await cli('router', 'create', 'demo', '--name', 'hook', '--pattern', '*', '--webhook', `${receiver.url}/hook`)
    expect(made.stderr).toBe('')
    expect(made.code).toBe(0)
    const sent = await cli('send', 'Deploy finished', '--event', 'deploy.finished', '--channel', 'deploys', '--tag', 'prod', '--data', 'sha=9f2c1e', '--key', demoKey)
    expect(sent.code).toBe(0)
    // Only this Herald's hook counts: a loopback port may have served another test's receiver before.
    const hook = await eventually(async () => receiver.received.find((r) => r.path === '/hook' && r.body.includes('Deploy finished')), 15_000, 'the webhook of the event sent')
    const body = JSON.parse(hook.body) as { type: string; data: Record<string, unknown> }
    expect(body.type).toBe('event.created')
    expect(body.data).toMatchObject({ workspace: 'demo', message: 'Deploy finished', event: 'deploy.finished', channel: 'deploys', tags: ['prod'], data: { sha: '9f2c1e' } })
    // The event arrived live in the open feed, in a channel the page had not seen, and its delivery shows.
    const item = page.locator('li', { hasText: 'Deploy finished' })
    await item.waitFor()
    await page.getByRole('combobox', { name: /Channel/ }).locator('option', { hasText: 'deploys' }).waitFor({ state: 'attached' })
    await item.getByText(/delivered/i).waitFor({ timeout: 15_000 })
    expect(errors).toEqual([])
  }), 45_000)
})
