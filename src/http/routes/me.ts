// Who am I: the signed-in person, the workspaces they belong to (with their
// role in each), and a web session's CSRF token, which the dashboard sends
// back in X-CSRF-Token with every change.
import { Type } from '@sinclair/typebox'
import { userSecurity, type UserAuth } from '../../accounts/session'
import type { listMyWorkspaces } from '../../accounts/members'
import { routeGroup } from './group'
import { MyWorkspace } from './auth'
import { problems } from '../openapi'

/** `myWorkspaces`: the workspaces a person belongs to, with their role (accounts/members.ts). */
export const meRoute = ({ users, myWorkspaces }: { users: UserAuth; myWorkspaces: (userId: string) => ReturnType<typeof listMyWorkspaces> }) =>
  routeGroup({ name: 'route.me', prefix: '/v1', guard: users.authenticate }).get(
    '/me',
    async ({ request }) => {
      const session = await users.authenticate(request)
      return {
        userId: session.userId,
        email: session.email,
        ...(session.kind === 'web' && session.csrf ? { csrf: session.csrf } : {}),
        workspaces: await myWorkspaces(session.userId),
      }
    },
    {
      response: { 200: Type.Object({ userId: Type.String(), email: Type.String(), csrf: Type.Optional(Type.String()), workspaces: Type.Array(MyWorkspace) }, { $id: 'Me' }) },
      detail: {
        summary: 'Who am I',
        description: 'The signed-in person, the workspaces they belong to, and (for a web session) the CSRF token.',
        tags: ['Accounts'],
        security: userSecurity,
        responses: problems(401, 503),
      },
    },
  )
