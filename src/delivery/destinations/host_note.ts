// What a destination's URL on another host than its service's gets said: a
// Slack router whose address is not hooks.slack.com is not refused (Slack-
// compatible servers exist: Mattermost, Rocket.Chat) but noted, in the
// dashboard's router form and by the CLI. Pure and free of server code: the
// dashboard's bundle imports it.
import type { Field } from './destination'

/** The note for `url` in a field with `hosts`: null when it is on one of them (or a subdomain), the field names none, or it is not a URL. */
export function hostNote(f: Pick<Field, 'hosts'>, service: string, url: string): string | null {
  if (!f.hosts?.length) return null
  let host: string
  try {
    host = new URL(url).hostname.toLowerCase()
  } catch {
    return null
  }
  if (f.hosts.some((h) => host === h || host.endsWith(`.${h}`))) return null
  return `${host} is not ${service}'s address (${f.hosts.join(', ')}): fine for a ${service}-compatible server; otherwise check the URL.`
}
