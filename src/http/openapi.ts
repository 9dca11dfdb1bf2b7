// What the routes add to the OpenAPI document that @elysiajs/openapi
// generates from their TypeBox schemas, and the one pass that finishes it
// for /openapi.json:
// - every route declares its error responses with `problems` (and `problem`
//   where its own words say more): each is the shared Problem schema, as
//   application/problem+json, the way src/core/problems.ts renders them;
// - a schema with a TypeBox `$id` is a named component: it is written once
//   under components/schemas and referenced wherever it is used, so that a
//   generated client gets named models;
// - Herald's own keywords (`error`, the worded detail of a 400, and
//   `x-parameter`, src/http/routes/input.ts) stay in the schemas Herald
//   validates with, and out of the document;
// - a number Elysia coerces from the path or the query is documented as the
//   number it is, not as "text or a number".
// test/http/openapi.lint.test.ts runs Redocly and Spectral on the result.
import { OptionalKind, Type, type TSchema } from '@sinclair/typebox'
import type { DocumentDecoration } from 'elysia'
import { PROBLEM_BASE, problems as catalogue, problemType } from '../core/problems'

type Json = any

export const FieldErrorSchema = Type.Object(
  {
    pointer: Type.Optional(Type.String({ description: 'A JSON pointer into the request body (RFC 6901); "" is the whole body.', examples: ['/message'] })),
    parameter: Type.Optional(Type.String({ description: 'The path or query parameter, or the request header, at fault.', examples: ['limit'] })),
    detail: Type.String({ description: 'What is wrong with it, in words.', examples: ['message must not be empty'] }),
  },
  { $id: 'FieldError', additionalProperties: false, description: 'One thing wrong with the request: a field of the body or a parameter.' },
)

/** The body of every error answer (problemBody in src/core/problems.ts). */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({
      format: 'uri',
      description: `What kind of problem: ${PROBLEM_BASE} followed by one of ${Object.keys(catalogue).join(', ')}. A program may branch on it.`,
      examples: [problemType('validation-failed')],
    }),
    title: Type.String({ description: 'The title of the type; the same for every problem of that type.', examples: ['Validation Failed'] }),
    status: Type.Integer({ description: 'The HTTP status of the answer.', examples: [400] }),
    detail: Type.String({ description: 'What went wrong, in words.', examples: ['message must not be empty'] }),
    errors: Type.Optional(Type.Array(FieldErrorSchema, { description: 'Each field or parameter at fault (at most 20); absent when the problem names none.' })),
  },
  { $id: 'Problem', additionalProperties: false, description: 'An RFC 9457 problem (application/problem+json).' },
)

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 503

// What each status means on any route; a route says more with `problem`.
const MEANING: Record<ErrorStatus, string> = {
  400: 'The request is invalid: a field, a parameter, or the JSON itself. `errors` names each field at fault.',
  401: 'Missing or wrong credentials.',
  403: 'Not allowed: a role that may not do this, or a change from a web session without its X-CSRF-Token.',
  404: 'Not found.',
  409: 'In conflict with what exists: a name taken, or a limit reached.',
  413: 'The body is larger than this route takes.',
  415: 'The body is not JSON: send it with Content-Type: application/json.',
  422: 'Understood, but refused.',
  429: 'Too many requests: retry after Retry-After seconds.',
  503: 'The database is unavailable: retry after Retry-After seconds.',
}

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } } }

export type Responses = NonNullable<DocumentDecoration['responses']>

/** The error response of `status`: Herald's Problem, described by `description`. */
export const problem = (status: ErrorStatus, description = MEANING[status]): Responses[string] =>
  ({
    description,
    ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
    content: { 'application/problem+json': { schema: ProblemSchema } },
  }) as Responses[string]

/** The error responses of a route, each described by what its status means. */
export const problems = (...statuses: ErrorStatus[]): Responses => Object.fromEntries(statuses.map((s) => [s, problem(s)]))

/** What a route that takes a JSON body may answer before its handler runs (src/http/body.ts). */
export const BODY_PROBLEMS: ErrorStatus[] = [400, 413, 415]

/** A success without a body (204), or one whose body says nothing (202 `{}`). */
export const done = (description: string): Responses[string] => ({ description })

/** A JSON response of `schema` that no response hook validates (a probe's answer, say). */
export const json = (description: string, schema: TSchema): Responses[string] => ({ description, content: { 'application/json': { schema } } }) as Responses[string]

// --- finishing the generated document ----------------------------------------

// JSON Schema 2020-12 keywords that hold one schema, a list, or a map of them.
const ONE = new Set(['items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames'])
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
const MAP = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas'])
// Herald's, read by src/http/app.ts when it words a 400: no JSON Schema keyword.
const HERALDS = new Set(['$id', 'error', 'x-parameter'])

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v)
const mapValues = (o: Record<string, Json>, f: (v: Json) => Json) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]))

/**
 * Elysia's `t.Integer` in the path or the query is a union of the text it
 * coerces and the number; the number it is, as OpenAPI's `integer`.
 */
function coercedNumber(schema: Record<string, Json>): Json {
  const options = schema.anyOf
  if (!Array.isArray(options) || options.length !== 2) return undefined
  const text = options.findIndex((o) => o?.type === 'string' && (o.format === 'integer' || o.format === 'numeric'))
  return text < 0 ? undefined : options[1 - text]
}

/** Copies the schemas of a document, with named schemas moved to `named` and referenced. */
function schemaWriter() {
  const named = new Map<string, Json>()
  const write = (schema: Json): Json => {
    if (!isObject(schema)) return schema
    const number = coercedNumber(schema)
    if (number) return write(number)
    const out: Record<string, Json> = {}
    for (const [key, value] of Object.entries(schema)) {
      if (HERALDS.has(key)) continue
      if (ONE.has(key)) out[key] = write(value)
      else if (LIST.has(key) && Array.isArray(value)) out[key] = value.map(write)
      else if (MAP.has(key) && isObject(value)) out[key] = mapValues(value, write)
      else out[key] = value
    }
    const name = schema.$id
    if (typeof name !== 'string') return out
    const seen = named.get(name)
    // A copy of a named schema with a field changed ({ ...Named, description }) keeps its $id.
    if (seen && JSON.stringify(seen) !== JSON.stringify(out)) throw new Error(`two different schemas have the $id ${name}: rename one`)
    named.set(name, out)
    return { $ref: `#/components/schemas/${name}` }
  }
  const content = (c: Json) => (isObject(c) ? mapValues(c, (media) => ({ ...media, schema: write(media.schema) })) : c)
  return { named, write, content }
}

export interface RouteInfo {
  method: string
  path: string
  hooks?: { body?: unknown; detail?: { responses?: Record<string, Json> } }
}

const GENERATED = /^Response for status \d+$/

/**
 * An operation with what its route declares: the JSON body its group's parse
 * hook reads (the generator lists no media type for a body read by a
 * function), and the responses of its `detail` (the generator keeps only
 * those of its response schemas when it has any).
 */
function finishOperation(op: Json, route: RouteInfo | undefined, w: ReturnType<typeof schemaWriter>): Json {
  const body = route?.hooks?.body as Json
  let requestBody = op.requestBody
  if (requestBody && !Object.keys(requestBody.content ?? {}).length && body) {
    requestBody = { ...requestBody, required: !(OptionalKind in body), content: { 'application/json': { schema: body } } }
  }
  const responses: Record<string, Json> = { ...op.responses }
  for (const [status, declared] of Object.entries(route?.hooks?.detail?.responses ?? {})) {
    const generated = responses[status]
    responses[status] = !generated ? declared : GENERATED.test(generated.description) && declared.description ? { ...generated, description: declared.description } : generated
  }
  return {
    ...op,
    ...(op.parameters ? { parameters: op.parameters.map((p: Json) => ({ ...p, schema: w.write(p.schema) })) } : {}),
    ...(requestBody ? { requestBody: { ...requestBody, content: w.content(requestBody.content) } } : {}),
    responses: mapValues(responses, (r) => (isObject(r) && r.content ? { ...r, content: w.content(r.content) } : r)),
  }
}

/** The document as /openapi.json serves it, from the generator's and the composed app's routes. */
export function finishDocument(generated: Json, routes: RouteInfo[]): Json {
  const w = schemaWriter()
  const byOperation = new Map(routes.map((r) => [`${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`, r]))
  const paths: Record<string, Json> = {}
  for (const [path, operations] of Object.entries<Json>(generated.paths ?? {})) {
    paths[path] = Object.fromEntries(Object.entries<Json>(operations).map(([method, op]) => [method, finishOperation(op, byOperation.get(`${method} ${path}`), w)]))
  }
  for (const [name, schema] of Object.entries<Json>(generated.components?.schemas ?? {})) w.write({ ...schema, $id: name })
  const schemas = Object.fromEntries([...w.named].sort(([a], [b]) => a.localeCompare(b)))
  return { ...generated, paths, components: { ...generated.components, schemas } }
}
