// The web dashboard: one HTML shell for every dashboard path, and the
// browser bundle and stylesheet it loads. The bundle is built from
// src/web/*.ts with Bun.build once per process, in memory (nothing is
// written, no build step before `bun start`), and served under a name that
// carries its content hash, so browsers may keep it for a year. The pages
// render in the browser from the JSON API; none of these routes is API, so
// all are hidden from the OpenAPI document, and a path not listed here (such
// as an unknown /v1/…) still answers a problem+json 404.
import { Elysia } from 'elysia'
import { join } from 'node:path'
import type { Logger } from '../../core/log'
import { HeraldError } from '../../core/problems'
import { SESSION_COOKIE, cookieValue } from '../../accounts/session'

const WEB_DIR = join(import.meta.dir, '..', '..', 'web')
const hide = { detail: { hide: true } }

interface Asset {
  name: string // e.g. app.3f2a9c01b7.js
  type: string
  body: Uint8Array<ArrayBuffer>
  gzip: Uint8Array<ArrayBuffer>
}

interface Bundle {
  script: Asset
  style: Asset
  byName: Map<string, Asset>
}

const hashOf = (body: Uint8Array) => new Bun.CryptoHasher('sha256').update(body).digest('hex').slice(0, 12)

function asset(stem: string, ext: string, type: string, body: Uint8Array<ArrayBuffer>): Asset {
  return { name: `${stem}.${hashOf(body)}.${ext}`, type, body, gzip: Bun.gzipSync(body) as Uint8Array<ArrayBuffer> }
}

async function buildBundle(): Promise<Bundle> {
  const result = await Bun.build({ entrypoints: [join(WEB_DIR, 'main.ts')], target: 'browser', format: 'esm', minify: true })
  if (!result.success || !result.outputs[0]) throw new AggregateError(result.logs, 'the dashboard bundle did not build')
  const script = asset('app', 'js', 'text/javascript; charset=utf-8', new Uint8Array(await result.outputs[0].arrayBuffer()))
  const style = asset('app', 'css', 'text/css; charset=utf-8', new Uint8Array(await Bun.file(join(WEB_DIR, 'style.css')).arrayBuffer()))
  return { script, style, byName: new Map([script, style].map((a) => [a.name, a])) }
}

// One build per process, shared by every app instance in it (the tests start
// many servers in one process).
let building: Promise<Bundle> | undefined
const bundle = () => (building ??= buildBundle())

// The shell has no inline script or style, so the policy can forbid both:
// an injected tag could run nothing.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ')

function shellHtml(b: Bundle, signedIn: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="herald-session" content="${signedIn ? 'maybe' : 'none'}">
<title>Herald</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/${b.style.name}">
<script type="module" src="/assets/${b.script.name}"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header id="top" class="site-header"><span class="brand">Herald</span></header>
<main id="main" tabindex="-1"><p class="loading" role="status">Loading…</p></main>
<div id="announcer" class="visually-hidden" aria-live="polite" aria-atomic="true"></div>
<noscript><p class="notice">The Herald dashboard needs JavaScript. The API is documented at <a href="/docs">/docs</a>.</p></noscript>
</body>
</html>
`
}

function serveAsset(a: Asset, request: Request): Response {
  const headers: Record<string, string> = {
    'content-type': a.type,
    // The name changes with the content, so a cached copy is never stale.
    'cache-control': 'public, max-age=31536000, immutable',
    etag: `"${a.name}"`,
    vary: 'accept-encoding',
    'x-content-type-options': 'nosniff',
  }
  if (request.headers.get('if-none-match') === headers.etag) return new Response(null, { status: 304, headers })
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return new Response(a.gzip, { headers: { ...headers, 'content-encoding': 'gzip' } })
  return new Response(a.body, { headers })
}

export const webRoute = (log: Logger) => {
  bundle().then(
    (b) => log.debug({ script: b.script.name, bytes: b.script.body.length }, 'dashboard bundle built'),
    (err) => log.error({ err }, 'the dashboard bundle did not build; the dashboard answers 500'),
  )
  const shell = async ({ request }: { request: Request }) =>
    new Response(shellHtml(await bundle(), cookieValue(request, SESSION_COOKIE) !== null), {
      headers: {
        'content-type': 'text/html; charset=utf-8',
        // It names the current bundle, and says whether a session cookie came.
        'cache-control': 'no-cache, private',
        'content-security-policy': CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'same-origin',
      },
    })
  return new Elysia({ name: 'route.web' })
    .get('/', shell, hide)
    .get('/signin', shell, hide)
    .get('/signup', shell, hide)
    .get('/signup/confirm/:token', shell, hide)
    .get('/reset', shell, hide)
    .get('/reset/:token', shell, hide)
    .get('/invite/:token', shell, hide)
    .get('/w/*', shell, hide)
    .get(
      '/assets/:name',
      async ({ params, request }) => {
        const a = (await bundle()).byName.get(params.name)
        if (!a) throw new HeraldError('not-found', 'There is no such asset; the dashboard may have been updated: reload the page.')
        return serveAsset(a, request)
      },
      hide,
    )
}
