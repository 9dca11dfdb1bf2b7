// `herald send`, run as a child process: against a real Herald (what it
// stores, text and JSON, the refusals that exit 3), and through a loopback
// stand-in whose answers the test scripts (503, 429, a lost answer) before it
// passes the request on to the real Herald: every retry carries the same
// Idempotency-Key and the same bytes, and the event is stored once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { useTestHerald } from '../harness'
import { UUIDV7 } from '../support'
import { herald, USAGE_ERROR } from './run'

interface Seen {
  key: string | null
  body: string
  authorization: string | null
}

type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'forward' | 'forward-then-502'

/** A server on loopback that answers from `script`, in order, then passes every request on to `target`. */
function standIn(target: string) {
  const seen: Seen[] = []
  const script: Answer[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.text()
      seen.push({ key: req.headers.get('idempotency-key'), body, authorization: req.headers.get('authorization') })
      const answer = script.shift() ?? 'forward'
      if (answer !== 'forward' && answer !== 'forward-then-502') return new Response(answer.body ?? '', { status: answer.status, headers: answer.headers })
      const res = await fetch(`${target}/event`, { method: 'POST', headers: req.headers, body })
      // The event reached Herald, but its answer is lost on the way back.
      if (answer === 'forward-then-502') return new Response('bad gateway', { status: 502 })
      return new Response(await res.text(), { status: res.status, headers: res.headers })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, seen, script, stop: () => server.stop(true) }
}

const problem = (status: number, detail: string, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/problem+json', ...headers },
  body: JSON.stringify({ type: 'about:blank', title: 'x', status, detail }),
})

describe('herald send', () => {
  const h = useTestHerald('embedded')
  let ws: { name: string; apiKey: string }
  const send = (args: string[], env: Record<string, string> = {}, stdin?: string) => herald(['send', ...args], { HERALD_URL: h.url, HERALD_KEY: ws.apiKey, ...env }, { stdin })
  const used = async (name: string) => (await (await h.admin('GET', `/admin/workspaces/${name}`)).json()).usage.used as number
  const stored = async (apiKey: string, id: string) => (await fetch(`${h.url}/events/${id}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()
  beforeAll(async () => {
    ws = await h.workspace({ monthlyQuota: 1000 })
  }, 30_000)

  describe('happy', () => {
    test('sends every field; prints the event id and the quota left', async () => {
      const r = await send(['Deploy finished', '--event', 'deploy.finished', '--channel', 'deploys', '--tag', 'prod', '--tag', 'ops', '--data', 'sha=9f2c1e', '--data', 'n=3', '--title', 'T', '--link', 'https://example.com/d/1'])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      const [, id, left] = /^Sent event (\S+) to workspace (?:\S+), channel deploys\. (\d+) events left this month\.\n$/.exec(r.stdout) ?? []
      expect(id).toMatch(UUIDV7)
      expect(Number(left)).toBe(1000 - (await used(ws.name)))
      expect(await stored(ws.apiKey, id!)).toMatchObject({
        message: 'Deploy finished', event: 'deploy.finished', channel: 'deploys', title: 'T', link: 'https://example.com/d/1', tags: ['prod', 'ops'], data: { sha: '9f2c1e', n: '3' },
      })
    })

    test('--json prints the answer; --data-json gives typed values, --data goes over them, "-" reads stdin', async () => {
      const r = await send(['typed', '--data-json', '{"n":3,"ok":true,"nested":{"a":[1]},"sha":"old"}', '--data', 'sha=new', '--json'])
      expect(r.code).toBe(0)
      const answer = JSON.parse(r.stdout)
      expect(Object.keys(answer).sort()).toEqual(['channel', 'eventId', 'remainingQuota', 'workspace'])
      expect((await stored(ws.apiKey, answer.eventId)).data).toEqual({ n: 3, ok: true, nested: { a: [1] }, sha: 'new' })
      const piped = await send(['from stdin', '--data-json', '-', '--json'], {}, '{"size":12.5}')
      expect(piped.code).toBe(0)
      expect((await stored(ws.apiKey, JSON.parse(piped.stdout).eventId)).data).toEqual({ size: 12.5 })
    })

    test('what Herald changed is printed as notes', async () => {
      const r = await send(['x', '--title', 't'.repeat(200)])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('\nnote: title was truncated to 128 characters')
    })

    test('--key and --url take the place of the environment', async () => {
      const r = await herald(['send', 'flags', '--key', ws.apiKey, '--url', h.url, '--json'])
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout).eventId).toMatch(UUIDV7)
    })
  })

  describe('refused: exit 3, at once', () => {
    test('a wrong API key', async () => {
      const r = await send(['x'], { HERALD_KEY: 'hrld_wrongwrongwrongwrongwrongwrongwrong' })
      expect(r.code).toBe(3)
      expect(r.stdout).toBe('')
      expect(r.stderr).toBe('error: A valid API key is required: send "Authorization: Bearer <API key>".\n')
    })

    test('invalid input, with the field error', async () => {
      const r = await send(['x', '--link', 'javascript:alert(1)'])
      expect(r.code).toBe(3)
      expect(r.stderr).toStartWith('error: ')
      expect(r.stderr).toContain('link')
      expect(r.stderr).not.toContain('retrying')
    })

    test('the monthly quota used up (its Retry-After is next month: no retry)', async () => {
      const small = await h.workspace({ monthlyQuota: 1 })
      expect((await send(['one'], { HERALD_KEY: small.apiKey })).code).toBe(0)
      const started = Date.now()
      const r = await send(['two'], { HERALD_KEY: small.apiKey })
      expect(r.code).toBe(3)
      expect(r.stderr).toStartWith('error: The monthly event quota of this workspace is used up')
      expect(Date.now() - started).toBeLessThan(5_000)
    })
  })

  describe('usage errors: exit 2, nothing sent', () => {
    test.each([
      [['x'], { HERALD_KEY: '' }, 'error: no API key: set HERALD_KEY or pass --key'],
      [['x', '--data', 'novalue'], {}, 'error: --data must be KEY=VALUE, such as sha=9f2c1e, got "novalue"'],
      [['x', '--data-json', '[1,2]'], {}, 'error: --data-json must be a JSON object'],
      [['x', '--data-json', '{oops'], {}, 'error: --data-json must be a JSON object such as'],
      [[], {}, "error: herald send: missing required argument 'message'"],
      [['x', '--url', 'ftp://example.com'], {}, 'error: --url must be an http(s) URL'],
    ] as [string[], Record<string, string>, string][])('%j', async (args, env, start) => {
      const before = await used(ws.name)
      const r = await send(args, env)
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(USAGE_ERROR)
      expect(r.stderr).toStartWith(start)
      expect(await used(ws.name)).toBe(before)
    })
  })

  describe('retries', () => {
    let proxy: ReturnType<typeof standIn>
    beforeAll(() => {
      proxy = standIn(h.url)
    })
    afterAll(() => proxy?.stop())
    const viaProxy = (args: string[]) => send(args, { HERALD_URL: proxy.url })
    const fresh = () => {
      proxy.seen.length = 0
      proxy.script.length = 0
    }

    test('503, 503, then Herald: the same Idempotency-Key and bytes each time; stored once', async () => {
      fresh()
      proxy.script.push(problem(503, 'The database is unavailable. Retry later.'), { status: 503, body: 'down' }, 'forward')
      const before = await used(ws.name)
      const r = await viaProxy(['retried', '--data', 'k=v', '--json'])
      expect(r.code).toBe(0)
      expect(proxy.seen).toHaveLength(3)
      const [first] = proxy.seen
      expect(first!.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      for (const s of proxy.seen) expect(s).toEqual(first!)
      expect(r.stderr).toContain('The database is unavailable. Retry later.: retrying in 0.5 s (retry 1 of 3, same Idempotency-Key)')
      expect(r.stderr).toContain('HTTP 503 Service Unavailable: retrying in 1 s (retry 2 of 3')
      expect(await used(ws.name)).toBe(before + 1)
      expect((await stored(ws.apiKey, JSON.parse(r.stdout).eventId)).message).toBe('retried')
    })

    test('an answer lost after Herald stored the event: the retry gets the same event back, stored once', async () => {
      fresh()
      proxy.script.push('forward-then-502', 'forward')
      const before = await used(ws.name)
      const r = await viaProxy(['lost answer', '--json'])
      expect(r.code).toBe(0)
      expect(proxy.seen).toHaveLength(2)
      expect(proxy.seen[1]!.key).toBe(proxy.seen[0]!.key!)
      expect(await used(ws.name)).toBe(before + 1)
    })

    test('a 429 with Retry-After is waited for, then sent again', async () => {
      fresh()
      proxy.script.push(problem(429, 'The rate limit of this workspace was reached; retry after the number of seconds in Retry-After.', { 'retry-after': '1' }))
      const started = Date.now()
      const r = await viaProxy(['after a pause'])
      expect(r.code).toBe(0)
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
      expect(r.stderr).toContain('retrying in 1 s')
      expect(proxy.seen.map((s) => s.key)).toEqual([proxy.seen[0]!.key, proxy.seen[0]!.key])
    })

    test('a 429 still there after the retries is a refusal: exit 3', async () => {
      fresh()
      proxy.script.push(...[1, 2].map(() => problem(429, 'The rate limit of this workspace was reached.', { 'retry-after': '0' })))
      const r = await viaProxy(['limited', '--retries', '1'])
      expect(r.code).toBe(3)
      expect(r.stderr).toEndWith('error: The rate limit of this workspace was reached.\n')
      expect(proxy.seen).toHaveLength(2)
    })

    test('5xx after every retry: exit 1 with the last answer', async () => {
      fresh()
      proxy.script.push(...[1, 2].map(() => problem(500, 'An unexpected error occurred.')))
      const r = await viaProxy(['broken', '--retries', '1'])
      expect(r.code).toBe(1)
      expect(r.stderr).toEndWith('error: An unexpected error occurred.\n')
      expect(proxy.seen).toHaveLength(2)
    })

    test('--retries 0 tries once', async () => {
      fresh()
      proxy.script.push(problem(503, 'Down.'))
      const r = await viaProxy(['once', '--retries', '0'])
      expect(r.code).toBe(1)
      expect(proxy.seen).toHaveLength(1)
      expect(r.stderr).toBe('error: Down.\n')
    })

    test('unreachable: exit 1 after the retries, naming the URL', async () => {
      const r = await send(['nobody', '--retries', '1'], { HERALD_URL: 'http://127.0.0.1:1' })
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/^cannot reach Herald at http:\/\/127\.0\.0\.1:1 .*retrying in 0\.5 s \(retry 1 of 1, same Idempotency-Key\)\n/)
      expect(r.stderr).toMatch(/\nerror: cannot reach Herald at http:\/\/127\.0\.0\.1:1 /)
    })
  })
})
