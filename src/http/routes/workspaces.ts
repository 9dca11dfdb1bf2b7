// Workspaces, on both APIs (src/http/routes/side.ts). Both create one, list
// workspaces and read one: the operator any workspace of this Herald, with
// its limits and a first API key; a person the ones they own or belong to,
// with their role. The operator alone changes a workspace's limits; a person
// also reads its daily usage (what the dashboard charts).
import { Elysia } from 'elysia'
import { Type, type TSchema } from '@sinclair/typebox'
import { SLUG } from '../../ingest/event'
import { createWorkspace, listWorkspacesOf, readWorkspace, renameWorkspace, setWorkspaceLimits, workspaceUsage } from '../../accounts/workspace_ops'
import type { Side } from './side'
import { MyWorkspace } from './auth'
import { WorkspaceParams } from './input'
import { OPERATOR_OFF } from './admin_auth'
import { BODY_PROBLEMS, problem, problems, type Responses } from '../openapi'

// The largest values the columns hold exactly: a quota is a bigint read as a
// JavaScript number, a burst an integer; a rate of a billion a second is, in
// effect, no limit (what benchmarks use).
const MAX_QUOTA = Number.MAX_SAFE_INTEGER
const MAX_RATE = 1_000_000_000
const MAX_BURST = 2 ** 31 - 1

const RateLimit = Type.Object(
  {
    perSecond: Type.Number({ exclusiveMinimum: 0, maximum: MAX_RATE, description: 'Token refill rate, events per second.', error: `rateLimit.perSecond must be a number above 0 and at most ${MAX_RATE}`, examples: [100] }),
    burst: Type.Integer({ minimum: 1, maximum: MAX_BURST, description: 'Bucket size: the most events accepted at once.', error: `rateLimit.burst must be a whole number from 1 to ${MAX_BURST}`, examples: [200] }),
  },
  { $id: 'RateLimit', additionalProperties: false },
)
const MonthlyQuota = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_QUOTA, description, error: `monthlyQuota must be a whole number from 0 to ${MAX_QUOTA}`, examples: [10000] })

export const CreateWorkspaceBody = Type.Object(
  {
    name: Type.String({ maxLength: 64, description: 'Workspace name: a slug (lowercased; letters, digits, "-" and "_"; at most 64).', examples: ['acme'] }),
    monthlyQuota: Type.Optional(MonthlyQuota('Events accepted per calendar month (UTC).')),
    rateLimit: Type.Optional(Type.Partial(RateLimit)),
  },
  { $id: 'OperatorCreateWorkspaceBody', additionalProperties: false },
)

export const UpdateWorkspaceBody = Type.Object(
  {
    monthlyQuota: Type.Optional(MonthlyQuota('New monthly quota; usage this month is kept.')),
    rateLimit: Type.Optional(Type.Partial(RateLimit, { minProperties: 1, error: 'rateLimit must name perSecond, burst or both' })),
  },
  { $id: 'UpdateWorkspaceBody', additionalProperties: false, minProperties: 1, error: 'the body must be an object naming monthlyQuota, rateLimit or both' },
)

export const CreatedWorkspace = Type.Object({
  workspace: Type.String({ examples: ['acme'] }),
  defaultChannel: Type.String({ examples: ['general'] }),
  apiKey: Type.String({ description: 'The first API key. Shown once; only its hash is stored.' }),
}, { $id: 'CreatedWorkspace' })

export const WorkspaceSchema = Type.Object({
  workspace: Type.String(),
  defaultChannel: Type.String(),
  monthlyQuota: Type.Integer(),
  rateLimit: RateLimit,
  usage: Type.Object({ period: Type.String({ description: 'YYYY-MM (UTC)' }), used: Type.Integer(), remaining: Type.Integer() }),
  createdAt: Type.String({ format: 'date-time' }),
}, { $id: 'OperatorWorkspace' })

export const WorkspaceDetail = Type.Object({
  workspace: Type.String(),
  role: MyWorkspace.properties.role,
  defaultChannel: Type.String(),
  monthlyQuota: Type.Integer(),
  rateLimit: Type.Object({ perSecond: Type.Number(), burst: Type.Integer() }),
  usage: Type.Object({
    period: Type.String({ description: 'The month counted, YYYY-MM (UTC).' }),
    used: Type.Integer(),
    remaining: Type.Integer(),
    resetsAt: Type.String({ format: 'date-time', description: 'When the quota starts again: 00:00 UTC on the first of next month.' }),
  }),
  createdAt: Type.String({ format: 'date-time' }),
}, { $id: 'WorkspaceDetail' })

export const Usage = Type.Object({
  period: Type.String(),
  used: Type.Integer(),
  limit: Type.Integer(),
  remaining: Type.Integer(),
  resetsAt: Type.String({ format: 'date-time' }),
  days: Type.Array(Type.Object({ day: Type.String({ description: 'YYYY-MM-DD (UTC).' }), events: Type.Integer() }), { description: 'The last 30 days, oldest first, today included.' }),
}, { $id: 'Usage' })

type Group = Elysia<any, any, any, any, any, any, any>

export function workspacesRoute(side: Side) {
  const person = side.kind === 'person'
  // Each route names all it may answer: some name no workspace.
  const detail = side.documents({ tag: 'Workspaces', common: {} })
  // A workspace named in the path: not found unless I am a member of it.
  const ONE = problems(400, 401, 404, 503)
  const list = (g: Group) =>
    g.get(
      '',
      async ({ request }): Promise<object> => (await listWorkspacesOf(await side.accountCtx(request))).workspaces,
      ({
        response: side.says<Record<number, TSchema>>({ person: { 200: Type.Array(MyWorkspace) }, operator: { 200: Type.Array(WorkspaceSchema) } }),
        detail: side.says({
          person: detail('My workspaces, with my role in each', 'Every workspace I am a member of, with its default channel.', problems(401, 503)),
          operator: detail('List workspaces with their limits and usage', "Every workspace of this Herald, with this month's usage.", { 404: OPERATOR_OFF }),
        }),
      }) as {},
    )
  const create = (g: Group) =>
    g.post(
      '',
      async ({ request, body, set }): Promise<object> => {
        const created = await createWorkspace(await side.accountCtx(request), body)
        set.status = 201
        return person ? { workspace: created.workspace, role: 'owner' as const, defaultChannel: created.defaultChannel } : created
      },
      ({
        body: side.says<TSchema>({
          person: Type.Object({ name: Type.String({ maxLength: 64, pattern: SLUG.source, description: 'Lower-case slug, unique on this Herald.', examples: ['acme'] }) }, { $id: 'CreateWorkspaceBody', additionalProperties: false }),
          operator: CreateWorkspaceBody,
        }),
        response: side.says<Record<number, TSchema>>({ person: { 201: MyWorkspace }, operator: { 201: CreatedWorkspace } }),
        detail: side.says({
          person: detail('Create a workspace', 'With the default channel "general"; you are its owner. 409 when the name is taken, or when you own HERALD_MAX_WORKSPACES_PER_USER workspaces.', {
            ...problems(...BODY_PROBLEMS, 401, 403, 503),
            409: problem(409, 'The name is taken, or you own HERALD_MAX_WORKSPACES_PER_USER workspaces.'),
          }),
          operator: detail('Create a workspace with its default channel and a first API key', 'Limits left out are the HERALD_DEFAULT_* settings.', {
            ...problems(...BODY_PROBLEMS),
            404: OPERATOR_OFF,
            409: problem(409, 'A workspace of this name exists.'),
          }),
        }),
      }) as {}, // two sides' schemas: Elysia cannot type their union
    )
  const read = (g: Group) =>
    g.get(
      '/:workspace',
      async ({ request, params }): Promise<object> => {
        const ctx = await side.ctx(request, params.workspace)
        const ws = await readWorkspace(ctx)
        const usage = person ? { ...ws.usage, resetsAt: ws.resetsAt } : ws.usage
        const role = ctx.actor.kind === 'person' ? { role: ctx.actor.role } : {}
        return { workspace: ws.workspace, ...role, defaultChannel: ws.defaultChannel, monthlyQuota: ws.monthlyQuota, rateLimit: ws.rateLimit, usage, createdAt: ws.createdAt }
      },
      ({
        params: WorkspaceParams,
        response: side.says<Record<number, TSchema>>({ person: { 200: WorkspaceDetail }, operator: { 200: WorkspaceSchema } }),
        detail: side.says({
          person: detail("A workspace: its limits and this month's usage", 'With my role in it; every member may read it.', ONE),
          operator: detail('Read a workspace, its limits and usage', "Its monthly quota, rate limit and this month's usage.", problems(400)),
        }),
      }) as {},
    )
  // Each API lists its routes in its own order (the OpenAPI document keeps it).
  const group = side.group({ name: 'route.workspaces', prefix: side.says({ person: '/v1/workspaces', operator: '/admin/workspaces' }) }) as Group
  if (person) {
    return read(create(list(group)))
      .get(
        '/:workspace/usage',
        async ({ request, params }) => workspaceUsage(await side.ctx(request, params.workspace)),
        { params: WorkspaceParams, response: { 200: Usage }, detail: detail('Usage: this month against the quota, and events per day over the last 30 days', 'What the dashboard charts; every member may read it.', ONE) },
      )
      .patch(
        '/:workspace',
        async ({ request, params, body }) => {
          const ctx = await side.ctx(request, params.workspace)
          return { ...(await renameWorkspace(ctx, body.name)), role: 'owner' as const }
        },
        {
          params: WorkspaceParams,
          body: Type.Object({ name: Type.String({ maxLength: 64, pattern: SLUG.source, description: 'The new name: a lower-case slug, unique on this Herald.', examples: ['acme-prod'] }) }, { $id: 'RenameWorkspaceBody', additionalProperties: false }),
          response: { 200: MyWorkspace },
          detail: detail('Rename a workspace', 'Owners only. Its members, keys, channels, routers and events stay; dashboard links and API paths use the new name from now on, and the old name is free at once.', {
            ...problems(...BODY_PROBLEMS, 401, 403, 404, 503),
            409: problem(409, 'The name is taken.'),
          }),
        },
      )
  }
  return read(list(create(group))).patch(
    '/:workspace',
    async ({ request, params, body }) => setWorkspaceLimits(await side.ctx(request, params.workspace), { monthlyQuota: body.monthlyQuota, ...body.rateLimit }),
    {
      params: WorkspaceParams,
      body: UpdateWorkspaceBody,
      response: { 200: WorkspaceSchema },
      detail: detail("Change a workspace's monthly quota and rate limit", 'Fields left out are kept; so is the usage of this month.', problems(...BODY_PROBLEMS)),
    },
  )
}
