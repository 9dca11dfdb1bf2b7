// Every destination against a real local receiver: Bun.serve HTTP/1.1
// receivers whose answer the test flips, and a real SMTP server. Asserts the
// exact request each destination sends, verifies webhook signatures with the
// Standard Webhooks reference library, and checks retry classification.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import Piscina from 'piscina'
import { startSmtp } from '../smtp'
import { Webhook } from 'standardwebhooks'
import { deliver } from '../../src/delivery/destinations'
import { closeTransports } from '../../src/delivery/destinations/email'
import type { Destination } from '../../src/delivery/destinations'
import type { DeliveryJob } from '../../src/delivery/job'
import type { EventView } from '../../src/delivery/event_view'
import { eventView } from '../support'
import type { SendTask, Sent } from '../../src/delivery/job'

interface Received {
  method: string
  path: string
  headers: Record<string, string>
  body: string
}
interface Reply {
  status: number
  body?: string
  headers?: Record<string, string>
}

// One receiver for all HTTP destinations; `replies` is what it answers next
// (then 200 "ok").
const received: Received[] = []
let replies: Reply[] = []
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    const url = new URL(req.url)
    received.push({ method: req.method, path: url.pathname + url.search, headers: Object.fromEntries(req.headers), body: await req.text() })
    const reply = replies.shift() ?? { status: 200, body: 'ok' }
    return new Response(reply.body ?? '', { status: reply.status, headers: reply.headers })
  },
})
const base = `http://127.0.0.1:${receiver.port}`
const last = () => {
  const r = received.at(-1)
  if (!r) throw new Error('the receiver got no request')
  return r
}
beforeEach(() => {
  received.length = 0
  replies = []
})

const secret = 'whsec_' + randomBytes(32).toString('base64')
const EVENT: EventView = eventView({ data: { plan: 'pro', quote: 'say "hi"\n' } })

function job(destination: Destination, over: Partial<DeliveryJob> = {}, event: Partial<EventView> = {}): DeliveryJob {
  return {
    deliveryId: 'dlv_0190a1b2c3d47e5f',
    attempt: 1,
    event: { ...EVENT, ...event },
    router: { id: 'rtr_1', name: 'signups', destination, signingSecret: secret },
    outbound: { allow: ['127.0.0.0/8'], timeoutMs: 5000, maxResponseBytes: 65536 },
    endpoints: { telegram: `${base}/telegram`, twilio: `${base}/twilio` },
    ...over,
  }
}
const webhook = (headers?: Record<string, string>): Destination => ({ type: 'webhook', url: `${base}/hooks/in?x=1`, ...(headers ? { headers } : {}) })

describe('webhook', () => {
  test('default body, headers and a signature the reference library verifies', async () => {
    const before = Date.now()
    const result = await deliver(job(webhook({ Authorization: 'Bearer rcv', 'Webhook-Id': 'forged', 'Content-Type': 'text/evil', 'X-Team': 'a' })))
    expect(result).toMatchObject({ ok: true, status: 200, response: 'ok' })
    const r = last()
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/hooks/in?x=1')
    expect(r.headers['content-type']).toBe('application/json')
    expect(r.headers['authorization']).toBe('Bearer rcv')
    expect(r.headers['x-team']).toBe('a')
    expect(r.headers['webhook-id']).toBe('dlv_0190a1b2c3d47e5f')
    const ts = Number(r.headers['webhook-timestamp'])
    expect(ts * 1000).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000)
    expect(ts * 1000).toBeLessThanOrEqual(Date.now())
    expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
    expect(new Webhook(secret).verify(r.body, r.headers)).toEqual(JSON.parse(r.body))
    const body = JSON.parse(r.body)
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data'])
    expect(body.type).toBe('event.created')
    expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(Math.abs(Date.parse(body.timestamp) - ts * 1000)).toBeLessThan(1000)
    expect(body.data).toEqual(EVENT)
    expect(r.body).toBe(JSON.stringify({ type: 'event.created', timestamp: body.timestamp, data: EVENT }))
  })

  test('a tampered body fails verification', async () => {
    await deliver(job(webhook()))
    const r = last()
    expect(() => new Webhook(secret).verify(r.body.replace('Jane', 'John'), r.headers)).toThrow()
    expect(() => new Webhook('whsec_' + randomBytes(32).toString('base64')).verify(r.body, r.headers)).toThrow()
  })

  test('the same webhook-id on every attempt, each freshly signed', async () => {
    replies = [{ status: 500, body: 'boom' }]
    const first = await deliver(job(webhook()))
    expect(first).toMatchObject({ ok: false, retryable: true, status: 500, response: 'boom', error: 'receiver answered HTTP 500' })
    const second = await deliver({ ...job(webhook()), attempt: 2 })
    expect(second).toMatchObject({ ok: true, status: 200 })
    expect(received).toHaveLength(2)
    const [a, b] = received as [Received, Received]
    expect(a.headers['webhook-id']).toBe(b.headers['webhook-id'])
    for (const r of received) expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow()
  })

  test('a body template replaces the body; JSON stays JSON', async () => {
    const body = '{"text":"{{title}}: {{data.quote}}","plan":"{{{data.plan}}}","missing":"{{data.nope}}"}'
    await deliver({ ...job(webhook()), router: { ...job(webhook()).router, template: { body } } })
    const r = last()
    expect(r.headers['content-type']).toBe('application/json')
    expect(JSON.parse(r.body)).toEqual({ text: 'New user: say "hi"\n', plan: 'pro', missing: '' })
    expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow()
  })

  test('a template that renders to text goes out as text/plain', async () => {
    await deliver({ ...job(webhook()), router: { ...job(webhook()).router, template: { body: '{{title}} - {{message}}' } } })
    expect(last().headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(last().body).toBe('New user - Jane Doe signed up')
  })

  test('retry classification: 429 + Retry-After, 408 and 503 retry; 400, 404 and 3xx do not', async () => {
    replies = [{ status: 429, headers: { 'retry-after': '7' } }]
    expect(await deliver(job(webhook()))).toMatchObject({ ok: false, retryable: true, status: 429, retryAfterMs: 7000 })
    replies = [{ status: 503, headers: { 'retry-after': new Date(Date.now() + 60_000).toUTCString() } }]
    const unavailable = await deliver(job(webhook()))
    expect(unavailable).toMatchObject({ ok: false, retryable: true, status: 503 })
    expect(unavailable.retryAfterMs).toBeGreaterThan(50_000)
    replies = [{ status: 408 }]
    expect(await deliver(job(webhook()))).toMatchObject({ ok: false, retryable: true, status: 408 })
    replies = [{ status: 400, body: '{"error":"bad"}' }]
    expect(await deliver(job(webhook()))).toMatchObject({ ok: false, retryable: false, status: 400, response: '{"error":"bad"}' })
    replies = [{ status: 404 }]
    expect(await deliver(job(webhook()))).toMatchObject({ ok: false, retryable: false, status: 404 })
    replies = [{ status: 304 }]
    expect(await deliver(job(webhook()))).toMatchObject({ ok: false, retryable: false, status: 304 })
  })

  test('the response kept is the first KiB', async () => {
    replies = [{ status: 500, body: 'é'.repeat(2000) }]
    const result = await deliver(job(webhook()))
    expect(result.response).toBe('é'.repeat(512))
  })

  test('without the allow-list a loopback receiver is refused, permanently, before any request', async () => {
    const result = await deliver({ ...job(webhook()), outbound: { allow: [], timeoutMs: 5000, maxResponseBytes: 65536 } })
    expect(result).toMatchObject({ ok: false, retryable: false, error: 'refused: 127.0.0.1 is a loopback address; HERALD_OUTBOUND_ALLOW lets deliveries reach it (e.g. HERALD_OUTBOUND_ALLOW=127.0.0.1/32)' })
    expect(result.status).toBeUndefined()
    expect(received).toHaveLength(0)
  })
})

describe('slack', () => {
  const slack: Destination = { type: 'slack', url: `${base}/services/T0/B0/xyz` }

  test('Block Kit message: header, section, context and a button', async () => {
    expect(await deliver(job(slack))).toMatchObject({ ok: true, status: 200, response: 'ok' })
    const r = last()
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/services/T0/B0/xyz')
    expect(r.headers['content-type']).toBe('application/json')
    expect(JSON.parse(r.body)).toEqual({
      text: 'New user: Jane Doe signed up',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'New user', emoji: true } },
        { type: 'section', text: { type: 'mrkdwn', text: 'Jane Doe signed up' } },
        {
          type: 'context',
          elements: [
            { type: 'mrkdwn', text: '*Channel:* #signups' },
            { type: 'mrkdwn', text: '*Event:* user.signup' },
            { type: 'mrkdwn', text: '*Tags:* signup, web' },
          ],
        },
        { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open' }, url: 'https://example.com/users/42' }] },
      ],
    })
  })

  test('event text cannot mention a channel or forge a link; limits hold; templates apply', async () => {
    const template = { title: '{{data.plan}} signup {{message}}', body: '{{message}} <!channel> & <https://evil|bank>' }
    await deliver({ ...job(slack, {}, { link: null }), router: { ...job(slack).router, template } })
    const payload = JSON.parse(last().body)
    expect(payload.blocks[0].text.text).toBe('pro signup Jane Doe signed up')
    expect(payload.blocks[1].text.text).toBe('Jane Doe signed up &lt;!channel&gt; &amp; &lt;https://evil|bank&gt;')
    expect(payload.blocks).toHaveLength(3) // no link, no button
    await deliver(job(slack, {}, { title: 'T'.repeat(400), message: 'x'.repeat(5000) }))
    const long = JSON.parse(last().body)
    expect(long.blocks[0].text.text).toHaveLength(150)
    expect(long.blocks[1].text.text).toHaveLength(3000)
    expect(long.blocks[1].text.text.endsWith('…')).toBe(true)
  })

  test('Slack errors: 404 channel_not_found is permanent, 429 retries', async () => {
    replies = [{ status: 404, body: 'channel_not_found' }]
    expect(await deliver(job(slack))).toMatchObject({ ok: false, retryable: false, status: 404, response: 'channel_not_found' })
    replies = [{ status: 429, body: 'rate_limited', headers: { 'retry-after': '30' } }]
    expect(await deliver(job(slack))).toMatchObject({ ok: false, retryable: true, retryAfterMs: 30_000 })
  })
})

describe('discord', () => {
  const discord: Destination = { type: 'discord', url: `${base}/api/webhooks/1/tok` }

  test('one embed, no mentions', async () => {
    replies = [{ status: 204 }]
    expect(await deliver(job(discord))).toMatchObject({ ok: true, status: 204 })
    const r = last()
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/api/webhooks/1/tok')
    expect(r.headers['content-type']).toBe('application/json')
    expect(JSON.parse(r.body)).toEqual({
      embeds: [
        {
          title: 'New user',
          description: 'Jane Doe signed up',
          url: 'https://example.com/users/42',
          timestamp: '2026-01-02T03:04:05.678Z',
          fields: [
            { name: 'Event', value: 'user.signup', inline: true },
            { name: 'Channel', value: '#signups', inline: true },
            { name: 'Tags', value: 'signup, web', inline: true },
          ],
          footer: { text: 'acme' },
        },
      ],
      allowed_mentions: { parse: [] },
    })
  })

  test('Discord limits: title 256, description 4096, 6000 in all; mailto links become a field', async () => {
    await deliver(job(discord, {}, { link: 'mailto:ops@example.com' }))
    const mail = JSON.parse(last().body).embeds[0]
    expect(mail.url).toBeUndefined()
    expect(mail.fields.at(-1)).toEqual({ name: 'Link', value: 'mailto:ops@example.com', inline: true })
    const template = { title: '{{data.long}}', body: '{{data.long}}{{data.long}}' }
    await deliver({ ...job(discord, {}, { data: { long: 'y'.repeat(3000) } }), router: { ...job(discord).router, template } })
    const embed = JSON.parse(last().body).embeds[0]
    expect(embed.title).toHaveLength(256)
    expect(embed.description).toHaveLength(4096)
    const total = embed.title.length + embed.description.length + embed.footer.text.length + embed.fields.reduce((n: number, f: { name: string; value: string }) => n + f.name.length + f.value.length, 0)
    expect(total).toBeLessThanOrEqual(6000)
  })
})

describe('teams', () => {
  const teams: Destination = { type: 'teams', url: `${base}/workflows/abc` }

  test('an Adaptive Card 1.4 attachment', async () => {
    replies = [{ status: 202 }]
    expect(await deliver(job(teams))).toMatchObject({ ok: true, status: 202 })
    const r = last()
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/workflows/abc')
    expect(r.headers['content-type']).toBe('application/json')
    expect(JSON.parse(r.body)).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [
              { type: 'TextBlock', text: 'New user', weight: 'Bolder', size: 'Medium', wrap: true },
              { type: 'TextBlock', text: 'Jane Doe signed up', wrap: true },
              {
                type: 'FactSet',
                facts: [
                  { title: 'Event', value: 'user.signup' },
                  { title: 'Channel', value: '#signups' },
                  { title: 'Tags', value: 'signup, web' },
                ],
              },
            ],
            actions: [{ type: 'Action.OpenUrl', title: 'Open', url: 'https://example.com/users/42' }],
          },
        },
      ],
    })
  })
})

describe('telegram', () => {
  const telegram: Destination = { type: 'telegram', botToken: '123456:ABC-def_ghi', chatId: -1001234 }

  test('sendMessage with title, body and link', async () => {
    replies = [{ status: 200, body: '{"ok":true,"result":{}}' }]
    expect(await deliver(job(telegram))).toMatchObject({ ok: true, status: 200 })
    const r = last()
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/telegram/bot123456:ABC-def_ghi/sendMessage')
    expect(r.headers['content-type']).toBe('application/json')
    expect(JSON.parse(r.body)).toEqual({ chat_id: -1001234, text: 'New user\n\nJane Doe signed up\n\nhttps://example.com/users/42' })
  })

  test('text is cut to 4096 and keeps the link', async () => {
    await deliver(job(telegram, {}, { message: 'z'.repeat(5000) }))
    const text: string = JSON.parse(last().body).text
    expect(text).toHaveLength(4096)
    expect(text.endsWith('…\n\nhttps://example.com/users/42')).toBe(true)
  })

  test('flood control: 429 with parameters.retry_after is retried after that long', async () => {
    replies = [{ status: 429, body: '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 3","parameters":{"retry_after":3}}' }]
    expect(await deliver(job(telegram))).toMatchObject({ ok: false, retryable: true, status: 429, retryAfterMs: 3000 })
    replies = [{ status: 400, body: '{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}' }]
    expect(await deliver(job(telegram))).toMatchObject({ ok: false, retryable: false, status: 400 })
  })

  test('an error never reveals the bot token', async () => {
    const result = await deliver({ ...job(telegram), outbound: { allow: [], timeoutMs: 5000, maxResponseBytes: 65536 } })
    expect(result.ok).toBe(false)
    expect(result.error).not.toContain('ABC-def_ghi')
  })
})

describe('sms', () => {
  const sms: Destination = { type: 'sms', accountSid: 'AC' + 'a1'.repeat(16), authToken: 'tok3n', from: '+15005550006', to: '+4512345678' }

  test('Twilio Messages API: form-encoded, Basic auth', async () => {
    replies = [{ status: 201, body: '{"sid":"SM1","status":"queued"}' }]
    expect(await deliver(job(sms))).toMatchObject({ ok: true, status: 201, response: '{"sid":"SM1","status":"queued"}' })
    const r = last()
    expect(r.method).toBe('POST')
    expect(r.path).toBe(`/twilio/2010-04-01/Accounts/AC${'a1'.repeat(16)}/Messages.json`)
    expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(r.headers['authorization']).toBe('Basic ' + Buffer.from(`AC${'a1'.repeat(16)}:tok3n`).toString('base64'))
    expect(Object.fromEntries(new URLSearchParams(r.body))).toEqual({ To: '+4512345678', From: '+15005550006', Body: 'New user\nJane Doe signed up' })
  })

  test('Body is at most 1600 characters', async () => {
    await deliver({ ...job(sms), router: { ...job(sms).router, template: { body: '{{data.long}}' } }, event: { ...EVENT, data: { long: 'q'.repeat(2000) } } })
    expect(new URLSearchParams(last().body).get('Body')).toHaveLength(1600)
  })
})

// A real SMTP server (test/smtp.ts) that keeps what it receives.
const smtpServer = await startSmtp()
const mails = smtpServer.mails
const smtpPort = smtpServer.port
afterAll(async () => {
  closeTransports()
  await smtpServer.close()
  receiver.stop(true)
})

describe('email', () => {
  const email = (to: string[], over: Partial<Extract<Destination, { type: 'email' }>> = {}): Destination => ({
    type: 'email',
    to,
    smtp: { host: '127.0.0.1', port: smtpPort },
    ...over,
  })
  beforeEach(() => {
    mails.length = 0
  })

  test('a message with subject, body, link and X-Herald-Delivery reaches the server', async () => {
    const result = await deliver(job(email(['ops@example.com', 'cto@example.com'], { from: 'Herald <alerts@example.com>' }), {}, { message: 'Jane Doe signed up — plan «pro»' }))
    expect(result).toMatchObject({ ok: true, status: 250 })
    expect(mails).toHaveLength(1)
    const mail = mails[0]!
    expect(mail.from).toBe('alerts@example.com')
    expect(mail.to).toEqual(['ops@example.com', 'cto@example.com'])
    expect(mail.headers['subject']).toBe('New user')
    expect(mail.headers['to']).toBe('ops@example.com, cto@example.com')
    expect(mail.headers['x-herald-delivery']).toBe('dlv_0190a1b2c3d47e5f')
    expect(mail.headers['message-id']).toBe('<dlv_0190a1b2c3d47e5f@herald>')
    expect(mail.body).toBe('Jane Doe signed up — plan «pro»\n\nhttps://example.com/users/42')
  })

  test('SMTP_URL and SMTP_FROM are the defaults', async () => {
    const destination: Destination = { type: 'email', to: ['ops@example.com'] }
    const result = await deliver(job(destination, { endpoints: { telegram: '', twilio: '', smtpUrl: `smtp://127.0.0.1:${smtpPort}`, smtpFrom: 'Herald <herald@example.com>' } }))
    expect(result).toMatchObject({ ok: true })
    expect(mails[0]?.from).toBe('herald@example.com')
  })

  test('SMTP 550 is permanent, 451 is retried', async () => {
    const gone = await deliver(job(email(['gone@example.com'], { from: 'a@example.com' })))
    expect(gone).toMatchObject({ ok: false, retryable: false, status: 550 })
    expect(gone.error).toContain('No such user')
    const later = await deliver(job(email(['later@example.com'], { from: 'a@example.com' })))
    expect(later).toMatchObject({ ok: false, retryable: true, status: 451 })
    expect(mails).toHaveLength(0)
  })

  test('the SMTP host passes the SSRF rules', async () => {
    const result = await deliver({ ...job(email(['ops@example.com'], { from: 'a@example.com' })), outbound: { allow: [], timeoutMs: 5000, maxResponseBytes: 65536 } })
    expect(result).toMatchObject({ ok: false, retryable: false, error: 'refused: 127.0.0.1 is a loopback address; HERALD_OUTBOUND_ALLOW lets deliveries reach it (e.g. HERALD_OUTBOUND_ALLOW=127.0.0.1/32)' })
    const internal = await deliver(job(email(['ops@example.com'], { from: 'a@example.com', smtp: { host: '10.0.0.25', port: 25 } })))
    expect(internal).toMatchObject({ ok: false, retryable: false, error: 'refused: 10.0.0.25 is a private address; HERALD_OUTBOUND_ALLOW lets deliveries reach it (e.g. HERALD_OUTBOUND_ALLOW=10.0.0.25/32)' })
  })

  test('a closed SMTP port is retried', async () => {
    const closed = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const port = closed.port
    closed.stop(true)
    const result = await deliver(job(email(['ops@example.com'], { from: 'a@example.com', smtp: { host: '127.0.0.1', port } })))
    expect(result).toMatchObject({ ok: false, retryable: true })
    expect(result.error).toMatch(/^SMTP (ECONNECTION|ESOCKET)/)
  })

  test('no server configured is permanent', async () => {
    expect(await deliver(job({ type: 'email', to: ['ops@example.com'] }))).toMatchObject({ ok: false, retryable: false })
  })
})

describe('worker pool', () => {
  // One delivery as the fan-out hands a retry to workers/send.ts.
  const task = (j: DeliveryJob): SendTask => ({
    events: [j.event],
    planned: [{ id: j.deliveryId, event: 0, kind: 'router', target: j.router.id, attempt: j.attempt, router: { ...j.router, pattern: '*' } }],
    config: { maxInFlight: 4, circuit: { maxInFlight: 4, failures: 5, cooldownMs: 30_000, waitMs: 1000 }, outbound: j.outbound, endpoints: j.endpoints },
  })
  const run = async (pool: Piscina, j: DeliveryJob) => ((await pool.run(task(j))) as Sent[])[0]!.result

  test('a job runs through Piscina with workers/send.ts', async () => {
    const pool = new Piscina({ filename: new URL('../../workers/send.ts', import.meta.url).href, maxThreads: 1, concurrentTasksPerWorker: 4 })
    try {
      const result = await run(pool, job(webhook()))
      expect(result).toMatchObject({ ok: true, status: 200, response: 'ok' })
      const r = last()
      expect(r.headers['webhook-id']).toBe('dlv_0190a1b2c3d47e5f')
      expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow()
      replies = [{ status: 500 }]
      expect(await run(pool, job(webhook()))).toMatchObject({ ok: false, retryable: true, status: 500 })
    } finally {
      await pool.destroy()
    }
  })
})
