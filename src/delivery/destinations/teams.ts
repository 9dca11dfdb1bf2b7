// Microsoft Teams destination: a message carrying one Adaptive Card, the
// format both Workflows (Power Automate) webhooks and the older incoming
// webhooks accept. Workflows answers 202 Accepted.
import { Type } from '@sinclair/typebox'
import { ackUrlOf } from '../ack_link'
import { isWebLink, renderMessage } from '../template'
import { clipEscaped, escapeMarkdown } from '../markdown'
import { markedTitle } from '../priority'
import { HttpUrl, jsonPreview, postJson, urlDestination, type DestinationJob, type DestinationType, type DigestBatch } from './destination'
import { digestMessage, markdownLine } from './digest_message'

const schema = Type.Object({
  type: Type.Literal('teams'),
  url: HttpUrl('Microsoft Teams Workflows (or incoming-webhook) URL; receives an Adaptive Card.'),
}, { additionalProperties: false, examples: [{ type: 'teams', url: 'https://example.webhook.office.com/workflows/abc' }] })

// Teams refuses messages over about 28 KB; these keep a card well under it
// even in three-byte characters.
const TITLE_MAX = 512
const BODY_MAX = 8000

// Teams renders Markdown in a TextBlock and in a fact's value: bold, italic,
// lists and `[text](url)` links. Event text is escaped so that it cannot
// make a link that hides where it goes, or restyle the card; a router's
// template keeps its own Markdown, only the values it shows are escaped.
/** A digest: a card with its title (how many, the key) and the events listed (Markdown links; a blank line between, which Teams needs for a break). */
function teamsDigest(job: DestinationJob & { digest: DigestBatch }): Record<string, unknown> {
  const m = digestMessage(job, BODY_MAX, markdownLine, escapeMarkdown, '\n\n')
  return teamsCard([
    { type: 'TextBlock', text: clipEscaped(m.title, TITLE_MAX), weight: 'Bolder', size: 'Medium', wrap: true },
    { type: 'TextBlock', text: clipEscaped(m.body, BODY_MAX), wrap: true },
  ], [])
}

const teamsCard = (body: Record<string, unknown>[], actions: Record<string, unknown>[]) => ({
  type: 'message',
  attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4', body, ...(actions.length ? { actions } : {}),
  } }],
})

export function teamsPayload(job: DestinationJob): Record<string, unknown> {
  if (job.digest) return teamsDigest({ ...job, digest: job.digest })
  const { event } = job
  const m = renderMessage(event, job.router.template, escapeMarkdown)
  const facts = [{ title: 'Channel', value: `#${escapeMarkdown(event.channel)}` }]
  if (event.event) facts.unshift({ title: 'Event', value: escapeMarkdown(event.event) })
  if (event.tags.length > 0) facts.push({ title: 'Tags', value: event.tags.map(escapeMarkdown).join(', ') })
  if (m.link && !isWebLink(m.link)) facts.push({ title: 'Link', value: escapeMarkdown(m.link) })
  const actions: Record<string, unknown>[] = isWebLink(m.link) ? [{ type: 'Action.OpenUrl', title: 'Open', url: m.link }] : []
  // Opens the link's page, whose button acknowledges (Teams' previewer only GETs it).
  if (ackUrlOf(job)) actions.push({ type: 'Action.OpenUrl', title: 'Acknowledge', url: ackUrlOf(job) })
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      // ⚠️ HIGH / 🚨 URGENT for priorities 4 and 5, the urgent one in the card's attention colour.
      { type: 'TextBlock', text: clipEscaped(markedTitle(event, m.title), TITLE_MAX), weight: 'Bolder', size: 'Medium', wrap: true, ...((event.priority ?? 3) >= 5 ? { color: 'Attention' } : {}) },
      { type: 'TextBlock', text: clipEscaped(m.body, BODY_MAX), wrap: true },
      { type: 'FactSet', facts },
    ],
    ...(actions.length ? { actions } : {}),
  }
  return {
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }],
  }
}

export const teams: DestinationType<typeof schema> = {
  type: 'teams',
  label: 'Microsoft Teams',
  description: 'A message with an Adaptive Card 1.4 to a Workflows (or incoming-webhook) `url`: title, body, facts, an Open link action; event text Markdown-escaped; ⚠️ HIGH or 🚨 URGENT before the title for priority 4 or 5 (5 in the attention colour).',
  schema,
  fields: [{ key: 'url', label: 'Workflows or incoming-webhook URL', kind: 'url', required: true }],
  flag: 'post to a Microsoft Teams workflow webhook',
  previewDefaults: { url: 'https://example.webhook.office.com/x' },
  ...urlDestination,
  preview: (job) => jsonPreview(teamsPayload(job)),
  send: (job, d) => postJson(job, d.url, teamsPayload(job)),
}
