// Composes the route plugins and renders every error as problem+json.
import { Elysia, ParseError, ValidationError } from 'elysia'
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'
import type { TSchema } from '@sinclair/typebox'
import { inWords } from '../core/words'
import type { Sql } from '../core/db'
import { isConnectionError, ping } from '../core/db'
import { createOutage, type Outage } from '../core/outage'
import type { Config } from '../core/config'
import { loggedPath, type Logger } from '../core/log'
import { REQUEST_ID_HEADER, requestIdOf } from './request_id'
import type { ApiKeyAuth } from '../ingest/auth'
import type { Batcher } from '../ingest/batcher'
import type { SecretBox } from '../core/secrets'
import type { EventBus } from '../delivery/bus'
import type { Changes } from '../core/changes'
import type { Mailer } from '../accounts/mailer'
import type { SendConfig } from '../delivery/job'
import { eventReads } from '../ingest/event_reads'
import { recipientResolver } from '../ingest/recipients'
import { readDatabaseStatus } from '../delivery/status'
import { listMyWorkspaces } from '../accounts/members'
import { previewInvitation } from '../accounts/invitation_ops'
import { accessCheck } from '../accounts/access'
import { authRoute } from './routes/auth'
import { meRoute } from './routes/me'
import { workspacesRoute } from './routes/workspaces'
import { channelsRoute } from './routes/channels'
import { preferencesRoute } from './routes/preferences'
import { operatorSide, personSide } from './routes/side'
import { membersRoute } from './routes/members'
import { invitationLinkRoute, invitationsRoute } from './routes/invitations'
import { keysRoute } from './routes/keys'
import { routersRoute } from './routes/routers'
import { feedRoute } from './routes/feed'
import { feedReadRoute } from './routes/feed_read'
import { readOps } from '../ingest/read_ops'
import { workspaceEventRoute } from './routes/workspace_events'
import { deliveriesRoute } from './routes/deliveries'
import { HeraldError, problemResponse, type FieldError } from '../core/problems'
import { DATABASE_DOWN, bodyUnparsed, methodNotAllowed, nothingHere, requestInvalid, unexpected } from '../core/errors'
import { adminGroup } from './routes/admin_auth'
import { adminStatusRoute } from './routes/admin_status'
import { devicesRoute } from './routes/devices'
import { pushKeyRoute } from './routes/push_key'
import { createUserAuth } from '../accounts/session'
import { docsRoute } from './routes/docs'
import { eventRoute } from './routes/event'
import { eventsBatchRoute } from './routes/events_batch'
import { eventsScheduledRoute } from './routes/events_scheduled'
import { producerSchedule } from '../ingest/schedule_ops'
import { scheduledRoute } from './routes/scheduled'
import { eventReadRoute } from './routes/event_read'
import { receiptAckRoute, receiptsRoute } from './routes/receipts'
import { receiptOps } from '../delivery/receipt_ops'
import { receiptReadRoute } from './routes/receipt_read'
import { healthRoute } from './routes/health'
import { webRoute } from './routes/web'
import { ackLinkRoute } from './routes/ack_link'
import { ackLinkOps } from '../delivery/ack_link_ops'
import { metricsRoute } from './routes/metrics'
import { requestFinished, requestStarted, responseMapped } from '../core/metrics'

export interface AppDeps {
  sql: Sql
  config: Config
  log: Logger
  auth: ApiKeyAuth
  batcher: Batcher
  state: { draining: boolean }
  secrets: SecretBox
  /** This process's changes: announced after routers, keys, channels, members, devices or mutes change, so every process drops what it cached; heard by the live feed (a session or a membership ended). */
  changes: Pick<Changes, 'announce' | 'onChange'>
  /** Called after a delivery is replayed, so the worker of this process picks it up at once. */
  wakeScheduler?: () => void
  /** The live feed's source of new events; the bus's state for the operator. */
  bus: EventBus
  mailer: Mailer
  /** The VAPID public key browsers subscribe with (GET /v1/push/vapid-public-key); unset: Web Push is off. */
  vapidPublicKey?: string
  /** What every send shares (src/delivery/send_config.ts), made at boot: the outbound rules a destination is checked against, and the dashboard's test send. */
  send: SendConfig
  /** The process's account of a database outage, shared with the batcher: 503s counted and logged once in a while, Retry-After from the outage's age. */
  outage?: Outage
}

const WHERE = { body: 'the body', query: 'the query string', params: 'the path', headers: 'the headers', cookie: 'the cookies', response: 'the response' } as const

/** One error in words: the schema's own `error` text where it has one, else TypeBox's message with the field's name. */
function describe(e: ValueError, where: string): string {
  const field = e.path ? e.path.slice(1).replaceAll('/', '.') : where
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return `${field} is not a field of ${where}`
  const own = (e.schema as { error?: unknown }).error
  if (typeof own === 'string') return own
  return `${field}: ${inWords(e)}`
}

const decodePointer = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~')

/**
 * The path or query parameter an error is about. Elysia checks a number it
 * coerced from the query or the path on its own, so its error has no path:
 * then the parameter is the one whose schema it is.
 */
function parameterOf(error: ValidationError, e: ValueError): string | undefined {
  const named = e.path.split('/')[1]
  if (named) return decodePointer(named)
  const schema = (error.validator as { schema?: TSchema }).schema ?? (error.validator as TSchema)
  const own = (e.schema as { error?: unknown }).error
  for (const [name, property] of Object.entries((schema?.properties ?? {}) as Record<string, TSchema>)) {
    if (property === e.schema || (own !== undefined && property.error === own)) return name
  }
  return undefined
}

/** The errors of a failed validation; none when Elysia cannot list them (it makes each value text, which can throw). */
function allErrors(error: ValidationError): ValueError[] {
  try {
    return (error.all ?? []) as ValueError[]
  } catch {
    return []
  }
}

function validationProblem(error: ValidationError): HeraldError {
  const where = WHERE[error.type as keyof typeof WHERE] ?? 'the request'
  const seen = new Map<string, FieldError>()
  for (const e of allErrors(error)) {
    const detail = describe(e, where)
    if (seen.has(detail) || seen.size >= 20) continue
    // A number coerced from the path or the query is checked alone, as a
    // "property", by a schema that names its parameter (src/http/routes/input.ts).
    const parameter = error.type === 'property' ? (error.validator as { 'x-parameter'?: string })['x-parameter'] : error.type === 'params' || error.type === 'query' ? parameterOf(error, e) : undefined
    seen.set(detail, error.type === 'body' ? { pointer: e.path, detail } : parameter ? { parameter, detail } : { detail })
  }
  const errors = [...seen.values()]
  return requestInvalid(errors)
}

/**
 * The methods the routes take at a path, for a 405 instead of a 404 when a
 * path exists under other methods (GET /event). Built from the app's routes
 * on first use; the dashboard's catch-all (`/w/*`) is left out, or every
 * unknown path under it would be a 405.
 */
export function routeMethods(routes: () => { method: string; path: string }[]): (pathname: string) => string[] {
  let table: { method: string; re: RegExp }[] | undefined
  const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  return (pathname) => {
    table ??= routes()
      .filter((r) => !r.path.includes('*') && r.method !== 'ALL')
      .map((r) => ({ method: r.method, re: new RegExp(`^${r.path.split('/').map((seg) => (seg.startsWith(':') ? '[^/]+' : escape(seg))).join('/')}/?$`) }))
    return [...new Set(table.filter((r) => r.re.test(pathname)).map((r) => r.method))].sort()
  }
}

/** The one place where an error becomes an HTTP response. `outage`: where a database outage is counted, and what its 503 says. */
export function toProblem(code: string | number, error: unknown, outage: Outage): HeraldError {
  if (error instanceof HeraldError) return error
  // A route group's guard and body reader run as Elysia parse hooks, which
  // wrap what they throw.
  if (error instanceof ParseError && error.cause instanceof HeraldError) return error.cause
  if (code === 'VALIDATION' && error instanceof ValidationError) return validationProblem(error)
  if (code === 'PARSE') return bodyUnparsed()
  if (code === 'NOT_FOUND') return nothingHere()
  // Any route's query (an API key look-up, say) may meet PostgreSQL down: that
  // is a 503 to retry, as the write path answers, not an unexplained 500.
  if (isConnectionError(error)) return outage.unavailable(1, error, DATABASE_DOWN)
  return unexpected()
}

export function createApp(deps: AppDeps) {
  const { sql, config, log, auth, batcher, state, secrets, changes, wakeScheduler = () => {}, bus, mailer, vapidPublicKey, send } = deps
  const changed = changes.announce
  const outage = deps.outage ?? createOutage(log)
  const users = createUserAuth(sql, config.HERALD_APP_TOKEN_IDLE_DAYS)
  const check = accessCheck(sql, users)
  // What the read paths of events are given (src/ingest/event_reads.ts), rather than the database.
  const reads = eventReads(sql)
  // The bounds of an event the operator may raise.
  const rules = { maxAckExpire: config.HERALD_MAX_ACK_EXPIRE, maxSchedule: config.HERALD_MAX_SCHEDULE }
  // An event's `to`, resolved to members at ingest (one query per request that has one).
  const recipients = recipientResolver(sql)
  // A receipt ended here queues its routers' deliveries: the scheduler of this process sends them at once.
  const receipts = receiptOps(sql, wakeScheduler)
  // Who acts, on each API: the routes of a resource are defined once and mounted on both.
  const sides = { sql, announce: changes.announce, limits: config }
  const person = personSide({ ...sides, users, check })
  const operator = operatorSide(sides)
  const mail = { config, log, mailer }
  const audienceChanged = () => changed({ kind: 'audience' })
  // What router operations use besides their context (src/delivery/router_ops.ts).
  const routerTools = { box: secrets, send, smtpFrom: config.SMTP_FROM }
  // A path asked with a method it does not take: 405 with Allow, not 404.
  const methodsAt = routeMethods(() => app.routes)
  const app: Elysia<any, any, any, any, any, any, any> = new Elysia({
    name: 'herald',
    // Paths are read from the URL after "http://", not after its 11th
    // character: Elysia's default assumes a host of at least "a.bc", so with
    // `Host: ab` it would route /x/admin/… as /admin/….
    handler: { standardHostname: false },
    // A body property no schema names is a 400 that names it, not silently
    // dropped (a typo like monthly_quota must not answer 200 and change nothing).
    normalize: false,
  })
    .onError({ as: 'global' }, ({ code, error, request, route }) => {
      let problem = toProblem(code, error, outage)
      if (code === 'NOT_FOUND') {
        const path = new URL(request.url).pathname
        const allowed = methodsAt(path)
        if (allowed.length) problem = methodNotAllowed(request.method, path, allowed)
      }
      // Answered before routing (an unknown path): no response mapping
      // follows, so the request is counted here.
      if (!route) requestFinished(request, undefined, problem.status)
      const requestId = requestIdOf(request)
      // A database outage's 503s are said by `outage`, a line per few seconds, not one with a stack per request.
      if (problem.status >= 500 && !outage.reported(problem)) log.error({ err: error, requestId, method: request.method, path: loggedPath(request.url) }, 'request failed')
      else log.debug({ requestId, status: problem.status, code: problem.code, path: loggedPath(request.url) }, problem.detail)
      // An answer given before the body was read to its end (a 401 from the
      // headers, a 413 past the limit) is sent at once; the server then
      // drains the rest of the body within a bound and closes the connection
      // (src/http/linger.ts, around app.handle in src/server.ts).
      return problemResponse(problem, { 'x-request-id': requestId })
    })
    // Every request is counted and timed once, under its route pattern
    // (src/core/metrics.ts): synchronously, when its response (an error's problem
    // too) is mapped, or, with no route, in onError above.
    .onRequest(requestStarted)
    // Every answer names its request (src/http/request_id.ts).
    .onRequest(({ request, set }) => {
      set.headers[REQUEST_ID_HEADER] = requestIdOf(request)
    })
    .mapResponse({ as: 'global' }, responseMapped)
    .use(metricsRoute(config.HERALD_METRICS_TOKEN))
    .use(docsRoute(() => app.handle, () => app.routes))
    .use(healthRoute({ ping: () => ping(sql), state }))
    .use(eventRoute(auth, batcher, rules, recipients))
    .use(eventsBatchRoute(auth, batcher, rules, recipients))
    .use(eventReadRoute({ reads, auth }))
    .use(eventsScheduledRoute({ auth, schedule: producerSchedule(sql) }))
    .use(receiptsRoute({ auth, receipts }))
    .use(
      adminGroup(config.HERALD_ADMIN_TOKEN)
        .use(workspacesRoute(operator))
        .use(keysRoute(operator))
        .use(routersRoute({ side: operator, ...routerTools }))
        .use(deliveriesRoute({ side: operator, wake: wakeScheduler }))
        .use(membersRoute(operator))
        .use(channelsRoute(operator))
        .use(invitationsRoute({ side: operator, mail }))
        .use(adminStatusRoute({ readStatus: () => readDatabaseStatus(sql), bus })),
    )
    .use(devicesRoute({ auth: users, devices: { sql, announce: changes.announce, allow: send.outbound.allow } }))
    .use(pushKeyRoute(vapidPublicKey))
    .use(authRoute({ sql, config, log, mailer, users, announce: changes.announce }))
    .use(meRoute({ users, myWorkspaces: (userId) => listMyWorkspaces(sql, userId) }))
    .use(workspacesRoute(person))
    .use(channelsRoute(person))
    // The invitation's link before the members and the rest of the
    // invitations after: the order of the OpenAPI document the client's types
    // were generated from (clients/typescript/openapi.json).
    .use(invitationLinkRoute({ preview: (token) => previewInvitation(sql, token) }))
    .use(membersRoute(person))
    .use(invitationsRoute({ side: person, mail, accept: { sql, announce: changes.announce, users } }))
    .use(keysRoute(person))
    .use(routersRoute({ side: person, ...routerTools }))
    .use(feedRoute({ reads, users, check, bus, changes }))
    .use(feedReadRoute({ users, check, mark: readOps({ sql, reads, announce: changes.announce }) }))
    .use(workspaceEventRoute({ reads, users, check }))
    .use(scheduledRoute(person))
    .use(receiptAckRoute({ users, check, receipts }))
    .use(receiptReadRoute({ users, check, receipts }))
    .use(deliveriesRoute({ side: person, wake: wakeScheduler }))
    .use(preferencesRoute(person))
    // The acknowledgement link of e-mail and chat messages, with the key they were signed with.
    .use(ackLinkRoute(ackLinkOps(sql, send.endpoints.ackLink?.key, wakeScheduler)))
    .use(webRoute(log, users, config.HERALD_TRUST_PROXY))
  return app
}
export type App = ReturnType<typeof createApp>
