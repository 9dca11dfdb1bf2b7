// A destination the outbound rules refuse is refused when the router is made
// (400), naming the rule and the setting that allows it, on the operator and
// the member APIs, on create and on PATCH; and a delivery refused at send
// time names the setting too.
import { describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { signUp } from '../users'
import { startReceiver } from '../receiver'
import { send, urlRefusal } from '../../src/delivery/outbound'

const hook = (url: string) => ({ name: `r-${Math.random().toString(36).slice(2, 8)}`, pattern: '*', destination: { type: 'webhook', url } })

for (const backend of backends) {
  describe(`a destination the outbound rules refuse, on ${backend}`, () => {
    const h = useTestHerald(backend)
    const allowing = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' })

    test('refused at creation with the rule and HERALD_OUTBOUND_ALLOW named; a name or an allowed range is taken', async () => {
      const ws = await h.workspace()
      for (const [url, why, allow] of [
        ['http://127.0.0.1:9/hook', '127.0.0.1 is a loopback address', '127.0.0.1/32'],
        ['http://localhost:9/hook', 'localhost is a loopback address', '127.0.0.1/32,::1/128'],
        ['http://10.1.2.3/hook', '10.1.2.3 is a private address', '10.1.2.3/32'],
        ['http://[::1]:9/hook', '::1 is a loopback address', '::1/128'],
      ] as const) {
        const res = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, hook(url))
        const body = (await res.json()) as { detail: string; errors: { pointer: string }[] }
        expect({ url, status: res.status }).toEqual({ url, status: 400 })
        expect(body.detail).toContain(why)
        expect(body.detail).toContain(`HERALD_OUTBOUND_ALLOW=${allow}`)
        expect(body.errors.map((e) => e.pointer)).toEqual(['/destination/url'])
      }
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, hook('https://receiver.invalid/hook'))).status).toBe(201)
      const allowed = await allowing.workspace()
      expect((await allowing.admin('POST', `/admin/workspaces/${allowed.name}/routers`, hook('http://127.0.0.1:9/hook'))).status).toBe(201)
    })

    test('the member API refuses it too, on create and on PATCH', async () => {
      const owner = await signUp(h)
      const base = `/v1/workspaces/${owner.workspace}/routers`
      expect((await owner.call('POST', base, hook('http://127.0.0.1:9/hook'))).status).toBe(400)
      const made = (await (await owner.call('POST', base, hook('https://receiver.invalid/hook'))).json()) as { id: string }
      const patch = await owner.call('PATCH', `${base}/${made.id}`, { destination: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } })
      expect(patch.status).toBe(400)
      expect(((await patch.json()) as { detail: string }).detail).toContain('HERALD_OUTBOUND_ALLOW')
    })

    test("the dashboard's \"Send test event\" names the setting when the destination is refused on the way (a redirect)", async () => {
      const rx = startReceiver()
      try {
        const owner = await signUp(allowing)
        const base = `/v1/workspaces/${owner.workspace}/routers`
        const made = (await (await owner.call('POST', base, hook(`${rx.url}/in`))).json()) as { id: string }
        rx.script = [{ status: 302, headers: { location: 'http://192.168.7.7/in' } }]
        const res = await owner.call('POST', `${base}/${made.id}/test`)
        expect(res.status).toBe(200)
        const result = (await res.json()) as { ok: boolean; error: string }
        expect(result.ok).toBe(false)
        expect(result.error).toBe('refused: redirect to 192.168.7.7: 192.168.7.7 is a private address; HERALD_OUTBOUND_ALLOW lets deliveries reach it (e.g. HERALD_OUTBOUND_ALLOW=192.168.7.7/32)')
      } finally {
        rx.stop()
      }
    })
  })
}

test('a delivery refused at send time names the setting', async () => {
  const r = await send({ method: 'POST', url: 'http://127.0.0.1:9/hook', headers: {}, body: '{}' }, { allow: [], timeoutMs: 2000, maxResponseBytes: 1024 })
  expect(r.ok).toBe(false)
  if (!r.ok) expect(r.error).toBe('refused: 127.0.0.1 is a loopback address; HERALD_OUTBOUND_ALLOW lets deliveries reach it (e.g. HERALD_OUTBOUND_ALLOW=127.0.0.1/32)')
})

test('localhost needs both of its addresses allowed: a send refuses a name when any address it resolves to is refused', () => {
  // Where localhost resolves to ::1 as well (Debian, Ubuntu, macOS), allowing 127.0.0.0/8 alone would take the router and fail every delivery.
  for (const allow of [[], ['127.0.0.0/8'], ['::1/128']]) {
    expect(urlRefusal('http://localhost:9000/hook', allow)).toContain('HERALD_OUTBOUND_ALLOW=127.0.0.1/32,::1/128')
    expect(urlRefusal('http://api.localhost:9000/hook', allow)).toContain('api.localhost is a loopback address')
  }
  expect(urlRefusal('http://localhost:9000/hook', ['127.0.0.1/32', '::1/128'])).toBeNull()
  expect(urlRefusal('http://localhost:9000/hook', ['127.0.0.0/8', '::1/128'])).toBeNull()
})
