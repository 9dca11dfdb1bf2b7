// Composes the route plugins and renders every error as problem+json.
import { Elysia } from 'elysia'
import type { Sql } from './db'
import type { Config } from './config'
import type { Logger } from './log'
import type { ApiKeyAuth } from './auth'
import type { Batcher } from './ingest'
import type { SecretBox } from './secrets'
import type { Change } from './bus'
import { HeraldError, problemResponse, type FieldError } from './problems'
import { adminAuth } from './routes/admin_auth'
import { adminKeysRoute } from './routes/admin_keys'
import { adminRoutersRoute } from './routes/admin_routers'
import { adminDeliveriesRoute } from './routes/admin_deliveries'
import { adminMembersRoute } from './routes/admin_members'
import { devicesRoute } from './routes/devices'
import { createUserAuth } from './user_auth'
import { adminWorkspacesRoute } from './routes/admin_workspaces'
import { docsRoute } from './routes/docs'
import { eventRoute } from './routes/event'
import { eventReadRoute } from './routes/event_read'
import { healthRoute } from './routes/health'

export interface AppDeps {
  sql: Sql
  config: Config
  log: Logger
  auth: ApiKeyAuth
  batcher: Batcher
  state: { draining: boolean }
  secrets: SecretBox
  /** Called after routers, members, devices or mutes change, so the delivery workers drop what they cached. */
  changed: (change: Change) => void
  /** Called after a delivery is replayed, so the worker of this process picks it up at once. */
  wakeScheduler?: () => void
}

function validationProblem(error: { all?: { path: string; message: string }[] }): HeraldError {
  const errors: FieldError[] = (error.all ?? []).slice(0, 20).map((e) => ({
    pointer: e.path,
    detail: `${e.path ? e.path.slice(1).replaceAll('/', '.') : 'the body'}: ${e.message}`,
  }))
  return new HeraldError('validation-failed', errors.map((e) => e.detail).join('; ') || 'The request is invalid.', errors)
}

/** The one place where an error becomes an HTTP response. */
export function toProblem(code: string | number, error: unknown): HeraldError {
  if (error instanceof HeraldError) return error
  if (code === 'VALIDATION') return validationProblem(error as never)
  if (code === 'PARSE') return new HeraldError('malformed-json', 'The body could not be parsed: send JSON with Content-Type: application/json.')
  if (code === 'NOT_FOUND') return new HeraldError('not-found', 'There is nothing at this path.')
  return new HeraldError('internal', 'An unexpected error occurred.')
}

export function createApp(deps: AppDeps) {
  const { sql, config, log, auth, batcher, state, secrets, changed, wakeScheduler = () => {} } = deps
  const app: Elysia<any, any, any, any, any, any, any> = new Elysia({ name: 'herald' })
    .onError({ as: 'global' }, ({ code, error, request }) => {
      const problem = toProblem(code, error)
      const requestId = request.headers.get('x-request-id') ?? crypto.randomUUID()
      if (problem.status >= 500) log.error({ err: error, requestId, method: request.method, url: request.url }, 'request failed')
      else log.debug({ requestId, status: problem.status, code: problem.code, url: request.url }, problem.detail)
      return problemResponse(problem, { 'x-request-id': requestId })
    })
    .use(adminAuth(config.HERALD_ADMIN_TOKEN))
    .use(docsRoute(() => app.handle))
    .use(healthRoute(sql, state))
    .use(eventRoute(auth, batcher))
    .use(eventReadRoute(sql, auth))
    .use(adminWorkspacesRoute(sql, config))
    .use(adminKeysRoute(sql, auth))
    .use(adminRoutersRoute(sql, secrets, (workspaceId) => changed({ kind: 'routers', workspaceId })))
    .use(adminDeliveriesRoute(sql, wakeScheduler))
    .use(adminMembersRoute(sql, () => changed({ kind: 'audience' })))
    .use(devicesRoute(sql, createUserAuth(sql), () => changed({ kind: 'audience' })))
  return app
}
export type App = ReturnType<typeof createApp>
