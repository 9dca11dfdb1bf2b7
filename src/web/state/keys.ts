// A workspace's API keys: listed live ones first, generated (the key is in
// the answer, and only there), revoked.
import type { Api, Schemas } from '../api'

export type ApiKey = Schemas['ApiKey']
export type CreatedKey = Schemas['CreatedApiKey']

/** The live keys, then the revoked ones, each in the API's order. */
export const liveFirst = (keys: ApiKey[]) => [...keys.filter((k) => !k.revokedAt), ...keys.filter((k) => k.revokedAt)]

export const listKeys = async (api: Api, workspace: string) => liveFirst(await api.get('/v1/workspaces/{workspace}/keys', { path: { workspace } }))

export const generateKey = (api: Api, workspace: string, name: string) => api.post('/v1/workspaces/{workspace}/keys', { path: { workspace }, body: { name: name.trim() } })

/** Code that uses the key stops being able to send events within seconds. */
export const revokeKey = (api: Api, workspace: string, id: number) => api.delete('/v1/workspaces/{workspace}/keys/{id}', { path: { workspace, id } })
