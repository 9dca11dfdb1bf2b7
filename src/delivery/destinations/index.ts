// The destination types, one file each behind one interface (destination.ts),
// and everything built from their list: the Destination union the API
// validates against, the dispatcher, the preview, the redacted view, the
// secrets, the circuit metrics' host, the dashboard's forms, the CLI's flags
// and the docs' table (docs.ts). A new type is its file and its line in
// DESTINATIONS; no table names types, so none can miss one.
import { Type, type Static } from '@sinclair/typebox'
import type { EventView } from '../event_view'
import type { DeliveryResult } from '../outbound'
import { redact } from '../redaction'
import { TemplateLimitError, type Template } from '../template'
import type { AnyDestinationType, DestinationForm, DestinationJob, Endpoints, Preview, Secrets } from './destination'
import { discord } from './discord'
import { email } from './email'
import { slack } from './slack'
import { sms } from './sms'
import { teams } from './teams'
import { telegram } from './telegram'
import { webhook } from './webhook'

/** Every destination type, in the order the dashboard and the CLI list them. */
export const DESTINATIONS = [webhook, slack, discord, teams, telegram, email, sms] as const

/** A destination of any type, as the API takes it and a delivery sends to it. */
export type Destination = Static<(typeof DESTINATIONS)[number]['schema']>
export type DestinationName = Destination['type']
export const DESTINATION_TYPES: readonly DestinationName[] = DESTINATIONS.map((d) => d.type)

/** The union of the types' schemas, which the OpenAPI document shows as the router bodies' `destination`. */
export const Destination = Type.Union(
  DESTINATIONS.map((d) => d.schema),
  { description: 'Where the router delivers; `type` selects the fields.' },
)

// By name, for what arrives as JSON. A Map, not an object: a type named
// "constructor" or "__proto__" is no type.
const byName = new Map<string, AnyDestinationType>(DESTINATIONS.map((d) => [d.type, d]))

/** The type object of a name, or undefined for one no type has (a client's typo, a row of another version). */
export const destinationType = (type: unknown): AnyDestinationType | undefined => (typeof type === 'string' ? byName.get(type) : undefined)

/** The type object of a destination that passed its schema. */
const typeOf = (d: Destination): AnyDestinationType => byName.get(d.type)!

/** What the API shows of a destination after creation: no token, no path of a URL. */
export const redactDestination = (d: Destination): Record<string, unknown> => typeOf(d).redact(d)

/**
 * What of a destination no error or response preview may show: its URLs
 * (their paths and queries; the origin is fine) and its other secrets, such
 * as header values (and the token after "Bearer "), bot tokens and passwords.
 */
export const destinationSecrets = (d: Destination): Secrets => destinationType(d.type)?.secrets(d) ?? { urls: [], values: [] } // an unknown type: deliver() sends nothing

/**
 * Where a destination's sends go, as host[:port], for the circuit metrics: a
 * URL's host (never its path, which may carry a token), the SMTP server, or
 * the Telegram or Twilio API. Destinations on one host share a label.
 */
export const destinationHost = (d: Destination, endpoints: Pick<Endpoints, 'telegram' | 'twilio' | 'smtpUrl'>): string => destinationType(d.type)?.host(d, endpoints) ?? 'unknown'

/** What the dashboard's router form needs of each type: no schema, no code, plain data for the browser bundle. */
export const destinationForms = (): DestinationForm[] => DESTINATIONS.map((d) => ({ type: d.type, label: d.label, signed: d.signed, fields: [...d.fields] }))

// --- sending ---------------------------------------------------------------

/** A delivery attempt of a router's destination (job.ts's DeliveryJob). */
export type DestinationAttempt = DestinationJob & { router: { destination: Destination } }

/**
 * Sends one attempt of one router delivery; never throws. What comes back
 * names no secret of the destination: the error and the response are kept
 * on the attempt for every member of the workspace to read, and logged, so
 * the destination's URLs (path and query), tokens, passwords and header
 * values are cut out of them, whatever produced the text (outbound.send
 * already redacts the URLs it requested; SMTP and the unexpected do not).
 */
export async function deliver(job: DestinationAttempt): Promise<DeliveryResult> {
  const result = await attempt(job)
  const { urls, values } = destinationSecrets(job.router.destination)
  if (result.error !== undefined) result.error = redact(result.error, urls, values)
  if (result.response !== undefined) result.response = redact(result.response, urls, values)
  return result
}

// Every expected failure is already a value; this only adds a net for a
// template over its budget, which fails for good (the same template on the
// same event would fail again), and for the unexpected (a bug, a library
// throwing), which is retried like a network error because a later attempt
// may well succeed.
async function attempt(job: DestinationAttempt): Promise<DeliveryResult> {
  const started = performance.now()
  const d = job.router.destination
  try {
    const type = destinationType(d.type)
    if (type) return await type.send(job, d)
    return { ok: false, retryable: false, durationMs: 0, error: `unknown destination type ${JSON.stringify((d as { type?: unknown }).type)}` }
  } catch (err) {
    if (err instanceof TemplateLimitError) return { ok: false, retryable: false, durationMs: Math.round(performance.now() - started), error: `not sent: ${err.message}` }
    const error = err instanceof Error ? err.message : String(err)
    return { ok: false, retryable: true, durationMs: Math.round(performance.now() - started), error: `unexpected error: ${error}` }
  }
}

// --- preview ---------------------------------------------------------------

/**
 * What `destination` (only its type and non-secret fields matter) would
 * receive for `event`, without sending it: the dashboard's template preview,
 * rendered by the same code as a delivery. `from`: SMTP_FROM.
 */
export function previewPayload(destination: Destination, template: Template | undefined, event: EventView, from: string): Preview {
  const job: DestinationJob = {
    deliveryId: '00000000-0000-8000-8000-000000000000',
    attempt: 1,
    event,
    router: { id: 'preview', name: 'preview', ...(template ? { template } : {}), signingSecret: 'whsec_cHJldmlldw==' },
    outbound: { allow: [], timeoutMs: 1, maxResponseBytes: 0 },
    endpoints: { telegram: '', twilio: '', smtpFrom: from },
  }
  return typeOf(destination).preview(job, destination)
}
