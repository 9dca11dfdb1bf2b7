// A signed-in person's workspaces: list, create, read (limits and this
// month's usage), and the daily usage of the last 30 days.
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import type { Config } from '../../core/config'
import type { AccessCheck } from '../../accounts/access'
import type { UserAuth } from '../../accounts/session'
import { userSecurity } from '../../accounts/session'
import { HeraldError } from '../../core/problems'
import { SLUG } from '../../ingest/event'
import { MyWorkspace } from './auth'
import { createWorkspaceFor, getWorkspace, usageByDay } from '../../accounts/workspaces'
import { listMyWorkspaces } from '../../accounts/members'
import { routeGroup } from './group'
import { WorkspaceParams } from './input'
import { BODY_PROBLEMS, problem, problems, type Responses } from '../openapi'

const Params = WorkspaceParams
const detail = (summary: string, description: string, responses: Responses) => ({ summary, description, tags: ['Workspaces'], security: userSecurity, responses })
// A workspace named in the path: not found unless I am a member of it.
const ONE = problems(400, 401, 404, 503)

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

const resetsAt = () => {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString()
}

export const workspacesRoute = (sql: Sql, config: Config, users: UserAuth, check: AccessCheck) =>
  routeGroup({ name: 'route.workspaces', prefix: '/v1/workspaces', guard: users.authenticate })
    .get('', async ({ request }) => listMyWorkspaces(sql, (await users.authenticate(request)).userId), {
      response: { 200: Type.Array(MyWorkspace) },
      detail: detail('My workspaces, with my role in each', 'Every workspace I am a member of, with its default channel.', problems(401, 503)),
    })
    .post(
      '',
      async ({ request, body, set }) => {
        const session = await users.authenticate(request)
        const limits = { monthlyQuota: config.HERALD_DEFAULT_MONTHLY_QUOTA, rateLimit: { perSecond: config.HERALD_DEFAULT_RATE_PER_SECOND, burst: config.HERALD_DEFAULT_RATE_BURST } }
        const max = config.HERALD_MAX_WORKSPACES_PER_USER
        const created = await createWorkspaceFor(sql, body.name, limits, session.userId, max)
        if (created.kind === 'taken') throw new HeraldError('conflict', `The workspace name ${JSON.stringify(body.name)} is taken; choose another.`)
        if (created.kind === 'limit') throw new HeraldError('limit-reached', `You own ${max} workspaces, the most one person may own here (HERALD_MAX_WORKSPACES_PER_USER); delete one, or ask the operator to raise the limit.`)
        set.status = 201
        return { workspace: body.name, role: 'owner' as const, defaultChannel: created.defaultChannel }
      },
      {
        body: Type.Object({ name: Type.String({ maxLength: 64, pattern: SLUG.source, description: 'Lower-case slug, unique on this Herald.', examples: ['acme'] }) }, { $id: 'CreateWorkspaceBody', additionalProperties: false }),
        response: { 201: MyWorkspace },
        detail: detail('Create a workspace', 'With the default channel "general"; you are its owner. 409 when the name is taken, or when you own HERALD_MAX_WORKSPACES_PER_USER workspaces.', {
          ...problems(...BODY_PROBLEMS, 401, 403, 503),
          409: problem(409, 'The name is taken, or you own HERALD_MAX_WORKSPACES_PER_USER workspaces.'),
        }),
      },
    )
    .get(
      '/:workspace',
      async ({ request, params }) => {
        const { access } = await check(request, params.workspace)
        const ws = (await getWorkspace(sql, access.workspace))!
        return { workspace: ws.workspace, role: access.role, defaultChannel: ws.defaultChannel, monthlyQuota: ws.monthlyQuota, rateLimit: ws.rateLimit, usage: { ...ws.usage, resetsAt: resetsAt() }, createdAt: ws.createdAt }
      },
      { params: Params, response: { 200: WorkspaceDetail }, detail: detail('A workspace: its limits and this month\'s usage', 'With my role in it; every member may read it.', ONE) },
    )
    .get(
      '/:workspace/usage',
      async ({ request, params }) => {
        const { access } = await check(request, params.workspace)
        const ws = (await getWorkspace(sql, access.workspace))!
        const days = await usageByDay(sql, access.workspaceId)
        return { period: ws.usage.period, used: ws.usage.used, limit: ws.monthlyQuota, remaining: ws.usage.remaining, resetsAt: resetsAt(), days }
      },
      { params: Params, response: { 200: Usage }, detail: detail('Usage: this month against the quota, and events per day over the last 30 days', 'What the dashboard charts; every member may read it.', ONE) },
    )
