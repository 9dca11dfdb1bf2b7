// Composes the route plugins and renders every error as problem+json.
import { Elysia } from 'elysia'
import type { Sql } from './db'
import { isConnectionError } from './db'
import type { Config } from './config'
import { loggedPath, type Logger } from './log'
import type { ApiKeyAuth } from './auth'
import type { Batcher } from './ingest'
import type { SecretBox } from './secrets'
import type { Change, EventBus } from './bus'
import type { Mailer } from './mailer'
import { accessCheck } from './access'
import { authRoute } from './routes/auth'
import { workspacesRoute } from './routes/workspaces'
import { channelsRoute } from './routes/channels'
import { membersRoute } from './routes/members'
import { keysRoute } from './routes/keys'
import { userRoutersRoute } from './routes/routers'
import { feedRoute } from './routes/feed'
import { HeraldError, problemResponse, type FieldError } from './problems'
import { adminAuth } from './routes/admin_auth'
import { adminKeysRoute } from './routes/admin_keys'
import { adminRoutersRoute } from './routes/admin_routers'
import { adminDeliveriesRoute } from './routes/admin_deliveries'
import { adminMembersRoute } from './routes/admin_members'
import { devicesRoute } from './routes/devices'
import { createUserAuth } from './session'
import { adminWorkspacesRoute } from './routes/admin_workspaces'
import { docsRoute } from './routes/docs'
import { eventRoute } from './routes/event'
import { eventReadRoute } from './routes/event_read'
import { healthRoute } from './routes/health'
import { webRoute } from './routes/web'
import { metricsRoute } from './routes/metrics'
import { requestFinished, requestStarted, responseMapped } from './metrics'

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
  /** The live feed's source of new events. */
  bus: Pick<EventBus, 'watch'>
  mailer: Mailer
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
  // Any route's query (an API key look-up, say) may meet PostgreSQL down: that
  // is a 503 to retry, as the write path answers, not an unexplained 500.
  if (isConnectionError(error)) return new HeraldError('unavailable', 'The database is unavailable. Retry later.', undefined, { 'retry-after': '5' })
  return new HeraldError('internal', 'An unexpected error occurred.')
}

export function createApp(deps: AppDeps) {
  const { sql, config, log, auth, batcher, state, secrets, changed, wakeScheduler = () => {}, bus, mailer } = deps
  const users = createUserAuth(sql)
  const check = accessCheck(sql, users)
  const audienceChanged = () => changed({ kind: 'audience' })
  const routersChanged = (workspaceId: number) => changed({ kind: 'routers', workspaceId })
  const app: Elysia<any, any, any, any, any, any, any> = new Elysia({ name: 'herald' })
    .onError({ as: 'global' }, ({ code, error, request, route }) => {
      const problem = toProblem(code, error)
      // Answered before routing (an unknown path, the operator API's guard):
      // no response mapping follows, so the request is counted here.
      if (!route) requestFinished(request, undefined, problem.status)
      const requestId = request.headers.get('x-request-id') ?? crypto.randomUUID()
      if (problem.status >= 500) log.error({ err: error, requestId, method: request.method, path: loggedPath(request.url) }, 'request failed')
      else log.debug({ requestId, status: problem.status, code: problem.code, path: loggedPath(request.url) }, problem.detail)
      return problemResponse(problem, { 'x-request-id': requestId })
    })
    // Every request is counted and timed once, under its route pattern
    // (src/metrics.ts): synchronously, when its response (an error's problem
    // too) is mapped, or, with no route, in onError above.
    .onRequest(requestStarted)
    .mapResponse({ as: 'global' }, responseMapped)
    .use(adminAuth(config.HERALD_ADMIN_TOKEN))
    .use(metricsRoute(config.HERALD_METRICS_TOKEN))
    .use(docsRoute(() => app.handle))
    .use(healthRoute(sql, state))
    .use(eventRoute(auth, batcher))
    .use(eventReadRoute(sql, auth))
    .use(adminWorkspacesRoute(sql, config))
    .use(adminKeysRoute(sql, auth))
    .use(adminRoutersRoute(sql, secrets, routersChanged))
    .use(adminDeliveriesRoute(sql, wakeScheduler))
    .use(adminMembersRoute(sql, audienceChanged))
    .use(devicesRoute(sql, users, audienceChanged))
    .use(authRoute({ sql, config, log, mailer, users }))
    .use(workspacesRoute(sql, config, users, check))
    .use(channelsRoute(sql, check, changed, auth))
    .use(membersRoute({ sql, config, log, mailer, users, check, changed }))
    .use(keysRoute(sql, auth, check))
    .use(userRoutersRoute(sql, secrets, config, check, routersChanged))
    .use(feedRoute(sql, check, bus as EventBus, wakeScheduler))
    .use(webRoute(log))
  return app
}
export type App = ReturnType<typeof createApp>
