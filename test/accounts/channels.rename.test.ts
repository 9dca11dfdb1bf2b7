// Renaming a channel onto a slug that has mutes stored from before mutes of
// missing channels were refused (a fuzz run found the 500): the stale mutes
// go, the moved ones stay, and the answer is a 200.
import { describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { signUp } from '../users'

for (const backend of backends) {
  describe(`channel rename on ${backend}`, () => {
    const h = useTestHerald(backend)

    test('onto a slug with stale mutes: 200, and the moved mute is kept', async () => {
      const owner = await signUp(h)
      const base = `/v1/workspaces/${owner.workspace}/channels`
      expect((await owner.call('POST', base, { slug: 'alerts' })).status).toBe(201)
      expect((await owner.call('PUT', `${base}/alerts/mute`)).status).toBe(204)
      const [ws] = await h.db.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE name = ${owner.workspace}`
      await h.db.sql`INSERT INTO channel_mutes (workspace_id, user_id, channel) VALUES (${ws!.id}, ${owner.userId}, 'pager')`
      const res = await owner.call('PATCH', `${base}/alerts`, { slug: 'pager' })
      expect(res.status).toBe(200)
      const list = ((await (await owner.call('GET', base)).json()) as { channels: { slug: string; muted: boolean }[] }).channels
      expect(list.find((c) => c.slug === 'pager')?.muted).toBe(true)
      expect(list.some((c) => c.slug === 'alerts')).toBe(false)
    })
  })
}
