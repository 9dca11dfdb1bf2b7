// Microsoft Teams destination: a message carrying one Adaptive Card, the
// format both Workflows (Power Automate) webhooks and the older incoming
// webhooks accept. Workflows answers 202 Accepted.
import type { DeliveryJob, DeliveryResult } from '../job'
import { classify, send } from '../outbound'
import { clip, isWebLink, renderMessage } from '../template'
import type { Destination } from './schema'

export type TeamsDestination = Extract<Destination, { type: 'teams' }>

// Teams refuses messages over about 28 KB; these keep a card well under it
// even in three-byte characters.
const TITLE_MAX = 512
const BODY_MAX = 8000

export function teamsPayload(job: DeliveryJob): Record<string, unknown> {
  const { event } = job
  const m = renderMessage(event, job.router.template)
  const facts = [{ title: 'Channel', value: `#${event.channel}` }]
  if (event.event) facts.unshift({ title: 'Event', value: event.event })
  if (event.tags.length > 0) facts.push({ title: 'Tags', value: event.tags.join(', ') })
  if (m.link && !isWebLink(m.link)) facts.push({ title: 'Link', value: m.link })
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      { type: 'TextBlock', text: clip(m.title, TITLE_MAX), weight: 'Bolder', size: 'Medium', wrap: true },
      { type: 'TextBlock', text: clip(m.body, BODY_MAX), wrap: true },
      { type: 'FactSet', facts },
    ],
    ...(isWebLink(m.link) ? { actions: [{ type: 'Action.OpenUrl', title: 'Open', url: m.link }] } : {}),
  }
  return {
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }],
  }
}

export async function sendTeams(job: DeliveryJob, destination: TeamsDestination): Promise<DeliveryResult> {
  const body = JSON.stringify(teamsPayload(job))
  return classify(await send({ method: 'POST', url: destination.url, headers: { 'content-type': 'application/json' }, body }, job.outbound))
}
