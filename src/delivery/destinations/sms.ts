// SMS destination: Twilio's Messages API, a form-encoded POST with HTTP Basic
// auth (account SID : auth token). Twilio answers 201 Created.
import type { DeliveryJob, DeliveryResult } from '../job'
import { classify, send } from '../outbound'
import { clip, renderMessage } from '../template'
import type { Destination } from './schema'

export type SmsDestination = Extract<Destination, { type: 'sms' }>

// Twilio refuses a Body over 1600 characters (it would be 10+ segments).
const BODY_MAX = 1600

export function smsBody(job: DeliveryJob): string {
  const m = renderMessage(job.event, job.router.template)
  return clip(`${m.title}\n${m.body}`, BODY_MAX)
}

export async function sendSms(job: DeliveryJob, destination: SmsDestination): Promise<DeliveryResult> {
  const url = `${job.endpoints.twilio.replace(/\/+$/, '')}/2010-04-01/Accounts/${destination.accountSid}/Messages.json`
  const body = new URLSearchParams({ To: destination.to, From: destination.from, Body: smsBody(job) }).toString()
  const headers = {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: 'Basic ' + Buffer.from(`${destination.accountSid}:${destination.authToken}`).toString('base64'),
  }
  return classify(await send({ method: 'POST', url, headers, body }, job.outbound))
}
