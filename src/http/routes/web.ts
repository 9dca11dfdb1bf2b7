// The web dashboard, an installable web app: one HTML shell for every
// dashboard path, the browser bundle, stylesheet and icons it loads, the web
// app manifest, and the service worker (offline shell and feed, Web Push).
// The bundle and the worker are built from src/web/*.ts with Bun.build once
// per process, in memory (nothing is written, no build step before `bun
// start`); the bundle, stylesheet and icons are served under names that carry
// their content hash, so browsers may keep them for a year, while the
// manifest and /sw.js keep fixed names (browsers look for them there) and are
// revalidated on every use. The pages render in the browser from the JSON
// API; none of these routes is API, so all are hidden from the OpenAPI
// document, and a path not listed here (such as an unknown /v1/…) still
// answers a problem+json 404.
import { Elysia } from 'elysia'
import { join } from 'node:path'
import type { Logger } from '../../core/log'
import { noSuchAsset } from '../../core/errors'
import { SESSION_COOKIE, clearedSessionCookie, cookieValue, isHttps, type UserAuth } from '../../accounts/session'
import { destinationForms } from '../../delivery/destinations'

const WEB_DIR = join(import.meta.dir, '..', '..', 'web')
const hide = { detail: { hide: true } }

const JS = 'text/javascript; charset=utf-8'
// The header's and the page's colours (--header and --bg in src/web/style.css):
// the browser's bars and the splash screen of the installed app match the page.
const THEME_COLOR = '#12263f'
const BACKGROUND_COLOR = '#f4f6f8'

export interface Asset {
  name: string // e.g. app.3f2a9c01b7.js, or a fixed name: sw.js
  type: string
  etag: string
  body: Uint8Array<ArrayBuffer>
  gzip: Uint8Array<ArrayBuffer>
}

// Drawn once from one SVG of the mark (the brand's ◆): `any` icons have
// rounded corners, the maskable one and Apple's are full-bleed with the mark
// inside the central 80% that launchers may keep, the badge is white on
// transparent (Android draws a badge from its alpha alone).
const ICONS = {
  svg: ['icon.svg', 'image/svg+xml'],
  192: ['icon-192.png', 'image/png'],
  512: ['icon-512.png', 'image/png'],
  maskable: ['icon-maskable-512.png', 'image/png'],
  apple: ['apple-touch-icon.png', 'image/png'],
  badge: ['badge-96.png', 'image/png'],
} as const
type IconName = keyof typeof ICONS

interface Bundle {
  script: Asset
  style: Asset
  icons: Record<IconName, Asset>
  manifest: Asset
  worker: Asset
  byName: Map<string, Asset>
}

const hashOf = (body: Uint8Array) => new Bun.CryptoHasher('sha256').update(body).digest('hex').slice(0, 12)

function asset(name: string, type: string, body: Uint8Array<ArrayBuffer>, hashed = true): Asset {
  const hash = hashOf(body)
  const dot = name.lastIndexOf('.')
  return { name: hashed ? `${name.slice(0, dot)}.${hash}${name.slice(dot)}` : name, type, etag: `"${hash}"`, body, gzip: Bun.gzipSync(body) as Uint8Array<ArrayBuffer> }
}

async function build(entry: string, format: 'esm' | 'iife', define?: Record<string, string>): Promise<Uint8Array<ArrayBuffer>> {
  const result = await Bun.build({ entrypoints: [join(WEB_DIR, entry)], target: 'browser', format, minify: true, define })
  if (!result.success || !result.outputs[0]) throw new AggregateError(result.logs, `${entry} did not build`)
  return new Uint8Array(await result.outputs[0].arrayBuffer())
}

const src = (a: Asset) => `/assets/${a.name}`

function manifestOf(icons: Bundle['icons']) {
  const png = (a: Asset, size: number, purpose: string) => ({ src: src(a), sizes: `${size}x${size}`, type: 'image/png', purpose })
  return {
    id: '/',
    name: 'Herald',
    short_name: 'Herald',
    description: 'The events of your Herald workspaces: a live feed, each delivery\'s log, and notifications on this device.',
    lang: 'en',
    start_url: '/?source=pwa',
    scope: '/',
    display: 'standalone',
    theme_color: THEME_COLOR,
    background_color: BACKGROUND_COLOR,
    icons: [
      png(icons[192], 192, 'any'),
      png(icons[512], 512, 'any'),
      png(icons.maskable, 512, 'maskable'),
      { src: src(icons.svg), sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
    ],
    shortcuts: [{ name: 'Feed', short_name: 'Feed', description: 'The live feed of your workspace', url: '/feed', icons: [png(icons[192], 192, 'any')] }],
  }
}

async function buildBundle(): Promise<Bundle> {
  // The router form's destination types are the registry's, as data: the
  // bundle must not import their send code (SMTP, DNS, sockets).
  const script = asset('app.js', JS, await build('main.ts', 'esm', { HERALD_DESTINATIONS: JSON.stringify(destinationForms()) }))
  const style = asset('app.css', 'text/css; charset=utf-8', new Uint8Array(await Bun.file(join(WEB_DIR, 'style.css')).arrayBuffer()))
  const icons = {} as Bundle['icons']
  for (const [key, [file, type]] of Object.entries(ICONS)) icons[key as IconName] = asset(file, type, new Uint8Array(await Bun.file(join(WEB_DIR, 'icons', file)).arrayBuffer()))
  const manifest = asset('manifest.webmanifest', 'application/manifest+json', new TextEncoder().encode(JSON.stringify(manifestOf(icons))), false)
  // The worker precaches this build's shell and assets; their names make its
  // version, so a new build is a new worker (browsers compare /sw.js byte for
  // byte) whose activation drops the old build's cache.
  const precache = ['/', '/manifest.webmanifest', ...[script, style, ...Object.values(icons)].map(src)]
  const swBuild = { version: hashOf(new TextEncoder().encode(precache.join('\n'))), precache, icon: src(icons[192]), badge: src(icons.badge) }
  const worker = asset('sw.js', JS, await build('sw.ts', 'iife', { HERALD_BUILD: JSON.stringify(swBuild) }), false)
  const byName = new Map([script, style, ...Object.values(icons)].map((a) => [a.name, a]))
  return { script, style, icons, manifest, worker, byName }
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
  "manifest-src 'self'",
  "worker-src 'self'",
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
<meta name="theme-color" content="${THEME_COLOR}">
<link rel="manifest" href="/manifest.webmanifest">
<link rel="icon" href="${src(b.icons.svg)}" type="image/svg+xml">
<link rel="icon" href="${src(b.icons[192])}" type="image/png" sizes="192x192">
<link rel="apple-touch-icon" href="${src(b.icons.apple)}">
<meta name="mobile-web-app-capable" content="yes">
<meta name="apple-mobile-web-app-capable" content="yes">
<meta name="apple-mobile-web-app-title" content="Herald">
<meta name="apple-mobile-web-app-status-bar-style" content="black">
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

// A hashed name changes with the content, so a cached copy is never stale;
// a fixed name (the manifest, the worker) is revalidated by its ETag on every use.
const IMMUTABLE = 'public, max-age=31536000, immutable'

export function serveAsset(a: Asset, request: Request, cacheControl = IMMUTABLE, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    'content-type': a.type,
    'cache-control': cacheControl,
    etag: a.etag,
    vary: 'accept-encoding',
    'x-content-type-options': 'nosniff',
    ...extra,
  }
  if (request.headers.get('if-none-match') === headers.etag) return new Response(null, { status: 304, headers })
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return new Response(a.gzip, { headers: { ...headers, 'content-encoding': 'gzip' } })
  return new Response(a.body, { headers })
}

/**
 * The icon links of a page Herald serves (the shell above, /docs), naming the
 * current hashed icons: a favicon everywhere.
 */
export async function iconLinks(): Promise<string> {
  const b = await bundle()
  return `<link rel="icon" href="${src(b.icons.svg)}" type="image/svg+xml">
<link rel="icon" href="${src(b.icons[192])}" type="image/png" sizes="192x192">
<link rel="apple-touch-icon" href="${src(b.icons.apple)}">`
}

/** The stylesheet link of a page Herald renders on the server (the /ack/<token> page): the dashboard's current hashed stylesheet. */
export async function styleLink(): Promise<string> {
  return `<link rel="stylesheet" href="/assets/${(await bundle()).style.name}">`
}

/** The headers of every HTML page Herald serves: its policy (no inline script or style), no sniffing, no referrer beyond this origin. */
export const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
} as const

export const webRoute = (log: Logger, users: Pick<UserAuth, 'liveCookie'>, trustProxy: boolean) => {
  bundle().then(
    (b) => log.debug({ script: b.script.name, bytes: b.script.body.length }, 'dashboard bundle built'),
    (err) => log.error({ err }, 'the dashboard bundle did not build; the dashboard answers 500'),
  )
  const shell = async ({ request }: { request: Request }) => {
    // A cookie whose session ended (signed out elsewhere, a password reset, a
    // sign-out the browser navigated away from) is cleared here, so that the
    // page does not ask /v1/me only to be told 401.
    const cookie = cookieValue(request, SESSION_COOKIE)
    const live = cookie !== null && (await users.liveCookie(cookie).catch(() => true))
    const headers: Record<string, string> = {
      ...HTML_HEADERS,
      // It names the current bundle, and says whether a live session came.
      'cache-control': 'no-cache, private',
    }
    if (cookie !== null && !live) headers['set-cookie'] = clearedSessionCookie(isHttps(request, trustProxy))
    return new Response(shellHtml(await bundle(), live), { headers })
  }
  return new Elysia({ name: 'route.web' })
    .get('/', shell, hide)
    .get('/signin', shell, hide)
    .get('/signup', shell, hide)
    .get('/signup/confirm/:token', shell, hide)
    .get('/reset', shell, hide)
    .get('/reset/:token', shell, hide)
    .get('/invite/:token', shell, hide)
    .get('/feed', shell, hide)
    .get('/account', shell, hide)
    .get('/w/*', shell, hide)
    // Browsers ask for /favicon.ico by themselves, link or not: the PNG
    // icon, which every browser reads whatever the name says.
    .get('/favicon.ico', async ({ request }) => serveAsset((await bundle()).icons[192], request, 'public, max-age=86400'), hide)
    .get('/manifest.webmanifest', async ({ request }) => serveAsset((await bundle()).manifest, request, 'no-cache'), hide)
    // At the root, so that its scope is the whole app. Its own policy: it
    // fetches this origin only, and loads no script.
    .get('/sw.js', async ({ request }) => serveAsset((await bundle()).worker, request, 'no-cache', { 'content-security-policy': "default-src 'self'; script-src 'none'" }), hide)
    .get(
      '/assets/:name',
      async ({ params, request }) => {
        const a = (await bundle()).byName.get(params.name)
        if (!a) throw noSuchAsset()
        return serveAsset(a, request)
      },
      hide,
    )
}
