// Operator API: create, list and revoke a workspace's API keys.
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { Sql } from '../../core/db'
import { createApiKey, listApiKeys, revokeKey } from '../../accounts/workspaces'
import { KeyIdParam, WorkspaceParam, WorkspaceParams } from './input'
import { operatorDetail as detail, workspaceIdOf } from './admin_auth'
import { BODY_PROBLEMS, done, problem, problems } from '../openapi'

export const ApiKeySchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first 12 characters of the key, to recognise it.' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}, { $id: 'ApiKey' })

const Params = WorkspaceParams

/** The answer past the cap on live keys, on the user API and the operator API. */
export const KEY_LIMIT = problem(409, 'The workspace has HERALD_MAX_API_KEYS_PER_WORKSPACE live API keys (limit-reached): revoke one first.')

/** `maxKeys`: HERALD_MAX_API_KEYS_PER_WORKSPACE. */
export const adminKeysRoute = (sql: Sql, keysChanged: (workspaceId: number) => void, maxKeys: number) => {
  const workspaceId = workspaceIdOf(sql)

  return new Elysia({ name: 'route.admin.keys', prefix: '/admin/workspaces/:workspace/keys' })
    .post(
      '',
      async ({ params, body, set }) => {
        const key = await createApiKey(sql, await workspaceId(params.workspace), body?.name ?? '', maxKeys)
        set.status = 201
        return { id: key.id, prefix: key.prefix, apiKey: key.apiKey }
      },
      {
        params: Params,
        body: Type.Optional(Type.Object({ name: Type.Optional(Type.String({ maxLength: 100, description: 'A label, such as "production".' })) }, { $id: 'OperatorCreateApiKeyBody', additionalProperties: false })),
        response: { 201: Type.Object({ id: Type.Integer(), prefix: Type.String(), apiKey: Type.String({ description: 'Shown once; only its hash is stored.' }) }, { $id: 'OperatorCreatedApiKey' }) },
        detail: detail('Create an API key', 'The key is in the answer, and never again. The body may be left out. A workspace has at most HERALD_MAX_API_KEYS_PER_WORKSPACE live keys; revoked keys do not count.', { ...problems(...BODY_PROBLEMS), 409: KEY_LIMIT }),
      },
    )
    .get('', async ({ params }) => listApiKeys(sql, await workspaceId(params.workspace)), {
      params: Params,
      response: { 200: Type.Array(ApiKeySchema) },
      detail: detail('List API keys by prefix, with creation, last use and revocation', 'Revoked keys included, with when they were revoked.', problems(400)),
    })
    .delete(
      '/:id',
      async ({ params, set }) => {
        await revokeKey(sql, keysChanged, await workspaceId(params.workspace), params.id)
        set.status = 204
      },
      {
        params: Type.Object({ workspace: WorkspaceParam, id: KeyIdParam }),
        detail: detail('Revoke an API key', 'Takes effect at once on every instance that hears it over NATS (and on the embedded default); an instance that does not (no NATS, or NATS away) within API_KEY_CACHE_TTL_MS (at most 5 s).', {
          204: done('Revoked.'),
          ...problems(400),
          404: problem(404, 'No such workspace, or no live API key of this id in it; or no operator API.'),
        }),
      },
    )
}
