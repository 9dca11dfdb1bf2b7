// Event text is untrusted, and Discord and Teams render Markdown: an event
// whose message was `[Your bank](https://evil.example)` once became a link
// named "Your bank" in the channel, `@everyone` showed as a mention, and
// `**`, `#` or `||` restyled the card. Slack's payload already escaped its
// mrkdwn. Now every piece of event text (message, title, event key, tags, and
// the data values a template shows) is escaped for Discord's and Teams'
// Markdown, while a router template's own Markdown stays as written.
// Telegram is sent without parse_mode: plain text, nothing renders.
// End to end: routers made through the operator API, an event posted, and
// real loopback receivers standing in for the Discord, Teams and Telegram
// endpoints.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { startReceiver, type Receiver, type Received } from '../receiver'

setDefaultTimeout(30_000)

const EVENT = {
  event: 'billing.[x](https://evil.example/e)',
  title: '[Click](https://evil.example/t) __now__',
  message: 'Pay now: [Your bank](https://evil.example/login) **urgent** @everyone @here <@123> ||hidden||\n# Huge\n> quoted',
  tags: ['[tag](https://evil.example/tag)', '~~struck~~'],
  data: { user: '[Jane](https://evil.example/u)' },
  link: 'https://example.com/real',
}

// The owner's template: a live link and bold of its own around event values.
const TEMPLATE = {
  title: '**{{event}}** for {{data.user}}',
  body: '[Open the dashboard](https://dash.example.com/alerts) | {{message}} | {{#tags}}{{.}}; {{/tags}}',
}

/**
 * The destinations of the links CommonMark (Teams) and Discord would make of
 * `md`: `[text](destination)` whose brackets are not escaped by a backslash.
 */
function liveLinks(md: string): string[] {
  const links: string[] = []
  for (const m of md.matchAll(/(?<!\\)(?:\\\\)*\[((?:[^\]\\]|\\.)*)\]\(([^)\s]*)/g)) links.push(m[2]!)
  return links
}

/** The characters of `chars` in `md` that no backslash escapes. */
const unescaped = (md: string, chars: string) => [...md.matchAll(/\\[\s\S]|[\s\S]/g)].map((m) => m[0]).filter((c) => c.length === 1 && chars.includes(c))

for (const backend of backends) {
  describe(`chat Markdown shows event text as text (${backend})`, () => {
    let rx: Receiver
    const byPath = new Map<string, Received>()

    beforeAll(() => {
      rx = startReceiver()
    })
    const h = useTestHerald(backend, () => ({ HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', TELEGRAM_API_URL: `${rx.url}/telegram` }))
    beforeAll(async () => {
      const ws = await h.workspace()
      const routers = [
        { name: 'discord', destination: { type: 'discord', url: `${rx.url}/discord/plain` } },
        { name: 'discord-template', destination: { type: 'discord', url: `${rx.url}/discord/template` }, template: TEMPLATE },
        { name: 'teams', destination: { type: 'teams', url: `${rx.url}/teams/plain` } },
        { name: 'teams-template', destination: { type: 'teams', url: `${rx.url}/teams/template` }, template: TEMPLATE },
        { name: 'telegram', destination: { type: 'telegram', botToken: '123456:markup-test', chatId: 42 } },
      ]
      for (const r of routers) {
        const res = await h.admin('POST', `/admin/workspaces/${ws.name}/routers`, { pattern: '*', ...r })
        expect({ status: res.status, body: res.status === 201 ? '' : await res.text() }).toEqual({ status: 201, body: '' })
      }
      expect((await h.post(ws.apiKey, EVENT)).status).toBe(200)
      for (const r of await rx.waitFor(routers.length)) byPath.set(r.path, r)
    }, 30_000)
    afterAll(() => rx?.stop())

    const payload = (path: string) => {
      const r = byPath.get(path)
      if (!r) throw new Error(`nothing was delivered to ${path}; got ${[...byPath.keys()].join(', ')}`)
      return JSON.parse(r.body)
    }

    test('Discord: no masked link, mention or formatting comes from the event', () => {
      const body = payload('/discord/plain')
      const [embed] = body.embeds
      const texts: string[] = [embed.title, embed.description, ...embed.fields.map((f: { value: string }) => f.value)]
      for (const text of texts) {
        expect({ text, links: liveLinks(text) }).toEqual({ text, links: [] })
        expect({ text, unescaped: unescaped(text, '*_~|`<>[]') }).toEqual({ text, unescaped: [] })
      }
      expect(JSON.stringify(body)).not.toMatch(/@(everyone|here)/)
      expect(embed.description).toContain('\\[Your bank\\]\\(https://evil.example/login)')
      expect(embed.description).toContain('\n\\# Huge\n\\> quoted')
      expect(embed.title).toBe('\\[Click\\]\\(https://evil.example/t) \\_\\_now\\_\\_')
      expect(embed.fields).toEqual([
        { name: 'Event', value: 'billing.\\[x\\]\\(https://evil.example/e)', inline: true },
        { name: 'Channel', value: '#general', inline: true },
        { name: 'Tags', value: '\\[tag\\]\\(https://evil.example/tag), \\~\\~struck\\~\\~', inline: true },
      ])
      expect(embed.url).toBe(EVENT.link) // the event's own link stays the embed's link
      expect(body.allowed_mentions).toEqual({ parse: [] })
    })

    test('Discord: a template keeps its own link and bold; the values in it are escaped', () => {
      const [embed] = payload('/discord/template').embeds
      expect(embed.title).toBe('**billing.\\[x\\]\\(https://evil.example/e)** for \\[Jane\\]\\(https://evil.example/u)')
      expect(embed.description).toStartWith('[Open the dashboard](https://dash.example.com/alerts) | Pay now: \\[Your bank\\]\\(https://evil.example/login) \\*\\*urgent\\*\\*')
      expect(embed.description).toEndWith(' | \\[tag\\]\\(https://evil.example/tag); \\~\\~struck\\~\\~; ')
      expect(liveLinks(embed.description)).toEqual(['https://dash.example.com/alerts'])
      expect(liveLinks(embed.title)).toEqual([])
    })

    test('Teams: no link or formatting comes from the event, in the text blocks or the facts', () => {
      const card = payload('/teams/plain').attachments[0].content
      const [title, text, facts] = card.body
      for (const t of [title.text, text.text, ...facts.facts.map((f: { value: string }) => f.value)]) {
        expect({ t, links: liveLinks(t) }).toEqual({ t, links: [] })
        expect({ t, unescaped: unescaped(t, '*_~|`<>[]') }).toEqual({ t, unescaped: [] })
      }
      expect(text.text).toStartWith('Pay now: \\[Your bank\\]\\(https://evil.example/login) \\*\\*urgent\\*\\*')
      expect(title.text).toBe('\\[Click\\]\\(https://evil.example/t) \\_\\_now\\_\\_')
      expect(facts.facts).toEqual([
        { title: 'Event', value: 'billing.\\[x\\]\\(https://evil.example/e)' },
        { title: 'Channel', value: '#general' },
        { title: 'Tags', value: '\\[tag\\]\\(https://evil.example/tag), \\~\\~struck\\~\\~' },
      ])
      expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open', url: EVENT.link }])
    })

    test('Teams: a template keeps its own link and bold; the values in it are escaped', () => {
      const [title, text] = payload('/teams/template').attachments[0].content.body
      expect(title.text).toBe('**billing.\\[x\\]\\(https://evil.example/e)** for \\[Jane\\]\\(https://evil.example/u)')
      expect(text.text).toStartWith('[Open the dashboard](https://dash.example.com/alerts) | Pay now: \\[Your bank\\]\\(https://evil.example/login)')
      expect(liveLinks(text.text)).toEqual(['https://dash.example.com/alerts'])
    })

    test('Telegram: plain text without parse_mode, so nothing in it renders', () => {
      const body = payload('/telegram/bot123456:markup-test/sendMessage')
      expect(body.parse_mode).toBeUndefined()
      expect(body.text).toBe(`${EVENT.title}\n\n${EVENT.message}\n\n${EVENT.link}`)
    })
  })
}
