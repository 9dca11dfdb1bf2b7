// What every operation of an area is given: the database, how to announce
// the change it makes, the limits it enforces, and who acts in which
// workspace. The user API and the operator API resolve the actor and the
// workspace from the request (src/http/routes/side.ts) and call the same
// operation: the rule, its check of the actor's right, its error and its
// announcement are written once, in the area.
import type { Sql } from './db'
import type { Announce } from './changes'
import type { Config } from './config'
import { forbiddenRole } from './errors'

export type Role = 'owner' | 'admin' | 'member'

/** A person with a role in the workspace, or the operator (HERALD_ADMIN_TOKEN), who may do what an owner may. */
export type Actor = { kind: 'person'; userId: string; email: string; role: Role } | { kind: 'operator' }

export interface WorkspaceRef {
  id: number
  name: string
  defaultChannel: string
}

/** The caps on what a user can create (each a documented config key). */
export type Limits = Pick<
  Config,
  | 'HERALD_MAX_CHANNELS_PER_WORKSPACE'
  | 'HERALD_MAX_ROUTERS_PER_WORKSPACE'
  | 'HERALD_MAX_WORKSPACES_PER_USER'
  | 'HERALD_MAX_API_KEYS_PER_WORKSPACE'
  | 'HERALD_DEFAULT_MONTHLY_QUOTA'
  | 'HERALD_DEFAULT_RATE_PER_SECOND'
  | 'HERALD_DEFAULT_RATE_BURST'
>

/** What every operation's context is made from, once per process: the database, the announcements, the caps. */
export interface OpDeps {
  sql: Sql
  announce: Announce
  limits: Limits
}

export interface Ctx extends OpDeps {
  actor: Actor
  workspace: WorkspaceRef
}

/** Who acts where no workspace is named (creating or listing workspaces): a person, with no role there, or the operator. */
export type Who = { kind: 'person'; userId: string; email: string } | { kind: 'operator' }

/** The context of an operation that names no workspace. */
export type AccountCtx = Omit<Ctx, 'actor' | 'workspace'> & { actor: Who }

/** What an operation needs of its actor: to belong (read), to be an owner or admin (manage), or an owner (own). */
export type Need = 'read' | 'manage' | 'own'

export const canManage = (role: Role) => role === 'owner' || role === 'admin'

/** Throws a 403 unless the actor may do what `need` says in the context's workspace. */
export function requireRight(ctx: Pick<Ctx, 'actor' | 'workspace'>, need: Need): void {
  const { actor } = ctx
  if (actor.kind === 'operator' || need === 'read') return
  if (need === 'manage' && !canManage(actor.role)) throw forbiddenRole(ctx.workspace.name, 'owners and admins', actor.role)
  if (need === 'own' && actor.role !== 'owner') throw forbiddenRole(ctx.workspace.name, 'owners', actor.role)
}

/** The person acting, or null for the operator. */
export const personOf = (actor: Actor) => (actor.kind === 'person' ? actor : null)
