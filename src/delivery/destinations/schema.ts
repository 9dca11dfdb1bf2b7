// What a router may deliver to: one TypeBox schema per destination type, the
// union the operator API validates against, and the redacted view the API
// shows after creation. Everything but `type` is a secret (webhook URLs carry
// tokens, so do bot tokens and SMTP passwords): it is encrypted at rest and
// never returned again.
import { Type, type Static } from '@sinclair/typebox'

const HttpUrl = (description: string) =>
  Type.String({ format: 'uri', pattern: '^[hH][tT][tT][pP][sS]?://', maxLength: 2048, description })

// A header name is an RFC 9110 token. A value is printable ASCII, spaces and
// tabs: a CR or LF would end the header and start another. Bun's fetch
// refuses line breaks and characters beyond U+00FF (a router holding one
// failed every delivery, and retried each, for as long as it existed) and
// sends other control characters raw, garbling the request. The schema's
// `error` is what the API answers, in words rather than a regex.
const HeaderName = Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$" })
const HeaderValue = Type.String({
  maxLength: 1024,
  pattern: '^[\\t\\x20-\\x7e]*$',
  error: 'a header value must be text of at most 1024 printable ASCII characters (letters, digits, punctuation, spaces and tabs), without line breaks, NUL or other control characters',
})
const HeaderNameRefused = Type.Never({ error: "a header name must be 1 to 64 letters, digits and any of ! # $ % & ' * + - . ^ _ ` | ~ (no spaces, colons or control characters)" })

export const WebhookDestination = Type.Object({
  type: Type.Literal('webhook'),
  url: HttpUrl('Receiver URL; POSTed a JSON body signed per Standard Webhooks.'),
  headers: Type.Optional(Type.Record(HeaderName, HeaderValue, { additionalProperties: HeaderNameRefused, maxProperties: 20, description: 'Extra request headers, such as an Authorization the receiver expects: names are tokens (letters, digits and !#$%&\'*+-.^_`|~), values printable ASCII without line breaks.' })),
}, { additionalProperties: false })

export const SlackDestination = Type.Object({
  type: Type.Literal('slack'),
  url: HttpUrl('Slack incoming-webhook URL (https://hooks.slack.com/services/…).'),
}, { additionalProperties: false })

export const DiscordDestination = Type.Object({
  type: Type.Literal('discord'),
  url: HttpUrl('Discord webhook URL (https://discord.com/api/webhooks/…).'),
}, { additionalProperties: false })

export const TeamsDestination = Type.Object({
  type: Type.Literal('teams'),
  url: HttpUrl('Microsoft Teams Workflows (or incoming-webhook) URL; receives an Adaptive Card.'),
}, { additionalProperties: false })

export const TelegramDestination = Type.Object({
  type: Type.Literal('telegram'),
  botToken: Type.String({ pattern: '^[0-9]+:[A-Za-z0-9_-]+$', maxLength: 256, description: 'Bot API token from @BotFather.' }),
  chatId: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Integer()], { description: 'Chat id or @channelusername.' }),
}, { additionalProperties: false })

export const EmailDestination = Type.Object({
  type: Type.Literal('email'),
  // A pattern, not format: 'email': the OpenAPI plugin swaps in a stricter
  // e-mail check app-wide that refuses valid addresses such as a@b.c.
  to: Type.Array(Type.String({ pattern: '^[^@\\s]+@[^@\\s]+$', maxLength: 254 }), { minItems: 1, maxItems: 50, description: 'Recipients.' }),
  from: Type.Optional(Type.String({ maxLength: 320, description: 'Sender; default SMTP_FROM.' })),
  smtp: Type.Optional(Type.Object({
    host: Type.String({ minLength: 1, maxLength: 253 }),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    secure: Type.Optional(Type.Boolean({ description: 'TLS from the first byte (port 465). Otherwise STARTTLS when offered.' })),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    pass: Type.Optional(Type.String({ maxLength: 1024 })),
  }, { additionalProperties: false, description: 'SMTP server; default SMTP_URL.' })),
}, { additionalProperties: false })

export const SmsDestination = Type.Object({
  type: Type.Literal('sms'),
  accountSid: Type.String({ pattern: '^AC[0-9a-fA-F]{32}$', description: 'Twilio account SID.' }),
  authToken: Type.String({ minLength: 1, maxLength: 256, description: 'Twilio auth token.' }),
  from: Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'Sending number, E.164.' }),
  to: Type.String({ pattern: '^\\+[1-9][0-9]{6,14}$', description: 'Recipient number, E.164.' }),
}, { additionalProperties: false })

export const Destination = Type.Union(
  [WebhookDestination, SlackDestination, DiscordDestination, TeamsDestination, TelegramDestination, EmailDestination, SmsDestination],
  { description: 'Where the router delivers; `type` selects the fields.' },
)
export type Destination = Static<typeof Destination>
export type DestinationType = Destination['type']
export const DESTINATION_TYPES: DestinationType[] = ['webhook', 'slack', 'discord', 'teams', 'telegram', 'email', 'sms']

export const Template = Type.Object({
  title: Type.Optional(Type.String({ maxLength: 1024, description: 'Mustache template of the title (`{{data.plan}}`, `{{event}}`…).' })),
  body: Type.Optional(Type.String({ maxLength: 16384, description: 'Mustache template of the body. For a webhook it replaces the whole JSON body.' })),
}, { additionalProperties: false })
export type Template = Static<typeof Template>

/** What the API shows of a destination after creation: no token, no path of a URL. */
export function redactDestination(d: Destination): Record<string, unknown> {
  const origin = (u: string) => {
    try {
      return `${new URL(u).origin}/…`
    } catch {
      return '…'
    }
  }
  switch (d.type) {
    case 'webhook':
      return { type: d.type, url: origin(d.url), headers: d.headers ? Object.keys(d.headers) : undefined }
    case 'slack':
    case 'discord':
    case 'teams':
      return { type: d.type, url: origin(d.url) }
    case 'telegram':
      return { type: d.type, chatId: d.chatId }
    case 'email':
      return { type: d.type, to: d.to, from: d.from, smtp: d.smtp ? { host: d.smtp.host, port: d.smtp.port } : undefined }
    case 'sms':
      return { type: d.type, from: d.from, to: d.to }
  }
}

/**
 * What of a destination no error or response preview may show: its URLs
 * (their paths and queries; the origin is fine) and its other secrets, such as
 * header values (and the token after "Bearer "), bot tokens and passwords.
 */
export function destinationSecrets(d: Destination): { urls: string[]; values: string[] } {
  switch (d.type) {
    case 'webhook':
      return { urls: [d.url], values: Object.values(d.headers ?? {}).flatMap((v) => [v, v.trim().split(/\s+/).at(-1) ?? '']) }
    case 'slack':
    case 'discord':
    case 'teams':
      return { urls: [d.url], values: [] }
    case 'telegram':
      return { urls: [], values: [d.botToken] }
    case 'email':
      return { urls: [], values: d.smtp?.pass ? [d.smtp.pass] : [] }
    case 'sms':
      return { urls: [], values: [d.authToken] }
    default:
      return { urls: [], values: [] } // an unknown type: deliver() sends nothing
  }
}

/** host[:port] of a URL, or "unknown". */
/** The services the destinations of a type share (from the config): where Telegram, Twilio and the default SMTP server are. */
export interface Endpoints {
  telegram: string // TELEGRAM_API_URL, e.g. https://api.telegram.org
  twilio: string // TWILIO_API_URL, e.g. https://api.twilio.com
  smtpUrl?: string // SMTP_URL, default server of e-mail destinations
  smtpFrom?: string // SMTP_FROM
}

const hostOf = (url: string | undefined) => {
  try {
    return new URL(url ?? '').host || 'unknown'
  } catch {
    return 'unknown'
  }
}

/**
 * Where a destination's sends go, as host[:port], for the circuit metrics: a
 * URL's host (never its path, which may carry a token), the SMTP server, or
 * the Telegram or Twilio API. Destinations on one host share a label.
 */
export function destinationHost(d: Destination, endpoints: Pick<Endpoints, 'telegram' | 'twilio' | 'smtpUrl'>): string {
  switch (d.type) {
    case 'webhook':
    case 'slack':
    case 'discord':
    case 'teams':
      return hostOf(d.url)
    case 'telegram':
      return hostOf(endpoints.telegram)
    case 'email':
      return d.smtp ? `${d.smtp.host}:${d.smtp.port}` : hostOf(endpoints.smtpUrl)
    case 'sms':
      return hostOf(endpoints.twilio)
    default:
      return 'unknown'
  }
}
