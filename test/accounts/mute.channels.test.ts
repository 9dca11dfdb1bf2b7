// Muting is for channels that exist, on every backend: muting a channel the
// workspace does not have is a 404 problem naming it, and nothing is stored
// or listed (a member could otherwise store mutes without end: 300 in 0.7 s).
// A real channel is muted as before. A mute raced by the channel's deletion
// is either refused or deleted with the channel: never a mute of a channel
// that is gone.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { bearerCall, signUp, type Call, type Person } from '../users'
import { expectProblem } from '../support'

for (const backend of backends) {
  describe(`muting a channel (${backend})`, () => {
    const h = useTestHerald(backend)
    let owner: Person
    let member: { userId: string; call: Call }

    beforeAll(async () => {
      owner = await signUp(h)
      const res = await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email: `muter-${Date.now()}@example.com` })
      expect(res.status).toBe(201)
      const { userId, userToken } = (await res.json()) as { userId: string; userToken: string }
      member = { userId, call: bearerCall(h, userToken) }
    }, 30_000)

    const mutedChannels = async () => {
      const list = (await (await owner.call('GET', `/v1/workspaces/${owner.workspace}/members`)).json()) as { userId: string; mutedChannels: string[] }[]
      return list.find((m) => m.userId === member.userId)!.mutedChannels
    }
    const storedMutes = async () => (await h.db.sql<{ channel: string }[]>`SELECT channel FROM channel_mutes WHERE user_id = ${member.userId} ORDER BY channel`).map((r) => r.channel)

    test('a channel that does not exist: 404 naming it, and nothing stored or listed', async () => {
      const problem = await expectProblem(await member.call('PUT', `/v1/workspaces/${owner.workspace}/channels/no-such-channel/mute`), 404, 'not-found')
      expect(problem.detail).toContain('no-such-channel')
      // Many at once: each refused, none kept.
      const many = await Promise.all(Array.from({ length: 40 }, (_, i) => member.call('PUT', `/v1/workspaces/${owner.workspace}/channels/ghost-${i}/mute`)))
      expect(many.map((r) => r.status)).toEqual(Array(40).fill(404))
      expect(await storedMutes()).toEqual([])
      expect(await mutedChannels()).toEqual([])
      // The operator's mute of a member refuses it too.
      await expectProblem(await h.admin('PUT', `/admin/workspaces/${owner.workspace}/channels/no-such-channel/mutes/${member.userId}`), 404, 'not-found')
      expect(await storedMutes()).toEqual([])
    })

    test('a channel that exists is muted (twice is no error) and listed; unmuting removes it', async () => {
      expect((await owner.call('POST', `/v1/workspaces/${owner.workspace}/channels`, { slug: 'deploys' })).status).toBe(201)
      expect((await member.call('PUT', `/v1/workspaces/${owner.workspace}/channels/deploys/mute`)).status).toBe(204)
      expect((await member.call('PUT', `/v1/workspaces/${owner.workspace}/channels/deploys/mute`)).status).toBe(204)
      expect((await member.call('PUT', `/v1/workspaces/${owner.workspace}/channels/general/mute`)).status).toBe(204)
      const these = async () => (await mutedChannels()).filter((c) => c === 'deploys' || c === 'general')
      expect(await these()).toEqual(['deploys', 'general'])
      expect((await member.call('DELETE', `/v1/workspaces/${owner.workspace}/channels/deploys/mute`)).status).toBe(204)
      expect((await member.call('DELETE', `/v1/workspaces/${owner.workspace}/channels/general/mute`)).status).toBe(204)
      expect(await these()).toEqual([])
    })

    test('muting while the channel is deleted: 204 or 404, and no mute outlives its channel', async () => {
      for (let i = 0; i < 12; i++) {
        const slug = `brief-${i}`
        expect((await owner.call('POST', `/v1/workspaces/${owner.workspace}/channels`, { slug })).status).toBe(201)
        const [muted, deleted] = await Promise.all([
          member.call('PUT', `/v1/workspaces/${owner.workspace}/channels/${slug}/mute`),
          owner.call('DELETE', `/v1/workspaces/${owner.workspace}/channels/${slug}`),
        ])
        expect([204, 404]).toContain(muted.status)
        expect(deleted.status).toBe(204)
        const orphans = await h.db.sql`
          SELECT m.channel FROM channel_mutes m
          WHERE m.channel LIKE 'brief-%' AND NOT EXISTS (SELECT 1 FROM channels c WHERE c.workspace_id = m.workspace_id AND c.slug = m.channel)`
        expect([...orphans]).toEqual([])
      }
      expect((await mutedChannels()).filter((c) => c.startsWith('brief-'))).toEqual([])
    }, 60_000)
  })
}
