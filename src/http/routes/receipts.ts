// The receipts of events sent with `ack`: read and cancel with the workspace's
// API key (GET /receipts/{receipt}, POST /receipts/{receipt}/cancel), and
// acknowledge as a member (POST /v1/workspaces/{ws}/receipts/{receipt}/ack,
// a session or an app token). Another workspace's receipt is a 404.
import { Type } from '@sinclair/typebox'
import type { ApiKeyAuth } from '../../ingest/auth'
import type { AccessCheck } from '../../accounts/access'
import { userSecurity, type UserAuth } from '../../accounts/session'
import type { ReceiptOps } from '../../delivery/receipt_ops'
import { apiKeyRequired } from '../../core/errors'
import { routeGroup } from './group'
import { Uuid, WorkspaceParam } from './input'
import { BODY_PROBLEMS, problem, problems } from '../openapi'

const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()])

export const ReceiptSchema = Type.Object({
  receipt: Type.String({ format: 'uuid', description: 'The receipt\'s id, as POST /event answered it.' }),
  eventId: Type.String({ format: 'uuid', description: 'The event that requires acknowledgement.' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('acknowledged'), Type.Literal('expired'), Type.Literal('cancelled')], {
    description: '`pending` while the event repeats; then, once and for good, `acknowledged` (by a member), `cancelled` (with the API key) or `expired` (at `expiresAt`).',
  }),
  acknowledgedAt: Nullable(Type.String({ format: 'date-time' })),
  acknowledgedBy: Nullable(Type.Object({ userId: Type.String({ format: 'uuid' }), email: Type.String() }, { description: 'The member who acknowledged it.' })),
  acknowledgedVia: Nullable(Type.Union([Type.Literal('web'), Type.Literal('push'), Type.Literal('link'), Type.Literal('api')], {
    description: 'Where: the dashboard (`web`), the installed app\'s notification (`push`), the `/ack/<token>` link of an e-mail or chat message (`link`), or this API (`api`).',
  })),
  expiresAt: Type.String({ format: 'date-time', description: 'When it stops repeating unacknowledged: the event\'s time plus `ack.expire`.' }),
  lastPushAt: Nullable(Type.String({ format: 'date-time', description: 'When a device last received the event (its first push or a repeat).' })),
  pushes: Type.Integer({ description: 'Device pushes so far that reached their push service: the first pushes and every repeat.' }),
  escalated: Type.Array(Type.String(), { description: 'The channels of `ack.escalate` whose members are pushed too, in order.' }),
}, { $id: 'Receipt' })

const ReceiptParams = Type.Object({ receipt: Uuid('receipt', 'The receipt\'s id, from the answer of POST /event.') })
const NOT_FOUND = problem(404, 'No receipt of this id in the workspace of this key.')
const ENDED = problem(409, 'The receipt is no longer pending: its detail says how it ended and, when acknowledged, by whom.')

/** GET /receipts/{receipt} and POST /receipts/{receipt}/cancel, with the workspace's API key. */
export const receiptsRoute = ({ auth, receipts }: { auth: ApiKeyAuth; receipts: ReceiptOps }) => {
  const principal = async (request: Request) => {
    const p = await auth.verify(request.headers.get('authorization'))
    if (!p) throw apiKeyRequired()
    return p
  }
  return routeGroup({ name: 'route.receipts', guard: principal })
    .get('/receipts/:receipt', async ({ request, params }) => receipts.read((await principal(request)).workspaceId, params.receipt, null), {
      params: ReceiptParams,
      response: { 200: ReceiptSchema },
      detail: {
        summary: 'Read a receipt',
        description: 'The state of an event sent with `ack`: pending while it repeats, then acknowledged (by whom, when, where), cancelled or expired.',
        tags: ['Events'],
        security: [{ apiKey: [] }],
        responses: { ...problems(400, 401, 503), 404: NOT_FOUND },
      },
    })
    .post('/receipts/:receipt/cancel', async ({ request, params }) => receipts.cancel((await principal(request)).workspaceId, params.receipt), {
      params: ReceiptParams,
      response: { 200: ReceiptSchema },
      detail: {
        summary: 'Cancel a receipt',
        description: 'Stops the repeats of a pending receipt (the problem is solved, say): the repeats not yet sent end `cancelled`, and routers with `receipts: true` get `receipt.cancelled`. Takes no body.',
        tags: ['Events'],
        security: [{ apiKey: [] }],
        responses: { ...problems(400, 401, 503), 404: NOT_FOUND, 409: ENDED },
      },
    })
}

/** POST /v1/workspaces/{ws}/receipts/{receipt}/ack: a member acknowledges. */
export const receiptAckRoute = ({ users, check, receipts }: { users: UserAuth; check: AccessCheck; receipts: ReceiptOps }) =>
  routeGroup({ name: 'route.receipt-ack', prefix: '/v1', guard: users.authenticate }).post(
    '/workspaces/:workspace/receipts/:receipt/ack',
    async ({ request, params, body }) => {
      const { session, access } = await check(request, params.workspace)
      // Where it was acknowledged: as the caller says (the installed app's
      // notification says "push"), else the dashboard for a web session and
      // the API for an app token.
      const via = body?.via ?? (session.kind === 'web' ? 'web' : 'api')
      return receipts.acknowledge(access.workspaceId, params.receipt, { userId: session.userId, via }, { userId: session.userId, workspaceId: access.workspaceId })
    },
    {
      params: Type.Object({ workspace: WorkspaceParam, receipt: Uuid('receipt', 'The receipt\'s id.') }),
      body: Type.Optional(Type.Object({
        via: Type.Optional(Type.Union([Type.Literal('web'), Type.Literal('push'), Type.Literal('api')], {
          description: 'Where the person acknowledged it, as `acknowledgedVia` records it: `push` from a notification\'s action. Default: `web` with a web session, `api` with an app token.',
        })),
      }, { $id: 'AckReceiptBody', additionalProperties: false })),
      response: { 200: ReceiptSchema },
      detail: {
        summary: 'Acknowledge a receipt',
        description: 'Stops the event\'s repeats for everyone, on every instance, within one `retry`. The first acknowledgement wins; any member may give it. The body, optional, says where it was acknowledged (`{"via": "push"}` from a notification).',
        tags: ['Feed'],
        security: userSecurity,
        responses: {
          ...problems(...BODY_PROBLEMS, 401, 403, 503),
          404: problem(404, 'No such workspace (of mine), or no receipt of this id in it that I may see (of an event sent `to` others, for a member who is neither its recipient nor an owner or admin).'),
          409: problem(409, 'Already acknowledged (the detail names by whom), cancelled or expired.'),
        },
      },
    },
  )
