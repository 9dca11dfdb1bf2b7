// Helpers shared by the conformance suites: one way to send a request either
// through `app.handle` (no socket) or over the real socket, raw HTTP/1.1 for
// what fetch cannot express, and the assertions every problem body shares.
import { expect } from 'bun:test'
import { connect } from 'node:net'
import type { TestHerald } from './harness'
import { NOTIFY_DEFAULTS, type EventView } from '../src/delivery/event_view'

/**
 * How a request reaches Herald: in-process through app.handle, or over TCP.
 * 'batch' is POST /events over TCP with the one event as its only item
 * (postEvent below), for the rules that hold per event on both routes.
 */
export type Via = 'handle' | 'socket' | 'batch'
export const vias: Via[] = ['handle', 'socket']
/** The vias of the per-event rules: POST /event both ways, and POST /events with one event. */
export const eventVias: Via[] = ['handle', 'socket', 'batch']

export const UUIDV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
export const MAX_BODY = 262_144

/** An event as destinations get it (Jane's sign-up in acme's channel "signups"), with the fields a test names changed. */
export const eventView = (over: Partial<EventView> = {}): EventView => ({
  eventId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  workspace: 'acme',
  channel: 'signups',
  event: 'user.signup',
  title: 'New user',
  message: 'Jane Doe signed up',
  link: 'https://example.com/users/42',
  tags: ['signup', 'web'],
  data: { plan: 'pro' },
  createdAt: '2026-01-02T03:04:05.678Z',
  ...NOTIFY_DEFAULTS, ...over,
})

/** Sends a request to `path` through the chosen transport. */
export function send(h: TestHerald, via: Via, path: string, init: RequestInit = {}): Promise<Response> {
  if (via !== 'handle') return fetch(h.url + path, init)
  // Elysia routes on the URL's path; the host only has to be a real-looking one.
  return h.app.handle(new Request('http://localhost' + path, init))
}

/** POST /event with a JSON content type; a string body is sent as is. Via 'batch', POST /events with it as the only event. */
export function postEvent(h: TestHerald, via: Via, apiKey: string | null, body: unknown, headers: Record<string, string> = {}) {
  if (via === 'batch') return postAsBatch(h, apiKey, body, headers)
  return send(h, via, '/event', {
    method: 'POST',
    headers: {
      ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }),
      'content-type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/** POST /events with these items; a string is sent as the whole body. */
export function postBatch(h: TestHerald, via: Via, apiKey: string | null, events: unknown[] | string, headers: Record<string, string> = {}) {
  return send(h, via, '/events', {
    method: 'POST',
    headers: { ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }), 'content-type': 'application/json', ...headers },
    body: typeof events === 'string' ? events : JSON.stringify({ events }),
  })
}

/** The text of a batch of one event: an Idempotency-Key header becomes the item's idempotencyKey. */
function batchOfOne(body: unknown, key: string | undefined): string {
  let item = typeof body === 'string' ? body : JSON.stringify(body)
  if (key !== undefined) {
    const open = item.indexOf('{')
    const rest = item.slice(open + 1)
    const field = `"idempotencyKey":${JSON.stringify(key)}`
    item = open < 0 ? item : `${item.slice(0, open)}{${field}${rest.trimStart().startsWith('}') ? '' : ','}${rest}`
  }
  return `{"events":[${item}]}`
}

/**
 * POST /events with `body` as its only event, answered as POST /event would
 * be: the one result as the body, a 200 with the batch's RateLimit headers or
 * the result's problem status, its pointers without the "/events/0" prefix.
 * An answer for the whole batch (401, 413, 400, 429) passes through.
 */
export async function postAsBatch(h: TestHerald, apiKey: string | null, body: unknown, headers: Record<string, string> = {}) {
  const rest = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'idempotency-key'))
  const key = Object.entries(headers).find(([k]) => k.toLowerCase() === 'idempotency-key')?.[1]
  const res = await send(h, 'batch', '/events', {
    method: 'POST',
    headers: { ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }), 'content-type': 'application/json', ...rest },
    body: batchOfOne(body, key),
  })
  if (res.status !== 200) return res
  const { results } = (await res.json()) as { results: Record<string, any>[] }
  expect(results).toHaveLength(1)
  const result = results[0]!
  if (typeof result.status !== 'number') {
    const rate = Object.fromEntries(['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((k) => [k, res.headers.get(k) ?? '']))
    return new Response(JSON.stringify(result), { headers: { 'content-type': 'application/json', ...rate } })
  }
  if (result.errors) {
    for (const e of result.errors) {
      expect(e.pointer).toStartWith('/events/0')
      e.pointer = e.pointer.slice('/events/0'.length)
    }
  }
  return new Response(JSON.stringify(result), { status: result.status, headers: { 'content-type': 'application/problem+json' } })
}

/** GET /events/{id} with the given key. */
export const readEvent = (h: TestHerald, via: Via, apiKey: string, id: string) =>
  send(h, via, `/events/${id}`, { headers: { authorization: `Bearer ${apiKey}` } })

/** Posts an event that must be accepted and returns the 200 body. */
export async function accepted(h: TestHerald, via: Via, apiKey: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await postEvent(h, via, apiKey, body, headers)
  const text = await res.text()
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text}`)
  return JSON.parse(text) as { workspace: string; channel: string; eventId: string; remainingQuota: number; errors?: string[] }
}

/** Posts an event, expects 200, and reads it back as stored. */
export async function stored(h: TestHerald, via: Via, apiKey: string, body: unknown) {
  const result = await accepted(h, via, apiKey, body)
  const res = await readEvent(h, via, apiKey, result.eventId)
  expect(res.status).toBe(200)
  return { result, event: (await res.json()) as Record<string, any> }
}

export interface Problem {
  type: string
  title: string
  status: number
  detail: string
  errors?: { pointer?: string; parameter?: string; detail: string }[]
}

/** Asserts an RFC 9457 problem response with this status and returns its body. */
export async function expectProblem(res: Response, status: number, type?: string): Promise<Problem> {
  const text = await res.text()
  expect({ status: res.status, text }).toMatchObject({ status })
  expect(res.headers.get('content-type') ?? '').toStartWith('application/problem+json')
  const body = JSON.parse(text) as Problem
  expect(body.type).toMatch(/^https?:\/\/\S+$/)
  expect(typeof body.title).toBe('string')
  expect(body.title.length).toBeGreaterThan(0)
  expect(body.status).toBe(status)
  expect(typeof body.detail).toBe('string')
  expect(body.detail.length).toBeGreaterThan(0)
  if (type) expect(body.type).toEndWith(`/${type}`)
  return body
}

/** Asserts a 400 validation problem with an `errors` entry for `pointer` and returns that entry. */
export async function expectFieldError(res: Response, pointer: string) {
  const body = await expectProblem(res, 400)
  expect(Array.isArray(body.errors)).toBe(true)
  const entry = body.errors!.find((e) => e.pointer === pointer || e.pointer?.startsWith(pointer + '/'))
  expect({ pointers: body.errors!.map((e) => e.pointer), wanted: pointer, found: !!entry }).toMatchObject({ found: true })
  expect(typeof entry!.detail).toBe('string')
  // "detail: a human sentence naming the field and the rule"
  const field = pointer.split('/')[1]!
  expect(entry!.detail).toContain(field)
  expect(body.detail).toContain(field)
  return entry!
}

/** A JSON event body whose UTF-8 encoding is exactly `bytes` long. */
export function bodyOfSize(bytes: number): string {
  const head = '{"message":"size test","data":{"pad":"'
  const tail = '"}}'
  return head + 'a'.repeat(bytes - head.length - tail.length) + tail
}

export const codePoints = (s: string) => [...s].length

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * Writes raw HTTP/1.1 to Herald's socket and resolves with the first response,
 * without waiting for the request to be complete: `parts` are written in
 * order and the socket is left open afterwards unless `end` is set. This is
 * how a test sees a 413 or 401 decided before the body has arrived.
 */
export function rawRequest(port: number, parts: (string | Uint8Array)[], timeoutMs = 5000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let buf = Buffer.alloc(0)
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete response within ${timeoutMs} ms; got: ${buf.toString('latin1').slice(0, 200)}`))
    }, timeoutMs)
    const done = (r: RawResponse) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(r)
    }
    socket.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    socket.on('connect', async () => {
      for (const p of parts) {
        if (socket.destroyed) return
        await new Promise<void>((ok) => socket.write(p, () => ok()))
      }
    })
    socket.on('data', (data: Buffer) => {
      buf = Buffer.concat([buf, data])
      const parsed = parseResponse(buf)
      if (parsed) done(parsed)
    })
  })
}

function parseResponse(buf: Buffer): RawResponse | null {
  const end = buf.indexOf('\r\n\r\n')
  if (end < 0) return null
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(lines[0]!.split(' ')[1])
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':')
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
  }
  const rest = buf.subarray(end + 4)
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length'])
    return rest.length >= n ? { status, headers, body: rest.subarray(0, n).toString('utf8') } : null
  }
  if (headers['transfer-encoding']?.includes('chunked')) {
    let out = Buffer.alloc(0)
    let at = 0
    for (;;) {
      const nl = rest.indexOf('\r\n', at)
      if (nl < 0) return null
      const size = parseInt(rest.subarray(at, nl).toString('latin1'), 16)
      if (size === 0) return { status, headers, body: out.toString('utf8') }
      if (rest.length < nl + 2 + size + 2) return null
      out = Buffer.concat([out, rest.subarray(nl + 2, nl + 2 + size)])
      at = nl + 2 + size + 2
    }
  }
  return { status, headers, body: rest.toString('utf8') }
}

/** The head of a raw POST /event (or of a POST to `path`). */
export function rawHead(headers: Record<string, string>, path = '/event'): string {
  const lines = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
  return lines.join('\r\n') + '\r\n\r\n'
}

/** One chunk of a chunked transfer encoding. */
export const chunk = (data: string | Uint8Array) => {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data
  return Buffer.concat([Buffer.from(bytes.length.toString(16) + '\r\n'), bytes, Buffer.from('\r\n')])
}
export const LAST_CHUNK = '0\r\n\r\n'

/** Seconds from now until 00:00 UTC on the first day of next month. */
export function secondsToNextMonthUtc(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)
  return (next - now.getTime()) / 1000
}

/** Counts the events stored for a workspace, straight from the database. */
export async function countEvents(h: TestHerald, workspace: string): Promise<number> {
  const [row] = await h.db.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM events e JOIN workspaces w ON w.id = e.workspace_id WHERE w.name = ${workspace}`
  return row!.n
}

/** Polls until the condition holds (or fails after the timeout). */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'the condition'): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

/** A schema of an OpenAPI document with its `$ref` followed: the named schema under components/schemas. */
export function schemaIn(doc: any, schema: any): any {
  const ref: unknown = schema?.$ref
  if (typeof ref !== 'string') return schema
  const named = doc.components?.schemas?.[ref.replace('#/components/schemas/', '')]
  if (!named) throw new Error(`${ref} is not a schema of the document`)
  return named
}
