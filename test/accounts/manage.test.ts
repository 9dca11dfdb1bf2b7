// The management API as signed-in people use it, on every backend: each
// resource's happy path, bad input, role rules (members read, owners and
// admins manage, only owners make owners) and isolation between workspaces.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { backends, useTestHerald } from '../harness'
import { newEmail, signUp, type Person } from '../users'
import { expectProblem } from '../support'
import { INVITE_LIMITS } from '../../src/accounts/throttle'
import { startReceiver, type Receiver } from '../receiver'

for (const backend of backends) {
  describe(`management API (${backend})`, () => {
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' })
    let rx: Receiver
    let owner: Person
    let admin: Person
    let member: Person
    let outsider: Person
    const ws = () => owner.workspace

    /** Invites `email` with `role` as the owner, and signs them up with the link. */
    async function join(role: 'admin' | 'member' | 'owner', by: Person = owner): Promise<Person> {
      const email = newEmail(role)
      const res = await by.call('POST', `/v1/workspaces/${by.workspace}/invitations`, { email, role })
      expect(res.status).toBe(201)
      const { link } = (await res.json()) as { link: string }
      const p = await signUp(h, { email, invitation: link.split('/invite/')[1]! })
      return { ...p, workspace: by.workspace }
    }

    beforeAll(async () => {
      rx = startReceiver()
      owner = await signUp(h)
      admin = await join('admin')
      member = await join('member')
      outsider = await signUp(h)
    }, 30_000)
    afterAll(() => rx?.stop())

    describe('workspaces and usage', () => {
      test('create one (409 when taken), list mine with roles, read limits and usage', async () => {
        const name = `extra-${process.pid}-${Date.now().toString(36)}`
        const res = await owner.call('POST', '/v1/workspaces', { name })
        expect(res.status).toBe(201)
        expect(await res.json()).toEqual({ workspace: name, role: 'owner', defaultChannel: 'general' })
        await expectProblem(await outsider.call('POST', '/v1/workspaces', { name }), 409, 'conflict')
        await expectProblem(await owner.call('POST', '/v1/workspaces', { name: 'Bad Name' }), 400, 'validation-failed')
        const mine = (await (await owner.call('GET', '/v1/workspaces')).json()) as { workspace: string; role: string }[]
        expect(mine.map((w) => w.workspace).sort()).toEqual([ws(), name].sort())
        expect((await (await member.call('GET', '/v1/workspaces')).json()) as unknown[]).toEqual([{ workspace: ws(), role: 'member', defaultChannel: 'general' }])
        const detail = (await (await member.call('GET', `/v1/workspaces/${ws()}`)).json()) as { role: string; monthlyQuota: number; usage: { used: number; resetsAt: string } }
        expect(detail.role).toBe('member')
        expect(detail.monthlyQuota).toBe(100_000)
        expect(new Date(detail.usage.resetsAt).getUTCDate()).toBe(1)
      })

      test('usage counts each accepted event on its UTC day, for 30 days', async () => {
        const key = await createKey(owner, 'usage')
        const before = (await (await owner.call('GET', `/v1/workspaces/${ws()}/usage`)).json()) as { used: number; days: { day: string; events: number }[] }
        for (let i = 0; i < 3; i++) expect((await h.post(key, { message: `usage ${i}` })).status).toBe(200)
        const after = (await (await member.call('GET', `/v1/workspaces/${ws()}/usage`)).json()) as { used: number; limit: number; days: { day: string; events: number }[] }
        expect(after.days).toHaveLength(30)
        expect(after.days.at(-1)!.day).toBe(new Date().toISOString().slice(0, 10))
        expect(after.days.at(-1)!.events - before.days.at(-1)!.events).toBe(3)
        expect(after.used - before.used).toBe(3)
        expect(after.limit).toBe(100_000)
      })
    })

    describe('channels', () => {
      test('create, list, rename (its events move with it), make default, delete; members read only', async () => {
        expect((await admin.call('POST', `/v1/workspaces/${ws()}/channels`, { slug: 'alerts' })).status).toBe(201)
        await expectProblem(await admin.call('POST', `/v1/workspaces/${ws()}/channels`, { slug: 'alerts' }), 409, 'conflict')
        await expectProblem(await admin.call('POST', `/v1/workspaces/${ws()}/channels`, { slug: '-bad' }), 400, 'validation-failed')
        await expectProblem(await member.call('POST', `/v1/workspaces/${ws()}/channels`, { slug: 'mine' }), 403, 'forbidden')
        const key = await createKey(owner, 'channels')
        const { eventId } = (await (await h.post(key, { channel: 'alerts', message: 'disk full' })).json()) as { eventId: string }
        expect((await admin.call('PATCH', `/v1/workspaces/${ws()}/channels/alerts`, { slug: 'ops' })).status).toBe(200)
        const moved = (await (await member.call('GET', `/v1/workspaces/${ws()}/events/${eventId}`)).json()) as { channel: string }
        expect(moved.channel).toBe('ops')
        expect((await admin.call('PATCH', `/v1/workspaces/${ws()}/channels/ops`, { default: true })).status).toBe(200)
        const res = await h.post(key, { message: 'where do I go?' })
        expect(((await res.json()) as { channel: string }).channel).toBe('ops')
        await expectProblem(await admin.call('DELETE', `/v1/workspaces/${ws()}/channels/ops`), 409, 'conflict')
        await admin.call('PATCH', `/v1/workspaces/${ws()}/channels/general`, { default: true })
        expect((await admin.call('DELETE', `/v1/workspaces/${ws()}/channels/ops`)).status).toBe(204)
        await expectProblem(await admin.call('DELETE', `/v1/workspaces/${ws()}/channels/ops`), 404, 'not-found')
        const list = ((await (await member.call('GET', `/v1/workspaces/${ws()}/channels`)).json()) as { channels: { slug: string; isDefault: boolean }[] }).channels
        expect(list.find((c) => c.isDefault)!.slug).toBe('general')
      })

      test('anyone mutes a channel for themselves', async () => {
        expect((await member.call('PUT', `/v1/workspaces/${ws()}/channels/general/mute`)).status).toBe(204)
        const list = ((await (await member.call('GET', `/v1/workspaces/${ws()}/channels`)).json()) as { channels: { slug: string; muted: boolean }[] }).channels
        expect(list.find((c) => c.slug === 'general')!.muted).toBe(true)
        const theirs = ((await (await owner.call('GET', `/v1/workspaces/${ws()}/channels`)).json()) as { channels: { slug: string; muted: boolean }[] }).channels
        expect(theirs.find((c) => c.slug === 'general')!.muted).toBe(false)
        expect((await member.call('DELETE', `/v1/workspaces/${ws()}/channels/general/mute`)).status).toBe(204)
      })
    })

    describe('members and invitations', () => {
      test('the invitation is e-mailed (logged here), readable by its link, and accepted only by its address', async () => {
        const email = newEmail('late')
        const res = await admin.call('POST', `/v1/workspaces/${ws()}/invitations`, { email })
        expect(res.status).toBe(201)
        const inv = (await res.json()) as { id: string; role: string; link: string }
        expect(inv.role).toBe('member')
        const token = inv.link.split('/invite/')[1]!
        expect(await (await fetch(`${h.url}/v1/invitations/${token}`)).json()).toEqual({ workspace: ws(), email, role: 'member' })
        const stranger = await signUp(h)
        await expectProblem(await stranger.call('POST', `/v1/invitations/${token}/accept`), 403, 'forbidden')
        const invitee = await signUp(h, { email })
        const accepted = await invitee.call('POST', `/v1/invitations/${token}/accept`)
        expect(await accepted.json()).toEqual({ workspace: ws(), role: 'member' })
        await expectProblem(await invitee.call('POST', `/v1/invitations/${token}/accept`), 404, 'not-found')
        const list = (await (await owner.call('GET', `/v1/workspaces/${ws()}/invitations`)).json()) as { id: string; status: string }[]
        expect(list.find((i) => i.id === inv.id)!.status).toBe('accepted')
        await expectProblem(await member.call('GET', `/v1/workspaces/${ws()}/invitations`), 403, 'forbidden')
      })

      test(`invitations are e-mails: ${INVITE_LIMITS.recipient} per address and ${INVITE_LIMITS.inviter} per inviter a quarter hour, then 429`, async () => {
        const inviter = await join('admin')
        const email = newEmail('flooded')
        const same = await Promise.all(Array.from({ length: INVITE_LIMITS.recipient + 3 }, () => inviter.call('POST', `/v1/workspaces/${ws()}/invitations`, { email })))
        expect(same.filter((r) => r.status === 201)).toHaveLength(INVITE_LIMITS.recipient)
        const refused = same.find((r) => r.status === 429)!
        await expectProblem(refused, 429, 'mail-throttled')
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
        const many = []
        for (let i = 0; i < INVITE_LIMITS.inviter; i++) many.push((await inviter.call('POST', `/v1/workspaces/${ws()}/invitations`, { email: newEmail('many') })).status)
        // The burst above counted against this inviter too.
        expect(many.filter((s) => s === 201)).toHaveLength(INVITE_LIMITS.inviter - INVITE_LIMITS.recipient - 3)
        expect(many.at(-1)).toBe(429)
        // Another person of the workspace still invites.
        expect((await owner.call('POST', `/v1/workspaces/${ws()}/invitations`, { email: newEmail('other') })).status).toBe(201)
      })

      test('a revoked invitation no longer works', async () => {
        const res = await owner.call('POST', `/v1/workspaces/${ws()}/invitations`, { email: newEmail('revoked') })
        const inv = (await res.json()) as { id: string; link: string }
        expect((await owner.call('DELETE', `/v1/workspaces/${ws()}/invitations/${inv.id}`)).status).toBe(204)
        await expectProblem(await fetch(`${h.url}/v1/invitations/${inv.link.split('/invite/')[1]}`), 404, 'not-found')
      })

      test('roles: admins manage members but not owners; only owners make owners; the last owner stays', async () => {
        const m = await join('member')
        await expectProblem(await member.call('PATCH', `/v1/workspaces/${ws()}/members/${m.userId}`, { role: 'admin' }), 403, 'forbidden')
        expect((await admin.call('PATCH', `/v1/workspaces/${ws()}/members/${m.userId}`, { role: 'admin' })).status).toBe(200)
        await expectProblem(await admin.call('PATCH', `/v1/workspaces/${ws()}/members/${m.userId}`, { role: 'owner' }), 403, 'forbidden')
        await expectProblem(await admin.call('POST', `/v1/workspaces/${ws()}/invitations`, { email: newEmail(), role: 'owner' }), 403, 'forbidden')
        await expectProblem(await admin.call('DELETE', `/v1/workspaces/${ws()}/members/${owner.userId}`), 403, 'forbidden')
        await expectProblem(await owner.call('PATCH', `/v1/workspaces/${ws()}/members/${owner.userId}`, { role: 'admin' }), 409, 'conflict')
        await expectProblem(await owner.call('DELETE', `/v1/workspaces/${ws()}/members/${owner.userId}`), 409, 'conflict')
        expect((await admin.call('DELETE', `/v1/workspaces/${ws()}/members/${m.userId}`)).status).toBe(204)
        await expectProblem(await m.call('GET', `/v1/workspaces/${ws()}`), 404, 'not-found')
        const leaver = await join('member')
        expect((await leaver.call('DELETE', `/v1/workspaces/${ws()}/members/${leaver.userId}`)).status).toBe(204) // anyone may leave
        const members = (await (await member.call('GET', `/v1/workspaces/${ws()}/members`)).json()) as { userId: string; role: string }[]
        expect(members.find((x) => x.userId === owner.userId)!.role).toBe('owner')
        expect(members.some((x) => x.userId === leaver.userId)).toBe(false)
      })
    })

    async function createKey(p: Person, name: string): Promise<string> {
      const res = await p.call('POST', `/v1/workspaces/${p.workspace}/keys`, { name })
      expect(res.status).toBe(201)
      return ((await res.json()) as { apiKey: string }).apiKey
    }

    describe('API keys', () => {
      test('created with a name and shown once; listed by prefix with last use; revoked', async () => {
        const res = await admin.call('POST', `/v1/workspaces/${ws()}/keys`, { name: 'production' })
        expect(res.status).toBe(201)
        const key = (await res.json()) as { id: number; name: string; prefix: string; apiKey: string }
        expect(key.apiKey).toMatch(/^hrld_[0-9A-Za-z]{36}$/)
        expect(key.prefix).toBe(key.apiKey.slice(0, 12))
        expect((await h.post(key.apiKey, { message: 'from production' })).status).toBe(200)
        const list = (await (await member.call('GET', `/v1/workspaces/${ws()}/keys`)).json()) as Record<string, unknown>[]
        const listed = list.find((k) => k.id === key.id)!
        expect(listed).toMatchObject({ name: 'production', prefix: key.prefix, revokedAt: null })
        expect(JSON.stringify(list)).not.toContain(key.apiKey)
        await expectProblem(await member.call('POST', `/v1/workspaces/${ws()}/keys`, { name: 'mine' }), 403, 'forbidden')
        await expectProblem(await member.call('DELETE', `/v1/workspaces/${ws()}/keys/${key.id}`), 403, 'forbidden')
        await expectProblem(await admin.call('POST', `/v1/workspaces/${ws()}/keys`, { name: '   ' }), 400, 'validation-failed')
        expect((await admin.call('DELETE', `/v1/workspaces/${ws()}/keys/${key.id}`)).status).toBe(204)
        await expectProblem(await h.post(key.apiKey, { message: 'after revocation' }), 401, 'unauthorized')
        await expectProblem(await admin.call('DELETE', `/v1/workspaces/${ws()}/keys/${key.id}`), 404, 'not-found')
      })
    })

    describe('routers', () => {
      test('create, read, change, test-send (signed, to a real receiver) and delete; members only read', async () => {
        const body = { name: 'hooks', pattern: 'user.*', destination: { type: 'webhook', url: `${rx.url}/managed` }, template: { title: '{{data.plan}} signup' } }
        await expectProblem(await member.call('POST', `/v1/workspaces/${ws()}/routers`, body), 403, 'forbidden')
        const res = await admin.call('POST', `/v1/workspaces/${ws()}/routers`, body)
        expect(res.status).toBe(201)
        const { id, secret } = (await res.json()) as { id: string; secret: string }
        expect(secret).toStartWith('whsec_')
        const seen = (await (await member.call('GET', `/v1/workspaces/${ws()}/routers/${id}`)).json()) as { destination: Record<string, unknown> }
        expect(JSON.stringify(seen)).not.toContain('/managed') // the URL's path is a secret
        await expectProblem(await admin.call('PATCH', `/v1/workspaces/${ws()}/routers/${id}`, { pattern: 'bad pattern' }), 400, 'validation-failed')
        expect((await admin.call('PATCH', `/v1/workspaces/${ws()}/routers/${id}`, { enabled: false })).status).toBe(200)
        rx.received.length = 0
        await expectProblem(await member.call('POST', `/v1/workspaces/${ws()}/routers/${id}/test`), 403, 'forbidden')
        const sent = (await (await admin.call('POST', `/v1/workspaces/${ws()}/routers/${id}/test`)).json()) as { ok: boolean; status: number; event: { event: string } }
        expect(sent).toMatchObject({ ok: true, status: 200 })
        expect(sent.event.event).toBe('user.test') // a key the pattern matches
        const [req] = await rx.waitFor(1)
        expect(req!.path).toBe('/managed')
        expect(() => new Webhook(secret).verify(req!.body, req!.headers)).not.toThrow()
        expect((await admin.call('DELETE', `/v1/workspaces/${ws()}/routers/${id}`)).status).toBe(204)
        await expectProblem(await admin.call('GET', `/v1/workspaces/${ws()}/routers/${id}`), 404, 'not-found')
      })

      test('preview renders each destination type for a sample event, with the template, sending nothing', async () => {
        rx.received.length = 0
        const preview = async (destination: Record<string, unknown>, template?: Record<string, string>) => {
          const res = await member.call('POST', `/v1/workspaces/${ws()}/routers/preview`, { destination, ...(template ? { template } : {}), sample: { data: { plan: 'team' } } })
          expect(res.status).toBe(200)
          return (await res.json()) as { contentType: string; body: string }
        }
        const hook = await preview({ type: 'webhook' }, { body: '{"plan":"{{data.plan}}","msg":"{{message}}"}' })
        expect(JSON.parse(hook.body)).toEqual({ plan: 'team', msg: 'Jane Doe signed up for the Pro plan' })
        expect(JSON.parse((await preview({ type: 'slack' }, { title: 'Plan {{data.plan}}' })).body).blocks[0].text.text).toBe('Plan team')
        expect(JSON.parse((await preview({ type: 'discord' })).body).embeds[0].title).toBe('New signup')
        expect((await preview({ type: 'teams' })).contentType).toBe('application/json')
        expect((await preview({ type: 'telegram' })).body).toContain('Jane Doe signed up')
        expect((await preview({ type: 'email', to: ['ops@example.com'] }, { title: '{{data.plan}}!' })).body).toContain('Subject: team!')
        expect((await preview({ type: 'sms' })).body).toContain('Jane Doe')
        await expectProblem(await member.call('POST', `/v1/workspaces/${ws()}/routers/preview`, { destination: { type: 'fax' } }), 400, 'validation-failed')
        await expectProblem(await member.call('POST', `/v1/workspaces/${ws()}/routers/preview`, { destination: { type: 'slack' }, template: { title: '{{#unclosed}}' } }), 400, 'validation-failed')
        await Bun.sleep(100)
        expect(rx.received).toHaveLength(0)
      })
    })

    describe('isolation between workspaces', () => {
      test("one workspace's people can never read or change another's events, keys, routers, channels or members", async () => {
        const key = await createKey(owner, 'iso')
        const { eventId } = (await (await h.post(key, { message: 'private' })).json()) as { eventId: string }
        const base = `/v1/workspaces/${ws()}`
        for (const path of [base, `${base}/usage`, `${base}/keys`, `${base}/routers`, `${base}/channels`, `${base}/members`, `${base}/events/${eventId}`, `/v1/feed?workspace=${ws()}`]) {
          await expectProblem(await outsider.call('GET', path), 404, 'not-found')
        }
        await expectProblem(await outsider.call('POST', `${base}/keys`, { name: 'steal' }), 404, 'not-found')
        await expectProblem(await outsider.call('POST', `${base}/invitations`, { email: outsider.email, role: 'owner' }), 404, 'not-found')
        // Their own workspace does not hold this event either.
        await expectProblem(await outsider.call('GET', `/v1/workspaces/${outsider.workspace}/events/${eventId}`), 404, 'not-found')
      })

      test('every management route needs a signed-in person', async () => {
        const base = `/v1/workspaces/${ws()}`
        for (const [method, path] of [['GET', '/v1/workspaces'], ['GET', base], ['GET', `${base}/keys`], ['POST', `${base}/keys`], ['GET', `${base}/routers`], ['GET', `/v1/feed?workspace=${ws()}`], ['POST', `${base}/invitations`]] as const) {
          await expectProblem(await fetch(h.url + path, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined }), 401, 'unauthorized')
        }
      })
    })
  })
}
