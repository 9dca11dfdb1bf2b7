// How the dashboard is served: the shell on its paths (deep links included),
// the hashed bundle and stylesheet with long caching, no inline script, and
// every other path still a problem+json 404. The routes stay out of OpenAPI.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { backends, startTestHerald, type TestHerald } from '../harness'

for (const backend of backends) {
  describe(`web dashboard serving (${backend})`, () => {
    let herald: TestHerald
    const get = (path: string, headers: Record<string, string> = {}) => herald.app.handle(new Request(`http://localhost${path}`, { headers }))
    beforeAll(async () => {
      herald = await startTestHerald(backend)
    }, 60_000)
    afterAll(() => herald?.close())

    test('the shell answers every dashboard path, with a strict content security policy', async () => {
      for (const path of ['/', '/signin', '/signup', '/reset', '/reset/abc', '/invite/abc', '/w/acme', '/w/acme/feed', '/w/acme/events/019a0000-0000-7000-8000-000000000000', '/w/acme/routers/new']) {
        const res = await get(path)
        expect({ path, status: res.status }).toEqual({ path, status: 200 })
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
        expect(res.headers.get('content-security-policy')).toContain("script-src 'self'")
        const body = await res.text()
        expect(body).toMatch(/<script type="module" src="\/assets\/app\.[0-9a-f]{12}\.js"><\/script>/)
        expect(body).not.toMatch(/<script>|<style>|style="/)
      }
    })

    test('the shell says whether a session cookie came, without reading it', async () => {
      expect(await (await get('/')).text()).toContain('<meta name="herald-session" content="none">')
      expect(await (await get('/', { cookie: 'herald_session=hrls_x' })).text()).toContain('<meta name="herald-session" content="maybe">')
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

    test('unknown API and asset paths stay problem+json 404s', async () => {
      for (const path of ['/v1/nothing', '/v1/workspaces/acme/nothing', '/nothing', '/assets/app.000000000000.js']) {
        const res = await get(path)
        expect({ path, status: res.status }).toEqual({ path, status: 404 })
        expect(res.headers.get('content-type')).toBe('application/problem+json')
      }
    })

    test('the dashboard routes are not in the OpenAPI document', async () => {
      const spec = (await (await get('/openapi.json')).json()) as { paths: Record<string, unknown> }
      const paths = Object.keys(spec.paths)
      expect(paths).toContain('/v1/feed')
      expect(paths.filter((p) => p === '/' || /^\/(w|signin|signup|reset|invite|assets)(\/|$)/.test(p))).toEqual([])
    })
  })
}
