// Discord destination: a webhook POST with one embed. Discord refuses (400)
// an embed over its limits, so every text is clipped to them here.
import { Type } from '@sinclair/typebox'
import { ackUrlOf } from '../ack_link'
import { clip, isWebLink, renderMessage } from '../template'
import { clipEscaped, escapeMarkdown } from '../markdown'
import { markedTitle } from '../priority'
import { HttpUrl, jsonPreview, postJson, urlDestination, type DestinationJob, type DestinationType, type DigestBatch } from './destination'
import { digestMessage, digestTitle, markdownLine } from './digest_message'

const schema = Type.Object({
  type: Type.Literal('discord'),
  url: HttpUrl('Discord webhook URL (https://discord.com/api/webhooks/…).'),
}, { additionalProperties: false, examples: [{ type: 'discord', url: 'https://discord.com/api/webhooks/123/abc' }] })

// https://discord.com/developers/docs/resources/message#embed-object-embed-limits
const LIMITS = { title: 256, description: 4096, fieldValue: 1024, footer: 2048, total: 6000 }

// Event text is untrusted: its Markdown is escaped (a masked link
// `[Your bank](https://evil.example)` would hide where it goes), and
// @everyone and @here are broken with a zero-width space, so they do not
// show as mentions (allowed_mentions already keeps them from pinging).
// A router's template keeps its own Markdown: only the values are escaped.
export const escapeDiscord = (s: string) => escapeMarkdown(s).replace(/@(everyone|here)/g, '@\u200b$1')

/** A digest: one embed, its title how many and the key, its description the events listed (Markdown links). */
function discordDigest(job: DestinationJob & { digest: DigestBatch }): Record<string, unknown> {
  const title = clip(digestTitle(job.digest), LIMITS.title)
  const m = digestMessage(job, LIMITS.description, markdownLine, escapeDiscord)
  const embed = { title: clipEscaped(m.title, LIMITS.title) || title, description: clipEscaped(m.body, LIMITS.description), timestamp: job.event.createdAt, footer: { text: clip(job.event.workspace, LIMITS.footer) } }
  return { embeds: [embed], allowed_mentions: { parse: [] } }
}

export function discordPayload(job: DestinationJob): Record<string, unknown> {
  if (job.digest) return discordDigest({ ...job, digest: job.digest })
  const { event } = job
  const m = renderMessage(event, job.router.template, escapeDiscord)
  const fields: { name: string; value: string; inline: boolean }[] = []
  const field = (name: string, value: string) => fields.push({ name, value: clipEscaped(value, LIMITS.fieldValue), inline: true })
  if (event.event) field('Event', escapeDiscord(event.event))
  field('Channel', `#${escapeDiscord(event.channel)}`)
  if (event.tags.length > 0) field('Tags', event.tags.map(escapeDiscord).join(', '))
  if (m.link && !isWebLink(m.link)) field('Link', escapeDiscord(m.link)) // the embed url must be http(s)
  const title = clipEscaped(markedTitle(event, m.title), LIMITS.title) // ⚠️ HIGH / 🚨 URGENT for priorities 4 and 5
  const footer = clip(event.workspace, LIMITS.footer) // plain text: Discord renders no Markdown in a footer
  // A webhook's message can carry no buttons: the link's page asks before it acknowledges.
  const ack = ackUrlOf(job)
  if (ack) fields.push({ name: 'Acknowledge', value: `[Acknowledge](${ack})`, inline: false })
  // The 6000-character budget covers all texts of the embed; the description
  // is the one that gives way.
  const others = title.length + footer.length + fields.reduce((n, f) => n + f.name.length + f.value.length, 0)
  const description = clipEscaped(m.body, Math.max(1, Math.min(LIMITS.description, LIMITS.total - others)))
  const embed = {
    title,
    description,
    ...(isWebLink(m.link) ? { url: m.link } : {}),
    timestamp: event.createdAt,
    fields,
    footer: { text: footer },
  }
  // Event text must not ping @everyone, roles or users.
  return { embeds: [embed], allowed_mentions: { parse: [] } }
}

export const discord: DestinationType<typeof schema> = {
  type: 'discord',
  label: 'Discord',
  description: 'One embed to a webhook `url`: title, description, link, timestamp, fields, footer; event text Markdown-escaped, mentions disabled; ⚠️ HIGH or 🚨 URGENT before the title for priority 4 or 5.',
  schema,
  fields: [{ key: 'url', label: 'Webhook URL', kind: 'url', required: true, placeholder: 'https://discord.com/api/webhooks/…', hosts: ['discord.com', 'discordapp.com'] }],
  flag: 'post to a Discord webhook',
  previewDefaults: { url: 'https://discord.com/api/webhooks/1/x' },
  ...urlDestination,
  preview: (job) => jsonPreview(discordPayload(job)),
  send: (job, d) => postJson(job, d.url, discordPayload(job)),
}
