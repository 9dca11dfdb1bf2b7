// The outbound client's SSRF rules, against real loopback receivers: every
// refusal names its reason, the allow-list is the only way in, redirects are
// re-checked per hop, and time and size limits hold.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSecureServer, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { caList, checkAddress, classify, parseRetryAfter, send, type OutboundResult } from '../../src/delivery/outbound'

const hits: { method: string; path: string; body: string }[] = []
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    const url = new URL(req.url)
    hits.push({ method: req.method, path: url.pathname + url.search, body: await req.text() })
    const to = url.searchParams.get('to')
    if (url.pathname === '/redirect' && to) return new Response(null, { status: Number(url.searchParams.get('status') ?? 302), headers: { location: to } })
    if (url.pathname.startsWith('/hops/')) {
      const n = Number(url.pathname.slice('/hops/'.length))
      return n > 0 ? new Response(null, { status: 302, headers: { location: `/hops/${n - 1}` } }) : new Response('arrived')
    }
    if (url.pathname === '/slow') {
      await Bun.sleep(3000)
      return new Response('late')
    }
    if (url.pathname === '/big') {
      // An endless body: only the cap ends this response.
      return new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(16384).fill(120)) }))
    }
    return new Response(`hello ${req.method}`, { headers: { 'x-receiver': 'yes' } })
  },
})
afterAll(() => receiver.stop(true))

const base = `http://127.0.0.1:${receiver.port}`
const LOOPBACK = ['127.0.0.0/8']
// The certificate authorities of the requests (OutboundOptions.ca); the https tests set them.
let ca: string[] | undefined
const opts = (allow: string[] = [], over: { timeoutMs?: number; maxResponseBytes?: number } = {}) => ({ allow, timeoutMs: 5000, maxResponseBytes: 65536, ...(ca ? { ca } : {}), ...over })
const post = (url: string, allow: string[] = [], over = {}) => send({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, body: 'payload' }, opts(allow, over))

// A refusal of an address names the setting that would allow it.
const HINT = /; HERALD_OUTBOUND_ALLOW lets deliveries reach it \(e\.g\. HERALD_OUTBOUND_ALLOW=[0-9a-f.:]+\/(32|128)\)$/

function refused(r: OutboundResult, error: string | RegExp) {
  expect(r.ok).toBe(false)
  if (r.ok) return
  expect(r.kind).toBe('refused')
  const hinted = HINT.test(r.error)
  const reason = r.error.replace(HINT, '')
  if (typeof error === 'string') expect(reason).toBe(error)
  else expect(reason).toMatch(error)
  // Addresses name the setting; a scheme or a URL that does not parse has no address to allow.
  if (/ is an? | resolves to /.test(reason)) expect(hinted).toBe(true)
  expect(classify(r).retryable).toBe(false)
}

describe('refused addresses in the URL', () => {
  test('loopback IPv4 literal, and the receiver never sees a request', async () => {
    const before = hits.length
    refused(await post(`${base}/`), '127.0.0.1 is a loopback address'.replace(/^/, 'refused: '))
    expect(hits.length).toBe(before)
  })

  test('private literals', async () => {
    refused(await post('http://10.1.2.3/'), 'refused: 10.1.2.3 is a private address')
    refused(await post('http://172.16.0.1/'), 'refused: 172.16.0.1 is a private address')
    refused(await post('https://192.168.1.1/'), 'refused: 192.168.1.1 is a private address')
  })

  test('link-local cloud metadata', async () => {
    refused(await post('http://169.254.169.254/latest/meta-data/'), 'refused: 169.254.169.254 is a link-local address')
  })

  test('carrier-grade NAT', async () => {
    refused(await post('http://100.64.0.1/'), 'refused: 100.64.0.1 is a carrier-grade NAT (100.64.0.0/10) address')
  })

  test('IPv4-mapped IPv6, even with 127.0.0.0/8 allowed', async () => {
    const expected = 'refused: ::ffff:7f00:1 is an IPv4-mapped IPv6 address (127.0.0.1)'
    refused(await post(`http://[::ffff:127.0.0.1]:${receiver.port}/`), expected)
    refused(await post(`http://[::ffff:127.0.0.1]:${receiver.port}/`, LOOPBACK), expected)
  })

  test('IPv6 loopback', async () => {
    refused(await post('http://[::1]/'), 'refused: ::1 is a loopback address')
  })

  test('unspecified addresses, and IPv4 spelled in decimal', async () => {
    refused(await post('http://0.0.0.0/'), 'refused: 0.0.0.0 is an unspecified address')
    refused(await post('http://[::]/'), 'refused: :: is an unspecified address')
    refused(await post('http://2130706433/'), 'refused: 127.0.0.1 is a loopback address') // the URL parser normalises it
  })

  test('a host name resolving to loopback', async () => {
    refused(await post(`http://localhost:${receiver.port}/`), /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/)
  })

  test('schemes other than http and https', async () => {
    refused(await post('ftp://example.com/x'), 'refused: scheme ftp: is not allowed')
    refused(await post('file:///etc/passwd'), 'refused: scheme file: is not allowed')
    refused(await post('gopher://127.0.0.1:25/'), 'refused: scheme gopher: is not allowed')
  })
})

describe('checkAddress', () => {
  test('global unicast passes', () => {
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '[2a00:1450:4001::200e]']) expect(checkAddress(ip, [])).toBeNull()
  })

  test('every other range is refused with its name', () => {
    expect(checkAddress('255.255.255.255', [])).toBe('255.255.255.255 is a broadcast address')
    expect(checkAddress('224.0.0.1', [])).toBe('224.0.0.1 is a multicast address')
    expect(checkAddress('192.0.2.1', [])).toBe('192.0.2.1 is a reserved address')
    expect(checkAddress('240.0.0.1', [])).toBe('240.0.0.1 is a reserved address')
    expect(checkAddress('fe80::1', [])).toBe('fe80::1 is a link-local address')
    expect(checkAddress('fd12:3456::1', [])).toBe('fd12:3456::1 is a unique-local (fc00::/7) address')
    expect(checkAddress('ff02::1', [])).toBe('ff02::1 is a multicast address')
    expect(checkAddress('64:ff9b::a00:1', [])).toMatch(/non-global address \(rfc6052\)/)
    expect(checkAddress('2002:a00:1::', [])).toMatch(/non-global address \(6to4\)/)
    expect(checkAddress('4000::1', [])).toMatch(/outside 2000::\/3/)
  })

  test('the allow-list exempts exactly its CIDRs', () => {
    expect(checkAddress('10.1.2.3', ['10.0.0.0/8'])).toBeNull()
    expect(checkAddress('10.1.2.3', ['10.2.0.0/16'])).toBe('10.1.2.3 is a private address')
    expect(checkAddress('fd00::5', ['fd00::/8'])).toBeNull()
    expect(checkAddress('10.1.2.3', ['not-a-cidr'])).toBe('10.1.2.3 is a private address')
  })
})

describe('the allow-list', () => {
  test('127.0.0.0/8 lets a loopback receiver through', async () => {
    const r = await post(`${base}/hello`, LOOPBACK)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.status).toBe(200)
    expect(r.body).toBe('hello POST')
    expect(r.headers['x-receiver']).toBe('yes')
    expect(hits.at(-1)).toEqual({ method: 'POST', path: '/hello', body: 'payload' })
  })

  test('the allowed name localhost connects to the checked address', async () => {
    const r = await post(`http://localhost:${receiver.port}/by-name`, LOOPBACK.concat('::1/128'))
    expect(r.ok && r.status).toBe(200)
  })
})

describe('https to the checked address', () => {
  // A certificate for "localhost" only, trusted through the options' CAs:
  // the request goes to 127.0.0.1, yet TLS checks the name in the URL.
  const dir = mkdtempSync(join(tmpdir(), 'herald-tls-'))
  execFileSync('/usr/bin/openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' })
  const secure = Bun.serve({
    hostname: '127.0.0.1', port: 0,
    tls: { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') },
    fetch: async (req, server) => {
      ports.add(server.requestIP(req)!.port)
      return new Response(`tls ${req.headers.get('host')} ${await req.text()}`)
    },
  })
  const ports = new Set<number>() // the client's source port of every request: one per connection
  beforeAll(() => (ca = caList(join(dir, 'cert.pem'))))
  afterAll(() => {
    ca = undefined
    secure.stop(true)
    rmSync(dir, { recursive: true, force: true })
  })

  test('the host name is the TLS server name and the Host header', async () => {
    const r = await post(`https://localhost:${secure.port}/x`, LOOPBACK.concat('::1/128'))
    expect(r.ok && r.status).toBe(200)
    expect(r.ok && r.body).toBe(`tls localhost:${secure.port} payload`)
  })

  test('requests to the same host reuse their connection: no TLS handshake per delivery', async () => {
    ports.clear()
    for (let i = 0; i < 20; i++) expect((await post(`https://localhost:${secure.port}/x`, LOOPBACK.concat('::1/128'))).ok).toBe(true)
    expect(ports.size).toBeLessThanOrEqual(2)
  })

  test('a certificate for another name is a network error, and nothing is sent', async () => {
    const r = await post(`https://127.0.0.1:${secure.port}/x`, LOOPBACK)
    expect(r).toMatchObject({ ok: false, kind: 'network' })
    expect(!r.ok && r.error).toMatch(/certificate|altname/i)
  })

  describe('over HTTP/2', () => {
    // The same certificate on an HTTP/2-only server (its ALPN offers h2 alone).
    const h2 = createSecureServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) })
    let connections = 0
    const seen: { authority: string; path: string }[] = []
    h2.on('secureConnection', () => connections++)
    h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
      seen.push({ authority: String(headers[':authority']), path: String(headers[':path']) })
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        stream.respond({ ':status': 201, 'retry-after': '7' })
        stream.end(`h2 ${headers[':authority']} ${Buffer.concat(chunks)}`)
      })
    })
    let port = 0
    beforeAll(() => new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', () => {
      port = (h2.address() as AddressInfo).port
      resolve()
    })))
    afterAll(() => h2.close())
    const postH2 = (url: string) => send({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, body: 'payload', protocol: 'http2' }, opts(LOOPBACK.concat('::1/128')))

    test('the host name is the TLS server name and the :authority; the answer is read as over HTTP/1.1', async () => {
      const r = await postH2(`https://localhost:${port}/x`)
      expect(r).toMatchObject({ ok: true, status: 201, body: `h2 localhost:${port} payload`, headers: { 'retry-after': '7' } })
    })

    test('sends at once to the same host share one connection', async () => {
      connections = 0
      const results = await Promise.all(Array.from({ length: 50 }, () => postH2(`https://localhost:${port}/many`)))
      expect(results.every((r) => r.ok && r.status === 201)).toBe(true)
      expect(connections).toBeLessThanOrEqual(1)
    })

    test('a certificate for another name is a network error, and nothing is sent', async () => {
      seen.length = 0
      const r = await postH2(`https://127.0.0.1:${port}/x`)
      expect(r).toMatchObject({ ok: false, kind: 'network' })
      expect(!r.ok && r.error).toMatch(/certificate|altname/i)
      expect(seen).toEqual([])
    })

    test('a server that speaks HTTP/1.1 only refuses it: http2Refused, retryable, and nothing is sent', async () => {
      ports.clear()
      const r = await postH2(`https://localhost:${secure.port}/x`)
      expect(r).toMatchObject({ ok: false, kind: 'network', http2Refused: true, error: `localhost:${secure.port} does not speak HTTP/2` })
      expect(ports.size).toBe(0)
    })

    test('a host name resolving to a refused address is refused before any connection', async () => {
      seen.length = 0
      const r = await send({ method: 'POST', url: `https://localhost:${port}/x`, body: 'payload', protocol: 'http2' }, opts())
      refused(r, /^refused: localhost is a loopback address|^refused: localhost resolves to/)
      expect(seen).toEqual([])
    })
  })
})

describe('redirects', () => {
  test('a redirect to a refused address is not followed', async () => {
    const before = hits.length
    const r = await post(`${base}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`, LOOPBACK)
    refused(r, 'refused: redirect to 169.254.169.254: 169.254.169.254 is a link-local address')
    expect(hits.length).toBe(before + 1) // only the first hop
  })

  test('a redirect to another scheme is refused', async () => {
    refused(await post(`${base}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`, LOOPBACK), /^refused: redirect to .*scheme file: is not allowed$/)
  })

  test('up to 3 hops are followed, re-checked each time', async () => {
    const r = await post(`${base}/hops/3`, LOOPBACK)
    expect(r.ok && r.status).toBe(200)
    expect(r.ok && r.body).toBe('arrived')
  })

  test('a 4th hop is a permanent failure', async () => {
    const r = await post(`${base}/hops/4`, LOOPBACK)
    expect(r).toMatchObject({ ok: false, kind: 'redirects', error: 'more than 3 redirects' })
    expect(classify(r).retryable).toBe(false)
  })

  test('307 keeps the method and body; 302 and 303 turn a POST into a GET', async () => {
    await post(`${base}/redirect?status=307&to=/echo307`, LOOPBACK)
    expect(hits.at(-1)).toEqual({ method: 'POST', path: '/echo307', body: 'payload' })
    await post(`${base}/redirect?status=303&to=/echo303`, LOOPBACK)
    expect(hits.at(-1)).toEqual({ method: 'GET', path: '/echo303', body: '' })
  })
})

describe('limits', () => {
  test('the timeout covers the whole request', async () => {
    const started = performance.now()
    const r = await post(`${base}/slow`, LOOPBACK, { timeoutMs: 300 })
    expect(r).toMatchObject({ ok: false, kind: 'timeout', error: 'timed out after 300 ms' })
    expect(performance.now() - started).toBeLessThan(2000)
    expect(classify(r).retryable).toBe(true)
  })

  test('at most maxResponseBytes of a response are read', async () => {
    const r = await send({ method: 'GET', url: `${base}/big` }, opts(LOOPBACK, { maxResponseBytes: 1000 }))
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.body.length).toBe(1000)
    expect(r.truncated).toBe(true)
    expect(classify(r).response?.length).toBe(1000)
  })

  test('a closed port is a retryable network error', async () => {
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
    const port = closed.port
    closed.stop(true)
    const r = await post(`http://127.0.0.1:${port}/`, LOOPBACK)
    expect(r).toMatchObject({ ok: false, kind: 'network', error: `connection refused by 127.0.0.1:${port}` })
    expect(classify(r).retryable).toBe(true)
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  test('delta-seconds and HTTP-dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000)
    expect(parseRetryAfter(' 0 ', now)).toBe(0)
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000)
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0)
  })
  test('absent or unreadable', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined()
    expect(parseRetryAfter(null, now)).toBeUndefined()
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter('-5', now)).toBeUndefined()
  })
})
