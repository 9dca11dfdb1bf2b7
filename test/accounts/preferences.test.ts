// A member's preferences on every backend: the document round trips (PUT
// replaces it whole, GET shows it), every bad input is a 400 at its pointer
// and stores nothing, the mute routes and the document are one thing (a
// mute is level none), a rename carries levels, and a removed member's
// preferences go with the membership.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { bearerCall, signUp, type Call, type Person } from '../users'
import { expectFieldError, expectProblem } from '../support'
import { Herald, HeraldError } from '../../clients/typescript/src/index'

for (const backend of backends) {
  describe(`preferences (${backend})`, () => {
    const h = useTestHerald(backend)
    let owner: Person
    let member: { userId: string; call: Call; token: string }
    let path: string

    beforeAll(async () => {
      owner = await signUp(h)
      path = `/v1/workspaces/${owner.workspace}/preferences`
      const res = await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email: `prefs-${Date.now()}@example.com` })
      const { userId, userToken } = (await res.json()) as { userId: string; userToken: string }
      member = { userId, call: bearerCall(h, userToken), token: userToken }
      for (const slug of ['ops', 'deploys', 'marketing']) expect((await owner.call('POST', `/v1/workspaces/${owner.workspace}/channels`, { slug })).status).toBe(201)
    }, 30_000)

    const get = async (call: Call = member.call) => {
      const res = await call('GET', path)
      expect(res.status).toBe(200)
      return res.json()
    }

    test('a member without preferences: no quiet hours, no levels, default all', async () => {
      expect(await get()).toEqual({ quietHours: null, channels: {}, default: 'all' })
    })

    test('round trip: PUT replaces the whole document, GET shows it; the zone as Intl spells it; except defaults to 5', async () => {
      const doc = { quietHours: { timezone: 'Europe/Paris', from: '22:00', to: '07:00', except: 4 }, channels: { ops: 'high', marketing: 'none' }, default: 'all' }
      const put = await member.call('PUT', path, doc)
      expect(put.status).toBe(200)
      expect(await put.json()).toEqual(doc)
      expect(await get()).toEqual(doc)
      // Replaced whole: what is left out takes its default.
      expect((await member.call('PUT', path, { quietHours: { timezone: 'america/new_york', from: '23:30', to: '06:15' }, default: 'urgent' })).status).toBe(200)
      expect(await get()).toEqual({ quietHours: { timezone: 'America/New_York', from: '23:30', to: '06:15', except: 5 }, channels: {}, default: 'urgent' })
      // The owner's are their own.
      expect(await get(owner.call)).toEqual({ quietHours: null, channels: {}, default: 'all' })
      expect((await member.call('PUT', path, {})).status).toBe(200)
      expect(await get()).toEqual({ quietHours: null, channels: {}, default: 'all' })
    })

    test('the client: setPreferences and getPreferences with a user token; a null quietHours is none; a 400 names the field', async () => {
      const client = new Herald({ userToken: member.token, url: h.url })
      const set = await client.setPreferences(owner.workspace, { quietHours: { timezone: 'Pacific/Auckland', from: '21:00', to: '06:00' }, channels: { ops: 'urgent' } })
      expect(set).toEqual({ quietHours: { timezone: 'Pacific/Auckland', from: '21:00', to: '06:00', except: 5 }, channels: { ops: 'urgent' }, default: 'all' })
      expect(await client.getPreferences(owner.workspace)).toEqual(set)
      expect(await client.setPreferences(owner.workspace, { quietHours: null, default: 'high' })).toEqual({ quietHours: null, channels: {}, default: 'high' })
      const err = await client.setPreferences(owner.workspace, { quietHours: { timezone: 'Nowhere/Else', from: '21:00', to: '06:00' } }).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(HeraldError)
      expect((err as HeraldError).status).toBe(400)
      expect((err as HeraldError).errors.map((e) => e.pointer)).toEqual(['/quietHours/timezone'])
      expect((await member.call('PUT', path, { quietHours: null })).status).toBe(200)
      expect(await get()).toEqual({ quietHours: null, channels: {}, default: 'all' })
    })

    test('bad input: a 400 at its pointer for each, and nothing stored', async () => {
      expect((await member.call('PUT', path, { channels: { deploys: 'urgent' } })).status).toBe(200)
      const before = await get()
      const quiet = (over: Record<string, unknown>) => ({ quietHours: { timezone: 'Europe/Paris', from: '22:00', to: '07:00', ...over } })
      const unknownZone = await expectFieldError(await member.call('PUT', path, quiet({ timezone: 'Mars/Olympus_Mons' })), '/quietHours/timezone')
      expect(unknownZone.detail).toContain('Mars/Olympus_Mons')
      await expectFieldError(await member.call('PUT', path, quiet({ timezone: '' })), '/quietHours/timezone')
      await expectFieldError(await member.call('PUT', path, quiet({ from: '24:00' })), '/quietHours/from')
      await expectFieldError(await member.call('PUT', path, quiet({ from: '7:00' })), '/quietHours/from')
      await expectFieldError(await member.call('PUT', path, quiet({ to: '07:60' })), '/quietHours/to')
      await expectFieldError(await member.call('PUT', path, quiet({ to: 700 })), '/quietHours/to')
      await expectFieldError(await member.call('PUT', path, quiet({ to: '22:00' })), '/quietHours/to') // from = to: an empty window
      await expectFieldError(await member.call('PUT', path, quiet({ except: 0 })), '/quietHours/except')
      await expectFieldError(await member.call('PUT', path, quiet({ except: 6 })), '/quietHours/except')
      await expectFieldError(await member.call('PUT', path, quiet({ except: 4.5 })), '/quietHours/except')
      await expectFieldError(await member.call('PUT', path, quiet({ until: '08:00' })), '/quietHours')
      await expectFieldError(await member.call('PUT', path, { channels: { ops: 'loud' } }), '/channels')
      await expectFieldError(await member.call('PUT', path, { default: 'some' }), '/default')
      const missing = await expectFieldError(await member.call('PUT', path, { channels: { ops: 'high', 'no-such-channel': 'none' } }), '/channels/no-such-channel')
      expect(missing.detail).toContain('no-such-channel')
      await expectFieldError(await member.call('PUT', path, { channels: { 'Not A Slug\u0000': 'none' } }), '/channels')
      const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`c${i}`, 'none']))
      await expectFieldError(await member.call('PUT', path, { channels: many }), '/channels')
      await expectProblem(await member.call('PUT', path, '[]'), 400)
      expect(await get()).toEqual(before)
    })

    test('the mute routes are level none: a mute shows in the document, a level none shows as muted', async () => {
      expect((await member.call('PUT', path, { channels: { ops: 'high' } })).status).toBe(200)
      expect((await member.call('PUT', `/v1/workspaces/${owner.workspace}/channels/deploys/mute`)).status).toBe(204)
      expect((await get()).channels).toEqual({ deploys: 'none', ops: 'high' })
      // Muting a channel with a level makes it none; unmuting what is not muted leaves a level alone.
      expect((await member.call('PUT', `/v1/workspaces/${owner.workspace}/channels/ops/mute`)).status).toBe(204)
      expect((await get()).channels).toEqual({ deploys: 'none', ops: 'none' })
      expect((await member.call('DELETE', `/v1/workspaces/${owner.workspace}/channels/ops/mute`)).status).toBe(204)
      expect((await member.call('PUT', path, { channels: { ops: 'high', marketing: 'none' } })).status).toBe(200)
      expect((await member.call('DELETE', `/v1/workspaces/${owner.workspace}/channels/ops/mute`)).status).toBe(204)
      expect((await get()).channels).toEqual({ marketing: 'none', ops: 'high' })
      const channels = (await (await member.call('GET', `/v1/workspaces/${owner.workspace}/channels`)).json()) as { channels: { slug: string; muted: boolean }[] }
      expect(channels.channels.filter((c) => c.muted).map((c) => c.slug)).toEqual(['marketing'])
      const members = (await (await owner.call('GET', `/v1/workspaces/${owner.workspace}/members`)).json()) as { userId: string; mutedChannels: string[] }[]
      expect(members.find((m) => m.userId === member.userId)!.mutedChannels).toEqual(['marketing'])
      // With a default of none, unmuting a channel has it pushed again: level all.
      expect((await member.call('PUT', path, { default: 'none' })).status).toBe(200)
      expect((await member.call('DELETE', `/v1/workspaces/${owner.workspace}/channels/deploys/mute`)).status).toBe(204)
      expect(await get()).toMatchObject({ channels: { deploys: 'all' }, default: 'none' })
    })

    test('a rename carries the levels; a removed member\'s preferences go', async () => {
      expect((await member.call('PUT', path, { quietHours: { timezone: 'UTC', from: '00:00', to: '06:00', except: 5 }, channels: { ops: 'urgent' } })).status).toBe(200)
      expect((await owner.call('PATCH', `/v1/workspaces/${owner.workspace}/channels/ops`, { slug: 'operations' })).status).toBe(200)
      expect((await get()).channels).toEqual({ operations: 'urgent' })
      expect((await owner.call('DELETE', `/v1/workspaces/${owner.workspace}/members/${member.userId}`)).status).toBe(204)
      const left = await h.db.sql`
        SELECT 1 FROM member_preferences WHERE user_id = ${member.userId} UNION ALL SELECT 1 FROM channel_mutes WHERE user_id = ${member.userId}`
      expect(left.length).toBe(0)
      await expectProblem(await member.call('GET', path), 404)
    })
  })
}
