// The two APIs that act on a workspace: people (`/v1/workspaces/:workspace/…`,
// a session or user token, their role in it) and the operator
// (`/admin/workspaces/:workspace/…`, HERALD_ADMIN_TOKEN). A resource's routes
// are defined once and mounted on each side; the side says who is acting and
// in which workspace (the operation checks what they may do), how the route is
// documented, and, where the APIs word a thing differently, which words.
import { Elysia } from 'elysia'
import type { AccountCtx, Actor, Ctx, OpDeps, Who, WorkspaceRef } from '../../core/operation'
import { noWorkspace } from '../../core/errors'
import { findWorkspaceRef } from '../../accounts/workspaces'
import { userSecurity, type UserAuth } from '../../accounts/session'
import type { AccessCheck } from '../../accounts/access'
import { routeGroup } from './group'
import { OPERATOR_PROBLEMS } from './admin_auth'
import type { Responses } from '../openapi'

export interface Detail {
  summary: string
  description: string | undefined
  tags: string[]
  security: Record<string, string[]>[]
  responses: Responses
}

export interface Side {
  kind: 'person' | 'operator'
  /** `/v1/workspaces/:workspace` or `/admin/workspaces/:workspace`. */
  root: string
  /** A group for this side's routes of a resource: a person's routes are guarded by their session; the operator's sit in the operator group, guarded there. */
  group(o: { name: string; prefix?: string; bodyLimit?: number }): ReturnType<typeof routeGroup>
  /** The operation's context for a request in `workspace`: a 404 when the actor may not see it. */
  ctx(request: Request, workspace: string): Promise<Ctx>
  /** The context of a route that names no workspace (creating or listing workspaces): who acts, with no role. */
  accountCtx(request: Request): Promise<AccountCtx>
  /** The OpenAPI detail of a route of a resource: `tag` and `common` (what every route of the resource may answer) are the person side's; the operator's are its own. */
  documents(o: { tag: string; common: Responses }): (summary: string, description: string | undefined, responses?: Responses) => Detail
  /** The `$id` of a named schema on this side (the operator's carry `Operator`). */
  id(name: string): string
  /** This side's words, where the two APIs say a thing differently. */
  says<T>(words: { person: T; operator: T }): T
}

/** What a handler of a side's route reads of its context (Elysia types a side's group loosely). */
export type Handled<P> = { request: Request; params: P; set: { status?: number | string } } & Record<string, any>

/** The operations' dependencies (src/core/operation.ts), from which a side makes each request's context. */
export type SideDeps = OpDeps

const base = (
  deps: SideDeps,
  kind: Side['kind'],
  who: (request: Request, workspace: string) => Promise<{ actor: Actor; workspace: WorkspaceRef }>,
  acting: (request: Request) => Promise<Who>,
) => ({
  kind,
  async ctx(request: Request, workspace: string): Promise<Ctx> {
    return { sql: deps.sql, announce: deps.announce, limits: deps.limits, ...(await who(request, workspace)) }
  },
  async accountCtx(request: Request): Promise<AccountCtx> {
    return { sql: deps.sql, announce: deps.announce, limits: deps.limits, actor: await acting(request) }
  },
  says: <T>(words: { person: T; operator: T }) => words[kind],
})

/** People: their session (checked from the headers, before the body is read) and their membership of the workspace. */
export function personSide(deps: SideDeps & { users: UserAuth; check: AccessCheck }): Side {
  return {
    ...base(
      deps,
      'person',
      async (request, workspace) => {
        const { session, access } = await deps.check(request, workspace)
        return {
          actor: { kind: 'person', userId: session.userId, email: session.email, role: access.role },
          workspace: { id: access.workspaceId, name: access.workspace, defaultChannel: access.defaultChannel },
        }
      },
      async (request) => {
        const { userId, email } = await deps.users.authenticate(request)
        return { kind: 'person', userId, email }
      },
    ),
    root: '/v1/workspaces/:workspace',
    group: ({ name, prefix, bodyLimit }) => routeGroup({ name, prefix, bodyLimit, guard: deps.users.authenticate }),
    documents: ({ tag, common }) => (summary, description, responses = {}) => ({ summary, description, tags: [tag], security: userSecurity, responses: { ...common, ...responses } }),
    id: (name) => name,
  }
}

/** The operator: the admin token, checked by the operator group; any workspace there is. */
export function operatorSide(deps: SideDeps): Side {
  return {
    ...base(
      deps,
      'operator',
      async (_request, name) => {
        const workspace = await findWorkspaceRef(deps.sql, name)
        if (!workspace) throw noWorkspace(name)
        return { actor: { kind: 'operator' }, workspace }
      },
      async () => ({ kind: 'operator' }),
    ),
    root: '/admin/workspaces/:workspace',
    group: ({ name, prefix }) => new Elysia({ name: `${name}.operator`, prefix }),
    documents: () => (summary, description, responses = {}) => ({ summary, description, tags: ['Operator'], security: [{ adminToken: [] }], responses: { ...OPERATOR_PROBLEMS, ...responses } }),
    id: (name) => `Operator${name}`,
  }
}
