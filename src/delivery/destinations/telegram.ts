// Telegram destination: Bot API sendMessage, plain text (no parse_mode, so
// event text needs no escaping and cannot inject formatting).
import { Type, type Static } from '@sinclair/typebox'
import { ackUrlOf } from '../ack_link'
import { classify, send, type DeliveryResult } from '../outbound'
import { clip, renderMessage } from '../template'
import { markedTitle } from '../priority'
import { hostOf, type DestinationJob, type DestinationType } from './destination'
import { digestMessage, plainLine } from './digest_message'

const schema = Type.Object({
  type: Type.Literal('telegram'),
  botToken: Type.String({ pattern: '^[0-9]+:[A-Za-z0-9_-]+$', maxLength: 256, description: 'Bot API token from @BotFather.' }),
  chatId: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Integer()], { description: 'Chat id or @channelusername.' }),
}, { additionalProperties: false, examples: [{ type: 'telegram', botToken: '123456:ABC-DEF', chatId: -1001234567890 }] })
type TelegramDestination = Static<typeof schema>

// sendMessage refuses text over 4096 characters.
const TEXT_MAX = 4096

export function telegramText(job: DestinationJob): string {
  if (job.digest) {
    const m = digestMessage({ ...job, digest: job.digest }, TEXT_MAX - 400, plainLine)
    return clip(`${m.title}\n\n${m.body}`, TEXT_MAX)
  }
  const m = renderMessage(job.event, job.router.template)
  const ack = ackUrlOf(job)
  const link = (m.link ? `\n\n${m.link}` : '') + (ack ? `\n\nAcknowledge: ${ack}` : '')
  // Clip the title and body, not the link: the link is what the reader acts on.
  // ⚠️ HIGH / 🚨 URGENT before the title for priorities 4 and 5.
  return clip(`${markedTitle(job.event, m.title)}\n\n${m.body}`, TEXT_MAX - link.length) + link
}

/** The bot token sits in the URL path; outbound errors name only the host. */
export function telegramUrl(base: string, botToken: string): string {
  return `${base.replace(/\/+$/, '')}/bot${botToken}/sendMessage`
}

async function sendTelegram(job: DestinationJob, destination: TelegramDestination): Promise<DeliveryResult> {
  const body = JSON.stringify({ chat_id: destination.chatId, text: telegramText(job) })
  const url = telegramUrl(job.endpoints.telegram, destination.botToken)
  const outcome = await send({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body }, job.outbound)
  const result = classify(outcome)
  // Flood control answers 429 with the wait in the body, not in a header:
  // {"ok":false,"error_code":429,"parameters":{"retry_after":N}}.
  if (outcome.ok && outcome.status === 429 && result.retryAfterMs === undefined) {
    const seconds = retryAfterSeconds(outcome.body)
    if (seconds !== undefined) result.retryAfterMs = seconds * 1000
  }
  return result
}

function retryAfterSeconds(body: string): number | undefined {
  try {
    const value = (JSON.parse(body) as { parameters?: { retry_after?: unknown } }).parameters?.retry_after
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
  } catch {
    return undefined
  }
}

export const telegram: DestinationType<typeof schema> = {
  type: 'telegram',
  label: 'Telegram',
  description: 'Bot API `sendMessage` to `TELEGRAM_API_URL`: title, body and link as text; ⚠️ HIGH or 🚨 URGENT before the title for priority 4 or 5.',
  schema,
  fields: [
    { key: 'botToken', label: 'Bot token', kind: 'secret', required: true, hint: 'From @BotFather: 123456:ABC…' },
    { key: 'chatId', label: 'Chat id', kind: 'integerOrText', required: true, hint: 'A number, or @channelusername.' },
  ],
  signed: false,
  previewDefaults: { botToken: '1:x', chatId: 1 },
  redact: (d) => ({ type: d.type, chatId: d.chatId }),
  secrets: (d) => ({ urls: [], values: [d.botToken] }),
  host: (_d, endpoints) => hostOf(endpoints.telegram),
  summary: (v) => `telegram chat ${v.chatId}`,
  preview: (job) => ({ contentType: 'text/plain', body: telegramText(job) }),
  send: sendTelegram,
}
