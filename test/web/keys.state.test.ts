// The API keys page's state (src/web/state/keys.ts) against a real Herald:
// a key generated works for POST /event and is listed by its prefix, a
// revoked one is listed after the live ones and stops working.
import { describe, expect, test } from 'bun:test'
import { generateKey, listKeys, liveFirst, revokeKey, type ApiKey } from '../../src/web/state/keys'
import { backends, useTestHerald } from '../harness'
import { eventually } from '../receiver'
import { signUpWeb } from './signed_in'

test('live keys first, then revoked ones, each in the order given', () => {
  const key = (id: number, revokedAt: string | null): ApiKey => ({ id, name: `k${id}`, prefix: 'hrl_', createdAt: '', lastUsedAt: null, revokedAt })
  expect(liveFirst([key(1, 'x'), key(2, null), key(3, 'y'), key(4, null)]).map((k) => k.id)).toEqual([2, 4, 1, 3])
})

for (const backend of backends) {
  describe(`keys state against Herald (${backend})`, () => {
    const h = useTestHerald(backend, { API_KEY_CACHE_TTL_MS: '100' })

    test('generates a working key, lists it, revokes it', async () => {
      const { api, workspace } = await signUpWeb(h, 'keys')
      const before = await listKeys(api, workspace) // the sign-up's own key, if any
      const first = await generateKey(api, workspace, '  production  ')
      expect(first.name).toBe('production')
      expect(first.apiKey.startsWith(first.prefix)).toBe(true)
      expect((await h.post(first.apiKey, { message: 'hello' })).status).toBe(200)
      const second = await generateKey(api, workspace, 'staging')

      await revokeKey(api, workspace, first.id)
      const keys = await listKeys(api, workspace)
      expect(keys.length).toBe(before.length + 2)
      expect(keys.at(-1)!.id).toBe(first.id) // revoked: last
      expect(keys.at(-1)!.revokedAt).not.toBeNull()
      expect(keys.find((k) => k.id === second.id)!.revokedAt).toBeNull()
      await eventually(async () => (await h.post(first.apiKey, { message: 'again' })).status === 401, 10_000, 'the revoked key refused')
      expect((await h.post(second.apiKey, { message: 'still' })).status).toBe(200)
    })
  })
}
