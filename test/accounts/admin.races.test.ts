// Two operator requests at once against every invariant of the operator's
// people and channel routes (the CLI's member, channel and invite
// commands): a workspace keeps an owner, a slug names one channel, no mute
// outlives its membership, and no race ends in a 500.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { bearerCall, newEmail } from '../users'

const ROUNDS = 10
const statuses = async (responses: Promise<Response>[]) => (await Promise.all(responses)).map((r) => r.status).sort()

for (const backend of backends) {
  describe(`operator races (${backend})`, () => {
    const h = useTestHerald(backend)
    let ws: string
    beforeAll(async () => {
      ws = (await h.workspace()).name
    }, 30_000)

    const addMember = async (role: 'owner' | 'admin' | 'member') => {
      const res = await h.admin('POST', `/admin/workspaces/${ws}/members`, { email: newEmail(role), role })
      expect(res.status).toBe(201)
      return ((await res.json()) as { userId: string }).userId
    }
    const owners = async () => ((await (await h.admin('GET', `/admin/workspaces/${ws}/members`)).json()) as { userId: string; role: string }[]).filter((m) => m.role === 'owner')

    test(`the two owners demoted at once: one is, the workspace keeps an owner (${ROUNDS} rounds)`, async () => {
      for (let i = 0; i < ROUNDS; i++) {
        for (const o of await owners()) await h.admin('DELETE', `/admin/workspaces/${ws}/members/${o.userId}`)
        const [a, b] = [await addMember('owner'), await addMember('owner')]
        for (const o of await owners()) if (o.userId !== a && o.userId !== b) await h.admin('DELETE', `/admin/workspaces/${ws}/members/${o.userId}`)
        expect(await statuses([a, b].map((id) => h.admin('PATCH', `/admin/workspaces/${ws}/members/${id}`, { role: 'member' })))).toEqual([200, 409])
        expect(await owners()).toHaveLength(1)
      }
    })

    test('a role changed while the member is removed: 200 or 404, never a 500', async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const id = await addMember('member')
        const [change, remove] = await Promise.all([
          h.admin('PATCH', `/admin/workspaces/${ws}/members/${id}`, { role: 'admin' }),
          h.admin('DELETE', `/admin/workspaces/${ws}/members/${id}`),
        ])
        expect([200, 404]).toContain(change.status)
        expect(remove.status).toBe(204)
      }
    })

    test('through /v1 as well: an owner changing a role while the member leaves gets 200 or 404, never a 500', async () => {
      const add = async (role: string) => (await (await h.admin('POST', `/admin/workspaces/${ws}/members`, { email: newEmail(role), role })).json()) as { userId: string; userToken: string }
      const owner = await add('owner')
      for (let i = 0; i < ROUNDS; i++) {
        const member = await add('member')
        const [change, leave] = await Promise.all([
          bearerCall(h, owner.userToken)('PATCH', `/v1/workspaces/${ws}/members/${member.userId}`, { role: 'admin' }),
          bearerCall(h, member.userToken)('DELETE', `/v1/workspaces/${ws}/members/${member.userId}`),
        ])
        expect([200, 404]).toContain(change.status)
        expect(leave.status).toBe(204)
      }
    })

    test('one slug created twice at once: one 201, one 409; two renames of one channel: one wins', async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const slug = `race-${i}`
        expect(await statuses([1, 2].map(() => h.admin('POST', `/admin/workspaces/${ws}/channels`, { slug })))).toEqual([201, 409])
        const renamed = await statuses([`${slug}-a`, `${slug}-b`].map((to) => h.admin('PATCH', `/admin/workspaces/${ws}/channels/${slug}`, { slug: to })))
        expect(renamed).toEqual([200, 404])
        const slugs = ((await (await h.admin('GET', `/admin/workspaces/${ws}/channels`)).json()) as { channels: { slug: string }[] }).channels.map((c) => c.slug)
        expect(slugs.filter((s) => s.startsWith(`${slug}-`))).toHaveLength(1)
        expect(slugs).not.toContain(slug)
      }
    })

    test('a mute set while the member is removed: 204 or 404, and no mute outlives the membership', async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const id = await addMember('member')
        const [muted] = await Promise.all([
          h.admin('PUT', `/admin/workspaces/${ws}/channels/general/mutes/${id}`),
          h.admin('DELETE', `/admin/workspaces/${ws}/members/${id}`),
        ])
        expect([204, 404]).toContain(muted.status)
        const channels = ((await (await h.admin('GET', `/admin/workspaces/${ws}/channels`)).json()) as { channels: { slug: string; mutedBy: string[] }[] }).channels
        expect(channels.every((c) => c.mutedBy.length === 0)).toBe(true)
      }
    })

    test('one address invited twice at once by the operator: never a 500, at most one open invitation works', async () => {
      const email = newEmail('invitee')
      const answers = await Promise.all([1, 2].map(() => h.admin('POST', `/admin/workspaces/${ws}/invitations`, { email })))
      for (const r of answers) expect([201, 409, 429]).toContain(r.status)
      expect(answers.some((r) => r.status === 201)).toBe(true)
    })
  })
}
