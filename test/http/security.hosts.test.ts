// Requests with more than one Host header, over a raw socket. Bun joins the
// Host lines of a request, whatever their case, into one value ("a, b") and
// builds request.url from the first, while a proxy in front may have read the
// other: the probe had two Host lines answered 200. RFC 9112 §3.2 makes such a
// request a 400; now it is one, a problem+json like the "no Host" answer,
// before any route runs. One Host (a name, an address, an IPv6 literal, with
// or without a port) still reaches the route.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { countEvents, rawRequest } from '../support'

/** A request with these header lines (Host lines included, in order) and, for a POST, a JSON body. */
function request(method: string, path: string, lines: string[], body?: string): string {
  const all = [`${method} ${path} HTTP/1.1`, ...lines]
  if (body !== undefined) all.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`)
  all.push('Connection: close')
  return all.join('\r\n') + '\r\n\r\n' + (body ?? '')
}

for (const backend of backends) {
  describe(`more than one Host header (${backend})`, () => {
    const h = useTestHerald(backend)
    let ws: { name: string; apiKey: string }

    beforeAll(async () => {
      ws = await h.workspace()
    }, 30_000)

    const TWICE: string[][] = [
      ['Host: a.example', 'Host: b.example'],
      ['Host: 127.0.0.1', 'host: 127.0.0.1'], // the same host twice, in another case
      ['Host: a.example', 'HOST: b.example'],
      ['hOsT: a.example', 'X-Between: 1', 'Host: b.example'], // not next to each other
      ['Host: a.example', 'Host: '], // the second one empty
      ['Host: ', 'Host: b.example'], // the first one empty
      ['Host: a.example', 'Host: b.example', 'Host: c.example'],
    ]

    test('two Host lines, in any case, are a 400 problem on any route', async () => {
      for (const hosts of TWICE) {
        for (const path of ['/healthz', '/admin/workspaces', '/nowhere']) {
          const res = await rawRequest(h.port, [request('GET', path, hosts)])
          expect({ hosts, path, status: res.status, type: res.headers['content-type'] }).toEqual({ hosts, path, status: 400, type: 'application/problem+json' })
          const problem = JSON.parse(res.body) as { status: number; detail: string }
          expect({ hosts, status: problem.status, detail: problem.detail }).toEqual({ hosts, status: 400, detail: expect.stringContaining('more than one Host') })
        }
      }
    })

    test('POST /event with two Host lines and a valid key is refused before the route: nothing is stored', async () => {
      const before = await countEvents(h, ws.name)
      for (const hosts of TWICE) {
        const res = await rawRequest(h.port, [request('POST', '/event', [...hosts, `Authorization: Bearer ${ws.apiKey}`], '{"message":"two hosts"}')])
        expect({ hosts, status: res.status }).toEqual({ hosts, status: 400 })
      }
      expect(await countEvents(h, ws.name)).toBe(before)
    })

    test('one Host still works: a name, an address, an IPv6 literal, with or without a port', async () => {
      const hosts = ['127.0.0.1', `127.0.0.1:${h.port}`, 'localhost', `localhost:${h.port}`, '[::1]', `[::1]:${h.port}`, '[2001:db8::1]:8080', 'x.example.com', 'ab']
      for (const host of hosts) {
        const res = await rawRequest(h.port, [request('GET', '/healthz', [`Host: ${host}`])])
        expect({ host, status: res.status }).toEqual({ host, status: 200 })
      }
      const before = await countEvents(h, ws.name)
      for (const host of [`[::1]:${h.port}`, `127.0.0.1:${h.port}`]) {
        const res = await rawRequest(h.port, [request('POST', '/event', [`Host: ${host}`, `Authorization: Bearer ${ws.apiKey}`], '{"message":"one host"}')])
        expect({ host, status: res.status, body: res.body }).toMatchObject({ host, status: 200 })
      }
      expect(await countEvents(h, ws.name)).toBe(before + 2)
    })
  })
}
