// The channels state (src/web/state/channels.ts), as the channels and
// notifications pages use it, against a real Herald with a real web session.
// The cursor pager it reads with has its own test: pager.state.test.ts.
import { describe, expect, test } from 'bun:test'
import { ApiError } from '../../src/web/api'
import { channelChanges, channelPages, searchHref } from '../../src/web/state/channels'
import { backends, useTestHerald } from '../harness'
import { signUpWeb } from './signed_in'

test('searchHref: the search trimmed and lower-case in the address, none when empty', () => {
  expect(searchHref('my ws', '  Sign Ups ')).toBe('/w/my%20ws/channels?q=sign%20ups')
  expect(searchHref('acme', '   ')).toBe('/w/acme/channels')
})

for (const backend of backends) {
  describe(`channels state against Herald (${backend})`, () => {
    const h = useTestHerald(backend)

    test('pages through the channels in slug order, and finds them by slug', async () => {
      const { api, workspace } = await signUpWeb(h, 'channels')
      const change = channelChanges(api, workspace)
      for (const slug of ['x-3', 'x-1', 'x-5', 'x-2', 'x-4']) await change.create(slug)
      const all = channelPages(api, workspace, '', 2)
      const seen = [...(await all.first())]
      while (all.more) seen.push(...(await all.next()))
      expect(seen.map((c) => c.slug)).toEqual(['general', 'x-1', 'x-2', 'x-3', 'x-4', 'x-5'])
      expect(seen.filter((c) => c.isDefault).map((c) => c.slug)).toEqual(['general'])

      const found = channelPages(api, workspace, 'x-', 3)
      expect((await found.first()).map((c) => c.slug)).toEqual(['x-1', 'x-2', 'x-3'])
      expect(found.more).toBe(true)
      expect((await found.next()).map((c) => c.slug)).toEqual(['x-4', 'x-5'])
      expect(found.more).toBe(false)
      expect(await channelPages(api, workspace, 'nothing-like-it').first()).toEqual([])
    })

    test('renames, makes default, mutes for me and deletes', async () => {
      const { api, workspace } = await signUpWeb(h, 'channels-change')
      const change = channelChanges(api, workspace)
      const read = async () => Object.fromEntries((await channelPages(api, workspace).first()).map((c) => [c.slug, c]))
      await change.create('ops')
      await change.rename('ops', 'alerts')
      expect(Object.keys(await read())).toEqual(['alerts', 'general'])
      await change.makeDefault('alerts')
      expect((await read()).alerts!.isDefault).toBe(true)
      expect((await read()).general!.isDefault).toBe(false)
      await change.setMuted('general', true)
      expect((await read()).general!.muted).toBe(true)
      await change.setMuted('general', false)
      expect((await read()).general!.muted).toBe(false)
      // The default channel cannot be deleted; another can.
      const refused = (await change.remove('alerts').catch((e: unknown) => e)) as ApiError
      expect(refused).toBeInstanceOf(ApiError)
      expect(refused.status).toBe(409)
      await change.remove('general')
      expect(Object.keys(await read())).toEqual(['alerts'])
    })
  })
}
