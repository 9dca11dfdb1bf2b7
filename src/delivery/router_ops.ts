// What a person or the operator can do with a workspace's routers: list and
// read them (secrets never come back out), create one (within
// HERALD_MAX_ROUTERS_PER_WORKSPACE), change or delete it, settle its pending
// deliveries; and, for the dashboard's router form, preview what a
// destination would receive and send a test event through a router. Each
// operation checks the actor's right, validates (router_input.ts), throws its
// named error and announces its own change (src/core/operation.ts). The
// queries are in routers.ts and health.ts.
import type { Ctx } from '../core/operation'
import { requireRight } from '../core/operation'
import type { SecretBox } from '../core/secrets'
import { routerLimit, routerNameTaken, routerNotFound, templateTooLarge, unknownDestinationType } from '../core/errors'
import { NOTIFY_DEFAULTS, type EventView } from './event_view'
import type { SendConfig } from './job'
import { checkRouterFields, templateErrors } from './router_input'
import { deleteRouter, getRouter, insertRouter, listRouters, loadRouter, updateRouter, type RouterPatch, type RouterView } from './routers'
import { settleRouterDeliveries } from './health'
import { deliver, destinationType, DESTINATION_TYPES, previewPayload, type Destination } from './destinations'
import { TemplateLimitError, type Template } from './template'
import { validationError } from '../core/problems'

/** What router operations use besides the context: the box destinations are sealed in, what every send shares (its outbound rules and endpoints, made at boot by send_config.ts), and the sender of e-mail. */
export interface RouterTools {
  box: SecretBox
  send: Pick<SendConfig, 'outbound' | 'endpoints'>
  smtpFrom: string
}

/** A router's fields as a body gives them; the destination and template are checked here, not by the body's schema. */
export interface RouterFields {
  name?: string
  pattern?: string
  destination?: unknown
  template?: unknown
  enabled?: boolean
  minPriority?: number
  receipts?: boolean
  throttle?: unknown
  digest?: unknown
}

const changed = (ctx: Ctx) => ctx.announce({ kind: 'routers', workspaceId: ctx.workspace.id })

/** The workspace's routers, oldest first, their destinations redacted. */
export function listRoutersOf(ctx: Ctx): Promise<RouterView[]> {
  requireRight(ctx, 'read')
  return listRouters(ctx.sql, ctx.workspace.id)
}

/** One router, its destination redacted; 404 when the workspace has none of this id. */
export async function readRouter(ctx: Ctx, id: string): Promise<RouterView> {
  requireRight(ctx, 'read')
  const router = await getRouter(ctx.sql, ctx.workspace.id, id)
  if (!router) throw routerNotFound(id, ctx.workspace.name)
  return router
}

/** Creates a router; answers its id and its signing secret (shown only this once). 409 when the name is taken or the workspace has its most routers. */
export async function createRouter(ctx: Ctx, tools: RouterTools, body: RouterFields & { name: string; pattern: string }): Promise<{ id: string; secret: string }> {
  requireRight(ctx, 'manage')
  const windows = checkRouterFields(body, true, tools.send.outbound.allow)
  const max = ctx.limits.HERALD_MAX_ROUTERS_PER_WORKSPACE
  const created = await insertRouter(ctx.sql, tools.box, ctx.workspace.id, {
    name: body.name,
    pattern: body.pattern,
    destination: body.destination as Destination,
    template: (body.template as Template | null | undefined) ?? null,
    enabled: body.enabled ?? true,
    minPriority: body.minPriority ?? 1,
    receipts: body.receipts ?? false,
    throttle: windows.throttle ?? null,
    digest: windows.digest ?? null,
  }, max)
  if (created === 'name-taken') throw routerNameTaken(body.name)
  if (created === 'limit') throw routerLimit(max)
  changed(ctx)
  return { id: created.id, secret: created.secret }
}

/** Changes a router's given fields (a new destination keeps the signing secret); answers it as it now is. */
export async function changeRouter(ctx: Ctx, tools: RouterTools, id: string, body: RouterFields): Promise<RouterView> {
  requireRight(ctx, 'manage')
  const windows = checkRouterFields(body, false, tools.send.outbound.allow)
  const result = await updateRouter(ctx.sql, tools.box, ctx.workspace.id, id, { ...body, ...windows } as RouterPatch)
  if (result === 'not-found') throw routerNotFound(id, ctx.workspace.name)
  if (result === 'both-windows') throw validationError([{ pointer: body.digest ? '/digest' : '/throttle', detail: `${body.digest ? 'digest' : 'throttle'}: a router has a throttle or a digest, not both; set ${body.digest ? 'throttle' : 'digest'} to null in the same request` }])
  if (result === 'name-taken') throw routerNameTaken(body.name!)
  changed(ctx)
  return result
}

/** Deletes a router; its past deliveries stay. */
export async function removeRouter(ctx: Ctx, id: string): Promise<void> {
  requireRight(ctx, 'manage')
  if (!(await deleteRouter(ctx.sql, ctx.workspace.id, id))) throw routerNotFound(id, ctx.workspace.name)
  changed(ctx)
}

/** Ends every pending delivery of a router, `failed` or `cancelled`; answers how many. */
export async function settleRouterPending(ctx: Ctx, id: string, state: 'failed' | 'cancelled'): Promise<number> {
  requireRight(ctx, 'manage')
  if (!(await getRouter(ctx.sql, ctx.workspace.id, id))) throw routerNotFound(id, ctx.workspace.name)
  return settleRouterDeliveries(ctx.sql, ctx.workspace.id, id, state, `${state} by an owner`)
}

/** The event a preview or a test send uses; `over` lets a form try its own values. */
export function sampleEvent(workspace: string, channel: string, over: Partial<EventView> = {}): EventView {
  return {
    eventId: Bun.randomUUIDv7(),
    workspace,
    channel,
    event: 'user.signup',
    title: 'New signup',
    message: 'Jane Doe signed up for the Pro plan',
    link: 'https://example.com/users/42',
    tags: ['signup', 'pro'],
    data: { plan: 'pro', seats: 5, user: { name: 'Jane Doe', email: 'jane@example.com' } },
    createdAt: new Date().toISOString(),
    ...NOTIFY_DEFAULTS,
    ...over,
  }
}

/** For a test send: an event key the pattern matches (`user.*` → `user.test`). */
const keyFor = (pattern: string) => (pattern === '*' ? 'herald.test' : pattern.replaceAll('*', 'test'))

/** What a destination (perhaps half filled in: its type's stand-ins fill the gaps) would receive for a sample event, with the template; nothing is sent. */
export function previewRouter(ctx: Ctx, tools: RouterTools, body: { destination: { type: string }; template?: unknown; sample?: object }) {
  requireRight(ctx, 'read')
  const type = destinationType(body.destination.type)
  if (!type) throw unknownDestinationType(DESTINATION_TYPES)
  if (body.template) {
    const errors = templateErrors(body.template)
    if (errors.length) throw validationError(errors)
  }
  const destination = { ...type.previewDefaults, ...body.destination } as Destination
  const event = sampleEvent(ctx.workspace.name, ctx.workspace.defaultChannel, (body.sample ?? {}) as Partial<EventView>)
  try {
    return { event, ...previewPayload(destination, (body.template ?? undefined) as Template | undefined, event, tools.smtpFrom) }
  } catch (err) {
    if (err instanceof TemplateLimitError) throw templateTooLarge(err.message)
    throw err
  }
}

/** Sends one sample event through a router now, enabled or not, and answers what came back; it is not recorded as a delivery. */
export async function testRouter(ctx: Ctx, tools: RouterTools, id: string) {
  requireRight(ctx, 'manage')
  const router = await loadRouter(ctx.sql, tools.box, ctx.workspace.id, id)
  if (!router) throw routerNotFound(id, ctx.workspace.name)
  const event = sampleEvent(ctx.workspace.name, ctx.workspace.defaultChannel, { event: keyFor(router.pattern), title: 'Test event from Herald', message: `A test of the router ${router.name}, sent from the dashboard.` })
  const result = await deliver({
    deliveryId: Bun.randomUUIDv7(),
    attempt: 1,
    event,
    router: { id: router.id, name: router.name, destination: router.destination, signingSecret: router.signingSecret, ...(router.template ? { template: router.template } : {}) },
    outbound: tools.send.outbound,
    endpoints: tools.send.endpoints,
  })
  return { ok: result.ok, status: result.status ?? null, durationMs: result.durationMs, response: result.response ?? null, error: result.error ?? null, event }
}
