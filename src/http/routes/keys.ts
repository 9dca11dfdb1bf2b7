// A workspace's API keys, on both APIs (src/http/routes/side.ts): every
// member lists them by prefix; owners and admins, and the operator, create
// one (seen once) and revoke one. The operator may leave the body, and the
// key's name, out.
import { Elysia } from 'elysia'
import { Type, type TSchema } from '@sinclair/typebox'
import { createKey, listKeys, revokeKey } from '../../accounts/key_ops'
import type { Side } from './side'
import { KeyIdParam, WorkspaceParam, WorkspaceParams } from './input'
import { BODY_PROBLEMS, done, problem, problems } from '../openapi'

export const ApiKeySchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first 12 characters of the key, to recognise it.' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}, { $id: 'ApiKey' })

/** The answer past the cap on live keys, on the user API and the operator API. */
export const KEY_LIMIT = problem(409, 'The workspace has HERALD_MAX_API_KEYS_PER_WORKSPACE live API keys (limit-reached): revoke one first.')

type Group = Elysia<any, any, any, any, any, any, any>

export function keysRoute(side: Side) {
  const person = side.kind === 'person'
  const detail = side.documents({ tag: 'API keys', common: problems(400, 401, 404, 503) })
  const list = (g: Group) =>
    g.get('', async ({ request, params }) => listKeys(await side.ctx(request, params.workspace)), {
      params: WorkspaceParams,
      response: { 200: Type.Array(ApiKeySchema) },
      detail: detail(
        'List API keys by prefix, with creation, last use and revocation',
        side.says({ person: 'Every member may read the list; revoked keys included.', operator: 'Revoked keys included, with when they were revoked.' }),
        side.says({ person: {}, operator: problems(400) }),
      ),
    })
  const create = (g: Group) =>
    g.post(
      '',
      async ({ request, params, body, set }): Promise<object> => {
        const name: string = person ? body.name.trim() : body?.name ?? ''
        const key = await createKey(await side.ctx(request, params.workspace), name)
        set.status = 201
        return person ? key : { id: key.id, prefix: key.prefix, apiKey: key.apiKey }
      },
      ({
        params: WorkspaceParams,
        body: side.says<TSchema>({
          person: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'What the key is for, such as "production".' }) }, { $id: 'CreateApiKeyBody', additionalProperties: false }),
          operator: Type.Optional(Type.Object({ name: Type.Optional(Type.String({ maxLength: 100, description: 'A label, such as "production".' })) }, { $id: 'OperatorCreateApiKeyBody', additionalProperties: false })),
        }),
        response: side.says<Record<number, TSchema>>({
          person: { 201: Type.Object({ id: Type.Integer(), name: Type.String(), prefix: Type.String(), apiKey: Type.String({ description: 'Shown this once; only its hash is stored.' }) }, { $id: 'CreatedApiKey' }) },
          operator: { 201: Type.Object({ id: Type.Integer(), prefix: Type.String(), apiKey: Type.String({ description: 'Shown once; only its hash is stored.' }) }, { $id: 'OperatorCreatedApiKey' }) },
        }),
        detail: detail(
          'Create an API key',
          side.says({
            person: 'The key is in the answer, and never again. Owners and admins. A workspace has at most HERALD_MAX_API_KEYS_PER_WORKSPACE live keys (100 by default); revoked keys do not count.',
            operator: 'The key is in the answer, and never again. The body may be left out. A workspace has at most HERALD_MAX_API_KEYS_PER_WORKSPACE live keys; revoked keys do not count.',
          }),
          { ...problems(...BODY_PROBLEMS, ...side.says({ person: [403] as const, operator: [] as const })), 409: KEY_LIMIT },
        ),
      }) as {}, // two sides' schemas: Elysia cannot type their union
    )
  // Each API lists its routes in its own order (the OpenAPI document keeps it).
  const group = side.group({ name: 'route.keys', prefix: `${side.root}/keys` }) as Group
  return (person ? create(list(group)) : list(create(group))).delete(
    '/:id',
    async ({ request, params, set }) => {
      await revokeKey(await side.ctx(request, params.workspace), params.id)
      set.status = 204
    },
    {
      params: Type.Object({ workspace: WorkspaceParam, id: KeyIdParam }),
      detail: detail(
        'Revoke an API key',
        'Takes effect at once on every instance that hears it over NATS (and on the embedded default); an instance that does not (no NATS, or NATS away) within API_KEY_CACHE_TTL_MS (at most 5 s).' + side.says({ person: ' Owners and admins.', operator: '' }),
        {
          204: done('Revoked.'),
          ...problems(side.says({ person: 403, operator: 400 })),
          404: problem(404, side.says({ person: 'No such workspace (of mine), or no live API key of this id in it.', operator: 'No such workspace, or no live API key of this id in it; or no operator API.' })),
        },
      ),
    },
  )
}
