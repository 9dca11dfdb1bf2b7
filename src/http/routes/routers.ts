// A workspace's routers, for signed-in people: the same routes as the
// operator API (owners and admins change, members read), plus a test send
// and a template preview for the dashboard's router form.
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import type { Config } from '../../core/config'
import type { SecretBox } from '../../core/secrets'
import type { AccessCheck } from '../../accounts/access'
import type { EventView } from '../../delivery/event_view'
import type { SendConfig } from '../../delivery/job'
import { userSecurity } from '../../accounts/session'
import { HeraldError, validationError } from '../../core/problems'
import { routersPlugin, templateErrors } from './admin_routers'
import { loadRouter } from '../../delivery/routers'
import { deliver, destinationType, DESTINATION_TYPES, previewPayload, type Destination } from '../../delivery/destinations'
import { TemplateLimitError, type Template } from '../../delivery/template'
import type { UserAuth } from '../../accounts/session'
import { routeGroup } from './group'
import { Uuid, WorkspaceParam, WorkspaceParams } from './input'
import { BODY_PROBLEMS, problem, problems, type Responses } from '../openapi'

const RouterParams = Type.Object({ workspace: WorkspaceParam, id: Uuid('id', 'Router id, from the list.') })
// Templates (16 KiB of body, 1 KiB of title), a destination and a sample event's data.
export const ROUTER_BODY_LIMIT = 64 * 1024
const detail = (summary: string, description: string, responses: Responses) => ({ summary, description, tags: ['Routers'], security: userSecurity, responses })
// What every router route may answer; one that changes something, also a 403 (a role, or a web session's CSRF token).
const ALL = { ...problems(401, 503), 404: problem(404, 'No such workspace (of mine), or no such router in it.') }

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
    ...over,
  }
}

/** For a test send: an event key the pattern matches (`user.*` → `user.test`). */
const keyFor = (pattern: string) => (pattern === '*' ? 'herald.test' : pattern.replaceAll('*', 'test'))

/** `send`: the send configuration made at boot (src/delivery/send_config.ts), whose outbound rules and endpoints the test send uses. */
export const userRoutersRoute = (sql: Sql, users: UserAuth, box: SecretBox, config: Config, send: Pick<SendConfig, 'outbound' | 'endpoints'>, check: AccessCheck, routersChanged: (workspaceId: number) => void) =>
  routeGroup({ name: 'route.routers', guard: users.authenticate, bodyLimit: ROUTER_BODY_LIMIT })
    .use(
      routersPlugin(sql, box, {
        name: 'route.routers.crud',
        prefix: '/v1/workspaces/:workspace/routers',
        tag: 'Routers',
        security: userSecurity,
        problems: { all: ALL, changing: problems(403) },
        resolve: async (request, workspace, need) => (await check(request, workspace, need)).access.workspaceId,
        routersChanged,
        maxRouters: config.HERALD_MAX_ROUTERS_PER_WORKSPACE,
        outboundAllow: send.outbound.allow,
      }),
    )
    .post(
      '/v1/workspaces/:workspace/routers/preview',
      async ({ request, params, body }) => {
        const { access } = await check(request, params.workspace)
        // A half-filled form lacks fields: the type's stand-ins fill them in.
        const type = destinationType(body.destination.type)
        if (!type) throw validationError([{ pointer: '/destination/type', detail: `destination.type: Expected one of ${DESTINATION_TYPES.join(', ')}` }])
        if (body.template) {
          const errors = templateErrors(body.template)
          if (errors.length) throw validationError(errors)
        }
        const destination = { ...type.previewDefaults, ...body.destination } as Destination
        const event = sampleEvent(access.workspace, access.defaultChannel, (body.sample ?? {}) as Partial<EventView>)
        try {
          return { event, ...previewPayload(destination, (body.template ?? undefined) as Template | undefined, event, config.SMTP_FROM) }
        } catch (err) {
          if (err instanceof TemplateLimitError) throw validationError([{ pointer: '/template', detail: `template: ${err.message}` }])
          throw err
        }
      },
      {
        params: WorkspaceParams,
        body: Type.Object({
          destination: Type.Object({ type: Type.String({ description: `One of ${DESTINATION_TYPES.join(', ')}.` }) }, { additionalProperties: true }),
          template: Type.Optional(Type.Union([Type.Object({ title: Type.Optional(Type.String()), body: Type.Optional(Type.String()) }, { additionalProperties: false }), Type.Null()])),
          sample: Type.Optional(Type.Object({
            event: Type.Optional(Type.String()), title: Type.Optional(Type.String()), message: Type.Optional(Type.String()),
            link: Type.Optional(Type.String()), tags: Type.Optional(Type.Array(Type.String())), data: Type.Optional(Type.Object({}, { additionalProperties: true })),
          }, { additionalProperties: false, description: 'Fields of the sample event to replace.' })),
        }, { $id: 'RouterPreviewBody', additionalProperties: false }),
        response: { 200: Type.Object({ event: Type.Any(), contentType: Type.String(), body: Type.String() }, { $id: 'RouterPreview' }) },
        detail: detail('Preview what a destination would receive', 'Renders the destination\'s payload, with the template, for a sample event; nothing is sent.', { ...ALL, ...problems(...BODY_PROBLEMS, 403) }),
      },
    )
    .post(
      '/v1/workspaces/:workspace/routers/:id/test',
      async ({ request, params }) => {
        const { access } = await check(request, params.workspace, 'manage')
        const router = await loadRouter(sql, box, access.workspaceId, params.id)
        if (!router) throw new HeraldError('not-found', `There is no router ${JSON.stringify(params.id)} in workspace ${JSON.stringify(params.workspace)}.`)
        const event = sampleEvent(access.workspace, access.defaultChannel, { event: keyFor(router.pattern), title: 'Test event from Herald', message: `A test of the router ${router.name}, sent from the dashboard.` })
        const result = await deliver({
          deliveryId: Bun.randomUUIDv7(),
          attempt: 1,
          event,
          router: { id: router.id, name: router.name, destination: router.destination, signingSecret: router.signingSecret, ...(router.template ? { template: router.template } : {}) },
          outbound: send.outbound,
          endpoints: send.endpoints,
        })
        return { ok: result.ok, status: result.status ?? null, durationMs: result.durationMs, response: result.response ?? null, error: result.error ?? null, event }
      },
      {
        params: RouterParams,
        response: {
          200: Type.Object({
            ok: Type.Boolean(), status: Type.Union([Type.Integer(), Type.Null()]), durationMs: Type.Number(),
            response: Type.Union([Type.String(), Type.Null()]), error: Type.Union([Type.String(), Type.Null()]), event: Type.Any(),
          }, { $id: 'RouterTestResult' }),
        },
        detail: detail('Send a test event through a router', 'Sends one sample event to the router\'s destination now (enabled or not), and answers what came back. It is not recorded as a delivery. Owners and admins.', { ...ALL, ...problems(400, 403) }),
      },
    )
