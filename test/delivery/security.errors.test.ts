// A destination's URL is a secret (Slack, Discord and Teams put their token
// in the path, many webhooks in the query), yet every member of a workspace
// reads each attempt's error and response, and the process logs them. Bun's
// fetch once put the whole URL in its error ('Malformed_HTTP_Response
// fetching "http://…/services/SECRET?token=SECRET"'), and a receiver's answer
// may echo the URL it was called at. So Herald runs here as a child process
// (its log is kept), routers are made through the operator API to receivers
// that fail in every way they can, an event goes out, and then the deliveries
// lists, the event's read-back, the dashboard's event API, a test send, the
// metrics and the log are searched for "SECRET": it must be nowhere, while
// the receiver's host and port are named.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { backends, createTestDatabase, ADMIN_TOKEN } from '../harness'
import { spawnHerald, type HeraldProcess } from '../processes'
import { eventually } from '../receiver'

setDefaultTimeout(60_000)

const MARK = 'SECRET'
const secret = (name: string) => `${MARK}${name}${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`

/** A raw TCP server on loopback; `onSocket` decides what it does with each connection. */
async function tcpServer(onSocket: (socket: Socket) => void): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    onSocket(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as AddressInfo).port, sockets }
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const { server, port } = await tcpServer(() => {})
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

for (const backend of backends) {
  describe(`delivery errors name the host, never the URL's path or query (${backend})`, () => {
    let herald: HeraldProcess
    let dir: string | undefined
    let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined
    const servers: { server: Server; sockets: Set<Socket> }[] = []
    let echo: ReturnType<typeof Bun.serve>
    let garbage: number // answers with bytes that are not HTTP, then hangs up
    let hang: number // accepts and never answers
    let refused: number // nothing listens
    const ws = `errors-${backend}-${process.pid}`
    let apiKey: string
    let memberToken: string
    let adminToken: string
    const routers = new Map<string, { id: string; port: number }>() // by name
    let eventId: string

    const call = (method: string, path: string, bearer: string, body?: unknown) =>
      fetch(herald.url + path, {
        method,
        headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const json = async (res: Response, status: number) => {
      const text = await res.text()
      expect({ status: res.status, text }).toMatchObject({ status })
      return JSON.parse(text) as Record<string, any>
    }

    beforeAll(async () => {
      const g = await tcpServer((socket) => socket.once('data', () => socket.end('garbage\r\nnot http at all\r\n\r\n')))
      const h = await tcpServer(() => {})
      servers.push(g, h)
      garbage = g.port
      hang = h.port
      refused = await closedPort()
      // An HTTP receiver whose answers echo what it was called at: a 404 with
      // the URL, the request line and the Authorization header in its body (as
      // many frameworks and httpbin-like services answer), a 308 that adds a
      // trailing slash (and keeps the secret), a redirect to the receiver that
      // is not HTTP, and a redirect to a Location that is not a URL.
      echo = Bun.serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch(req) {
          const url = new URL(req.url)
          const path = url.pathname + url.search
          if (url.pathname.startsWith('/slash/') && !url.pathname.endsWith('/')) return new Response(null, { status: 308, headers: { location: `${url.pathname}/${url.search}` } })
          if (url.pathname.startsWith('/away/')) return new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${garbage}${path}` } })
          if (url.pathname.startsWith('/broken/')) return new Response(null, { status: 302, headers: { location: `http://[${url.pathname}` } })
          const body = JSON.stringify({ error: `no hook at ${req.url}`, line: `Cannot POST ${path}`, auth: req.headers.get('authorization') })
          return new Response(body, { status: 404, headers: { 'content-type': 'application/json' } })
        },
      })
      const base = (port: number) => `http://127.0.0.1:${port}`
      dir = mkdtempSync(join(tmpdir(), 'herald-errors-'))
      db = backend === 'postgres' ? await createTestDatabase() : undefined
      herald = await spawnHerald({
        ...(db ? { DATABASE_URL: db.url } : {}),
        HERALD_DATA_DIR: dir,
        HERALD_SECRET_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64'),
        NATS_URL: '', // this process delivers, so its delivery errors are in its log
        LOG_LEVEL: 'trace',
        HERALD_DEMO_WORKSPACE: 'false',
        HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
        HERALD_RETRY_SCHEDULE: '0s,100ms',
        DELIVERY_TIMEOUT_MS: '1500',
        TELEGRAM_API_URL: base(garbage),
        SHUTDOWN_TIMEOUT_MS: '1000',
      })
      apiKey = (await json(await call('POST', '/admin/workspaces', ADMIN_TOKEN, { name: ws }), 201)).apiKey
      memberToken = (await json(await call('POST', `/admin/workspaces/${ws}/members`, ADMIN_TOKEN, { email: `member-${backend}-${process.pid}@example.com`, role: 'member' }), 201)).userToken
      adminToken = (await json(await call('POST', `/admin/workspaces/${ws}/members`, ADMIN_TOKEN, { email: `admin-${backend}-${process.pid}@example.com`, role: 'admin' }), 201)).userToken

      const hook = (port: number, prefix: string, name: string) => `${base(port)}/${prefix}/${secret(`${name}path`)}?token=${secret(`${name}query`)}`
      const destinations: Record<string, { port: number; destination: Record<string, unknown> }> = {
        'not-http': { port: garbage, destination: { type: 'webhook', url: hook(garbage, 'services', 'nothttp') } },
        refused: { port: refused, destination: { type: 'webhook', url: hook(refused, 'services', 'refused') } },
        timeout: { port: hang, destination: { type: 'webhook', url: hook(hang, 'services', 'timeout') } },
        'echo-404': { port: Number(echo.port), destination: { type: 'webhook', url: hook(Number(echo.port), 'echo', 'echo'), headers: { Authorization: `Bearer ${secret('header')}` } } },
        'slash-308': { port: Number(echo.port), destination: { type: 'webhook', url: hook(Number(echo.port), 'slash', 'slash') } },
        'redirect-not-http': { port: garbage, destination: { type: 'webhook', url: hook(Number(echo.port), 'away', 'away') } },
        'redirect-broken': { port: Number(echo.port), destination: { type: 'webhook', url: hook(Number(echo.port), 'broken', 'broken') } },
        slack: { port: garbage, destination: { type: 'slack', url: `${base(garbage)}/services/T0/B0/${secret('slack')}` } },
        discord: { port: garbage, destination: { type: 'discord', url: `${base(garbage)}/api/webhooks/1/${secret('discord')}` } },
        teams: { port: garbage, destination: { type: 'teams', url: `${base(garbage)}/workflows/${secret('teams')}?sig=${secret('teamssig')}` } },
        telegram: { port: garbage, destination: { type: 'telegram', botToken: `123456:${secret('telegram')}`, chatId: 42 } },
      }
      for (const [name, { port, destination }] of Object.entries(destinations)) {
        const created = await json(await call('POST', `/admin/workspaces/${ws}/routers`, ADMIN_TOKEN, { name, pattern: '*', destination }), 201)
        routers.set(name, { id: created.id, port })
      }
      eventId = (await json(await call('POST', '/event', apiKey, { message: 'to every failing receiver', event: 'user.signup' }), 200)).eventId
      // Every router's attempts (two at most: HERALD_RETRY_SCHEDULE=0s,100ms) have failed.
      await eventually(async () => {
        const e = await json(await call('GET', `/events/${eventId}`, apiKey), 200)
        return e.deliveries.length === routers.size && e.deliveries.every((d: { status: string }) => d.status === 'failed')
      }, 30_000, 'every delivery to fail')
    }, 60_000)

    afterAll(async () => {
      if (herald && herald.proc.exitCode === null) await herald.kill()
      echo?.stop(true)
      for (const { server, sockets } of servers) {
        for (const s of sockets) s.destroy()
        server.close()
      }
      await db?.drop()
      if (dir) rmSync(dir, { recursive: true, force: true })
    }, 30_000)

    /** The last error of each router's delivery, by router name. */
    const errorsByRouter = (deliveries: { routerId: string | null; lastError: string | null }[]) =>
      Object.fromEntries([...routers].map(([name, r]) => [name, deliveries.find((d) => d.routerId === r.id)?.lastError ?? null]))

    const expectHostNamed = (errors: Record<string, string | null>) => {
      for (const [name, { port }] of routers) {
        const error = errors[name]
        expect({ name, error }).toMatchObject({ name, error: expect.any(String) })
        if (name === 'timeout') expect(error).toBe('timed out after 1500 ms')
        else if (name === 'echo-404' || name === 'slash-308') expect(error).toBe('receiver answered HTTP 404')
        else expect({ name, error }).toEqual({ name, error: expect.stringContaining(`127.0.0.1:${port}`) })
      }
    }

    test('the deliveries lists (operator API, members) name the host and port, never the secret', async () => {
      const adminList = await (await call('GET', `/admin/workspaces/${ws}/deliveries?state=all`, ADMIN_TOKEN)).text()
      const memberList = await (await call('GET', `/v1/workspaces/${ws}/deliveries`, memberToken)).text()
      const failedList = await (await call('GET', `/admin/workspaces/${ws}/deliveries`, ADMIN_TOKEN)).text()
      for (const text of [adminList, memberList, failedList]) expect(text).not.toContain(MARK)
      expectHostNamed(errorsByRouter(JSON.parse(adminList)))
      expectHostNamed(errorsByRouter(JSON.parse(memberList).deliveries))
      const errors = errorsByRouter(JSON.parse(adminList))
      expect(errors['not-http']).toBe(`127.0.0.1:${garbage} answered with something that is not HTTP`)
      expect(errors.refused).toBe(`connection refused by 127.0.0.1:${refused}`)
      expect(errors['redirect-broken']).toStartWith('invalid redirect location')
    })

    test('the event read-back and the dashboard\'s event API show attempts without the secret', async () => {
      const readBack = await (await call('GET', `/events/${eventId}`, apiKey)).text()
      const dashboard = await (await call('GET', `/v1/workspaces/${ws}/events/${eventId}`, memberToken)).text()
      for (const text of [readBack, dashboard]) {
        expect(text).not.toContain(MARK)
        const { deliveries } = JSON.parse(text) as { deliveries: { routerId: string; attempts: { error: string | null; response: string | null }[] }[] }
        // Two attempts where a retry was due; one where the failure was for good (404, a broken redirect).
        expect(deliveries.map((d) => d.attempts.length).sort()).toEqual([...Array(8).fill(2), ...Array(3).fill(1)].sort())
        const byName = (name: string) => deliveries.find((d) => d.routerId === routers.get(name)!.id)!.attempts
        // The echoed URL is cut to its origin; the echoed request line and header lose their secrets.
        for (const name of ['echo-404', 'slash-308']) {
          const { response } = byName(name)[0]!
          expect(JSON.parse(response!)).toEqual({ error: `no hook at http://127.0.0.1:${echo.port}`, line: 'Cannot POST …', auth: name === 'echo-404' ? '…' : null })
        }
        expect(byName('not-http').map((a) => a.error)).toEqual([`127.0.0.1:${garbage} answered with something that is not HTTP`, `127.0.0.1:${garbage} answered with something that is not HTTP`])
      }
    })

    test('a test send from the dashboard shows no secret either', async () => {
      for (const name of ['not-http', 'redirect-not-http', 'echo-404', 'telegram']) {
        const res = await call('POST', `/v1/workspaces/${ws}/routers/${routers.get(name)!.id}/test`, adminToken)
        const text = await res.text()
        expect(res.status).toBe(200)
        expect(text).not.toContain(MARK)
        expect(JSON.parse(text).ok).toBe(false)
      }
    })

    test('the metrics and the log name no secret; the log names the host and port', async () => {
      const metrics = await (await fetch(`${herald.url}/metrics`)).text()
      expect(metrics).toContain('herald_delivery_attempts_total')
      expect(metrics).not.toContain(MARK)
      expect(await herald.kill('SIGTERM')).toBe(0)
      await Bun.sleep(200) // the last lines of the pipes
      const failures = herald.output.filter((l) => l.includes('delivery attempt failed'))
      expect(failures.length).toBeGreaterThanOrEqual(8 * 2 + 3)
      expect(herald.output.filter((l) => l.includes(MARK))).toEqual([])
      expect(failures.some((l) => l.includes(`127.0.0.1:${garbage} answered with something that is not HTTP`))).toBe(true)
      expect(failures.some((l) => l.includes(`connection refused by 127.0.0.1:${refused}`))).toBe(true)
    })
  })
}
