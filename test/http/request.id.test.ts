// Every request has an id (STYLE 19): the caller's X-Request-Id when it is
// one a log can carry (1 to 128 characters of letters, digits and
// `._:-+=/@`), else a new UUIDv7. Every answer echoes it, whatever its
// status, and the log lines about the request carry it. A real process at
// LOG_LEVEL=debug, whose every line is kept, with an SMTP server that refuses
// connections so that a route logs an error of its own.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../faults/private_nats'
import { spawnHerald, type HeraldProcess } from '../processes'
import { UUIDV7, waitFor } from '../support'

describe('request ids', () => {
  let herald: HeraldProcess
  let dir: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-rid-'))
    herald = await spawnHerald({ HERALD_DATA_DIR: dir, LOG_LEVEL: 'debug', SMTP_URL: `smtp://127.0.0.1:${await freePort()}` }, 'start')
  }, 60_000)
  afterAll(async () => {
    await herald?.kill()
    rmSync(dir, { recursive: true, force: true })
  })

  const linesWith = (id: string) => herald.output.filter((l) => l.startsWith('{') && JSON.parse(l).requestId === id)

  test('a given id is echoed on every kind of answer, and names the log line of a refused request', async () => {
    const answers: [string, RequestInit, number][] = [
      ['/healthz', {}, 200],
      ['/event', { method: 'POST', headers: { authorization: 'Bearer hk_nope', 'content-type': 'application/json' }, body: '{"message":"x"}' }, 401],
      ['/v1/auth/signup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":1}' }, 400],
      ['/no/such/path', {}, 404],
      ['/openapi.json', {}, 200],
      ['/', {}, 200],
    ]
    for (const [path, init, status] of answers) {
      const id = `probe-${status}-${crypto.randomUUID()}`
      const res = await fetch(herald.url + path, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-request-id': id } })
      await res.arrayBuffer()
      expect({ path, status: res.status, id: res.headers.get('x-request-id') }).toEqual({ path, status, id })
      // 4xx are logged at debug, with the request's id.
      if (status >= 400) await waitFor(() => linesWith(id).length > 0, 5000, `a log line with requestId ${id}`)
    }
  })

  test('an id a log should not carry is replaced by a new UUIDv7; each request gets its own', async () => {
    for (const given of ['a'.repeat(129), 'two words', 'semi;colon', '"quoted"', '']) {
      const res = await fetch(`${herald.url}/healthz`, { headers: { 'x-request-id': given } })
      const id = res.headers.get('x-request-id')!
      expect(id).toMatch(UUIDV7)
      expect(id).not.toBe(given)
    }
    expect(await fetch(`${herald.url}/healthz`, { headers: { 'x-request-id': 'a'.repeat(128) } }).then((r) => r.headers.get('x-request-id'))).toBe('a'.repeat(128))
    const ids = await Promise.all(Array.from({ length: 20 }, () => fetch(`${herald.url}/healthz`).then((r) => r.headers.get('x-request-id'))))
    expect(new Set(ids).size).toBe(20)
    for (const id of ids) expect(id).toMatch(UUIDV7)
  })

  test("a route's own log line (an e-mail that cannot be sent) carries the request's id", async () => {
    const id = `reset-${crypto.randomUUID()}`
    // The first account, so that a reset has an address to write to.
    const signup = await fetch(`${herald.url}/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'rid@example.com', password: 'correct horse battery' }) })
    expect(signup.status).toBe(201)
    const res = await fetch(`${herald.url}/v1/auth/password-reset`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': id }, body: JSON.stringify({ email: 'rid@example.com' }) })
    expect(res.status).toBe(202)
    expect(res.headers.get('x-request-id')).toBe(id)
    await waitFor(() => linesWith(id).some((l) => JSON.parse(l).msg.startsWith('could not send the e-mail')), 15_000, 'the failed e-mail logged with the request id')
  }, 30_000)
})
