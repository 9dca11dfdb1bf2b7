// The client in a browser, as its README's "In a web page" shows it: the
// committed dist/ loaded as ES modules by a page in Chromium, Herald reached
// through a route of the page's own origin (a reverse proxy here: Herald
// sends no CORS headers), `send` and `enqueue` both. And dist/ uses the web
// platform alone (fetch, AbortController, timers): no Node built-in, no
// `process` or `Buffer`, which Deno, Cloudflare Workers and browsers lack.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { browserSuite, launchChromium, watchPage } from '../browser'
import { useTestHerald } from '../harness'

const DIST = join(import.meta.dir, '..', '..', 'clients', 'typescript', 'dist')

test('dist/ needs nothing but the web platform: no Node built-in, require, process or Buffer', async () => {
  const files = (await readdir(DIST)).filter((f) => f.endsWith('.js'))
  expect(files).toContain('index.js')
  for (const file of files) {
    const code = (await readFile(join(DIST, file), 'utf8')).replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '')
    const found = [/from\s+['"]node:/, /from\s+['"](fs|http|https|net|os|path|crypto|buffer|events|stream|url)['"]/, /\brequire\(/, /\bprocess\./, /\bBuffer\b/].filter((re) => re.test(code))
    expect(found.length ? `${file}: ${found.join(', ')}` : file).toBe(file)
  }
})

browserSuite('client.browser')('the client in a web page', () => {
  const h = useTestHerald('embedded')
  let browser: Browser
  let site: ReturnType<typeof Bun.serve>
  beforeAll(async () => {
    browser = await launchChromium()
    // The page's origin: the page, the client's files, and Herald under /herald.
    site = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        const url = new URL(req.url)
        if (url.pathname === '/') return new Response('<!doctype html><title>shop</title><link rel="icon" href="data:,"><p>shop</p>', { headers: { 'content-type': 'text/html' } })
        const file = /^\/client\/([a-z_]+\.js)$/.exec(url.pathname)?.[1]
        if (file) return new Response(Bun.file(join(DIST, file)), { headers: { 'content-type': 'text/javascript' } })
        if (url.pathname.startsWith('/herald/')) {
          const headers = new Headers(req.headers)
          headers.delete('host')
          return fetch(h.url + url.pathname.slice('/herald'.length) + url.search, { method: req.method, headers, body: req.body ? await req.arrayBuffer() : undefined })
        }
        return new Response('not found', { status: 404 })
      },
    })
  })
  afterAll(async () => {
    await browser?.close()
    site?.stop(true)
  })

  test('send answers the event; enqueue batches in the background; both are stored', async () => {
    const { apiKey } = await h.workspace()
    const errors: string[] = []
    const page = watchPage(await browser.newPage(), errors)
    await page.goto(`http://127.0.0.1:${site.port}/`)
    const got = await page.evaluate(async (key) => {
      const { Herald } = await import('/client/index.js' as string)
      const herald = new Herald({ apiKey: key, url: `${location.origin}/herald`, flushIntervalMs: 50 })
      const sent = await herald.send({ message: 'Checkout from the page', event: 'shop.checkout', data: { cart: 3 } })
      const queued = await Promise.all([1, 2, 3].map((n) => herald.enqueue({ message: `viewed ${n}`, event: 'shop.view' })))
      await herald.close()
      const outcomes = await Promise.all(queued.map((q: { result: Promise<{ ok: boolean; value?: { eventId: string } }> }) => q.result))
      return { sent, outcomes: outcomes.map((o) => (o.ok ? o.value!.eventId : 'refused')) }
    }, apiKey)
    expect(errors).toEqual([])
    expect(got.sent.channel).toBe('general')
    expect(got.outcomes).toHaveLength(3)
    // Each as Herald stored it, by the id its answer gave.
    const stored = async (id: string) => {
      const res = await fetch(`${h.url}/events/${id}`, { headers: { authorization: `Bearer ${apiKey}` } })
      return res.status === 200 ? ((await res.json()) as { message: string; event: string }) : res.status
    }
    expect(await stored(got.sent.eventId)).toMatchObject({ message: 'Checkout from the page', event: 'shop.checkout' })
    for (const [i, id] of got.outcomes.entries()) expect(await stored(id)).toMatchObject({ message: `viewed ${i + 1}`, event: 'shop.view' })
    await page.close()
  }, 60_000)
})
