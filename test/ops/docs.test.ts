// The documentation cannot drift from what it describes: the settings table
// of docs/configuration.md is the one generated from the config schema, every
// relative link of README.md and docs/ leads to a file (and to a heading of
// it, when it names one), nothing points at files outside the repository,
// and the vendored Scalar bundle is the pinned devDependency's, byte for
// byte. Then how /docs, its script and the favicon are served.
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { CONFIG_DOC, TABLE_END, TABLE_START, configTable } from '../../src/core/config_docs'
import { DOCS_CSP, SCALAR_FILE, SCALAR_PREAMBLE } from '../../src/http/routes/docs'
import { useTestHerald } from '../harness'

const ROOT = resolve(import.meta.dir, '..', '..')
const INSTALLED_SCALAR = join(ROOT, 'node_modules', '@scalar', 'api-reference', 'dist', 'browser', 'standalone.js')

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'vendor' ? [] : files(path, keep)
    return keep(name) ? [path] : []
  })
}

const docs = [join(ROOT, 'README.md'), ...files(join(ROOT, 'docs'), (n) => n.endsWith('.md'))]

/** The text outside fenced code blocks, where a link is a link. */
const prose = (md: string) => md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')

/** Every link target of a Markdown file: [text](target), <img src> and <a href>. */
function linksOf(md: string): string[] {
  const text = prose(md).replace(/`[^`\n]*`/g, '')
  const out = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!)
  for (const m of text.matchAll(/<(?:img|a)\b[^>]*?\b(?:src|href)="([^"]+)"/g)) out.push(m[1]!)
  return out
}

/** The anchors of a Markdown file's headings, as GitHub makes them. */
function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const m of prose(md).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n ? `${base}-${n}` : base)
  }
  return out
}

describe('the documentation', () => {
  test('docs/configuration.md holds the settings table generated from the schema (bun src/core/config_docs.ts rewrites it)', () => {
    const doc = readFileSync(CONFIG_DOC, 'utf8')
    const start = doc.indexOf(TABLE_START)
    const end = doc.indexOf(TABLE_END)
    expect(start).toBeGreaterThan(-1)
    expect(end).toBeGreaterThan(start)
    expect(doc.slice(start + TABLE_START.length, end).trim()).toBe(configTable())
  })

  test('every relative link of README.md and docs/ leads to a file, and to a heading of it when it names one', () => {
    const broken: string[] = []
    let checked = 0
    for (const file of docs) {
      const md = readFileSync(file, 'utf8')
      for (const link of linksOf(md)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue // https:, mailto:
        checked++
        const [path, anchor] = link.split('#') as [string, string | undefined]
        const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file
        const where = `${relative(ROOT, file)}: ${link}`
        if (!target.startsWith(ROOT + '/') && target !== ROOT) broken.push(`${where} leaves the repository`)
        else if (!existsSync(target)) broken.push(`${where} is no file`)
        else if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${where}: no heading makes #${anchor}`)
      }
    }
    expect(broken).toEqual([])
    expect(checked).toBeGreaterThan(50)
  })

  test('no page points at files the repository does not hold (SPEC.md, DECISIONS.md), nor does a comment in src/', () => {
    const sources = files(join(ROOT, 'src'), (n) => /\.(ts|css)$/.test(n))
    const mentions = [...docs, ...sources].filter((f) => /\b(SPEC|DECISIONS)\.md\b/.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f))
    expect(mentions).toEqual([])
  })

  test('the README is a front page: the two commands, and the guide one link away', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(readme.split('\n').length).toBeLessThanOrEqual(150)
    expect(readme).toContain('npm ci && npx bun start')
    expect(readme).toContain('npm ci && npx bun test')
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toContain('npx bun test')
    for (const page of ['docs/README.md', 'docs/cli.md', 'docs/configuration.md']) expect(readme).toContain(`](${page})`)
  })

  test('the vendored Scalar bundle is the installed devDependency\'s, byte for byte (update: docs/architecture.md, "The API reference")', () => {
    const pinned = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['@scalar/api-reference']
    const installed = (JSON.parse(readFileSync(join(ROOT, 'node_modules', '@scalar', 'api-reference', 'package.json'), 'utf8')) as { version: string }).version
    expect(installed).toBe(pinned!)
    expect(readFileSync(join(ROOT, 'src', 'http', 'vendor', 'scalar.LICENSE'), 'utf8')).toContain(`@scalar/api-reference ${pinned}`)
    const vendored = readFileSync(SCALAR_FILE)
    expect(vendored.length).toBe(statSync(INSTALLED_SCALAR).size)
    expect(vendored.equals(readFileSync(INSTALLED_SCALAR))).toBe(true)
  })
})

describe('serving /docs', () => {
  const herald = useTestHerald('embedded', {}, 60_000)
  const get = (path: string, headers: Record<string, string> = {}) => herald.app.handle(new Request(`http://localhost${path}`, { headers }))

  const page = async () => {
    const res = await get('/docs')
    const html = await res.text()
    const script = /<script src="(\/docs\/scalar\.[0-9a-f]{12}\.js)"><\/script>/.exec(html)?.[1]
    return { res, html, script: script! }
  }

  test('the page loads Scalar from this origin, configured by a data attribute to read /openapi.json, under a strict policy', async () => {
    const { res, html, script } = await page()
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    const csp = res.headers.get('content-security-policy')!
    expect(csp).toBe(DOCS_CSP)
    for (const directive of ["default-src 'self'", "script-src 'self'", "connect-src 'self'", "object-src 'none'", "frame-ancestors 'none'"]) expect(csp).toContain(directive)
    expect(csp).not.toMatch(/unsafe-eval|https?:|\*/)
    expect(script).toBeDefined()
    // One script, of this origin; the other <script> is JSON, which never runs.
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([expect.stringContaining('type="application/json"'), `<script src="${script}">`])
    const attr = /data-configuration="([^"]*)"/.exec(html)![1]!.replaceAll('&#34;', '"').replaceAll('&#39;', "'").replaceAll('&#38;', '&')
    expect(JSON.parse(attr)).toMatchObject({ url: '/openapi.json', withDefaultFonts: false, telemetry: false })
    expect(html).toMatch(/<link rel="icon" href="\/assets\/icon\.[0-9a-f]{12}\.svg" type="image\/svg\+xml">/)
  })

  test('the script is the vendored file (after a one-line preamble), cached for a year under its hash, gzipped when the client takes gzip, and revalidated by ETag', async () => {
    const { script } = await page()
    const vendored = new Uint8Array(Buffer.concat([Buffer.from(SCALAR_PREAMBLE), readFileSync(SCALAR_FILE)]))
    const plain = await get(script)
    expect(plain.status).toBe(200)
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(plain.headers.get('vary')).toBe('accept-encoding')
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect(new Uint8Array(await plain.arrayBuffer())).toEqual(vendored)
    const gz = await get(script, { 'accept-encoding': 'gzip, deflate, br' })
    expect(gz.headers.get('content-encoding')).toBe('gzip')
    const zipped = new Uint8Array(await gz.arrayBuffer())
    expect(zipped.length).toBeLessThan(vendored.length / 2)
    expect(Bun.gunzipSync(zipped)).toEqual(vendored)
    expect((await get(script, { 'if-none-match': plain.headers.get('etag')! })).status).toBe(304)
  })

  test('another script name is a problem+json 404', async () => {
    for (const path of ['/docs/scalar.000000000000.js', '/docs/nothing']) {
      const res = await get(path)
      expect({ path, status: res.status }).toEqual({ path, status: 404 })
      expect(res.headers.get('content-type')).toBe('application/problem+json')
    }
  })

  test('/favicon.ico answers an image, as browsers ask for it by themselves', async () => {
    const res = await get('/favicon.ico')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(new Uint8Array(await res.arrayBuffer()).subarray(0, 4)).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))
  })

  test('neither /docs/… nor /favicon.ico is in the OpenAPI document', async () => {
    const spec = (await (await get('/openapi.json')).json()) as { paths: Record<string, unknown> }
    expect(Object.keys(spec.paths).filter((p) => p.startsWith('/docs') || p === '/favicon.ico')).toEqual([])
  })
})
