// A digest's default message, as chat, e-mail and SMS destinations show it:
// a title naming how many events and the key, and one line per event (its
// title and message, with its link where the destination can carry one),
// cut cleanly, between lines, at the destination's size limit with
// "… and N more". A router's template replaces either (renderMessage with
// the digest: `{{count}}`, `{{key}}`, `{{#events}}…{{/events}}`).
import type { DigestBatch, DestinationJob } from './destination'
import type { EventView } from '../event_view'
import { clip, isWebLink, renderMessage, type Escape, type Message } from '../template'

/** How one event of a digest is written as a line; `escape` applied to event text. */
export type DigestLine = (e: EventView, escape: (s: string) => string) => string

// An event's message in a line: its first characters only.
const LINE_MESSAGE = 200

/** The default line: `• title: message`, and the link after it (plain text). */
export const plainLine: DigestLine = (e, escape) => `• ${escape(e.title ?? e.event ?? 'Event')}: ${escape(clip(e.message.replace(/\s+/g, ' '), LINE_MESSAGE))}${e.link ? ` ${e.link}` : ''}`

/** A Markdown line: the title is a link to the event's web link, when it has one. */
export const markdownLine: DigestLine = (e, escape) => {
  const title = escape(e.title ?? e.event ?? 'Event')
  return `• ${isWebLink(e.link) ? `[${title}](${e.link})` : title}: ${escape(clip(e.message.replace(/\s+/g, ' '), LINE_MESSAGE))}`
}

/** The digest's default title. */
export function digestTitle(d: DigestBatch): string {
  return `${d.count} event${d.count === 1 ? '' : 's'}${d.key ? ` for ${d.key}` : ''}`
}

/**
 * Lines of `events` joined by `sep`, as many as fit in `max` characters
 * together with the "… and N more" line that then ends them (N counts the
 * events left out for room). Events of the digest that retention dropped
 * before it was sent (a replay, long after: `count` holds them, `events`
 * not) are not counted there: a last line says how many are no longer kept.
 */
export function listEvents(events: EventView[], count: number, max: number, line: (e: EventView) => string, sep = '\n'): string {
  const gone = Math.max(0, count - events.length)
  const goneLine = gone ? `${gone.toLocaleString('en')} more no longer kept` : ''
  const end = (n: number) => [n > 0 ? `… and ${n} more` : '', goneLine].filter(Boolean).join(sep)
  let out = ''
  for (let i = 0; i < events.length; i++) {
    const next = (out ? sep : '') + line(events[i]!)
    const tail = end(events.length - i - 1)
    if (out.length + next.length + (tail ? sep.length + tail.length : 0) > max) {
      return out + (out ? sep : '') + end(events.length - i)
    }
    out += next
  }
  return goneLine ? out + (out ? sep : '') + goneLine : out
}

/**
 * The message of a digest job for a destination: the default title and
 * listing (lines of `line`, escaped by `escape`, cut to `max`), or the
 * router's templates rendered with the digest.
 */
export function digestMessage(job: DestinationJob & { digest: DigestBatch }, max: number, line: DigestLine, escape?: Escape, sep = '\n'): Message {
  const d = job.digest
  const esc = escape ?? ((s: string) => s)
  const title = esc(digestTitle(d))
  const body = listEvents(d.events, d.count, max, (e) => line(e, esc), sep)
  return renderMessage(job.event, job.router.template, escape, { ...d, title, body })
}
