// The guards of the operator API, the user API and /metrics, probed as an
// attacker would: every Host header a client can send (empty, 1–4 characters,
// with a port, IPv6) times every spelling of the path (doubled slashes, a
// prefix segment, percent-encoded slashes, trailing slashes, dot segments),
// with no token, a wrong one, the right one, and on a server started without
// a token. The probe found that with `Host: ab`, `/x/admin/workspaces` was
// routed as `/admin/workspaces` while the guard, a string test on the URL, let
// it through: every workspace listed, an API key and an owner token minted.
// Now the guard belongs to the route group, so whatever the router matched,
// the guard saw too: without the right token nothing is ever 2xx, no secret
// is ever in an answer, and nothing is created.
import { beforeAll, describe, expect, test } from 'bun:test'
import { ADMIN_TOKEN, backends, useTestHerald } from '../harness'
import { rawRequest } from '../support'
import { signUp, type Person } from '../users'

const HOSTS = ['', 'a', 'ab', 'abc', 'abcd', 'a:1', 'ab:80', 'abc:65535', '[::1]', '[::1]:8080', '[::]', 'localhost', '127.0.0.1', 'x.example.com', 'a.bc']

/** Spellings of one path that a router, a proxy or a guard might read differently. */
function spellings(path: string): string[] {
  const [, first = '', ...rest] = path.split('/')
  const tail = rest.length ? '/' + rest.join('/') : ''
  return [
    path,
    '/' + path,
    '//' + first + tail,
    '/x' + path,
    '/xy' + path,
    '/xyz' + path,
    '/x/y' + path,
    '/%2f' + first + tail,
    '/%2F' + first + tail,
    '/' + first + '%2f' + rest.join('/'),
    path + '/',
    path + '//',
    '/./' + first + tail,
    '/x/../' + first + tail,
    '/%2e%2e/' + first + tail,
    '/' + first + '/.' + tail,
    '/' + first.toUpperCase() + tail,
    '/%61' + first.slice(1) + tail,
    path + '?' + path,
    path + '#x',
    path + ';x',
    path + '%00',
    'http://ab' + path,
    '*',
  ]
}

interface Probe {
  method: string
  path: string
  body?: string
}

function head(p: Probe, host: string, authorization?: string): string {
  const lines = [`${p.method} ${p.path} HTTP/1.1`]
  if (host !== 'none') lines.push(`Host: ${host}`)
  if (authorization) lines.push(`Authorization: ${authorization}`)
  if (p.body !== undefined) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(p.body)}`)
  lines.push('Connection: close')
  return lines.join('\r\n') + '\r\n\r\n' + (p.body ?? '')
}

/** Sends every probe with every host, a few at a time; resolves to the answers. */
async function sweep(port: number, probes: Probe[], authorization?: string) {
  const jobs = probes.flatMap((p) => [...HOSTS, 'none'].map((host) => ({ p, host })))
  const answers: { probe: Probe; host: string; status: number; body: string }[] = []
  for (let i = 0; i < jobs.length; i += 32) {
    await Promise.all(
      jobs.slice(i, i + 32).map(async ({ p, host }) => {
        const res = await rawRequest(port, [head(p, host, authorization)]).catch((err: Error) => ({ status: 0, body: err.message, headers: {} }))
        answers.push({ probe: p, host, status: res.status, body: res.body })
      }),
    )
  }
  return answers
}

const where = (a: { probe: Probe; host: string; status: number }) => `${a.probe.method} ${a.probe.path} Host:${a.host} → ${a.status}`

for (const backend of backends) {
  describe(`route guards against every Host and path spelling (${backend})`, () => {
    const h = useTestHerald(backend, { HERALD_METRICS_TOKEN: 'metrics-token-0123456789' })
    const off = useTestHerald('embedded', { HERALD_ADMIN_TOKEN: '' })
    let owner: Person
    let workspace: string
    let port: number
    let adminProbes: Probe[]

    beforeAll(async () => {
      port = Number(new URL(h.url).port)
      owner = await signUp(h)
      workspace = (await h.workspace()).name
      const { name: other } = await h.workspace()
      const routers = `/admin/workspaces/${other}/routers`
      const created = await h.admin('POST', routers, { name: 'r', pattern: '*', destination: { type: 'webhook', url: 'https://example.com/hook' } })
      const routerId = ((await created.json()) as { id: string }).id
      // Every operator route, with a body that would succeed with the token.
      const targets: Probe[] = [
        { method: 'GET', path: '/admin/workspaces' },
        { method: 'POST', path: '/admin/workspaces', body: JSON.stringify({ name: 'taken-over' }) },
        { method: 'GET', path: `/admin/workspaces/${other}` },
        { method: 'PATCH', path: `/admin/workspaces/${other}`, body: JSON.stringify({ monthlyQuota: 1 }) },
        { method: 'DELETE', path: `/admin/workspaces/${other}` },
        { method: 'POST', path: `/admin/workspaces/${other}/keys`, body: JSON.stringify({ name: 'stolen' }) },
        { method: 'GET', path: `/admin/workspaces/${other}/keys` },
        { method: 'DELETE', path: `/admin/workspaces/${other}/keys/1` },
        { method: 'POST', path: `/admin/workspaces/${other}/members`, body: JSON.stringify({ email: 'thief@example.com', role: 'owner' }) },
        { method: 'GET', path: `/admin/workspaces/${other}/members` },
        { method: 'GET', path: routers },
        { method: 'GET', path: `${routers}/${routerId}` },
        { method: 'DELETE', path: `${routers}/${routerId}` },
        { method: 'GET', path: `/admin/workspaces/${other}/deliveries` },
      ]
      adminProbes = targets.flatMap((t) => spellings(t.path).map((path) => ({ ...t, path })))
    }, 60_000)

    // Without the right token, an answer says nothing: never 2xx, never a
    // workspace, a key or a token, and nothing changed afterwards.
    const assertRefused = (answers: { probe: Probe; host: string; status: number; body: string }[]) => {
      const through = answers.filter((a) => a.status >= 200 && a.status < 300).map(where)
      expect(through).toEqual([])
      const leaked = answers.filter((a) => /hrld_|hrlu_|whsec_|"monthlyQuota"|"apiKey"|"userToken"|"prefix"|"pattern"|"email"/.test(a.body)).map(where)
      expect(leaked).toEqual([])
      const crashed = answers.filter((a) => a.status >= 500 || a.status === 0).map((a) => `${where(a)} ${a.body.slice(0, 120)}`)
      expect(crashed).toEqual([])
    }

    const assertNothingChanged = async () => {
      const list = (await (await h.admin('GET', '/admin/workspaces')).json()) as { workspace: string; monthlyQuota: number }[]
      expect(list.map((w) => w.workspace)).not.toContain('taken-over')
      for (const w of list) {
        const keys = (await (await h.admin('GET', `/admin/workspaces/${w.workspace}/keys`)).json()) as { name: string }[]
        expect(keys.map((k) => k.name)).not.toContain('stolen')
        const members = (await (await h.admin('GET', `/admin/workspaces/${w.workspace}/members`)).json()) as { email: string }[]
        expect(members.map((m) => m.email)).not.toContain('thief@example.com')
        expect(w.monthlyQuota).not.toBe(1)
      }
    }

    test('the operator API with no token: nothing is answered 2xx, nothing leaks, nothing is created', async () => {
      assertRefused(await sweep(port, adminProbes))
      await assertNothingChanged()
    }, 60_000)

    test('the operator API with a wrong token, or a token in the wrong scheme: likewise', async () => {
      assertRefused(await sweep(port, adminProbes, 'Bearer not-the-admin-token-at-all'))
      assertRefused(await sweep(port, adminProbes.filter((_, i) => i % 3 === 0), `Basic ${btoa(`admin:${ADMIN_TOKEN}`)}`))
      assertRefused(await sweep(port, adminProbes.filter((_, i) => i % 3 === 1), ADMIN_TOKEN))
      await assertNothingChanged()
    }, 60_000)

    test('a server started without HERALD_ADMIN_TOKEN has no operator API, whatever is sent', async () => {
      const offPort = Number(new URL(off.url).port)
      const answers = [...(await sweep(offPort, adminProbes.filter((_, i) => i % 2 === 0))), ...(await sweep(offPort, adminProbes.filter((_, i) => i % 2 === 1), `Bearer ${ADMIN_TOKEN}`))]
      assertRefused(answers)
      // The canonical spelling is a 404 that says why.
      const canonical = answers.find((a) => a.probe.path === '/admin/workspaces' && a.host === 'ab')!
      expect(canonical.status).toBe(404)
      expect(canonical.body).toContain('started without HERALD_ADMIN_TOKEN')
    }, 60_000)

    test('with the right token, the canonical spelling works on any Host', async () => {
      const answers = await sweep(port, [{ method: 'GET', path: '/admin/workspaces' }], `Bearer ${ADMIN_TOKEN}`)
      // HTTP/1.1 with no Host, or an empty one, is a 400 (RFC 9112); every other Host reaches the route.
      for (const a of answers) expect({ host: a.host, status: a.status }).toEqual({ host: a.host, status: a.host === 'none' || a.host === '' ? 400 : 200 })
    }, 30_000)

    test('a request with no Host, or an empty one, is a 400 problem before any routing', async () => {
      // Bun's request.url is then the bare path, which the router read from
      // its 8th character: /xxxxxx/admin/workspaces was routed as /admin/workspaces.
      for (const host of ['none', '']) {
        for (const path of ['/xxxxxx/admin/workspaces', '/admin/workspaces/', '/healthz', '/']) {
          const res = await rawRequest(port, [head({ method: 'GET', path }, host, `Bearer ${ADMIN_TOKEN}`)])
          expect({ host, path, status: res.status }).toEqual({ host, path, status: 400 })
          // Bun itself refuses a missing Host; Herald, an empty one.
          if (host === '') expect([res.headers['content-type'], res.body]).toEqual(['application/problem+json', expect.stringContaining('no Host header')])
        }
      }
    })

    test('the user API: no session, no answer, whatever the spelling', async () => {
      const targets: Probe[] = [
        { method: 'GET', path: '/v1/me' },
        { method: 'GET', path: `/v1/workspaces/${owner.workspace}/keys` },
        { method: 'POST', path: `/v1/workspaces/${owner.workspace}/keys`, body: JSON.stringify({ name: 'stolen' }) },
        { method: 'GET', path: `/v1/workspaces/${owner.workspace}/routers` },
        { method: 'GET', path: `/v1/feed?workspace=${owner.workspace}` },
        { method: 'POST', path: `/v1/workspaces/${owner.workspace}/members`, body: JSON.stringify({ email: 'thief@example.com', role: 'owner' }) },
      ]
      const probes = targets.flatMap((t) => spellings(t.path).map((path) => ({ ...t, path })))
      assertRefused(await sweep(port, probes))
      assertRefused(await sweep(port, probes.filter((_, i) => i % 2 === 0), `Bearer ${ADMIN_TOKEN}`))
      const keys = (await (await owner.call('GET', `/v1/workspaces/${owner.workspace}/keys`)).json()) as { name: string }[]
      expect(keys.map((k) => k.name)).not.toContain('stolen')
    }, 60_000)

    test('/metrics with HERALD_METRICS_TOKEN set: no token, no metrics, whatever the spelling', async () => {
      const probes = spellings('/metrics').map((path) => ({ method: 'GET', path }))
      const answers = [...(await sweep(port, probes)), ...(await sweep(port, probes, `Bearer ${ADMIN_TOKEN}`))]
      expect(answers.filter((a) => a.status === 200 || a.body.includes('herald_http_requests_total')).map(where)).toEqual([])
      expect(answers.filter((a) => a.status >= 500 || a.status === 0).map(where)).toEqual([])
    }, 30_000)

    test('the dashboard\'s pages are the same shell for everyone, with no data in them', async () => {
      const probes = ['/', `/w/${workspace}/feed`, `/w/${workspace}/keys`, '/signin'].flatMap((p) => spellings(p).map((path) => ({ method: 'GET', path })))
      const answers = await sweep(port, probes)
      expect(answers.filter((a) => /hrld_|hrlu_|whsec_/.test(a.body)).map(where)).toEqual([])
      expect(answers.filter((a) => a.status >= 500 || a.status === 0).map(where)).toEqual([])
    }, 60_000)
  })
}
