// An event's priority in what router destinations receive: e-mail's
// X-Priority and Importance headers (none for 3) as a real SMTP server gets
// them, and a visible marker for 4 and 5 (none below) in the default payload
// of every chat destination, as a real HTTP receiver gets it.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { startSmtp } from '../smtp'
import { deliver, type Destination } from '../../src/delivery/destinations'
import { closeTransports } from '../../src/delivery/destinations/email'
import type { DeliveryJob } from '../../src/delivery/job'
import { eventView } from '../support'
import { backends, useTestHerald } from '../harness'
import { signUp } from '../users'

const received: { path: string; body: string }[] = []
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    received.push({ path: new URL(req.url).pathname, body: await req.text() })
    return new Response(req.url.includes('/telegram') ? '{"ok":true}' : 'ok')
  },
})
const base = `http://127.0.0.1:${receiver.port}`
const smtp = await startSmtp()
afterAll(async () => {
  receiver.stop(true)
  closeTransports()
  await smtp.close()
})
beforeEach(() => {
  received.length = 0
  smtp.mails.length = 0
})

function job(destination: Destination, priority: number, template?: DeliveryJob['router']['template']): DeliveryJob {
  return {
    deliveryId: `dlv_${priority}_${Math.random().toString(36).slice(2)}`,
    attempt: 1,
    event: eventView({ priority, title: 'Disk full', message: 'db-1 is at 99%' }),
    router: { id: 'rtr_1', name: 'ops', destination, signingSecret: 'whsec_x', ...(template ? { template } : {}) },
    outbound: { allow: ['127.0.0.0/8'], timeoutMs: 5000, maxResponseBytes: 65536 },
    endpoints: { telegram: `${base}/telegram`, twilio: `${base}/twilio` },
  }
}

describe('e-mail: X-Priority and Importance', () => {
  const email: Destination = { type: 'email', to: ['ops@example.com'], from: 'alerts@example.com', smtp: { host: '127.0.0.1', port: smtp.port } }
  const table: [number, string | undefined, string | undefined][] = [
    [1, '5', 'low'],
    [2, '5', 'low'],
    [3, undefined, undefined],
    [4, '2', 'high'],
    [5, '1', 'high'],
  ]
  for (const [priority, xPriority, importance] of table) {
    test(`priority ${priority}: X-Priority ${xPriority ?? '(none)'}, Importance ${importance ?? '(none)'}`, async () => {
      expect(await deliver(job(email, priority))).toMatchObject({ ok: true, status: 250 })
      const [mail] = smtp.mails
      expect(mail!.headers['x-priority']).toBe(xPriority!)
      expect(mail!.headers['importance']).toBe(importance!)
      expect(mail!.headers['subject']).toBe('Disk full') // the subject carries no marker: the client shows the priority
    })
  }
})

describe('chat destinations: a marker for 4 and 5', () => {
  const chats: [string, Destination, (body: string) => string][] = [
    ['slack', { type: 'slack', url: `${base}/slack` }, (b) => JSON.parse(b).blocks[0].text.text],
    ['discord', { type: 'discord', url: `${base}/discord` }, (b) => JSON.parse(b).embeds[0].title],
    ['teams', { type: 'teams', url: `${base}/teams` }, (b) => JSON.parse(b).attachments[0].content.body[0].text],
    ['telegram', { type: 'telegram', botToken: '1:abc', chatId: 42 }, (b) => JSON.parse(b).text.split('\n')[0]],
  ]
  const expected: Record<number, string> = { 1: 'Disk full', 2: 'Disk full', 3: 'Disk full', 4: '⚠️ HIGH: Disk full', 5: '🚨 URGENT: Disk full' }
  for (const [name, destination, titleOf] of chats) {
    test(`${name}: the title shows ⚠️ HIGH for 4 and 🚨 URGENT for 5, nothing for 1 to 3`, async () => {
      for (const priority of [1, 2, 3, 4, 5]) {
        expect(await deliver(job(destination, priority))).toMatchObject({ ok: true })
        expect(titleOf(received.at(-1)!.body)).toBe(expected[priority]!)
      }
    })
  }

  test("a router's template keeps the marker: it is the payload's, not the template's", async () => {
    await deliver(job({ type: 'slack', url: `${base}/slack` }, 5, { title: 'Host {{data.plan}}' }))
    const body = JSON.parse(received.at(-1)!.body)
    expect(body.blocks[0].text.text).toBe('🚨 URGENT: Host pro')
    expect(body.text).toStartWith('🚨 URGENT: Host pro: ')
  })

  test('teams: the urgent title is in the attention colour', async () => {
    await deliver(job({ type: 'teams', url: `${base}/teams` }, 5))
    expect(JSON.parse(received.at(-1)!.body).attachments[0].content.body[0].color).toBe('Attention')
    await deliver(job({ type: 'teams', url: `${base}/teams` }, 4))
    expect('color' in JSON.parse(received.at(-1)!.body).attachments[0].content.body[0]).toBe(false)
  })
})

for (const backend of backends) {
  describe(`the dashboard's preview of a sample event of a priority (${backend})`, () => {
    const h = useTestHerald(backend)
    test('a sample of priority 5 shows the chat marker and the e-mail headers; of 3, neither', async () => {
      const owner = await signUp(h)
      const preview = async (destination: object, priority: number) => {
        const res = await owner.call('POST', `/v1/workspaces/${owner.workspace}/routers/preview`, { destination, sample: { priority } })
        expect(res.status).toBe(200)
        return ((await res.json()) as { body: string }).body
      }
      expect(JSON.parse(await preview({ type: 'slack' }, 5)).blocks[0].text.text).toStartWith('🚨 URGENT: ')
      expect(JSON.parse(await preview({ type: 'slack' }, 3)).blocks[0].text.text).not.toContain('URGENT')
      expect(await preview({ type: 'email', to: ['ops@example.com'] }, 5)).toContain('\nX-Priority: 1\nImportance: high\n')
      expect(await preview({ type: 'email', to: ['ops@example.com'] }, 3)).not.toContain('X-Priority')
      const bad = await owner.call('POST', `/v1/workspaces/${owner.workspace}/routers/preview`, { destination: { type: 'slack' }, sample: { priority: 9 } })
      expect(bad.status).toBe(400)
    })
  })
}
