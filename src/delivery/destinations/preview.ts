// What a destination would send for an event, without sending it: the
// dashboard's template preview, rendered by the same code as a delivery.
import type { DeliveryJob } from '../job'
import type { EventView } from '../event_view'
import type { Destination, Template } from './schema'
import { webhookPayload } from './webhook'
import { slackPayload } from './slack'
import { discordPayload } from './discord'
import { teamsPayload } from './teams'
import { telegramText } from './telegram'
import { emailMessage } from './email'
import { smsBody } from './sms'

export interface Preview {
  contentType: string
  body: string // the request body (JSON pretty-printed), the e-mail, or the message text
}

const json = (value: unknown): Preview => ({ contentType: 'application/json', body: JSON.stringify(value, null, 2) })

/** The payload `destination` (only its type and non-secret fields matter) would receive for `event`. */
export function previewPayload(destination: Destination, template: Template | undefined, event: EventView, from: string): Preview {
  const job: DeliveryJob = {
    deliveryId: '00000000-0000-8000-8000-000000000000',
    attempt: 1,
    event,
    router: { id: 'preview', name: 'preview', destination, ...(template ? { template } : {}), signingSecret: 'whsec_cHJldmlldw==' },
    outbound: { allow: [], timeoutMs: 1, maxResponseBytes: 0 },
    endpoints: { telegram: '', twilio: '' },
  }
  switch (destination.type) {
    case 'webhook': {
      const { body, contentType } = webhookPayload(job, new Date(event.createdAt))
      try {
        return json(JSON.parse(body))
      } catch {
        return { contentType, body }
      }
    }
    case 'slack':
      return json(slackPayload(job))
    case 'discord':
      return json(discordPayload(job))
    case 'teams':
      return json(teamsPayload(job))
    case 'telegram':
      return { contentType: 'text/plain', body: telegramText(job) }
    case 'email': {
      const m = emailMessage(job, destination, destination.from ?? from)
      return { contentType: 'message/rfc822', body: `From: ${m.from}\nTo: ${m.to.join(', ')}\nSubject: ${m.subject}\n\n${m.text}` }
    }
    case 'sms':
      return { contentType: 'text/plain', body: smsBody(job) }
  }
}
