// A workspace's API keys, for signed-in people: owners and admins create
// (seen once) and revoke; members see the list by prefix.
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import type { AccessCheck } from '../../accounts/access'
import { userSecurity } from '../../accounts/session'
import { createApiKey, listApiKeys, revokeKey } from '../../accounts/workspaces'
import { ApiKeySchema, KEY_LIMIT } from './admin_keys'
import type { UserAuth } from '../../accounts/session'
import { routeGroup } from './group'
import { KeyIdParam, WorkspaceParam, WorkspaceParams } from './input'
import { BODY_PROBLEMS, done, problem, problems, type Responses } from '../openapi'

const Params = WorkspaceParams
// What every route may answer; one that changes something, also a 403 (a role, or a web session's CSRF token).
const ALL = problems(400, 401, 404, 503)
const detail = (summary: string, description: string, responses: Responses = {}) => ({ summary, description, tags: ['API keys'], security: userSecurity, responses: { ...ALL, ...responses } })

/** `maxKeys`: HERALD_MAX_API_KEYS_PER_WORKSPACE. */
export const keysRoute = (sql: Sql, users: UserAuth, keysChanged: (workspaceId: number) => void, check: AccessCheck, maxKeys: number) =>
  routeGroup({ name: 'route.keys', prefix: '/v1/workspaces/:workspace/keys', guard: users.authenticate })
    .get('', async ({ request, params }) => listApiKeys(sql, (await check(request, params.workspace)).access.workspaceId), {
      params: Params,
      response: { 200: Type.Array(ApiKeySchema) },
      detail: detail('List API keys by prefix, with creation, last use and revocation', 'Every member may read the list; revoked keys included.'),
    })
    .post(
      '',
      async ({ request, params, body, set }) => {
        const { access } = await check(request, params.workspace, 'manage')
        const key = await createApiKey(sql, access.workspaceId, body.name.trim(), maxKeys)
        set.status = 201
        return { id: key.id, name: body.name.trim(), prefix: key.prefix, apiKey: key.apiKey }
      },
      {
        params: Params,
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'What the key is for, such as "production".' }) }, { $id: 'CreateApiKeyBody', additionalProperties: false }),
        response: { 201: Type.Object({ id: Type.Integer(), name: Type.String(), prefix: Type.String(), apiKey: Type.String({ description: 'Shown this once; only its hash is stored.' }) }, { $id: 'CreatedApiKey' }) },
        detail: detail('Create an API key', 'The key is in the answer, and never again. Owners and admins. A workspace has at most HERALD_MAX_API_KEYS_PER_WORKSPACE live keys (100 by default); revoked keys do not count.', { ...problems(...BODY_PROBLEMS, 403), 409: KEY_LIMIT }),
      },
    )
    .delete(
      '/:id',
      async ({ request, params, set }) => {
        const { access } = await check(request, params.workspace, 'manage')
        await revokeKey(sql, keysChanged, access.workspaceId, params.id)
        set.status = 204
      },
      {
        params: Type.Object({ workspace: WorkspaceParam, id: KeyIdParam }),
        detail: detail('Revoke an API key', 'Takes effect at once on every instance that hears it over NATS (and on the embedded default); an instance that does not (no NATS, or NATS away) within API_KEY_CACHE_TTL_MS (at most 5 s). Owners and admins.', {
          204: done('Revoked.'),
          ...problems(403),
          404: problem(404, 'No such workspace (of mine), or no live API key of this id in it.'),
        }),
      },
    )
