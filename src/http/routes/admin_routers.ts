// Operator API: create, list, read, change and delete a workspace's routers.
// A router's destination is validated here by its `type` rather than by
// Elysia against the Destination union: TypeBox's only error for a union is
// "Expected union value", which names no field. Secrets (URLs, tokens,
// passwords, the signing secret) go in once and never come back out.
import { Elysia } from 'elysia'
import { Type, type TSchema } from '@sinclair/typebox'
import { Value, type ValueError } from '@sinclair/typebox/value'
import { inWords } from '../words'
import type { Sql } from '../../core/db'
import type { SecretBox } from '../../core/secrets'
import { HeraldError, validationError, type FieldError } from '../../core/problems'
import { validatePattern, PATTERN_MAX_LENGTH } from '../../delivery/pattern'
import { urlRefusal } from '../../delivery/outbound'
import { Template, validateTemplate } from '../../delivery/template'
import { Destination, DESTINATION_TYPES, destinationType } from '../../delivery/destinations'
import { settleRouterDeliveries } from '../../delivery/health'
import { deleteRouter, getRouter, insertRouter, listRouters, updateRouter, type RouterPatch } from '../../delivery/routers'
import { Uuid, WorkspaceParam, WorkspaceParams } from './input'
import { OPERATOR_PROBLEMS, workspaceIdOf } from './admin_auth'
import { BODY_PROBLEMS, done, problem, problems, type Responses } from '../openapi'

/**
 * Shows the union `schema` in the OpenAPI document but lets any value through
 * Elysia's validation, so that the handler can answer with errors that name
 * fields. The copy drops the symbols TypeBox keys its checks on, and says
 * `oneOf` (exactly one matches, which is true) rather than `anyOf`, which
 * Elysia's body normaliser (exact-mirror) would try, and fail, to compile.
 */
function checkedInHandler(schema: TSchema, options: object = {}) {
  const { anyOf, ...rest } = JSON.parse(JSON.stringify(schema))
  return Type.Any({ ...rest, oneOf: anyOf, ...options })
}

const RouterName = Type.String({ minLength: 1, maxLength: 100, description: 'Unique in the workspace; a label for people and the CLI.', examples: ['signups'] })
const Pattern = Type.String({
  description: `Glob on the event's \`event\` key: \`*\` matches any run of characters, dots included (\`user.*\` matches \`user.signup\` and \`user.a.b\`, not \`user\`). \`*\` alone also matches events without a key. At most ${PATTERN_MAX_LENGTH} of A-Z a-z 0-9 _ . : - *.`,
  examples: ['user.*'],
})
const DestinationInput = checkedInHandler(Destination, {
  description: `Where matching events go; \`type\` (one of ${DESTINATION_TYPES.join(', ')}) selects the other fields. Stored encrypted; only a redacted view is ever returned.`,
  examples: [{ type: 'webhook', url: 'https://example.com/hooks/herald' }],
})
const TemplateInput = checkedInHandler(Type.Union([Template, Type.Null()]), {
  description: 'Mustache templates of the title and body (`{{message}}`, `{{event}}`, `{{data.plan}}`…). Omitted or null: the default rendering.',
  examples: [{ title: 'New signup', body: '{{data.email}} joined on {{data.plan}}' }],
})
const Enabled = Type.Boolean({ description: 'A disabled router matches nothing.' })

export const CreateRouterBody = Type.Object(
  { name: RouterName, pattern: Pattern, destination: DestinationInput, template: Type.Optional(TemplateInput), enabled: Type.Optional({ ...Enabled, description: 'Default true. A disabled router matches nothing.' }) },
  { $id: 'CreateRouterBody', additionalProperties: false },
)

export const UpdateRouterBody = Type.Object(
  {
    name: Type.Optional(RouterName),
    pattern: Type.Optional(Pattern),
    destination: Type.Optional(checkedInHandler(Destination, { description: 'Replaces the whole destination (all its secrets included); the signing secret is kept.' })),
    template: Type.Optional(checkedInHandler(Type.Union([Template, Type.Null()]), { description: 'Replaces the template; null clears it.' })),
    enabled: Type.Optional(Enabled),
  },
  { $id: 'UpdateRouterBody', additionalProperties: false, minProperties: 1, error: 'the body must be an object naming at least one of name, pattern, destination, template, enabled' },
)

export const CreatedRouter = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Router id (UUIDv7).' }),
  secret: Type.String({
    description: 'The signing secret (Standard Webhooks, `whsec_…`) with which webhook deliveries are signed. Shown only this once.',
    examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  }),
}, { $id: 'CreatedRouter' })

export const RouterSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  pattern: Type.String(),
  destination: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The destination without its secrets: its type, the origin of a URL, header names, recipients.',
    examples: [{ type: 'webhook', url: 'https://example.com/…' }],
  }),
  template: Type.Union([Template, Type.Null()]),
  enabled: Type.Boolean(),
  health: Type.Union([Type.Object({
    state: Type.Union([Type.Literal('circuit-open'), Type.Literal('failing'), Type.Literal('disabled')], {
      description: '`circuit-open`: its destination failed and its deliveries are held, with a trial send now and then; `failing`: so for `ROUTER_FAILING_AFTER_MS` or more (its owners and admins were e-mailed); `disabled`: so for `ROUTER_DISABLE_AFTER_MS`, and Herald disabled it.',
    }),
    since: Type.String({ format: 'date-time', description: 'When its destination began to fail (no success since).' }),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'The last failed attempt\'s error.' }),
    lastFailureAt: Type.String({ format: 'date-time' }),
    openUntil: Type.String({ format: 'date-time', description: 'No delivery goes to it before then, but one trial.' }),
  }), Type.Null()], { description: 'Null while its destination takes deliveries. Cleared by a success, a new destination, or enabling it again.' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}, { $id: 'Router' })

// --- validation ------------------------------------------------------------

const fieldError = (pointer: string, message: string): FieldError => ({ pointer, detail: `${pointer.slice(1).replaceAll('/', '.')}: ${message}` })

/** The schema's own `error` text, else the rule in words (src/http/words.ts): never a regular expression. */
function errorMessage(e: ValueError): string {
  if (typeof e.schema.error === 'string') return e.schema.error
  const kinds = (e.schema.anyOf as { type?: string }[] | undefined)?.map((s) => s.type).filter(Boolean)
  if (kinds?.length) return `must be ${kinds.join(' or ')}`
  if (typeof e.value === 'string' && e.schema.format === 'uri') return 'must be an http:// or https:// URL'
  return inWords(e)
}

/** TypeBox's errors under `at`, one per field. */
function schemaErrors(schema: TSchema, value: unknown, at: string): FieldError[] {
  const seen = new Map<string, FieldError>()
  for (const e of Value.Errors(schema, value) as Iterable<ValueError>) {
    const pointer = at + e.path
    if (!seen.has(pointer)) seen.set(pointer, fieldError(pointer, errorMessage(e)))
  }
  return [...seen.values()]
}

/** Errors of a destination, checked against the schema of its own `type`. */
export function destinationErrors(value: unknown): FieldError[] {
  const types = DESTINATION_TYPES.join(', ')
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [fieldError('/destination', `Expected an object whose type is one of ${types}`)]
  const type = (value as { type?: unknown }).type
  if (type === undefined) return [fieldError('/destination/type', `Expected required property: one of ${types}`)]
  const schema = destinationType(type)?.schema
  if (!schema) return [fieldError('/destination/type', `Expected one of ${types}, got ${JSON.stringify(type)}`)]
  return schemaErrors(schema, value, '/destination')
}

/** Errors of a template: its shape, then each part's Mustache syntax. */
export function templateErrors(value: unknown): FieldError[] {
  const errors = schemaErrors(Template, value, '/template')
  if (errors.length) return errors
  for (const part of ['title', 'body'] as const) {
    const source = (value as Template)[part]
    const reason = source === undefined ? null : validateTemplate(source)
    if (reason) errors.push(fieldError(`/template/${part}`, `not a valid template: ${reason}`))
  }
  return errors
}

// Names are printed in CLI tables and logs: a line break would garble both.
const CONTROL = /[\u0000-\u001f\u007f]/

/** Checks what the body schema leaves to the handler; throws one 400 naming every field at fault. */
export function checkRouterFields(body: { name?: string; pattern?: string; destination?: unknown; template?: unknown }, create: boolean, outboundAllow: readonly string[] = []) {
  const errors: FieldError[] = []
  if (body.name !== undefined && CONTROL.test(body.name)) errors.push(fieldError('/name', 'Expected no control characters'))
  const patternReason = body.pattern === undefined ? null : validatePattern(body.pattern)
  if (patternReason) errors.push({ pointer: '/pattern', detail: patternReason })
  if (create || body.destination !== undefined) errors.push(...destinationErrors(body.destination))
  // A URL at an address the outbound rules refuse would fail every delivery: refused now, naming the setting.
  const url = (body.destination as { url?: unknown } | undefined)?.url
  const unreachable = typeof url === 'string' && !errors.length ? urlRefusal(url, outboundAllow) : null
  if (unreachable) errors.push({ pointer: '/destination/url', detail: `destination.url: ${unreachable}` })
  if (body.template !== undefined && body.template !== null) errors.push(...templateErrors(body.template))
  if (errors.length) throw validationError(errors.slice(0, 20))
}

// --- routes ----------------------------------------------------------------

export const SettleBody = Type.Object({
  state: Type.Union([Type.Literal('failed'), Type.Literal('cancelled')], {
    description: '`failed`: as if their retries had run out (a bulk replay sends them again); `cancelled`: dropped on purpose, never replayed in bulk.',
  }),
}, { $id: 'SettleRouterDeliveriesBody', additionalProperties: false })
export const Settled = Type.Object({ settled: Type.Integer({ description: 'Pending deliveries ended; 0 when none was pending.' }) }, { $id: 'SettledRouterDeliveries' })


const Params = WorkspaceParams
const RouterParams = Type.Object({ workspace: WorkspaceParam, id: Uuid('id', 'Router id, from the list.') })

export interface RoutersPluginOptions {
  name: string // the Elysia plugin's name
  prefix: string // ends in /:workspace/routers
  tag: string
  security: Record<string, string[]>[]
  /** What every route may answer (the guard's, the workspace's, the database's), and what those that change a router may answer besides. */
  problems: { all: Responses; changing: Responses }
  /** The workspace id of the request's `workspace`, for reading or for changing; throws 401/403/404. */
  resolve(request: Request, workspace: string, need: 'read' | 'manage'): Promise<number>
  routersChanged(workspaceId: number): void
  /** Most routers a workspace may have (HERALD_MAX_ROUTERS_PER_WORKSPACE). */
  maxRouters: number
  /** HERALD_OUTBOUND_ALLOW, parsed: a destination at an address it does not allow is refused at creation. */
  outboundAllow: readonly string[]
}

/** The router routes, for the operator API and for signed-in people alike. */
export function routersPlugin(sql: Sql, box: SecretBox, o: RoutersPluginOptions) {
  const detail = (summary: string, description: string | undefined, responses: Responses, changing = false) => ({
    summary,
    description,
    tags: [o.tag],
    security: o.security,
    responses: { ...o.problems.all, ...(changing ? o.problems.changing : {}), ...responses },
  })
  const noRouter = problem(404, 'No such workspace, or no router of this id in it.')
  const taken = problem(409, 'A router of this name exists in the workspace, or it has HERALD_MAX_ROUTERS_PER_WORKSPACE routers.')
  const routerNotFound = (id: string, workspace: string) => new HeraldError('not-found', `There is no router ${JSON.stringify(id)} in workspace ${JSON.stringify(workspace)}.`)
  const nameTaken = (name: string) => new HeraldError('conflict', `A router named ${JSON.stringify(name)} already exists in this workspace.`)

  return new Elysia({ name: o.name, prefix: o.prefix })
    .post(
      '',
      async ({ params, body, set, request }) => {
        const ws = await o.resolve(request, params.workspace, 'manage')
        checkRouterFields(body, true, o.outboundAllow)
        const created = await insertRouter(sql, box, ws, {
          name: body.name,
          pattern: body.pattern,
          destination: body.destination as Destination,
          template: (body.template as Template | null | undefined) ?? null,
          enabled: body.enabled ?? true,
        }, o.maxRouters)
        if (created === 'name-taken') throw nameTaken(body.name)
        if (created === 'limit') throw new HeraldError('limit-reached', `This workspace has reached its limit of ${o.maxRouters} routers (HERALD_MAX_ROUTERS_PER_WORKSPACE); delete one, or have the operator raise the limit.`)
        o.routersChanged(ws)
        set.status = 201
        return { id: created.id, secret: created.secret }
      },
      {
        params: Params,
        body: CreateRouterBody,
        response: { 201: CreatedRouter },
        detail: detail(
          'Create a router',
          'Forwards the events whose `event` key matches `pattern` to `destination`. The answer holds the signing secret, shown only this once. 409 when the name is taken, or when the workspace has HERALD_MAX_ROUTERS_PER_WORKSPACE routers.',
          { ...problems(...BODY_PROBLEMS), 409: taken },
          true,
        ),
      },
    )
    .get('', async ({ params, request }) => listRouters(sql, await o.resolve(request, params.workspace, 'read')), {
      params: Params,
      response: { 200: Type.Array(RouterSchema) },
      detail: detail("List a workspace's routers, oldest first, without their secrets", 'Destinations are shown redacted: their type, the origin of a URL, header names, recipients.', problems(400)),
    })
    .get(
      '/:id',
      async ({ params, request }) => {
        const router = await getRouter(sql, await o.resolve(request, params.workspace, 'read'), params.id)
        if (!router) throw routerNotFound(params.id, params.workspace)
        return router
      },
      { params: RouterParams, response: { 200: RouterSchema }, detail: detail('Read a router, without its secrets', 'Its destination redacted, as in the list.', { ...problems(400), 404: noRouter }) },
    )
    .patch(
      '/:id',
      async ({ params, body, request }) => {
        const ws = await o.resolve(request, params.workspace, 'manage')
        checkRouterFields(body, false, o.outboundAllow)
        const result = await updateRouter(sql, box, ws, params.id, body as RouterPatch)
        if (result === 'not-found') throw routerNotFound(params.id, params.workspace)
        if (result === 'name-taken') throw nameTaken(body.name!)
        o.routersChanged(ws)
        return result
      },
      {
        params: RouterParams,
        body: UpdateRouterBody,
        response: { 200: RouterSchema },
        detail: detail('Change a router', 'Absent fields are kept. Takes effect for the events that arrive after the answer.', { ...problems(...BODY_PROBLEMS), 404: noRouter, 409: problem(409, 'A router of this name exists in the workspace.') }, true),
      },
    )
    .delete(
      '/:id',
      async ({ params, set, request }) => {
        const ws = await o.resolve(request, params.workspace, 'manage')
        if (!(await deleteRouter(sql, ws, params.id))) throw routerNotFound(params.id, params.workspace)
        o.routersChanged(ws)
        set.status = 204
      },
      { params: RouterParams, detail: detail('Delete a router', 'Its past deliveries stay readable on their events.', { 204: done('Deleted.'), ...problems(400), 404: noRouter }, true) },
    )
    .post(
      '/:id/deliveries/settle',
      async ({ params, body, request }) => {
        const ws = await o.resolve(request, params.workspace, 'manage')
        if (!(await getRouter(sql, ws, params.id))) throw routerNotFound(params.id, params.workspace)
        return { settled: await settleRouterDeliveries(sql, ws, params.id, body.state, `${body.state} by an owner`) }
      },
      {
        params: RouterParams,
        body: SettleBody,
        response: { 200: Settled },
        detail: detail(
          "Fail or cancel a router's pending deliveries",
          'Every delivery of the router still pending (retrying, or held while its destination fails) ends at once, `failed` or `cancelled`. A retry under way records its attempt but leaves the delivery as set here.',
          { ...problems(...BODY_PROBLEMS), 404: noRouter },
          true,
        ),
      },
    )
}

export const adminRoutersRoute = (sql: Sql, box: SecretBox, routersChanged: (workspaceId: number) => void, maxRouters: number, outboundAllow: readonly string[]) =>
  routersPlugin(sql, box, {
    name: 'route.admin.routers',
    prefix: '/admin/workspaces/:workspace/routers',
    tag: 'Operator',
    security: [{ adminToken: [] }],
    problems: { all: OPERATOR_PROBLEMS, changing: {} },
    resolve: (_request, workspace) => workspaceIdOf(sql)(workspace),
    routersChanged,
    maxRouters,
    outboundAllow,
  })
