// Operator API: create, list, read and change workspaces.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import { SLUG } from '../../ingest/event'
import { HeraldError, validationError } from '../../core/problems'
import { getWorkspace, insertWorkspace, listWorkspaces, updateWorkspaceLimits } from '../../accounts/workspaces'
import type { Config } from '../../core/config'
import { WorkspaceParam } from './input'
import { noWorkspace, OPERATOR_OFF, operatorDetail as detail } from './admin_auth'
import { BODY_PROBLEMS, problem, problems } from '../openapi'

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

export function workspaceName(raw: string): string {
  const name = raw.toLowerCase()
  if (name.length > 64 || !SLUG.test(name)) {
    throw validationError([{ pointer: '/name', detail: 'name must be a slug of at most 64 characters: lowercase letters, digits, "-" and "_", starting with a letter or digit' }])
  }
  return name
}

const Params = Type.Object({ workspace: WorkspaceParam })

export const adminWorkspacesRoute = (sql: Sql, config: Config) =>
  new Elysia({ name: 'route.admin.workspaces', prefix: '/admin/workspaces' })
    .post(
      '',
      async ({ body, set }) => {
        const name = workspaceName(body.name)
        const created = await insertWorkspace(sql, name, {
          monthlyQuota: body.monthlyQuota ?? config.HERALD_DEFAULT_MONTHLY_QUOTA,
          rateLimit: { perSecond: body.rateLimit?.perSecond ?? config.HERALD_DEFAULT_RATE_PER_SECOND, burst: body.rateLimit?.burst ?? config.HERALD_DEFAULT_RATE_BURST },
        })
        if (!created) throw new HeraldError('conflict', `A workspace named ${JSON.stringify(name)} already exists.`)
        set.status = 201
        return { workspace: created.workspace, defaultChannel: created.defaultChannel, apiKey: created.apiKey }
      },
      {
        body: CreateWorkspaceBody,
        response: { 201: CreatedWorkspace },
        detail: detail('Create a workspace with its default channel and a first API key', 'Limits left out are the HERALD_DEFAULT_* settings.', {
          ...problems(...BODY_PROBLEMS),
          404: OPERATOR_OFF,
          409: problem(409, 'A workspace of this name exists.'),
        }),
      },
    )
    .get('', () => listWorkspaces(sql), {
      response: { 200: Type.Array(WorkspaceSchema) },
      detail: detail('List workspaces with their limits and usage', 'Every workspace of this Herald, with this month\'s usage.', { 404: OPERATOR_OFF }),
    })
    .get(
      '/:workspace',
      async ({ params }) => {
        const row = await getWorkspace(sql, params.workspace)
        if (!row) throw noWorkspace(params.workspace)
        return row
      },
      { params: Params, response: { 200: WorkspaceSchema }, detail: detail('Read a workspace, its limits and usage', 'Its monthly quota, rate limit and this month\'s usage.', problems(400)) },
    )
    .patch(
      '/:workspace',
      async ({ params, body }) => {
        const row = await updateWorkspaceLimits(sql, params.workspace, { monthlyQuota: body.monthlyQuota, ...body.rateLimit })
        if (!row) throw noWorkspace(params.workspace)
        return row
      },
      {
        params: Params,
        body: UpdateWorkspaceBody,
        response: { 200: WorkspaceSchema },
        detail: detail("Change a workspace's monthly quota and rate limit", 'Fields left out are kept; so is the usage of this month.', problems(...BODY_PROBLEMS)),
      },
    )
