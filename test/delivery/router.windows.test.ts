// Routers' throttles and digests end to end (DECISIONS.md "Scheduling,
// throttling, digests"): through POST /event, the worker and real receivers
// (webhooks, Slack, Discord, Teams, Telegram and Twilio stand-ins on one
// HTTP receiver, e-mail through the SMTP receiver), on both databases. The
// waits of the digests run together: one 10 s window for the suite.
import { afterAll, describe, expect, test } from 'bun:test'
import { backends, useMailedHerald, type TestHerald } from '../harness'
import { eventually, startReceiver, type Received } from '../receiver'
import { signWebhook } from '../../src/delivery/destinations/webhook'

const rx = startReceiver()
const failing = startReceiver()
afterAll(() => (rx.stop(), failing.stop()))

const secrets = new Map<string, string>() // router id → its signing secret, as its creation answered it

async function router(h: TestHerald, ws: string, body: object): Promise<string> {
  const res = await h.admin('POST', `/admin/workspaces/${ws}/routers`, { name: `r-${Math.random().toString(36).slice(2, 8)}`, ...body })
  expect(res.status).toBe(201)
  const made = (await res.json()) as { id: string; secret?: string }
  if (made.secret) secrets.set(made.id, made.secret)
  return made.id
}

async function post(h: TestHerald, apiKey: string, body: object): Promise<string> {
  const res = await h.post(apiKey, body)
  expect(res.status).toBe(200)
  return ((await res.json()) as { eventId: string }).eventId
}

const at = (path: string, r = rx) => r.received.filter((x) => x.path.startsWith(path))
const json = (r: Received) => JSON.parse(r.body) as Record<string, any>

interface Listed { id: string; eventId: string; kind: string; status: string; routerId: string | null; digest?: { key: string; count: number; eventIds: string[] }; digestId?: string }
async function deliveries(h: TestHerald, ws: string, query: { state: string; router: string }): Promise<Listed[]> {
  const res = await h.admin('GET', `/admin/workspaces/${ws}/deliveries?state=${query.state}&limit=1000`)
  if (res.status !== 200) throw new Error(await res.text())
  return ((await res.json()) as Listed[]).filter((d) => d.routerId === query.router)
}

for (const backend of backends) {
  describe(`routers' throttles and digests on ${backend}`, () => {
    const { h, smtp } = useMailedHerald(backend, {
      HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,1s', SMTP_FROM: 'herald@example.com',
      TELEGRAM_API_URL: `${rx.url}/${backend}/telegram`, TWILIO_API_URL: `${rx.url}/${backend}/twilio`,
    }, 60_000)

    test('a throttle of 3 per window: 20 events at once give 3 deliveries and 17 throttled; keys count apart; a new window after `per`', async () => {
      const ws = await h.workspace()
      const p = `/${backend}/throttle`
      const id = await router(h, ws.name, { pattern: 'deploy.*', destination: { type: 'webhook', url: `${rx.url}${p}` }, throttle: { limit: 3, per: '2s', key: '{{data.host}}' } })
      const started = Date.now()
      await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => post(h, ws.apiKey, { event: 'deploy.done', message: `a ${i}`, data: { host: 'a' } })),
        ...Array.from({ length: 2 }, (_, i) => post(h, ws.apiKey, { event: 'deploy.done', message: `b ${i}`, data: { host: 'b' } })),
      ])
      await eventually(async () => at(p).length >= 5, 15_000, 'five throttled deliveries')
      const throttled = await eventually(async () => {
        const l = await deliveries(h, ws.name, { state: 'throttled', router: id })
        return l.length === 17 && l
      }, 10_000, '17 throttled')
      expect(throttled.every((d) => d.kind === 'router')).toBe(true)
      await Bun.sleep(300)
      const hosts = at(p).map((r) => json(r).data.data.host).sort()
      expect(hosts).toEqual(['a', 'a', 'a', 'b', 'b'])
      // The counts of an event held back show it.
      const held = throttled[0]!.eventId
      const counts = await (await fetch(`${h.url}/events/${held}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json() as { deliveries: { status: string }[] }
      expect(counts.deliveries.map((d) => d.status)).toEqual(['throttled'])
      // A new window once `per` has passed since the key's first event.
      await Bun.sleep(Math.max(0, started + 2_300 - Date.now()))
      await post(h, ws.apiKey, { event: 'deploy.done', message: 'a again', data: { host: 'a' } })
      await eventually(async () => at(p).length === 6, 10_000, 'the next window\'s first delivery')
    }, 40_000)

    test('digests: 6 events give one of 6 at the window\'s end; max reached sends at once; a bypass event goes on its own; every destination type; a template; a retry', async () => {
      const ws = await h.workspace()
      const b = `${rx.url}/${backend}`
      const d1 = await router(h, ws.name, { pattern: 'six.*', destination: { type: 'webhook', url: `${b}/six` }, digest: { window: '10s', key: '{{data.customer}}' } })
      await router(h, ws.name, { pattern: 'six.*', destination: { type: 'webhook', url: `${b}/tpl` }, digest: { window: '10s' }, template: { body: '{"n": {{count}}, "titles": [{{#events}}"{{title}}", {{/events}}"end"]}' } })
      await router(h, ws.name, { pattern: 'max.*', destination: { type: 'webhook', url: `${b}/max` }, digest: { window: '60s', max: 3 } })
      await router(h, ws.name, { pattern: 'bypass.*', destination: { type: 'webhook', url: `${b}/bypass` }, digest: { window: '10s', bypassPriority: 5 } })
      await router(h, ws.name, { pattern: 'retry.*', destination: { type: 'webhook', url: `${failing.url}/${backend}/retry` }, digest: { window: '10s' } })
      failing.script.push({ status: 500 })
      const chat = { window: '10s', max: 1000 }
      await router(h, ws.name, { pattern: 'chat.*', destination: { type: 'slack', url: `${b}/slack` }, digest: chat })
      await router(h, ws.name, { pattern: 'chat.*', destination: { type: 'discord', url: `${b}/discord` }, digest: chat })
      await router(h, ws.name, { pattern: 'chat.*', destination: { type: 'teams', url: `${b}/teams` }, digest: chat })
      await router(h, ws.name, { pattern: 'chat.*', destination: { type: 'telegram', botToken: '1:abc', chatId: 42 }, digest: chat })
      await router(h, ws.name, { pattern: 'chat.*', destination: { type: 'sms', accountSid: `AC${'0123456789abcdef'.repeat(2)}`, authToken: 't', from: '+15005550006', to: '+15551234567' }, digest: chat })
      await router(h, ws.name, { pattern: 'chat.*', destination: { type: 'email', to: ['ops@example.com'] }, digest: chat })
      const opened = Date.now()

      const six: string[] = []
      for (let i = 0; i < 6; i++) six.push(await post(h, ws.apiKey, { event: 'six.order', title: `Order ${i}`, message: `order ${i} placed`, data: { customer: 'acme' } }))
      await Promise.all(Array.from({ length: 4 }, (_, i) => post(h, ws.apiKey, { event: 'max.x', message: `m ${i}` })))
      const urgent = await post(h, ws.apiKey, { event: 'bypass.x', message: 'urgent', priority: 5 })
      await post(h, ws.apiKey, { event: 'bypass.x', message: 'normal' })
      await post(h, ws.apiKey, { event: 'retry.x', message: 'r' })
      // 40 events of long messages: more than a chat message holds.
      for (let i = 0; i < 40; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => post(h, ws.apiKey, { event: 'chat.alert', title: `Alert ${i + j}`, message: `${'x'.repeat(240)} ${i + j}`, link: `https://example.com/a/${i + j}` })))

      // At once: the full digest of 3, and the bypass event on its own.
      const max = await eventually(async () => at(`/${backend}/max`).length === 1 && at(`/${backend}/max`), 5_000, 'the full digest at once')
      expect(Date.now() - opened).toBeLessThan(9_000)
      expect(json(max[0]!).data.count).toBe(3)
      const bypass = await eventually(async () => at(`/${backend}/bypass`).length === 1 && at(`/${backend}/bypass`), 5_000, 'the bypass event at once')
      expect(json(bypass[0]!)).toMatchObject({ type: 'event.created', data: { eventId: urgent } })

      // At the window's end: one digest of 6, signed, exactly shaped.
      const sixDigest = await eventually(async () => at(`/${backend}/six`).length >= 1 && at(`/${backend}/six`), 20_000, 'the digest of six')
      expect(Date.now() - opened).toBeGreaterThanOrEqual(9_500)
      const r = sixDigest[0]!
      const body = json(r)
      expect(Object.keys(body).sort()).toEqual(['data', 'timestamp', 'type'])
      expect(body.type).toBe('events.digest')
      expect(Object.keys(body.data).sort()).toEqual(['count', 'events', 'key'])
      expect(body.data).toMatchObject({ key: 'acme', count: 6 })
      expect(body.data.events.map((e: { eventId: string }) => e.eventId)).toEqual(six)
      expect(r.headers['webhook-signature']).toBe(signWebhook(secrets.get(d1)!, r.headers['webhook-id']!, Number(r.headers['webhook-timestamp']), r.body))
      const tpl = await eventually(async () => at(`/${backend}/tpl`)[0], 5_000, 'the template\'s digest')
      expect(JSON.parse(tpl.body)).toEqual({ n: 6, titles: ['Order 0', 'Order 1', 'Order 2', 'Order 3', 'Order 4', 'Order 5', 'end'] })
      await eventually(async () => at(`/${backend}/bypass`).length === 2, 5_000, 'the other bypass router event in its digest')
      expect(json(at(`/${backend}/bypass`)[1]!).data.count).toBe(1)

      // Every chat type lists the events, cut at its limit with "… and N more".
      await eventually(async () => ['slack', 'discord', 'teams', 'telegram', 'twilio'].every((t) => at(`/${backend}/${t}`).length === 1) && smtp.mails.some((m) => m.headers.subject === '40 events'), 10_000, 'a digest to every type')
      const slack = json(at(`/${backend}/slack`)[0]!)
      expect(slack.blocks[0].text.text).toBe('40 events')
      expect(slack.blocks[1].text.text.length).toBeLessThanOrEqual(3000)
      expect(slack.blocks[1].text.text).toContain('<https://example.com/a/0|Alert 0>')
      expect(slack.blocks[1].text.text).toMatch(/… and \d+ more$/)
      const discord = json(at(`/${backend}/discord`)[0]!).embeds[0]
      expect(discord.title).toBe('40 events')
      expect(discord.description.length).toBeLessThanOrEqual(4096)
      expect(discord.description).toContain('[Alert 0](https://example.com/a/0)')
      expect(discord.description).toMatch(/… and \d+ more$/)
      const teams = json(at(`/${backend}/teams`)[0]!).attachments[0].content.body
      expect(teams[1].text.length).toBeLessThanOrEqual(8000)
      expect(teams[1].text).toMatch(/… and \d+ more$/)
      const telegram = json(at(`/${backend}/telegram`)[0]!).text as string
      expect(telegram.startsWith('40 events\n\n• Alert 0: ')).toBe(true)
      expect(telegram.length).toBeLessThanOrEqual(4096)
      expect(telegram).toMatch(/… and \d+ more$/)
      const sms = new URLSearchParams(at(`/${backend}/twilio`)[0]!.body).get('Body')!
      expect(sms.length).toBeLessThanOrEqual(1600)
      expect(sms).toContain('• Alert 0')
      const mail = smtp.mails.find((m) => m.headers.subject === '40 events')!
      expect(mail.body).toContain('• Alert 39: ')

      // A failing receiver: the digest is retried, and succeeds.
      await eventually(async () => at(`/${backend}/retry`, failing).length === 2, 10_000, 'the digest retried')
      expect(json(at(`/${backend}/retry`, failing)[1]!).type).toBe('events.digest')

      // The delivery APIs: the digest's delivery and its events' `digested` ones linking it.
      const digests = await deliveries(h, ws.name, { state: 'all', router: d1 })
      const digest = digests.find((d) => d.kind === 'digest')!
      expect(digest).toMatchObject({ status: 'succeeded', digest: { key: 'acme', count: 6, eventIds: six } })
      expect(digests.filter((d) => d.status === 'digested').length).toBe(6)
      const page = await (await fetch(`${h.url}/events/${six[3]}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json() as { deliveries: { status: string; digestId?: string; routerId: string }[] }
      expect(page.deliveries.filter((d) => d.routerId === d1)).toEqual([expect.objectContaining({ status: 'digested', digestId: digest.id })])
    }, 60_000)
  })
}
