// Telegram destination: Bot API sendMessage, plain text (no parse_mode, so
// event text needs no escaping and cannot inject formatting).
import type { DeliveryJob, DeliveryResult } from '../job'
import { classify, send } from '../outbound'
import { clip, renderMessage } from '../template'
import type { Destination } from './schema'

export type TelegramDestination = Extract<Destination, { type: 'telegram' }>

// sendMessage refuses text over 4096 characters.
const TEXT_MAX = 4096

export function telegramText(job: DeliveryJob): string {
  const m = renderMessage(job.event, job.router.template)
  const link = m.link ? `\n\n${m.link}` : ''
  // Clip the title and body, not the link: the link is what the reader acts on.
  return clip(`${m.title}\n\n${m.body}`, TEXT_MAX - link.length) + link
}

/** The bot token sits in the URL path; outbound errors name only the host. */
export function telegramUrl(base: string, botToken: string): string {
  return `${base.replace(/\/+$/, '')}/bot${botToken}/sendMessage`
}

export async function sendTelegram(job: DeliveryJob, destination: TelegramDestination): Promise<DeliveryResult> {
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
