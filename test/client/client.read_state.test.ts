// The client's member side against a real Herald on every backend: the feed
// with each event's status and the unread counts, markRead by ids and by
// "before", archive, and a HeraldError naming the field for a bad id.
import { beforeAll, describe, expect, test } from 'bun:test'
import { HeraldError, HeraldMember } from '../../clients/typescript/src/index'
import { backends, useTestHerald } from '../harness'
import { signUp, type Person } from '../users'

for (const backend of backends) {
  describe(`read state through the client (${backend})`, () => {
    const h = useTestHerald(backend)
    let me: Person
    let member: HeraldMember
    const ids: string[] = []
    beforeAll(async () => {
      me = await signUp(h)
      member = new HeraldMember({ url: h.url, token: me.token })
      const key = ((await (await me.call('POST', `/v1/workspaces/${me.workspace}/keys`, { name: 'k' })).json()) as { apiKey: string }).apiKey
      for (const channel of ['a', 'b', 'a']) ids.push(((await (await h.post(key, { channel, message: channel })).json()) as { eventId: string }).eventId)
    }, 30_000)

    test('feed, markRead, archive', async () => {
      expect((await member.feed(me.workspace)).counts).toEqual({ unread: 3, byChannel: { a: 2, b: 1 } })
      expect((await member.markRead(me.workspace, { eventIds: [ids[0]!] })).eventIds).toEqual([ids[0]!])
      expect((await member.archive(me.workspace, { before: ids[1]!, channel: 'b' })).counts).toEqual({ unread: 1, byChannel: { a: 1 } })
      const unread = await member.feed(me.workspace, { status: 'unread' })
      expect(unread.events.map((e) => e.eventId)).toEqual([ids[2]!])
      expect((await member.markRead(me.workspace, { before: ids[2]! })).counts.unread).toBe(0)
      const err = await member.markRead(me.workspace, { eventIds: ['01900000-0000-7000-8000-000000000000'] }).catch((e: unknown) => e as HeraldError)
      expect(err).toBeInstanceOf(HeraldError)
      expect((err as HeraldError).status).toBe(400)
    })
  })
}
