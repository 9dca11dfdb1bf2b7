// The operator API of routers (docs/operating.md, "The operator API", routers and
// members): create answers exactly {"id", "secret": "whsec_…"}; lists and
// reads never show a URL path, token, password or the signing secret; PATCH,
// disable and delete; 404, 409 and 400 with JSON pointers; the routersChanged
// hook; and loadRouters, which alone opens the sealed secrets.
import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { ADMIN_TOKEN, backends, useTestHerald } from '../harness'
import { UUIDV7, expectFieldError, expectProblem, schemaIn, send, vias, type Via } from '../support'
import { createInProcessBus } from '../../src/delivery/bus'
import { createChanges } from '../../src/core/changes'
import { createMailer } from '../../src/accounts/mailer'
import { createApp } from '../../src/http/app'
import { createApiKeyAuth } from '../../src/ingest/auth'
import { loadConfig } from '../../src/core/config'
import { sendConfigFrom } from '../../src/delivery/send_config'
import type { Destination } from '../../src/delivery/destinations'
import { createBatcher } from '../../src/ingest/batcher'
import { createLogger } from '../../src/core/log'
import { loadRouters } from '../../src/delivery/routers'
import { createSecretBox } from '../../src/core/secrets'
import { findWorkspaceId } from '../../src/accounts/workspaces'

const KEY = randomBytes(32)
const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/]{32}$/

// One destination of each type, each with secrets a response must never show.
const DESTINATIONS = {
  webhook: { type: 'webhook', url: 'https://hooks.example.com/in/WEBHOOKPATHSECRET?token=QUERYTOKENSECRET', headers: { Authorization: 'Bearer HEADERVALUESECRET' } },
  slack: { type: 'slack', url: 'https://hooks.slack.com/services/T0/B0/SLACKPATHSECRET' },
  discord: { type: 'discord', url: 'https://discord.com/api/webhooks/123/DISCORDTOKENSECRET' },
  teams: { type: 'teams', url: 'https://acme.webhook.office.com/webhookb2/TEAMSPATHSECRET' },
  telegram: { type: 'telegram', botToken: '123456:TELEGRAMBOTTOKENSECRET', chatId: 42 },
  email: { type: 'email', to: ['ops@example.com', 'a@b.c'], from: 'Herald <herald@example.com>', smtp: { host: 'smtp.example.com', port: 465, secure: true, user: 'mailer', pass: 'SMTPPASSWORDSECRET' } },
  sms: { type: 'sms', accountSid: `AC${'0123456789abcdef'.repeat(2)}`, authToken: 'TWILIOAUTHTOKENSECRET', from: '+15005550006', to: '+15551234567' },
} satisfies { [T in Destination['type']]: Extract<Destination, { type: T }> }
const SECRETS = ['WEBHOOKPATHSECRET', 'QUERYTOKENSECRET', 'HEADERVALUESECRET', 'SLACKPATHSECRET', 'DISCORDTOKENSECRET', 'TEAMSPATHSECRET', 'TELEGRAMBOTTOKENSECRET', 'SMTPPASSWORDSECRET', 'TWILIOAUTHTOKENSECRET']
const VIEWS = {
  webhook: { type: 'webhook', url: 'https://hooks.example.com/…', headers: ['Authorization'] },
  slack: { type: 'slack', url: 'https://hooks.slack.com/…' },
  discord: { type: 'discord', url: 'https://discord.com/…' },
  teams: { type: 'teams', url: 'https://acme.webhook.office.com/…' },
  telegram: { type: 'telegram', chatId: 42 },
  email: { type: 'email', to: ['ops@example.com', 'a@b.c'], from: 'Herald <herald@example.com>', smtp: { host: 'smtp.example.com', port: 465 } },
  sms: { type: 'sms', from: '+15005550006', to: '+15551234567' },
}
const TYPES = Object.keys(DESTINATIONS) as (keyof typeof DESTINATIONS)[]

let seq = 0
const routerName = () => `r-${++seq}`

function expectNoSecret(text: string, more: string[] = []) {
  for (const s of [...SECRETS, ...more]) expect({ leaked: s, found: text.includes(s) }).toEqual({ leaked: s, found: false })
  expect(text).not.toMatch(/whsec_/)
}

describe.each(backends)('router operator API on %s', (backend) => {
  const h = useTestHerald(backend, { HERALD_SECRET_KEY: KEY.toString('base64') })
  const box = createSecretBox(KEY)

  const call = (via: Via, method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN) =>
    send(h, via, path, {
      method,
      headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  const routers = (ws: string) => `/admin/workspaces/${ws}/routers`
  const create = async (via: Via, ws: string, body: Record<string, unknown>) => {
    const res = await call(via, 'POST', routers(ws), { name: routerName(), pattern: 'user.*', destination: DESTINATIONS.webhook, ...body })
    expect({ status: res.status, body: res.status === 201 ? null : await res.text() }).toEqual({ status: 201, body: null })
    return (await res.json()) as { id: string; secret: string }
  }
  const wsId = async (name: string) => (await findWorkspaceId(h.db.sql, name))!

  describe.each(vias)('via %s', (via) => {
    describe('happy', () => {
      test.each(TYPES)('creates a %s router: 201 with exactly id and a whsec_ secret; reads show the redacted view', async (type) => {
        const { name: ws } = await h.workspace()
        const name = routerName()
        const res = await call(via, 'POST', routers(ws), { name, pattern: 'user.*', destination: DESTINATIONS[type], template: { title: 'New {{event}}', body: '{{message}}' } })
        expect(res.status).toBe(201)
        const created = await res.json()
        expect(Object.keys(created).sort()).toEqual(['id', 'secret'])
        expect(created.id).toMatch(UUIDV7)
        expect(created.secret).toMatch(SIGNING_SECRET)

        const one = await call(via, 'GET', `${routers(ws)}/${created.id}`)
        expect(one.status).toBe(200)
        const text = await one.text()
        expectNoSecret(text, [created.secret])
        expect(JSON.parse(text)).toEqual({
          id: created.id, name, pattern: 'user.*', destination: VIEWS[type], template: { title: 'New {{event}}', body: '{{message}}' },
          enabled: true, minPriority: 1, receipts: false, throttle: null, digest: null, health: null, createdAt: expect.any(String), updatedAt: expect.any(String),
        })
      })

      test('the list shows every router, oldest first, and no secret anywhere', async () => {
        const { name: ws } = await h.workspace()
        const created = []
        for (const type of TYPES) created.push(await create(via, ws, { destination: DESTINATIONS[type] }))
        const res = await call(via, 'GET', routers(ws))
        expect(res.status).toBe(200)
        const text = await res.text()
        expectNoSecret(text, created.map((c) => c.secret))
        const list = JSON.parse(text)
        expect(list.map((r: { id: string }) => r.id)).toEqual(created.map((c) => c.id))
        expect(list.map((r: { destination: unknown }) => r.destination)).toEqual(TYPES.map((t) => VIEWS[t]))
        expect(list[0].template).toBeNull()
      })

      test('the signing secret is a Standard Webhooks secret', async () => {
        const { name: ws } = await h.workspace()
        const { secret } = await create(via, ws, {})
        const wh = new Webhook(secret)
        const at = new Date()
        const signature = wh.sign('msg_1', at, '{"a":1}')
        expect(wh.verify('{"a":1}', { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature })).toEqual({ a: 1 })
      })

      test('PATCH changes the given fields only, replaces the destination and clears a template with null', async () => {
        const { name: ws } = await h.workspace()
        const { id } = await create(via, ws, { name: 'before', template: { title: 'T' } })
        const before = await (await call(via, 'GET', `${routers(ws)}/${id}`)).json()
        await Bun.sleep(5)
        let res = await call(via, 'PATCH', `${routers(ws)}/${id}`, { name: 'after', pattern: '*', destination: DESTINATIONS.slack })
        expect(res.status).toBe(200)
        const text = await res.text()
        expectNoSecret(text)
        const after = JSON.parse(text)
        expect(after).toMatchObject({ id, name: 'after', pattern: '*', destination: VIEWS.slack, template: { title: 'T' }, enabled: true, createdAt: before.createdAt })
        expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt))
        res = await call(via, 'PATCH', `${routers(ws)}/${id}`, { template: null })
        expect((await res.json()).template).toBeNull()
        res = await call(via, 'PATCH', `${routers(ws)}/${id}`, { template: { body: '{{data.plan}}' } })
        expect((await res.json())).toMatchObject({ name: 'after', template: { body: '{{data.plan}}' } })
      })

      test('disable and enable with PATCH {enabled}; create may start disabled', async () => {
        const { name: ws } = await h.workspace()
        const { id } = await create(via, ws, {})
        expect((await (await call(via, 'PATCH', `${routers(ws)}/${id}`, { enabled: false })).json()).enabled).toBe(false)
        expect((await (await call(via, 'GET', `${routers(ws)}/${id}`)).json()).enabled).toBe(false)
        expect((await (await call(via, 'PATCH', `${routers(ws)}/${id}`, { enabled: true })).json()).enabled).toBe(true)
        const off = await create(via, ws, { enabled: false })
        expect((await (await call(via, 'GET', `${routers(ws)}/${off.id}`)).json()).enabled).toBe(false)
        // receipts: stored, returned, changed alone.
        const told = await create(via, ws, { receipts: true })
        expect((await (await call(via, 'GET', `${routers(ws)}/${told.id}`)).json()).receipts).toBe(true)
        expect((await (await call(via, 'PATCH', `${routers(ws)}/${told.id}`, { receipts: false })).json()).receipts).toBe(false)
        expect((await (await call(via, 'GET', `${routers(ws)}/${told.id}`)).json())).toMatchObject({ receipts: false, enabled: true })
      })

      test('DELETE is 204, then the router is gone and its name free again', async () => {
        const { name: ws } = await h.workspace()
        const { id } = await create(via, ws, { name: 'doomed' })
        const res = await call(via, 'DELETE', `${routers(ws)}/${id}`)
        expect(res.status).toBe(204)
        expect(await res.text()).toBe('')
        await expectProblem(await call(via, 'GET', `${routers(ws)}/${id}`), 404, 'not-found')
        await expectProblem(await call(via, 'DELETE', `${routers(ws)}/${id}`), 404, 'not-found')
        expect(await (await call(via, 'GET', routers(ws))).json()).toEqual([])
        await create(via, ws, { name: 'doomed' })
      })

      test('the same name in two workspaces is fine', async () => {
        const [a, b] = [await h.workspace(), await h.workspace()]
        await create(via, a.name, { name: 'shared' })
        await create(via, b.name, { name: 'shared' })
      })
    })

    describe('error', () => {
      test('an unknown workspace is 404 on every route', async () => {
        const id = '01900000-0000-7000-8000-000000000000'
        for (const [method, path, body] of [
          ['POST', routers('no-such-ws'), { name: 'x', pattern: '*', destination: DESTINATIONS.webhook }],
          ['GET', routers('no-such-ws'), undefined],
          ['GET', `${routers('no-such-ws')}/${id}`, undefined],
          ['PATCH', `${routers('no-such-ws')}/${id}`, { enabled: false }],
          ['DELETE', `${routers('no-such-ws')}/${id}`, undefined],
        ] as const) {
          const p = await expectProblem(await call(via, method, path, body), 404, 'not-found')
          expect(p.detail).toContain('no-such-ws')
        }
      })

      test('an unknown router id is 404 on GET, PATCH and DELETE', async () => {
        const { name: ws } = await h.workspace()
        for (const [method, body] of [['GET', undefined], ['PATCH', { enabled: false }], ['PATCH', { destination: DESTINATIONS.slack }], ['DELETE', undefined]] as const) {
          await expectProblem(await call(via, method, `${routers(ws)}/01900000-0000-7000-8000-000000000000`, body), 404, 'not-found')
        }
      })

      test.each(['not-a-uuid', '1', '%00', '01900000-0000-7000-8000-00000000000g'])('a router id that is no UUID (%p) is 400 naming the parameter on GET, PATCH and DELETE', async (id) => {
        const { name: ws } = await h.workspace()
        for (const [method, body] of [['GET', undefined], ['PATCH', { enabled: false }], ['DELETE', undefined]] as const) {
          const p = await expectProblem(await call(via, method, `${routers(ws)}/${id}`, body), 400, 'validation-failed')
          expect(p.errors).toEqual([{ parameter: 'id', detail: 'id must be a UUID' }])
        }
      })

      test('a duplicate name is 409 on create and on rename', async () => {
        const { name: ws } = await h.workspace()
        await create(via, ws, { name: 'taken' })
        const p = await expectProblem(await call(via, 'POST', routers(ws), { name: 'taken', pattern: '*', destination: DESTINATIONS.slack }), 409, 'conflict')
        expect(p.detail).toContain('taken')
        const { id } = await create(via, ws, { name: 'other' })
        await expectProblem(await call(via, 'PATCH', `${routers(ws)}/${id}`, { name: 'taken' }), 409, 'conflict')
        expect((await (await call(via, 'GET', `${routers(ws)}/${id}`)).json()).name).toBe('other')
      })

      const invalid: [string, Record<string, unknown>, string][] = [
        ['no destination', { destination: undefined }, '/destination'],
        ['a destination that is not an object', { destination: 'https://example.com' }, '/destination'],
        ['a destination without a type', { destination: { url: 'https://example.com/x' } }, '/destination/type'],
        ['an unknown type', { destination: { type: 'fax', number: '1' } }, '/destination/type'],
        ['a URL that is not http(s)', { destination: { type: 'webhook', url: 'ftp://example.com/x' } }, '/destination/url'],
        ['a webhook without url', { destination: { type: 'webhook' } }, '/destination/url'],
        ['a field the type does not have', { destination: { type: 'slack', url: 'https://hooks.slack.com/x', botToken: '1:a' } }, '/destination/botToken'],
        ['a malformed bot token', { destination: { type: 'telegram', botToken: 'nope', chatId: 1 } }, '/destination/botToken'],
        ['a chat id of the wrong type', { destination: { type: 'telegram', botToken: '1:a', chatId: true } }, '/destination/chatId'],
        ['no e-mail recipient', { destination: { type: 'email', to: [] } }, '/destination/to'],
        ['a recipient that is not an address', { destination: { type: 'email', to: ['ops.example.com'] } }, '/destination/to/0'],
        ['a header name with a space', { destination: { type: 'webhook', url: 'https://example.com/x', headers: { 'bad header': 'x' } } }, '/destination/headers'],
        ['a bad SMTP port', { destination: { type: 'email', to: ['ops@example.com'], smtp: { host: 'h', port: 0 } } }, '/destination/smtp/port'],
        ['a phone number not in E.164', { destination: { ...DESTINATIONS.sms, to: '555-1234' } }, '/destination/to'],
        ['an invalid pattern', { pattern: 'user/*' }, '/pattern'],
        ['an empty pattern', { pattern: '' }, '/pattern'],
        ['a pattern over 200 characters', { pattern: 'x'.repeat(201) }, '/pattern'],
        ['an unclosed section in a template', { template: { body: '{{#items}}x' } }, '/template/body'],
        ['an unclosed tag in a template', { template: { title: 'Hi {{name' } }, '/template/title'],
        ['a template part that is not a string', { template: { title: 5 } }, '/template/title'],
        ['an unknown template part', { template: { subject: 'x' } }, '/template/subject'],
        ['an empty name', { name: '' }, '/name'],
        ['a name with a line break', { name: 'a\nb' }, '/name'],
        ['a name that is not a string', { name: 7 }, '/name'],
        ['enabled that is not a boolean', { enabled: 'yes' }, '/enabled'],
      ]

      test.each(invalid)('create with %s is 400 with a pointer', async (_what, patch, pointer) => {
        const { name: ws } = await h.workspace()
        const body = { name: routerName(), pattern: 'user.*', destination: DESTINATIONS.webhook, ...patch }
        await expectFieldError(await call(via, 'POST', routers(ws), body), pointer)
        expect(await (await call(via, 'GET', routers(ws))).json()).toEqual([])
      })

      test.each(invalid.filter(([what]) => what !== 'no destination'))('PATCH with %s is 400 with a pointer and changes nothing', async (_what, patch, pointer) => {
        const { name: ws } = await h.workspace()
        const { id } = await create(via, ws, {})
        const before = await (await call(via, 'GET', `${routers(ws)}/${id}`)).json()
        await expectFieldError(await call(via, 'PATCH', `${routers(ws)}/${id}`, patch), pointer)
        expect(await (await call(via, 'GET', `${routers(ws)}/${id}`)).json()).toEqual(before)
      })

      test('an unknown type names the allowed types', async () => {
        const { name: ws } = await h.workspace()
        const p = await expectProblem(await call(via, 'POST', routers(ws), { name: 'x', pattern: '*', destination: { type: 'fax' } }), 400, 'validation-failed')
        for (const t of TYPES) expect(p.detail).toContain(t)
      })

      test('every field at fault is reported at once', async () => {
        const { name: ws } = await h.workspace()
        const res = await call(via, 'POST', routers(ws), { name: 'x', pattern: 'a b', destination: { type: 'webhook', url: 'nope' }, template: { body: '{{#a}}' } })
        const p = await expectProblem(res, 400, 'validation-failed')
        expect(p.errors!.map((e) => e.pointer).sort()).toEqual(['/destination/url', '/pattern', '/template/body'])
      })

      test('PATCH with destination null is 400', async () => {
        const { name: ws } = await h.workspace()
        const { id } = await create(via, ws, {})
        await expectFieldError(await call(via, 'PATCH', `${routers(ws)}/${id}`, { destination: null }), '/destination')
      })
    })

    describe('security', () => {
      test('every router route needs the admin token', async () => {
        const { name: ws } = await h.workspace()
        const { id } = await create(via, ws, {})
        for (const [method, path, body] of [
          ['POST', routers(ws), { name: 'x', pattern: '*', destination: DESTINATIONS.webhook }],
          ['GET', routers(ws), undefined],
          ['GET', `${routers(ws)}/${id}`, undefined],
          ['PATCH', `${routers(ws)}/${id}`, { enabled: false }],
          ['DELETE', `${routers(ws)}/${id}`, undefined],
        ] as const) {
          await expectProblem(await call(via, method, path, body, null), 401)
          await expectProblem(await call(via, method, path, body, 'wrong-token-0123456789'), 401)
        }
        expect((await (await call(via, 'GET', `${routers(ws)}/${id}`)).json()).enabled).toBe(true)
      })

      test("a router of another workspace is 404, and stays untouched", async () => {
        const [a, b] = [await h.workspace(), await h.workspace()]
        const { id } = await create(via, a.name, {})
        await expectProblem(await call(via, 'GET', `${routers(b.name)}/${id}`), 404)
        await expectProblem(await call(via, 'PATCH', `${routers(b.name)}/${id}`, { enabled: false }), 404)
        await expectProblem(await call(via, 'DELETE', `${routers(b.name)}/${id}`), 404)
        expect((await (await call(via, 'GET', `${routers(a.name)}/${id}`)).json()).enabled).toBe(true)
      })

      test('a 400 does not echo the secrets it was given', async () => {
        const { name: ws } = await h.workspace()
        const res = await call(via, 'POST', routers(ws), { name: 'x', pattern: '*', destination: { ...DESTINATIONS.telegram, chatId: true } })
        expectNoSecret(JSON.stringify(await expectProblem(res, 400)))
      })
    })
  })

  describe('storage and loadRouters', () => {
    test('the database holds ciphertext: no destination secret in any column', async () => {
      const { name: ws } = await h.workspace()
      for (const type of TYPES) await create('handle', ws, { destination: DESTINATIONS[type] })
      const rows = await h.db.sql<{ secrets: Buffer; row: string }[]>`
        SELECT r.secrets, row_to_json(r)::text AS row FROM routers r WHERE workspace_id = ${await wsId(ws)}`
      expect(rows).toHaveLength(TYPES.length)
      for (const r of rows) {
        expect(r.secrets.length).toBeGreaterThan(29)
        for (const s of SECRETS) {
          expect(r.secrets.includes(Buffer.from(s))).toBe(false)
          expect(r.row).not.toContain(s)
          expect(r.row).not.toContain(Buffer.from(s).toString('hex'))
        }
      }
    })

    test('returns only enabled routers, with the destination and signing secret decrypted', async () => {
      const { name: ws } = await h.workspace()
      const on = await create('handle', ws, { name: 'on', pattern: 'user.*', destination: DESTINATIONS.webhook, template: { body: '{{message}}' } })
      const off = await create('handle', ws, { name: 'off', destination: DESTINATIONS.slack })
      const mail = await create('handle', ws, { name: 'mail', pattern: '*', destination: DESTINATIONS.email })
      await send(h, 'handle', `${routers(ws)}/${off.id}`, { method: 'PATCH', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: '{"enabled":false}' })
      const loaded = await loadRouters(h.db.sql, box, await wsId(ws))
      expect(loaded).toEqual([
        { id: on.id, name: 'on', pattern: 'user.*', destination: DESTINATIONS.webhook, template: { body: '{{message}}' }, signingSecret: on.secret, minPriority: 1, updatedAt: expect.any(String) },
        { id: mail.id, name: 'mail', pattern: '*', destination: DESTINATIONS.email, signingSecret: mail.secret, minPriority: 1, updatedAt: expect.any(String) },
      ])
      expect('template' in loaded[1]!).toBe(false)
    })

    test('a replaced destination is sealed again with the same signing secret', async () => {
      const { name: ws } = await h.workspace()
      const { id, secret } = await create('handle', ws, {})
      const res = await send(h, 'handle', `${routers(ws)}/${id}`, {
        method: 'PATCH', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ destination: DESTINATIONS.sms }),
      })
      expect(res.status).toBe(200)
      const [r] = await loadRouters(h.db.sql, box, await wsId(ws))
      expect(r).toMatchObject({ id, destination: DESTINATIONS.sms, signingSecret: secret })
    })

    test('another key cannot open them, and says which key is wrong', async () => {
      const { name: ws } = await h.workspace()
      await create('handle', ws, {})
      await expect(loadRouters(h.db.sql, createSecretBox(randomBytes(32)), await wsId(ws))).rejects.toThrow(/HERALD_SECRET_KEY/)
    })

    test('a workspace without routers loads none', async () => {
      const { name: ws } = await h.workspace()
      expect(await loadRouters(h.db.sql, box, await wsId(ws))).toEqual([])
    })
  })

  describe('changed({ kind: "routers" })', () => {
    test('is called with the workspace id after each create, update and delete, and not after a failure or a read', async () => {
      const calls: number[] = []
      const counted = createChanges()
      counted.onChange((c) => c.kind === 'routers' && calls.push(c.workspaceId))
      const config = loadConfig({ HERALD_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: 'silent' })
      const log = createLogger('silent')
      const auth = createApiKeyAuth(h.db.sql, { ttlMs: 0, maxAgeMs: 0, max: 1000, announced: () => false })
      const batcher = createBatcher(h.db.sql, () => h.db.sql, log, { maxEvents: 10, windowMs: 0 })
      const app = createApp({ sql: h.db.sql, config, log, auth, batcher, state: { draining: false }, secrets: box, changes: counted, bus: createInProcessBus(), mailer: createMailer(config, log), send: sendConfigFrom(config) })
      const call = (method: string, path: string, body?: unknown) =>
        app.handle(new Request('http://localhost' + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }))
      try {
        const { name: ws } = await h.workspace()
        const id = await wsId(ws)
        const res = await call('POST', routers(ws), { name: 'hooked', pattern: '*', destination: DESTINATIONS.webhook })
        expect(res.status).toBe(201)
        const router = (await res.json()).id
        expect(calls).toEqual([id])
        expect((await call('POST', routers(ws), { name: 'hooked', pattern: '*', destination: DESTINATIONS.webhook })).status).toBe(409)
        expect((await call('POST', routers(ws), { name: 'bad', pattern: '*', destination: { type: 'fax' } })).status).toBe(400)
        expect((await call('GET', routers(ws))).status).toBe(200)
        expect((await call('GET', `${routers(ws)}/${router}`)).status).toBe(200)
        expect(calls).toEqual([id])
        expect((await call('PATCH', `${routers(ws)}/${router}`, { enabled: false })).status).toBe(200)
        expect(calls).toEqual([id, id])
        expect((await call('DELETE', `${routers(ws)}/${router}`)).status).toBe(204)
        expect(calls).toEqual([id, id, id])
        expect((await call('DELETE', `${routers(ws)}/${router}`)).status).toBe(404)
        expect(calls).toEqual([id, id, id])
      } finally {
        await batcher.drain()
        await auth.stop()
      }
    })
  })

  test('the OpenAPI document describes every router route and each destination type', async () => {
    const spec = await (await send(h, 'handle', '/openapi.json')).json()
    const list = spec.paths['/admin/workspaces/{workspace}/routers']
    const one = spec.paths['/admin/workspaces/{workspace}/routers/{id}']
    expect(Object.keys(list).sort()).toEqual(['get', 'post'])
    expect(Object.keys(one).sort()).toEqual(['delete', 'get', 'patch'])
    const body = schemaIn(spec, list.post.requestBody.content['application/json'].schema)
    expect(body.required).toEqual(['name', 'pattern', 'destination'])
    expect(body.properties.destination.oneOf.map((s: { properties: { type: { const: string } } }) => s.properties.type.const)).toEqual(TYPES)
    for (const field of ['name', 'pattern', 'destination', 'template', 'enabled', 'receipts']) expect(body.properties[field].description).toBeString()
    expect(JSON.stringify(schemaIn(spec, list.post.responses['201'].content['application/json'].schema))).toContain('whsec_')
  })
})
