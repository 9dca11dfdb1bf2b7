// A receipt read by a member of its workspace (the dashboard's event page and
// feed cards): GET /v1/workspaces/{ws}/receipts/{receipt}, a session or an app
// token. The same receipt read with the API key, and its cancel and
// acknowledgement, are routes/receipts.ts.
import { Type } from '@sinclair/typebox'
import type { AccessCheck } from '../../accounts/access'
import { userSecurity, type UserAuth } from '../../accounts/session'
import type { ReceiptOps } from '../../delivery/receipt_ops'
import { routeGroup } from './group'
import { Uuid, WorkspaceParam } from './input'
import { ReceiptSchema } from './receipts'
import { problem, problems } from '../openapi'

export const receiptReadRoute = ({ users, check, receipts }: { users: UserAuth; check: AccessCheck; receipts: Pick<ReceiptOps, 'read'> }) =>
  routeGroup({ name: 'route.receipt-read', prefix: '/v1', guard: users.authenticate }).get(
    '/workspaces/:workspace/receipts/:receipt',
    async ({ request, params }) => {
      const { session, access } = await check(request, params.workspace)
      return receipts.read(access.workspaceId, params.receipt, { userId: session.userId, workspaceId: access.workspaceId })
    },
    {
      params: Type.Object({ workspace: WorkspaceParam, receipt: Uuid('receipt', 'The receipt\'s id (the event\'s `receipt`).') }),
      response: { 200: ReceiptSchema },
      detail: {
        summary: 'Read a receipt as a member',
        description: 'Its state, who acknowledged it and how, and its pushes so far: what the dashboard shows on the event\'s page and in the feed.',
        tags: ['Feed'],
        security: userSecurity,
        responses: {
          ...problems(400, 401, 503),
          404: problem(404, 'No such workspace (of mine), or no receipt of this id in it that I may see (of an event sent `to` others, for a member who is neither its recipient nor an owner or admin).'),
        },
      },
    },
  )
