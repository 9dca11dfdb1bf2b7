// A workspace's API keys, for signed-in people: owners and admins create
// (seen once) and revoke; members see the list by prefix.
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import type { ApiKeyAuth } from '../../ingest/auth'
import type { AccessCheck } from '../../accounts/access'
import { userSecurity } from '../../accounts/session'
import { HeraldError } from '../../core/problems'
import { insertApiKey, listApiKeys, revokeApiKey } from '../../accounts/workspaces'
import { ApiKeySchema } from './admin_keys'
import type { UserAuth } from '../../accounts/session'
import { routeGroup } from './group'
import { KeyIdParam, WorkspaceParam, WorkspaceParams } from './input'

const Params = WorkspaceParams
const detail = (summary: string, description?: string) => ({ summary, description, tags: ['API keys'], security: userSecurity })

export const keysRoute = (sql: Sql, users: UserAuth, auth: ApiKeyAuth, check: AccessCheck) =>
  routeGroup({ name: 'route.keys', prefix: '/v1/workspaces/:workspace/keys', guard: users.authenticate })
    .get('', async ({ request, params }) => listApiKeys(sql, (await check(request, params.workspace)).access.workspaceId), {
      params: Params,
      response: { 200: Type.Array(ApiKeySchema) },
      detail: detail('List API keys by prefix, with creation, last use and revocation'),
    })
    .post(
      '',
      async ({ request, params, body, set }) => {
        const { access } = await check(request, params.workspace, 'manage')
        const key = await insertApiKey(sql, access.workspaceId, body.name.trim())
        set.status = 201
        return { id: key.id, name: body.name.trim(), prefix: key.prefix, apiKey: key.apiKey }
      },
      {
        params: Params,
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'What the key is for, such as "production".' }) }, { additionalProperties: false }),
        response: { 201: Type.Object({ id: Type.Integer(), name: Type.String(), prefix: Type.String(), apiKey: Type.String({ description: 'Shown this once; only its hash is stored.' }) }) },
        detail: detail('Create an API key', 'The key is in the answer, and never again.'),
      },
    )
    .delete(
      '/:id',
      async ({ request, params, set }) => {
        const { access } = await check(request, params.workspace, 'manage')
        if (!(await revokeApiKey(sql, access.workspaceId, params.id))) throw new HeraldError('not-found', `There is no live API key ${params.id} in this workspace.`)
        auth.clear()
        set.status = 204
      },
      {
        params: Type.Object({ workspace: WorkspaceParam, id: KeyIdParam }),
        detail: detail('Revoke an API key', 'At once here, and within API_KEY_CACHE_TTL_MS (at most 5 s) on every other instance.'),
      },
    )
