// What /openapi.json says of errors and of who may call what, against what
// Herald answers: every operation documents its error responses, each the one
// shared Problem schema (RFC 9457), and real 400s, 401s, 404s, 413s and 415s
// match that schema; every operation says its security, `[]` for the public
// ones; bodies are named schemas; Herald's own schema keywords stay out.
import { beforeAll, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { useTestHerald } from '../harness'
import { schemaIn } from '../support'
import { signUp, type Person } from '../users'
import { ProblemSchema } from '../../src/http/openapi'

type Json = any

const PUBLIC = [
  'get /healthz',
  'get /readyz',
  'get /v1/auth/signup',
  'get /v1/invitations/{token}',
  'get /v1/push/vapid-public-key',
  'post /v1/auth/password-reset',
  'post /v1/auth/password-reset/confirm',
  'post /v1/auth/signin',
  'post /v1/auth/signup',
  'post /v1/auth/signup/confirm',
]
// A probe's 503 is its own small body (a load balancer reads the status only).
const NOT_A_PROBLEM = new Set(['get /readyz 503'])
// They read their bodies themselves, and answer 400 for a Content-Type that is not JSON (docs/events.md).
const OWN_BODY_READERS = new Set(['post /event', 'post /events'])

const h = useTestHerald('embedded')
let doc: Json
let owner: Person
let operations: { name: string; op: Json }[]

beforeAll(async () => {
  owner = await signUp(h)
  doc = await (await fetch(`${h.url}/openapi.json`)).json()
  operations = Object.entries<Json>(doc.paths).flatMap(([path, methods]) => Object.entries<Json>(methods).map(([method, op]) => ({ name: `${method} ${path}`, op })))
}, 30_000)

/** Every (sub)schema of the document, anywhere. */
function* schemasOf(value: Json): Generator<Json> {
  if (Array.isArray(value)) for (const v of value) yield* schemasOf(v)
  else if (value && typeof value === 'object') {
    if (typeof value.type === 'string' || Array.isArray(value.type) || value.anyOf || value.oneOf || value.$ref) yield value
    for (const [k, v] of Object.entries(value)) if (k !== 'examples' && k !== 'example') yield* schemasOf(v)
  }
}

describe('the OpenAPI document', () => {
  test('every operation says its security; exactly the public ones say []', () => {
    expect(operations.length).toBeGreaterThan(70)
    expect(operations.filter(({ op }) => !Array.isArray(op.security)).map((o) => o.name)).toEqual([])
    expect(operations.filter(({ op }) => op.security.length === 0).map((o) => o.name).sort()).toEqual(PUBLIC)
  })

  test('every error response is the shared Problem schema, as application/problem+json; 429 and 503 say Retry-After', () => {
    // The schema Herald's answers are checked against below, as JSON, its field errors named.
    const { $id: _, ...problem } = JSON.parse(JSON.stringify(ProblemSchema))
    const { $id: __, ...fieldError } = problem.properties.errors.items
    problem.properties.errors.items = { $ref: '#/components/schemas/FieldError' }
    expect(schemaIn(doc, { $ref: '#/components/schemas/Problem' })).toEqual(problem)
    expect(schemaIn(doc, { $ref: '#/components/schemas/FieldError' })).toEqual(fieldError)
    const wrong: string[] = []
    for (const { name, op } of operations) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (Number(status) < 400 || NOT_A_PROBLEM.has(`${name} ${status}`)) continue
        if (JSON.stringify(response.content) !== JSON.stringify({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } })) wrong.push(`${name} ${status}`)
        if ((status === '429' || status === '503') && !response.headers?.['Retry-After']) wrong.push(`${name} ${status} without Retry-After`)
        if (!response.description) wrong.push(`${name} ${status} without a description`)
      }
    }
    expect(wrong).toEqual([])
  })

  test('every operation documents the errors of its inputs and of its credentials', () => {
    const missing: string[] = []
    for (const { name, op } of operations) {
      const has = (status: number) => op.responses[status] !== undefined || missing.push(`${name} ${status}`)
      if (op.parameters?.length || op.requestBody) has(400)
      if (op.requestBody) {
        has(413)
        if (!OWN_BODY_READERS.has(name)) has(415)
      }
      if (op.security.length) has(401)
      if (op.security.some((s: Json) => 'session' in s) && !name.startsWith('get ')) has(403) // a web session's change without X-CSRF-Token
      if (op.tags.includes('Operator') || name.includes('{workspace}')) has(404)
      if (!Object.keys(op.responses).some((s) => s.startsWith('2'))) missing.push(`${name} 2xx`)
    }
    expect(missing).toEqual([])
  })

  test('request and response bodies are named schemas', () => {
    const inline: string[] = []
    const named = (schema: Json) => typeof schema?.$ref === 'string' || (schema?.type === 'array' && typeof schema.items?.$ref === 'string')
    for (const { name, op } of operations) {
      const body = op.requestBody?.content?.['application/json']?.schema
      if (body && !named(body)) inline.push(`${name} request`)
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const schema = response.content?.['application/json']?.schema
        if (schema && !named(schema)) inline.push(`${name} ${status}`)
      }
    }
    expect(inline).toEqual([])
    for (const schema of schemasOf(doc)) if (schema.$ref) schemaIn(doc, schema) // every reference leads to a schema
  })

  test("Herald's own keywords stay out; a number parameter is an integer whose default is within its range", () => {
    const own = [...schemasOf(doc)].filter((s) => typeof s.error === 'string' || 'x-parameter' in s || '$id' in s)
    expect(own).toEqual([])
    const limits = operations.flatMap(({ name, op }) => (op.parameters ?? []).filter((p: Json) => p.name === 'limit').map((p: Json) => ({ name, schema: p.schema })))
    expect(limits.length).toBeGreaterThan(3)
    for (const { name, schema } of limits) {
      expect({ name, type: schema.type, anyOf: schema.anyOf }).toEqual({ name, type: 'integer', anyOf: undefined })
      expect(schema.default).toBeGreaterThanOrEqual(schema.minimum)
      expect(schema.default).toBeLessThanOrEqual(schema.maximum)
    }
  })
})

describe('the answers match the documented Problem schema', () => {
  const cases: { what: string; operation: string; send: () => Promise<Response>; status: number }[] = [
    { what: 'a body field of the wrong kind', operation: 'post /v1/workspaces', status: 400, send: () => owner.call('POST', '/v1/workspaces', { name: 5 }) },
    { what: 'a body field past its pattern', operation: 'post /v1/workspaces/{workspace}/channels', status: 400, send: () => owner.call('POST', `/v1/workspaces/${owner.workspace}/channels`, { slug: 'Has Space' }) },
    { what: 'an unknown body field', operation: 'post /admin/workspaces', status: 400, send: () => h.admin('POST', '/admin/workspaces', { name: 'fine', monthly_quota: 5 }) },
    { what: 'a query number out of range', operation: 'get /v1/feed', status: 400, send: () => owner.call('GET', `/v1/feed?workspace=${owner.workspace}&limit=0`) },
    { what: 'a path parameter of the wrong form', operation: 'get /admin/workspaces/{workspace}', status: 400, send: () => h.admin('GET', '/admin/workspaces/Not%20A%20Slug') },
    { what: 'JSON that does not parse', operation: 'post /v1/auth/signin', status: 400, send: () => fetch(`${h.url}/v1/auth/signin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":' }) },
    { what: 'no credentials', operation: 'get /v1/me', status: 401, send: () => fetch(`${h.url}/v1/me`) },
    { what: 'a workspace I am not a member of', operation: 'get /v1/workspaces/{workspace}', status: 404, send: () => owner.call('GET', '/v1/workspaces/nobody-has-this') },
    { what: 'a body past the limit', operation: 'post /v1/auth/signin', status: 413, send: () => fetch(`${h.url}/v1/auth/signin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a'.repeat(10_000) }) }) },
    { what: 'a body that is not JSON', operation: 'post /v1/auth/signin', status: 415, send: () => fetch(`${h.url}/v1/auth/signin`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'email=a' }) },
  ]
  for (const c of cases) {
    test(`${c.what}: ${c.status}, documented for ${c.operation}`, async () => {
      const res = await c.send()
      const body = await res.json()
      expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({ status: c.status, type: 'application/problem+json' })
      expect([...Value.Errors(ProblemSchema, body)].map((e) => `${e.path}: ${e.message}`)).toEqual([])
      expect(body.status).toBe(c.status)
      const [method, path] = c.operation.split(' ')
      expect(doc.paths[path!][method!].responses[c.status].content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problem')
    })
  }
})
