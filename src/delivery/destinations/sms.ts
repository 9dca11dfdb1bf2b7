// SMS destination: Twilio's Messages API, a form-encoded POST with HTTP Basic
// auth (account SID : auth token). Twilio answers 201 Created.
import { Type, type Static } from '@sinclair/typebox'
import { classify, send, type DeliveryResult } from '../outbound'
import { clip, renderMessage } from '../template'
import { hostOf, type DestinationJob, type DestinationType } from './destination'
import { digestMessage } from './digest_message'

const schema = Type.Object({
  type: Type.Literal('sms'),
  accountSid: Type.String({ pattern: '^AC[0-9a-fA-F]{32}$', description: 'Twilio account SID.' }),
  authToken: Type.String({ minLength: 1, maxLength: 256, description: 'Twilio auth token.' }),
  from: Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'Sending number, E.164.' }),
  to: Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'Recipient number, E.164.' }),
}, { additionalProperties: false, examples: [{ type: 'sms', accountSid: 'AC0123456789abcdef0123456789abcdef', authToken: 'tw1l10-t0ken', from: '+15005550006', to: '+15551234567' }] })
type SmsDestination = Static<typeof schema>

// Twilio refuses a Body over 1600 characters (it would be 10+ segments).
const BODY_MAX = 1600

export function smsBody(job: DestinationJob): string {
  if (job.digest) {
    // Titles only: an SMS has room for few lines.
    const m = digestMessage({ ...job, digest: job.digest }, BODY_MAX - 120, (e, esc) => `• ${esc(e.title ?? e.event ?? clip(e.message, 80))}`)
    return clip(`${m.title}\n${m.body}`, BODY_MAX)
  }
  const m = renderMessage(job.event, job.router.template)
  return clip(`${m.title}\n${m.body}`, BODY_MAX)
}

async function sendSms(job: DestinationJob, destination: SmsDestination): Promise<DeliveryResult> {
  const url = `${job.endpoints.twilio.replace(/\/+$/, '')}/2010-04-01/Accounts/${destination.accountSid}/Messages.json`
  const body = new URLSearchParams({ To: destination.to, From: destination.from, Body: smsBody(job) }).toString()
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: 'Basic ' + Buffer.from(`${destination.accountSid}:${destination.authToken}`).toString('base64'),
  }
  return classify(await send({ method: 'POST', url, headers, body }, job.outbound))
}

export const sms: DestinationType<typeof schema> = {
  type: 'sms',
  label: 'SMS (Twilio)',
  description: 'Twilio Messages API at `TWILIO_API_URL`, from and to E.164 numbers: title and body, up to 1,600 characters.',
  schema,
  fields: [
    { key: 'accountSid', label: 'Account SID', required: true, placeholder: 'AC…' },
    { key: 'authToken', label: 'Auth token', kind: 'secret', required: true },
    { key: 'from', label: 'From number', required: true, placeholder: '+15551234567', hint: 'E.164.' },
    { key: 'to', label: 'To number', required: true, placeholder: '+15557654321', hint: 'E.164.' },
  ],
  signed: false,
  previewDefaults: { accountSid: 'AC0', authToken: 'x', from: '+10000000000', to: '+10000000001' },
  redact: (d) => ({ type: d.type, from: d.from, to: d.to }),
  secrets: (d) => ({ urls: [], values: [d.authToken] }),
  host: (_d, endpoints) => hostOf(endpoints.twilio),
  summary: (v) => `sms from ${v.from} to ${v.to}`,
  preview: (job) => ({ contentType: 'text/plain', body: smsBody(job) }),
  send: sendSms,
}
