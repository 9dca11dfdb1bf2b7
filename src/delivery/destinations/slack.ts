// Slack destination: an incoming-webhook POST with Block Kit blocks and a
// plain `text` fallback (what notifications and old clients show). Slack
// answers 200 with the text `ok`, or a 4xx with an error word.
import { Type } from '@sinclair/typebox'
import { ackUrlOf } from '../ack_link'
import { clip, isWebLink, renderMessage } from '../template'
import { markedTitle } from '../priority'
import { HttpUrl, jsonPreview, postJson, urlDestination, type DestinationJob, type DestinationType, type DigestBatch } from './destination'
import { digestMessage, type DigestLine } from './digest_message'

const schema = Type.Object({
  type: Type.Literal('slack'),
  url: HttpUrl('Slack incoming-webhook URL (https://hooks.slack.com/services/…).'),
}, { additionalProperties: false, examples: [{ type: 'slack', url: 'https://hooks.slack.com/services/T000/B000/XXXX' }] })

// Block Kit limits: header text 150 characters, section text 3000.
const HEADER_MAX = 150
const SECTION_MAX = 3000

// Event text is untrusted: unescaped, `<!channel>` in a message would ping a
// whole channel and `<https://evil|bank>` would disguise a link. Slack asks
// for exactly these three characters to be escaped in mrkdwn.
const escapeMrkdwn = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

/** Escapes, then clips without leaving half an entity (`&am…`) behind. */
const mrkdwn = (s: string, max: number) => clip(escapeMrkdwn(s), max).replace(/&[a-z]*…$/, '…')

/** A digest: a header (how many, the key) and the events listed, each a line with its link. */
function slackDigest(job: DestinationJob & { digest: DigestBatch }): Record<string, unknown> {
  const line: DigestLine = (e, esc) => `• ${isWebLink(e.link) ? `<${e.link}|${esc(e.title ?? e.event ?? 'Event')}>` : esc(e.title ?? e.event ?? 'Event')}: ${esc(clip(e.message.replace(/\s+/g, ' '), 200))}`
  const m = digestMessage(job, SECTION_MAX, line, escapeMrkdwn)
  return {
    text: mrkdwn(m.title, SECTION_MAX),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(m.title, HEADER_MAX), emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: clip(m.body, SECTION_MAX) } },
    ],
  }
}

export function slackPayload(job: DestinationJob): Record<string, unknown> {
  if (job.digest) return slackDigest({ ...job, digest: job.digest })
  const { event } = job
  const m = renderMessage(event, job.router.template)
  const title = markedTitle(event, m.title) // ⚠️ HIGH / 🚨 URGENT for priorities 4 and 5
  const context = [`*Channel:* #${event.channel}`]
  if (event.event) context.push(`*Event:* ${event.event}`)
  if (event.tags.length > 0) context.push(`*Tags:* ${event.tags.join(', ')}`)
  if (m.link && !isWebLink(m.link)) context.push(`*Link:* ${m.link}`) // mailto:/tel: cannot be a button
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(title, HEADER_MAX), emoji: true } },
    { type: 'section', text: { type: 'mrkdwn', text: mrkdwn(m.body, SECTION_MAX) } },
    { type: 'context', elements: context.map((text) => ({ type: 'mrkdwn', text: mrkdwn(text, SECTION_MAX) })) },
  ]
  // Opens the link's page, whose button acknowledges (Slack's unfurler only GETs it).
  const ack = ackUrlOf(job) ? [{ type: 'button', text: { type: 'plain_text', text: 'Acknowledge' }, style: 'primary', url: ackUrlOf(job) }] : []
  if (isWebLink(m.link) || ack.length) {
    blocks.push({ type: 'actions', elements: [...(isWebLink(m.link) ? [{ type: 'button', text: { type: 'plain_text', text: 'Open' }, url: m.link }] : []), ...ack] })
  }
  return { text: mrkdwn(`${title}: ${m.body}`, SECTION_MAX), blocks }
}

export const slack: DestinationType<typeof schema> = {
  type: 'slack',
  label: 'Slack',
  description: 'Block Kit to an incoming-webhook `url`: header (title), section (body, mrkdwn-escaped), context (channel, event, tags), a link button; ⚠️ HIGH or 🚨 URGENT before the title for priority 4 or 5.',
  schema,
  fields: [{ key: 'url', label: 'Incoming-webhook URL', kind: 'url', required: true, placeholder: 'https://hooks.slack.com/services/…', hosts: ['hooks.slack.com'] }],
  flag: 'post to a Slack incoming webhook',
  previewDefaults: { url: 'https://hooks.slack.com/services/T/B/X' },
  ...urlDestination,
  preview: (job) => jsonPreview(slackPayload(job)),
  send: (job, d) => postJson(job, d.url, slackPayload(job)),
}
