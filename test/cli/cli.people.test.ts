// `herald member …`, `herald channel …` and `herald invite`, run as child
// processes against a real Herald: what the dashboard does for a workspace's
// people, done by the operator, who is nobody in the workspace (any role,
// anyone removed but the last owner; mutes name their member; invitations
// without an inviter).
import { describe, expect, test } from 'bun:test'
import { ADMIN_TOKEN, useTestHerald } from '../harness'
import { eventually } from '../receiver'
import { bearerCall, newEmail, signUp } from '../users'
import { herald, USAGE_ERROR, type Run } from './run'

describe('herald member, channel and invite', () => {
  const h = useTestHerald('embedded')
  const op = (...args: string[]): Promise<Run> => herald(args, { HERALD_URL: h.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN })

  const members = async (ws: string) => (await (await h.admin('GET', `/admin/workspaces/${ws}/members`)).json()) as { email: string; role: string; mutedChannels: string[]; userId: string }[]

  describe('member', () => {
    test('add prints the user id and a device token once; the token works', async () => {
      const { name: ws } = await h.workspace()
      const email = newEmail('member')
      const r = await op('member', 'add', ws, email, '--role', 'admin')
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`^Added ${email.replace(/[.+]/g, '\\$&')} to workspace ${ws} as admin \\(user id [0-9a-f-]{36}\\)\\.$`, 'm'))
      expect(r.stdout).toContain('shown only this once')
      const token = /^ {4}(hrlu_\S+)$/m.exec(r.stdout)![1]!
      expect((await bearerCall(h, token)('GET', `/v1/workspaces/${ws}/members`)).status).toBe(200)
      expect(await members(ws)).toMatchObject([{ email, role: 'admin' }])
    })

    test('list prints a table, or JSON', async () => {
      const { name: ws } = await h.workspace()
      expect((await op('member', 'list', ws)).stdout).toStartWith(`Workspace ${ws} has no members.`)
      const a = newEmail('a')
      await op('member', 'add', ws, a, '--role', 'owner')
      const r = await op('member', 'list', ws)
      expect(r.code).toBe(0)
      const lines = r.stdout.trimEnd().split('\n')
      expect(lines[0]).toMatch(/^EMAIL\s+ROLE\s+DEVICES\s+MUTED CHANNELS\s+USER ID\s+SINCE \(UTC\)$/)
      expect(lines[1]).toMatch(new RegExp(`^${a.replace(/[.+]/g, '\\$&')}\\s+owner\\s+0\\s+-\\s+[0-9a-f-]{36}\\s+\\d{4}-`))
      expect(JSON.parse((await op('member', 'list', ws, '--json')).stdout)).toMatchObject([{ email: a, role: 'owner' }])
    })

    test('role changes any role by e-mail or user id; the last owner stays one', async () => {
      const { name: ws } = await h.workspace()
      const owner = newEmail('owner')
      const other = newEmail('other')
      await op('member', 'add', ws, owner, '--role', 'owner')
      await op('member', 'add', ws, other)
      const r = await op('member', 'role', ws, other.toUpperCase(), 'owner')
      expect(r.code).toBe(0)
      expect(r.stdout).toBe(`${other} is now an owner of workspace ${ws} (was member).\n`)
      const ownerId = (await members(ws)).find((m) => m.email === owner)!.userId
      expect((await op('member', 'role', ws, ownerId, 'admin', '--json')).code).toBe(0)
      const last = await op('member', 'role', ws, other, 'member')
      expect(last.code).toBe(1)
      expect(last.stderr).toBe('error: This is the last owner of the workspace: make someone else owner first.\n')
      expect(await members(ws)).toMatchObject([{ email: owner, role: 'admin' }, { email: other, role: 'owner' }])
    })

    test('remove takes anyone but the last owner', async () => {
      const { name: ws } = await h.workspace()
      const owner = newEmail('owner')
      const gone = newEmail('gone')
      await op('member', 'add', ws, owner, '--role', 'owner')
      await op('member', 'add', ws, gone)
      const r = await op('member', 'remove', ws, gone)
      expect(r.code).toBe(0)
      expect(r.stdout).toBe(`Removed ${gone} from workspace ${ws}.\n`)
      const last = await op('member', 'remove', ws, owner)
      expect(last.code).toBe(1)
      expect(last.stderr).toContain('last owner')
      expect((await members(ws)).map((m) => m.email)).toEqual([owner])
    })

    test('errors: an unknown member or workspace exits 1; a bad role or duplicate is refused', async () => {
      const { name: ws } = await h.workspace()
      const nobody = await op('member', 'remove', ws, 'nobody@example.com')
      expect(nobody.code).toBe(1)
      expect(nobody.stderr).toBe(`error: nobody@example.com is not a member of workspace ${ws}.\n`)
      expect((await op('member', 'list', 'no-such-ws')).stderr).toBe('error: There is no workspace named "no-such-ws".\n')
      const email = newEmail('dup')
      await op('member', 'add', ws, email)
      const dup = await op('member', 'add', ws, email)
      expect(dup.code).toBe(1)
      expect(dup.stderr).toContain('is already a member')
      const role = await op('member', 'role', ws, email, 'king')
      expect(role.code).toBe(2)
      expect(role.stderr).toMatch(USAGE_ERROR)
      expect(role.stderr).toStartWith('error: the role must be member, admin or owner, got "king"')
    })
  })

  describe('channel', () => {
    test('create, list, rename; the default follows a rename', async () => {
      const { name: ws, apiKey } = await h.workspace()
      const c = await op('channel', 'create', ws, 'deploys')
      expect(c.code).toBe(0)
      expect(c.stdout).toBe(`Created channel deploys in workspace ${ws}.\n`)
      const list = await op('channel', 'list', ws)
      const rows = list.stdout.trimEnd().split('\n').map((l) => l.split(/\s{2,}/))
      expect(rows.map((r) => r.slice(0, 3))).toEqual([
        ['CHANNEL', 'DEFAULT', 'MUTED BY'],
        ['deploys', 'no', '-'],
        ['general', 'yes', '-'],
      ])
      const renamed = await op('channel', 'rename', ws, 'general', 'main')
      expect(renamed.code).toBe(0)
      expect(renamed.stdout).toStartWith(`Renamed channel general to main in workspace ${ws}.`)
      expect(JSON.parse((await op('channel', 'list', ws, '--json')).stdout)).toMatchObject([
        { slug: 'deploys', isDefault: false, mutedBy: [] },
        { slug: 'main', isDefault: true, mutedBy: [] },
      ])
      // The API key's cached default channel was dropped: an event without a channel goes to main at once.
      expect((await (await h.post(apiKey, { message: 'x' })).json()).channel).toBe('main')
      const dup = await op('channel', 'create', ws, 'deploys')
      expect(dup.code).toBe(1)
      expect(dup.stderr).toBe('error: The channel deploys exists.\n')
    })

    test('mute and unmute a channel for one member', async () => {
      const { name: ws } = await h.workspace()
      const jane = newEmail('jane')
      await op('member', 'add', ws, jane)
      await op('channel', 'create', ws, 'noisy')
      const m = await op('channel', 'mute', ws, 'noisy', '--member', jane)
      expect(m.code).toBe(0)
      expect(m.stdout).toBe(`Muted channel noisy for ${jane}: their devices get no pushes for its events.\n`)
      expect((await members(ws))[0]!.mutedChannels).toEqual(['noisy'])
      expect(JSON.parse((await op('channel', 'list', ws, '--json')).stdout).find((c: { slug: string }) => c.slug === 'noisy').mutedBy).toEqual([jane])
      const u = await op('channel', 'mute', ws, 'noisy', '--member', jane, '--unmute', '--json')
      expect(JSON.parse(u.stdout)).toMatchObject({ channel: 'noisy', email: jane, muted: false })
      expect((await members(ws))[0]!.mutedChannels).toEqual([])
    })

    test('mute errors: no --member is a usage error; an unknown channel or member exits 1', async () => {
      const { name: ws } = await h.workspace()
      const jane = newEmail('jane')
      await op('member', 'add', ws, jane)
      const none = await op('channel', 'mute', ws, 'general')
      expect(none.code).toBe(2)
      expect(none.stderr).toMatch(USAGE_ERROR)
      const channel = await op('channel', 'mute', ws, 'nope', '--member', jane)
      expect(channel.code).toBe(1)
      expect(channel.stderr).toBe('error: There is no channel nope.\n')
      const member = await op('channel', 'mute', ws, 'general', '--member', 'stranger@example.com')
      expect(member.code).toBe(1)
      expect(member.stderr).toContain('is not a member')
      const bad = await op('channel', 'create', ws, 'Not A Slug')
      expect(bad.code).toBe(1)
      expect(bad.stderr).toStartWith('error: slug must be a channel slug')
    })
  })

  describe('invite', () => {
    test('prints the link and e-mails it; accepting it makes a member with the role; no inviter', async () => {
      const { name: ws } = await h.workspace()
      const owner = newEmail('owner')
      const ownerToken = /^ {4}(hrlu_\S+)$/m.exec((await op('member', 'add', ws, owner, '--role', 'owner')).stdout)![1]!
      const email = newEmail('invited')
      const r = await op('invite', ws, email, '--role', 'admin')
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`^Invited ${email.replace(/[.+]/g, '\\$&')} to workspace ${ws} as admin; the link works once, until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC:\\n\\n {4}http://\\S+/invite/([A-Za-z0-9_-]+)\\n$`))
      const token = /\/invite\/([A-Za-z0-9_-]+)$/m.exec(r.stdout)![1]!
      const mail = await eventually(async () => h.mails!.find((m) => m.to.includes(email)), 10_000, 'the invitation e-mail')
      expect(mail.headers.subject).toBe(`You are invited to ${ws} on Herald`)
      expect(mail.body).toContain(`/invite/${token}`)
      expect(mail.body).toContain('as an admin')
      const invitations = await (await bearerCall(h, ownerToken)('GET', `/v1/workspaces/${ws}/invitations`)).json()
      expect(invitations).toMatchObject([{ email, role: 'admin', invitedBy: null, status: 'pending' }])
      await signUp(h, { email, invitation: token })
      expect((await members(ws)).find((m) => m.email === email)).toMatchObject({ role: 'admin' })
    })

    test('--json; the role defaults to member; a bad address exits 1', async () => {
      const { name: ws } = await h.workspace()
      const email = newEmail('j')
      const r = await op('invite', ws, email, '--json')
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout)).toMatchObject({ email, role: 'member', link: expect.stringMatching(/\/invite\//) })
      const bad = await op('invite', ws, 'not-an-address')
      expect(bad.code).toBe(1)
      expect(bad.stderr).toStartWith('error: email must be an e-mail address')
      const unknown = await op('invite', 'no-such-ws', email)
      expect(unknown.stderr).toBe('error: There is no workspace named "no-such-ws".\n')
    })
  })
})
