// `to` on POST /event and on each event of POST /events: up to 100 members by
// e-mail (any case) or user:<id>, resolved to their user ids at ingest and
// stored as the event's `to`. A recipient who is not a member is dropped and
// reported in `errors`; none left, an empty or oversized list, an entry that
// is neither an e-mail nor user:<uuid>, or one person named twice (in
// another case, or by e-mail and by id) is a 400 at its pointer.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { newEmail, signUp, type Person } from '../users'
import { accepted, expectFieldError, postBatch, postEvent, readEvent, type Via } from '../support'

const routes: Via[] = ['handle', 'batch']

for (const backend of backends) {
  describe(`to: sending an event to people (${backend})`, () => {
    const h = useTestHerald(backend)
    let owner: Person
    let member: Person
    let outsider: Person
    let key: string

    /** Invites `email` as a member and signs them up with the link. */
    async function join(): Promise<Person> {
      const email = newEmail('member')
      const res = await owner.call('POST', `/v1/workspaces/${owner.workspace}/invitations`, { email, role: 'member' })
      expect(res.status).toBe(201)
      const { link } = (await res.json()) as { link: string }
      return { ...(await signUp(h, { email, invitation: link.split('/invite/')[1]! })), workspace: owner.workspace }
    }

    beforeAll(async () => {
      owner = await signUp(h)
      member = await join()
      outsider = await signUp(h)
      key = ((await (await owner.call('POST', `/v1/workspaces/${owner.workspace}/keys`, { name: 'to' })).json()) as { apiKey: string }).apiKey
    }, 30_000)

    const stored = async (via: Via, id: string) => {
      const res = await readEvent(h, via === 'batch' ? 'handle' : via, key, id)
      expect(res.status).toBe(200)
      return (await res.json()) as { to: string[] | null; recipients: { userId: string; email: string }[] | null }
    }

    for (const via of routes) {
      test(`${via}: e-mails in any case and user ids resolve to the members' ids, in the order given`, async () => {
        const r = await accepted(h, via, key, { message: 'for two', to: [member.email.toUpperCase(), `user:${owner.userId.toUpperCase()}`] })
        expect(r.errors).toBeUndefined()
        const e = await stored(via, r.eventId)
        expect(e.to).toEqual([member.userId, owner.userId])
        expect(e.recipients!.map((x) => x.email).sort()).toEqual([member.email, owner.email].sort())
      })

      test(`${via}: without to (or with null) the event is the channel's: to is null`, async () => {
        for (const body of [{ message: 'for all' }, { message: 'for all', to: null }]) {
          const e = await stored(via, (await accepted(h, via, key, body)).eventId)
          expect(e.to).toBeNull()
          expect(e.recipients).toBeNull()
        }
      })

      test(`${via}: recipients who are not members are dropped and reported in errors`, async () => {
        const r = await accepted(h, via, key, { message: 'some are strangers', to: [outsider.email, member.email, 'nobody-at-all@example.com', 'user:0196f3c2-5b1e-7c2a-9d4e-3f2a1b0c9d8e'] })
        expect(r.errors).toHaveLength(3)
        expect(r.errors![0]).toContain('to[0]')
        expect(r.errors![0]).toContain(outsider.email)
        expect(r.errors!.join('\n')).toContain('to[2]')
        expect(r.errors!.join('\n')).toContain('to[3]')
        expect((await stored(via, r.eventId)).to).toEqual([member.userId])
      })

      test(`${via}: nobody left is a 400 at /to, and nothing is stored`, async () => {
        const before = ((await (await owner.call('GET', `/v1/feed?workspace=${owner.workspace}&q=strangers-only`)).json()) as { events: unknown[] }).events.length
        const e = await expectFieldError(await postEvent(h, via, key, { message: 'strangers-only', to: [outsider.email, 'nobody-at-all@example.com'] }), '/to')
        expect(e.pointer).toBe('/to')
        const after = ((await (await owner.call('GET', `/v1/feed?workspace=${owner.workspace}&q=strangers-only`)).json()) as { events: unknown[] }).events.length
        expect(after).toBe(before)
      })

      const bad: [string, unknown, string][] = [
        ['not an array', 'jane@example.com', '/to'],
        ['an object', { email: 'jane@example.com' }, '/to'],
        ['empty', [], '/to'],
        ['101 entries', Array.from({ length: 101 }, (_, i) => `p${i}@example.com`), '/to'],
        ['an empty string', ['ok@example.com', ''], '/to/1'],
        ['blank', ['   '], '/to/0'],
        ['a number', [42], '/to/0'],
        ['null inside', [null], '/to/0'],
        ['neither an e-mail nor user:<id>', ['jane'], '/to/0'],
        ['a user id that is no uuid', ['user:42'], '/to/0'],
        ['a bare uuid', ['0196f3c2-5b1e-7c2a-9d4e-3f2a1b0c9d8e'], '/to/0'],
        ['an address with a space', ['jane doe@example.com'], '/to/0'],
        ['an address over 254 characters', [`${'a'.repeat(250)}@example.com`], '/to/0'],
        ['one e-mail twice in another case', ['Jane@Example.com', 'x@example.com', 'jane@example.COM'], '/to/2'],
        ['one user id twice in another case', ['user:0196F3C2-5B1E-7C2A-9D4E-3F2A1B0C9D8E', 'user:0196f3c2-5b1e-7c2a-9d4e-3f2a1b0c9d8e'], '/to/1'],
      ]
      for (const [what, to, pointer] of bad) {
        test(`${via}: ${what} is a 400 at ${pointer}`, async () => {
          const e = await expectFieldError(await postEvent(h, via, key, { message: 'bad to', to }), pointer)
          expect(e.pointer).toBe(pointer)
        })
      }

      test(`${via}: one member named by e-mail and by user id is a 400 naming both entries`, async () => {
        const e = await expectFieldError(await postEvent(h, via, key, { message: 'twice', to: [member.email, owner.email, `user:${member.userId}`] }), '/to/2')
        expect(e.detail).toContain('to[0]')
        expect(e.detail).toContain('/to/0')
      })

      test(`${via}: 100 recipients are taken (the members among them kept)`, async () => {
        const to = [member.email, ...Array.from({ length: 99 }, (_, i) => `stranger${i}@example.com`)]
        const r = await accepted(h, via, key, { message: 'a hundred', to })
        expect(r.errors).toHaveLength(99)
        expect((await stored(via, r.eventId)).to).toEqual([member.userId])
      })
    }

    test('POST /events judges each event\'s to on its own', async () => {
      const res = await postBatch(h, 'handle', key, [
        { message: 'to a member', to: [member.email] },
        { message: 'to nobody', to: [outsider.email] },
        { message: 'to all' },
        { message: 'bad', to: ['??'] },
        { message: 'to the owner', to: [`user:${owner.userId}`, 'gone@example.com'] },
      ])
      expect(res.status).toBe(200)
      const { results } = (await res.json()) as { results: Record<string, any>[] }
      expect(results.map((r) => r.status ?? 200)).toEqual([200, 400, 200, 400, 200])
      expect(results[1]!.errors[0].pointer).toBe('/events/1/to')
      expect(results[3]!.errors[0].pointer).toBe('/events/3/to/0')
      expect(results[4]!.errors).toEqual([expect.stringContaining('to[1]')])
      expect((await stored('handle', results[0]!.eventId)).to).toEqual([member.userId])
      expect((await stored('handle', results[2]!.eventId)).to).toBeNull()
      expect((await stored('handle', results[4]!.eventId)).to).toEqual([owner.userId])
    })
  })
}
