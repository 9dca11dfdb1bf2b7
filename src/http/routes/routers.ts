// A workspace's routers, on both APIs (src/http/routes/side.ts): create,
// list, read, change and delete them, and settle their pending deliveries
// (owners and admins change, members read). A person's dashboard also
// previews a destination's payload and sends a test event through a router:
// those two are the user API's alone. The body schemas show the Destination
// union in the OpenAPI document but leave its check to the operation
// (src/delivery/router_input.ts), whose errors name fields. Secrets (URLs,
// tokens, passwords, the signing secret) go in once and never come back out.
import { Type, type TSchema } from '@sinclair/typebox'
import { PATTERN_MAX_LENGTH } from '../../delivery/pattern'
import { Template } from '../../delivery/template'
import { DigestInput, DigestView, ThrottleInput, ThrottleView } from '../../delivery/router_windows'
import { Destination, DESTINATION_TYPES } from '../../delivery/destinations'
import { changeRouter, createRouter, listRoutersOf, previewRouter, readRouter, removeRouter, settleRouterPending, testRouter, type RouterTools } from '../../delivery/router_ops'
import type { Side } from './side'
import { Uuid, WorkspaceParam, WorkspaceParams } from './input'
import { BODY_PROBLEMS, done, problem, problems } from '../openapi'

/**
 * Shows the union `schema` in the OpenAPI document but lets any value through
 * Elysia's validation, so that the operation can answer with errors that name
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
const MinPriority = Type.Integer({
  minimum: 1, maximum: 5,
  description: 'Forwards only events whose `priority` is at or above it (1 min, 2 low, 3 default, 4 high, 5 urgent; an event without one is 3). Default 1: every event.',
  examples: [4],
  error: 'minPriority must be an integer from 1 to 5',
})

// Shape only: the durations' bounds and the key templates are checked by the operation (router_windows.ts), naming the field.
const ThrottleField = checkedInHandler(Type.Union([ThrottleInput, Type.Null()]), { description: ThrottleInput.description })
const DigestField = checkedInHandler(Type.Union([DigestInput, Type.Null()]), { description: DigestInput.description })

const Receipts = Type.Boolean({ description: 'Also send this router a delivery when a receipt of an event it forwarded ends: webhooks get `{"type": "receipt.acknowledged"|"receipt.expired"|"receipt.cancelled", "timestamp", "data": <the receipt>}`, chat destinations one line. Default false.' })

export const CreateRouterBody = Type.Object(
  { name: RouterName, pattern: Pattern, destination: DestinationInput, template: Type.Optional(TemplateInput), enabled: Type.Optional({ ...Enabled, description: 'Default true. A disabled router matches nothing.' }), minPriority: Type.Optional(MinPriority), receipts: Type.Optional(Receipts), throttle: Type.Optional(ThrottleField), digest: Type.Optional(DigestField) },
  { $id: 'CreateRouterBody', additionalProperties: false },
)

export const UpdateRouterBody = Type.Object(
  {
    name: Type.Optional(RouterName),
    pattern: Type.Optional(Pattern),
    destination: Type.Optional(checkedInHandler(Destination, { description: 'Replaces the whole destination (all its secrets included); the signing secret is kept.' })),
    template: Type.Optional(checkedInHandler(Type.Union([Template, Type.Null()]), { description: 'Replaces the template; null clears it.' })),
    enabled: Type.Optional(Enabled),
    minPriority: Type.Optional(MinPriority),
    receipts: Type.Optional(Receipts),
    throttle: Type.Optional(ThrottleField),
    digest: Type.Optional(DigestField),
  },
  { $id: 'UpdateRouterBody', additionalProperties: false, minProperties: 1, error: 'the body must be an object naming at least one of name, pattern, destination, template, enabled, minPriority, receipts, throttle, digest' },
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
  minPriority: Type.Integer({ minimum: 1, maximum: 5, description: 'Only events at or above this priority are forwarded; 1: every event.' }),
  receipts: Type.Boolean({ description: 'Whether it gets a delivery when a receipt of an event it forwarded ends.' }),
  throttle: Type.Union([ThrottleView, Type.Null()], { description: 'At most `limit` deliveries per `per` seconds and rendered `key`; the rest end `throttled`. Null: none.' }),
  digest: Type.Union([DigestView, Type.Null()], { description: 'Matching events gathered per rendered `key` for `window` seconds (or until `max`) and sent as one delivery. Null: none.' }),
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

export const SettleBody = Type.Object({
  state: Type.Union([Type.Literal('failed'), Type.Literal('cancelled')], {
    description: '`failed`: as if their retries had run out (a bulk replay sends them again); `cancelled`: dropped on purpose, never replayed in bulk.',
  }),
}, { $id: 'SettleRouterDeliveriesBody', additionalProperties: false })
export const Settled = Type.Object({ settled: Type.Integer({ description: 'Pending deliveries ended; 0 when none was pending.' }) }, { $id: 'SettledRouterDeliveries' })

const RouterParams = Type.Object({ workspace: WorkspaceParam, id: Uuid('id', 'Router id, from the list.') })
// Templates (16 KiB of body, 1 KiB of title), a destination and a sample event's data.
export const ROUTER_BODY_LIMIT = 64 * 1024

export function routersRoute({ side, ...tools }: { side: Side } & RouterTools) {
  const person = side.kind === 'person'
  const detail = side.documents({ tag: 'Routers', common: { ...problems(401, 503), 404: problem(404, 'No such workspace (of mine), or no such router in it.') } })
  // What a person's change may also answer: a role too low, or a web session's CSRF token missing.
  const changing = side.says({ person: problems(403), operator: {} })
  const noRouter = problem(404, 'No such workspace, or no router of this id in it.')
  const routes = side.group({ name: 'route.routers', prefix: `${side.root}/routers`, bodyLimit: ROUTER_BODY_LIMIT })
    .post(
      '',
      async ({ request, params, body, set }) => {
        const created = await createRouter(await side.ctx(request, params.workspace), tools, body)
        set.status = 201
        return created
      },
      {
        params: WorkspaceParams,
        body: CreateRouterBody,
        response: { 201: CreatedRouter },
        detail: detail(
          'Create a router',
          'Forwards the events whose `event` key matches `pattern` to `destination`. The answer holds the signing secret, shown only this once. 409 when the name is taken, or when the workspace has HERALD_MAX_ROUTERS_PER_WORKSPACE routers.',
          { ...changing, ...problems(...BODY_PROBLEMS), 409: problem(409, 'A router of this name exists in the workspace, or it has HERALD_MAX_ROUTERS_PER_WORKSPACE routers.') },
        ),
      },
    )
    .get('', async ({ request, params }) => listRoutersOf(await side.ctx(request, params.workspace)), {
      params: WorkspaceParams,
      response: { 200: Type.Array(RouterSchema) },
      detail: detail("List a workspace's routers, oldest first, without their secrets", 'Destinations are shown redacted: their type, the origin of a URL, header names, recipients.', problems(400)),
    })
    .get('/:id', async ({ request, params }) => readRouter(await side.ctx(request, params.workspace), params.id), {
      params: RouterParams,
      response: { 200: RouterSchema },
      detail: detail('Read a router, without its secrets', 'Its destination redacted, as in the list.', { ...problems(400), 404: noRouter }),
    })
    .patch('/:id', async ({ request, params, body }) => changeRouter(await side.ctx(request, params.workspace), tools, params.id, body), {
      params: RouterParams,
      body: UpdateRouterBody,
      response: { 200: RouterSchema },
      detail: detail('Change a router', 'Absent fields are kept. Takes effect for the events that arrive after the answer.', { ...changing, ...problems(...BODY_PROBLEMS), 404: noRouter, 409: problem(409, 'A router of this name exists in the workspace.') }),
    })
    .delete(
      '/:id',
      async ({ request, params, set }) => {
        await removeRouter(await side.ctx(request, params.workspace), params.id)
        set.status = 204
      },
      { params: RouterParams, detail: detail('Delete a router', 'Its past deliveries stay readable on their events.', { ...changing, 204: done('Deleted.'), ...problems(400), 404: noRouter }) },
    )
    .post('/:id/deliveries/settle', async ({ request, params, body }) => ({ settled: await settleRouterPending(await side.ctx(request, params.workspace), params.id, body.state) }), {
      params: RouterParams,
      body: SettleBody,
      response: { 200: Settled },
      detail: detail(
        "Fail or cancel a router's pending deliveries",
        'Every delivery of the router still pending (retrying, or held while its destination fails) ends at once, `failed` or `cancelled`. A retry under way records its attempt but leaves the delivery as set here.',
        { ...changing, ...problems(...BODY_PROBLEMS), 404: noRouter },
      ),
    })
  if (!person) return routes
  return routes
    .post('/preview', async ({ request, params, body }) => previewRouter(await side.ctx(request, params.workspace), tools, body), {
      params: WorkspaceParams,
      body: Type.Object({
        destination: Type.Object({ type: Type.String({ description: `One of ${DESTINATION_TYPES.join(', ')}.` }) }, { additionalProperties: true }),
        template: Type.Optional(Type.Union([Type.Object({ title: Type.Optional(Type.String()), body: Type.Optional(Type.String()) }, { additionalProperties: false }), Type.Null()])),
        sample: Type.Optional(Type.Object({
          event: Type.Optional(Type.String()), title: Type.Optional(Type.String()), message: Type.Optional(Type.String()),
          link: Type.Optional(Type.String()), tags: Type.Optional(Type.Array(Type.String())), data: Type.Optional(Type.Object({}, { additionalProperties: true })),
          priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: 'The sample\'s priority: 4 and 5 show the chat markers and the e-mail headers.' })),
        }, { additionalProperties: false, description: 'Fields of the sample event to replace.' })),
      }, { $id: 'RouterPreviewBody', additionalProperties: false }),
      response: { 200: Type.Object({ event: Type.Any(), contentType: Type.String(), body: Type.String() }, { $id: 'RouterPreview' }) },
      detail: detail('Preview what a destination would receive', 'Renders the destination\'s payload, with the template, for a sample event; nothing is sent.', problems(...BODY_PROBLEMS, 403)),
    })
    .post('/:id/test', async ({ request, params }) => testRouter(await side.ctx(request, params.workspace), tools, params.id), {
      params: RouterParams,
      response: {
        200: Type.Object({
          ok: Type.Boolean(), status: Type.Union([Type.Integer(), Type.Null()]), durationMs: Type.Number(),
          response: Type.Union([Type.String(), Type.Null()]), error: Type.Union([Type.String(), Type.Null()]), event: Type.Any(),
        }, { $id: 'RouterTestResult' }),
      },
      detail: detail('Send a test event through a router', 'Sends one sample event to the router\'s destination now (enabled or not), and answers what came back. It is not recorded as a delivery. Owners and admins.', problems(400, 403)),
    })
}
