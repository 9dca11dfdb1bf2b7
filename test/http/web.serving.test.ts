// How the dashboard is served: the shell on its paths (deep links included),
// the hashed bundle, stylesheet and icons with long caching, no inline
// script, the manifest and the service worker revalidated on every use, and
// every other path still a problem+json 404. The routes stay out of OpenAPI.
import { describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { browser, newEmail, PASSWORD } from '../users'
import { isShellPath } from '../../src/web/offline'

for (const backend of backends) {
  describe(`web dashboard serving (${backend})`, () => {
    const herald = useTestHerald(backend, {}, 60_000)
    const get = (path: string, headers: Record<string, string> = {}) => herald.app.handle(new Request(`http://localhost${path}`, { headers }))

    test('the shell answers every dashboard path, with a strict content security policy', async () => {
      for (const path of ['/', '/feed', '/signin', '/signup', '/reset', '/reset/abc', '/invite/abc', '/w/acme', '/w/acme/feed', '/w/acme/events/019a0000-0000-7000-8000-000000000000', '/w/acme/routers/new']) {
        const res = await get(path)
        expect({ path, status: res.status }).toEqual({ path, status: 200 })
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
        expect({ path, offline: isShellPath(path) }).toEqual({ path, offline: true }) // the service worker answers it offline too
        const csp = res.headers.get('content-security-policy')!
        for (const directive of ["script-src 'self'", "manifest-src 'self'", "worker-src 'self'", "object-src 'none'"]) expect(csp).toContain(directive)
        const body = await res.text()
        expect(body).toMatch(/<script type="module" src="\/assets\/app\.[0-9a-f]{12}\.js"><\/script>/)
        expect(body).not.toMatch(/<script>|<style>|style="/)
      }
    })

    test('the shell says whether a live session came; an ended or forged one is cleared, so the page never asks /v1/me for a 401', async () => {
      const none = '<meta name="herald-session" content="none">'
      const maybe = '<meta name="herald-session" content="maybe">'
      const plain = await get('/')
      expect(await plain.text()).toContain(none)
      expect(plain.headers.get('set-cookie')).toBeNull()

      const person = browser(herald)
      expect((await person.session('/v1/auth/signup', { email: newEmail('shell'), password: PASSWORD })).status).toBe(201)
      const cookie = person.cookie
      const live = await get('/signup', { cookie })
      expect(await live.text()).toContain(maybe)
      expect(live.headers.get('set-cookie')).toBeNull()

      // Signed out (here, or on another device, or by a password reset): the cookie the browser kept is ended.
      expect((await person.call('POST', '/v1/auth/signout')).status).toBe(204)
      for (const stale of [cookie, 'herald_session=hrls_x', `herald_session=${'a'.repeat(4000)}`, 'herald_session=%00%ff', 'herald_session=']) {
        const res = await get('/signup', { cookie: stale })
        expect({ stale: stale.slice(0, 40), status: res.status, meta: (await res.text()).includes(none) }).toEqual({ stale: stale.slice(0, 40), status: 200, meta: true })
        if (stale !== 'herald_session=') expect(res.headers.get('set-cookie')).toMatch(/^herald_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/)
      }
    })

    test('assets are content-hashed, cached for a year, gzipped on request, and revalidate by ETag', async () => {
      const shell = await (await get('/')).text()
      for (const name of [...shell.matchAll(/\/assets\/(app\.[0-9a-f]{12}\.(?:js|css))/g)].map((m) => m[1]!)) {
        const res = await get(`/assets/${name}`)
        expect(res.status).toBe(200)
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
        const plain = await res.text()
        expect(plain.length).toBeGreaterThan(1000)
        const zipped = await get(`/assets/${name}`, { 'accept-encoding': 'gzip, br' })
        expect(zipped.headers.get('content-encoding')).toBe('gzip')
        expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer())))).toBe(plain)
        expect((await get(`/assets/${name}`, { 'if-none-match': res.headers.get('etag')! })).status).toBe(304)
      }
    })

    test('the shell links the manifest, the icons and the app meta, and no icon is a data: URL', async () => {
      const shell = await (await get('/')).text()
      for (const tag of [
        '<link rel="manifest" href="/manifest.webmanifest">',
        '<meta name="theme-color" content="#12263f">',
        '<meta name="apple-mobile-web-app-capable" content="yes">',
        '<meta name="apple-mobile-web-app-title" content="Herald">',
        '<meta name="apple-mobile-web-app-status-bar-style" content="black">',
      ])
        expect(shell).toContain(tag)
      expect(shell).toMatch(/<link rel="icon" href="\/assets\/icon\.[0-9a-f]{12}\.svg" type="image\/svg\+xml">/)
      expect(shell).toMatch(/<link rel="apple-touch-icon" href="\/assets\/apple-touch-icon\.[0-9a-f]{12}\.png">/)
      expect(shell).not.toContain('data:,')
    })

    test('the manifest is JSON of its own type, its icons are hashed assets, and it revalidates by ETag', async () => {
      const res = await get('/manifest.webmanifest')
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/manifest+json')
      expect(res.headers.get('cache-control')).toBe('no-cache')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      const manifest = (await res.json()) as { icons: { src: string; type: string }[] }
      for (const icon of manifest.icons) {
        expect(icon.src).toMatch(/^\/assets\/[\w-]+\.[0-9a-f]{12}\.(png|svg)$/)
        const got = await get(icon.src)
        expect({ src: icon.src, status: got.status, type: got.headers.get('content-type'), cache: got.headers.get('cache-control') }).toEqual({ src: icon.src, status: 200, type: icon.type, cache: 'public, max-age=31536000, immutable' })
      }
      expect((await get('/manifest.webmanifest', { 'if-none-match': res.headers.get('etag')! })).status).toBe(304)
    })

    test('the service worker is served at the root, uncached, and precaches the current bundle, stylesheet and shell', async () => {
      const res = await get('/sw.js')
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('no-cache')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      const worker = await res.text()
      const shell = await (await get('/')).text()
      for (const name of [...shell.matchAll(/\/assets\/(app\.[0-9a-f]{12}\.(?:js|css))/g)].map((m) => m[1]!)) expect(worker).toContain(`"/assets/${name}"`)
      expect(worker).toMatch(/version:"[0-9a-f]{12}"/)
      expect(worker).toContain('"/manifest.webmanifest"')
      expect((await get('/sw.js', { 'if-none-match': res.headers.get('etag')! })).status).toBe(304)
    })

    test('unknown API and asset paths stay problem+json 404s', async () => {
      for (const path of ['/v1/nothing', '/v1/workspaces/acme/nothing', '/nothing', '/assets/app.000000000000.js']) {
        expect({ path, offline: isShellPath(path) }).toEqual({ path, offline: false })
        const res = await get(path)
        expect({ path, status: res.status }).toEqual({ path, status: 404 })
        expect(res.headers.get('content-type')).toBe('application/problem+json')
      }
    })

    test('the dashboard routes are not in the OpenAPI document', async () => {
      const spec = (await (await get('/openapi.json')).json()) as { paths: Record<string, unknown> }
      const paths = Object.keys(spec.paths)
      expect(paths).toContain('/v1/feed')
      expect(paths.filter((p) => p === '/' || /^\/(w|feed|signin|signup|reset|invite|assets|sw\.js|manifest\.webmanifest)(\/|$)/.test(p))).toEqual([])
    })
  })
}
