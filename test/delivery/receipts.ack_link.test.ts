// The one-time /ack/<token> link of an event that must be acknowledged, end
// to end on a real Herald (embedded and in-process, and PostgreSQL with
// JetStream when DATABASE_URL and NATS_URL are set; the messages are
// rendered in the pool's threads, which make the link): the link arrives in
// an e-mail (through the real SMTP receiver of test/smtp.ts) and in Slack,
// Discord, Teams and Telegram payloads (through test/receiver.ts); a link
// previewer's GETs, twice, leave the receipt pending; the page's POST
// acknowledges it (via "link", nobody signed in); a second POST says it was
// already acknowledged; a forged, cut or foreign token is a 404 page (a
// problem+json for a caller that asks for no page); the pages carry the
// headers of Herald's other HTML pages.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { ackToken } from '../../src/delivery/ack_link'
import { pipelines, usePipelineHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'

const PUBLIC = 'https://herald.example.test'
const LINK = /https:\/\/herald\.example\.test\/ack\/([A-Za-z0-9_-]{43})/
// What Slack's unfurler says it is when it fetches a link of a message.
const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'
// What a browser asks for when it opens a link or submits a form.
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

for (const pipeline of pipelines) {
  describe(`the acknowledgement link (${pipeline})`, () => {
    let rx: Receiver
    beforeAll(() => {
      rx = startReceiver()
    })
    afterAll(() => rx.stop())
    const h = usePipelineHerald(pipeline, () => ({ HERALD_PUBLIC_URL: PUBLIC, HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', TELEGRAM_API_URL: rx.url }))
    let ws: { name: string; apiKey: string }
    let to = ''

    beforeAll(async () => {
      ws = await h.workspace()
      to = `oncall-${pipeline}-${Date.now()}@example.com`
      const chats = [
        ['mail', { type: 'email', to: [to], from: 'herald@example.com' }],
        ['chat', { type: 'slack', url: `${rx.url}/slack` }],
        ['discord', { type: 'discord', url: `${rx.url}/discord` }],
        ['teams', { type: 'teams', url: `${rx.url}/teams` }],
        ['telegram', { type: 'telegram', botToken: '1:abc', chatId: 42 }],
      ] as const
      for (const [name, destination] of chats) {
        const res = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { name, pattern: 'disk.*', destination })
        expect(res.status).toBe(201)
      }
    }, 30_000)

    const receiptOf = async (id: string) => {
      const res = await fetch(`${h.url}/receipts/${id}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })
      expect(res.status).toBe(200)
      return (await res.json()) as { status: string; acknowledgedVia: string | null; acknowledgedBy: unknown }
    }
    /** An event that must be acknowledged; its id, its receipt, and the link of its e-mail and of its Slack message. */
    async function alert(title: string) {
      const res = await h.post(ws.apiKey, { message: `${title}: 97% used`, title, event: 'disk.full', priority: 'urgent', ack: { retry: '60s', expire: '1h' } })
      expect(res.status).toBe(200)
      const { eventId, receipt } = (await res.json()) as { eventId: string; receipt: string }
      const mail = await eventually(async () => h.mails!.find((m) => m.to.includes(to) && m.headers.subject === title), 15_000, 'the e-mail')
      const slack = await eventually(async () => rx.received.find((r) => r.path === '/slack' && r.body.includes(title)), 15_000, 'the Slack message')
      return { eventId, receipt, mail, slack: JSON.parse(slack.body) as { blocks: { type: string; elements?: { text: { text: string }; url: string }[] }[] } }
    }
    const page = (url: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
      fetch(url.replace(PUBLIC, h.url), { redirect: 'manual', ...init, headers: { accept: BROWSER, ...init.headers } })

    test('the e-mail and the Slack message carry the link of the receipt; an event without ack carries none', async () => {
      const { receipt, mail, slack } = await alert('Disk full on db-1')
      const fromMail = LINK.exec(mail.body)
      expect(fromMail).not.toBeNull()
      expect(mail.body).toContain(`Acknowledge: ${PUBLIC}/ack/${fromMail![1]}`)
      const button = slack.blocks.find((b) => b.type === 'actions')!.elements!.find((e) => e.text.text === 'Acknowledge')!
      // One link per receipt, whatever the message.
      expect(button.url).toBe(`${PUBLIC}/ack/${fromMail![1]}`)
      // Discord, Teams and Telegram carry the same link.
      const link = `${PUBLIC}/ack/${fromMail![1]}`
      const sent = (path: string) => eventually(async () => rx.received.find((r) => r.path === path && r.body.includes('Disk full on db-1')), 15_000, path)
      const discord = JSON.parse((await sent('/discord')).body) as { embeds: { fields: { name: string; value: string; inline: boolean }[] }[] }
      expect(discord.embeds[0]!.fields).toContainEqual({ name: 'Acknowledge', value: `[Acknowledge](${link})`, inline: false })
      const teams = JSON.parse((await sent('/teams')).body) as { attachments: { content: { actions: unknown[] } }[] }
      expect(teams.attachments[0]!.content.actions).toContainEqual({ type: 'Action.OpenUrl', title: 'Acknowledge', url: link })
      const telegram = JSON.parse((await sent('/bot1:abc/sendMessage')).body) as { text: string }
      expect(telegram.text).toEndWith(`\n\nAcknowledge: ${link}`)
      // The page of that link is the page of this receipt.
      expect(await (await page(button.url)).text()).toContain('Disk full on db-1')
      expect((await receiptOf(receipt)).status).toBe('pending')

      const plain = await h.post(ws.apiKey, { message: 'disk at 80%', title: 'Disk filling', event: 'disk.filling' })
      expect(plain.status).toBe(200)
      const quiet = await eventually(async () => h.mails!.find((m) => m.headers.subject === 'Disk filling'), 15_000, 'the plain e-mail')
      expect(quiet.body).not.toContain('/ack/')
      const chat = await eventually(async () => rx.received.find((r) => r.body.includes('Disk filling')), 15_000, 'the plain Slack message')
      expect(chat.body).not.toContain('/ack/')
      expect(chat.body).not.toContain('Acknowledge')
    }, 45_000)

    test('a previewer GETs the link twice: a page with a button, and the receipt stays pending', async () => {
      const { receipt, mail } = await alert('Disk full on db-2')
      const url = LINK.exec(mail.body)![0]
      for (let i = 0; i < 2; i++) {
        const res = await page(url, { headers: { 'user-agent': SLACKBOT } })
        expect(res.status).toBe(200)
        const html = await res.text()
        expect(html).toContain('Disk full on db-2')
        expect(html).toContain('data-receipt-status="pending"')
        // The button posts to this same URL (a form without an action).
        expect(html).toMatch(/<form method="post"><button type="submit">Acknowledge<\/button><\/form>/)
      }
      expect(await receiptOf(receipt)).toMatchObject({ status: 'pending', acknowledgedVia: null })
    }, 45_000)

    test('the POST acknowledges once (via link, nobody signed in); a second POST says it was already acknowledged', async () => {
      const { receipt, mail } = await alert('Disk full on db-3')
      const url = LINK.exec(mail.body)![0]
      // What the page's form sends: an empty urlencoded body.
      const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.url }, body: '' }
      const first = await page(url, form)
      expect(first.status).toBe(200)
      expect(await first.text()).toContain('Acknowledged.')
      expect(await receiptOf(receipt)).toMatchObject({ status: 'acknowledged', acknowledgedVia: 'link', acknowledgedBy: null })

      const second = await page(url, form)
      expect(second.status).toBe(409)
      const again = await second.text()
      expect(again).toContain('Already acknowledged')
      expect(again).toContain('through the link in a message')
      // A caller that asks for no page gets the refusal as a problem, naming the state.
      const api = await fetch(url.replace(PUBLIC, h.url), { method: 'POST' })
      expect(api.status).toBe(409)
      expect(api.headers.get('content-type')).toStartWith('application/problem+json')
      expect(((await api.json()) as { detail: string }).detail).toContain('already acknowledged')
      // The page now says so, with no button.
      const after = await (await page(url)).text()
      expect(after).toContain('data-receipt-status="acknowledged"')
      expect(after).not.toContain('<form')
    }, 45_000)

    test('a forged, cut or foreign token is a 404 page, and acknowledges nothing', async () => {
      const { receipt, mail } = await alert('Disk full on db-4')
      const token = LINK.exec(mail.body)![1]!
      const flipped = token.slice(0, 30) + (token[30] === 'A' ? 'B' : 'A') + token.slice(31)
      const foreignKey = ackToken(randomBytes(32).toString('base64'), receipt) // the same receipt, another server's key
      for (const bad of [flipped, token.slice(0, 40), foreignKey, 'x', `${token}x`, 'not-a-token!']) {
        for (const method of ['GET', 'POST']) {
          const res = await fetch(`${h.url}/ack/${encodeURIComponent(bad)}`, { method, headers: { accept: BROWSER } })
          expect({ bad, method, status: res.status }).toEqual({ bad, method, status: 404 })
          expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
          expect(await res.text()).toContain('No such alert')
          // Asked for by other than a browser: the same 404, as a problem.
          const api = await fetch(`${h.url}/ack/${encodeURIComponent(bad)}`, { method })
          expect(api.status).toBe(404)
          expect(api.headers.get('content-type')).toStartWith('application/problem+json')
        }
      }
      expect((await receiptOf(receipt)).status).toBe('pending')
    }, 45_000)

    test('the pages carry the headers of the dashboard\'s pages, without cache or referrer', async () => {
      const { mail } = await alert('Disk full on db-5')
      const res = await page(LINK.exec(mail.body)![0])
      const shell = await fetch(`${h.url}/`)
      expect(res.headers.get('content-security-policy')).toBe(shell.headers.get('content-security-policy'))
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'")
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
      expect(res.headers.get('cache-control')).toBe('no-store')
      // No inline script or style: the policy forbids both.
      const html = await res.text()
      expect(html).not.toMatch(/<script|<style|style=/)
      // Its stylesheet is the dashboard's, and loads.
      const css = /href="(\/assets\/app\.[0-9a-f]+\.css)"/.exec(html)![1]!
      expect((await fetch(h.url + css)).status).toBe(200)
    }, 45_000)
  })
}
