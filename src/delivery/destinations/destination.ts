// One destination type behind one interface: everything Herald knows of a
// type sits in its own file (webhook.ts, slack.ts, …) as one object, and every
// table of types (the API's validation, the preview, the CLI's flags, the
// dashboard's form, the circuit metrics' hosts, the redacted view, the docs)
// is built from the list in index.ts. A piece missing from an object fails
// type-checking; a type missing from a table cannot happen, there being none.
import { hostOf as urlHost } from '../../core/url'
import { Type, type Static, type TObject } from '@sinclair/typebox'
import type { EventView } from '../event_view'
import type { ReceiptNotice } from '../receipt_notice'
import { classify, send, type DeliveryResult, type OutboundOptions } from '../outbound'
import type { Template } from '../template'
import type { AckLinkConfig } from '../ack_link'

/** The services the destinations of a type share (from the config): where Telegram, Twilio and the default SMTP server are. */
export interface Endpoints {
  telegram: string // TELEGRAM_API_URL, e.g. https://api.telegram.org
  twilio: string // TWILIO_API_URL, e.g. https://api.twilio.com
  smtpUrl?: string // SMTP_URL, default server of e-mail destinations
  smtpFrom?: string // SMTP_FROM
  /** Herald's own /ack/<token> links (HERALD_PUBLIC_URL and the link key, ack_link.ts); none in a test send. */
  ackLink?: AckLinkConfig
}

/** One delivery attempt as a destination type sees it; `send` and `preview` take the destination itself typed. */
export interface DestinationJob {
  deliveryId: string // stable across attempts and duplicates: the webhook-id
  attempt: number // 1-based
  event: EventView
  router: { id: string; name: string; template?: Template; signingSecret: string }
  outbound: OutboundOptions
  endpoints: Endpoints
  /** A receipt of the event ended (a router with `receipts: true`): a webhook sends it as its body; other types get the notice's line as the event. */
  receipt?: ReceiptNotice
  /** A router's digest (kind `digest`): its gathered events, in order; `event` is the first of them. */
  digest?: DigestBatch
}

/** A digest as a destination sends it: its rendered key and its events (at most the router's `max`, ≤ 1,000). */
export interface DigestBatch {
  key: string
  count: number
  events: EventView[]
}

/** What a destination would receive, shown rather than sent (the dashboard's preview). */
export interface Preview {
  contentType: string
  body: string // the request body (JSON pretty-printed), the e-mail, or the message text
}

/** What no error or response preview may show: URLs (their paths and queries) and other secrets. */
export interface Secrets {
  urls: string[]
  values: string[]
}

/**
 * A field's path in a destination `T`, dotted below an object ("smtp.host"):
 * a field can name nothing the schema lacks. A record (webhook headers) and
 * a list (e-mail recipients) are one field each.
 */
export type FieldKey<T> = string extends keyof T
  ? string // any destination
  : {
      [K in Exclude<keyof T, 'type'> & string]-?: NonNullable<T[K]> extends readonly unknown[]
        ? K
        : NonNullable<T[K]> extends object
          ? string extends keyof NonNullable<T[K]> ? K : `${K}.${FieldKey<NonNullable<T[K]>>}`
          : K
    }[Exclude<keyof T, 'type'> & string]

/**
 * One input of the dashboard's router form. `kind` says how its text becomes
 * the value: a URL, a password, a number, a checkbox, `Name: value` lines (a
 * record), a list separated by commas or spaces, or `integerOrText` (a whole
 * number goes as a number, anything else as text: a Telegram chat id).
 */
export interface Field {
  key: string // a FieldKey of its type's destination
  label: string
  kind?: 'url' | 'secret' | 'number' | 'checkbox' | 'lines' | 'list' | 'integerOrText'
  hint?: string
  placeholder?: string
  required?: boolean
  /**
   * The hosts a URL field's service answers on: another host is not refused
   * (compatible servers exist) but noted, in the dashboard's form and by the
   * CLI (hostNote).
   */
  hosts?: string[]
}


/** The name a schema gives its destinations in `type`. */
export type TypeName<S extends TObject> = Static<S> extends { type: infer T extends string } ? T : string

/**
 * A destination type, whichever it is: its schema, how it sends, how it is
 * shown, and its form. The tables built from the list hold these; each
 * type's own file declares a DestinationType of its schema, which holds its
 * pieces to that schema.
 */
export interface AnyDestinationType {
  /** `destination.type`. */
  readonly type: string
  /** Its name for people: the dashboard's list of types, the CLI's help. */
  readonly label: string
  /** What is sent, in a sentence of Markdown: the docs' table of destinations. */
  readonly description: string
  /** What the API takes; its `examples` (one valid destination) show in the OpenAPI document. */
  readonly schema: TObject
  /** The dashboard's form, in order; every required property has one (test/delivery/destinations.registry.test.ts). */
  readonly fields: readonly Field[]
  /** For a type that is one URL: the help of the CLI's `--<type> <url>`, which stands for `{"type":…,"url":…}`. */
  readonly flag?: string
  /** Whether its receiver can check the router's signing secret (webhook-signature): the secret is shown after creation for these only. */
  readonly signed: boolean
  /** Stand-ins for the fields a half-filled form lacks: a preview renders the payload and needs no real address. */
  readonly previewDefaults: object
  /** What the API shows after creation: no token, no path of a URL. */
  redact(d: Record<string, unknown>): Record<string, unknown> & { type: string }
  /** What of it no error or response preview may show (deliver() cuts them out). */
  secrets(d: Record<string, unknown>): Secrets
  /** Where its sends go, as host[:port] (never a path, which may hold a token): the circuit metrics' label. */
  host(d: Record<string, unknown>, endpoints: Endpoints): string
  /** One line for its redacted view (`redact`'s, as the API shows it): the CLI's tables. */
  summary(view: Record<string, unknown>): string
  /** What `send` would send for the job, without sending it. */
  preview(job: DestinationJob, d: Record<string, unknown>): Preview
  /** One attempt; every expected failure is a result (ok: false), not a throw. */
  send(job: DestinationJob, d: Record<string, unknown>): Promise<DeliveryResult>
}

/** The destination type of schema `S`: every piece typed by it, so that a piece missing or at odds with the schema fails type-checking. */
export interface DestinationType<S extends TObject> extends AnyDestinationType {
  /** The schema's literal: tsc refuses another name. */
  readonly type: TypeName<S>
  readonly schema: S
  /** Each names a property of the schema (FieldKey). */
  readonly fields: readonly (Field & { key: FieldKey<Static<S>> })[]
  readonly previewDefaults: Omit<Static<S>, 'type'>
  redact(d: Static<S>): Record<string, unknown> & { type: string }
  secrets(d: Static<S>): Secrets
  host(d: Static<S>, endpoints: Endpoints): string
  preview(job: DestinationJob, d: Static<S>): Preview
  send(job: DestinationJob, d: Static<S>): Promise<DeliveryResult>
}

/**
 * What the dashboard's router form needs of a type: plain data, no schema and
 * no code. The dashboard gets it built into its bundle (src/http/routes/web.ts),
 * which must not import this area's server code.
 */
export type DestinationForm = Pick<AnyDestinationType, 'type' | 'label' | 'signed'> & { fields: Field[] }

// --- shared by several types -------------------------------------------------

export const HttpUrl = (description: string) =>
  Type.String({ format: 'uri', pattern: '^[hH][tT][tT][pP][sS]?://', maxLength: 2048, description })

/** host[:port] of a URL, or "unknown". */
export const hostOf = (url: string | undefined) => urlHost(url ?? '', 'unknown') || 'unknown'

/** A URL as the API shows it: its origin, and "/…" for the path and query, which may hold a token. */
export const originOf = (url: string) => {
  try {
    return `${new URL(url).origin}/…`
  } catch {
    return '…'
  }
}

export const jsonPreview = (value: unknown): Preview => ({ contentType: 'application/json', body: JSON.stringify(value, null, 2) })

/** POSTs `payload` as JSON to `url` (Slack, Discord and Teams webhooks). */
export async function postJson(job: DestinationJob, url: string, payload: unknown): Promise<DeliveryResult> {
  const body = JSON.stringify(payload)
  return classify(await send({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body }, job.outbound))
}

/** The parts of a type whose destination is one secret URL and nothing else (Slack, Discord, Teams). */
export const urlDestination = {
  signed: false,
  redact: (d: { type: string; url: string }) => ({ type: d.type, url: originOf(d.url) }),
  secrets: (d: { url: string }): Secrets => ({ urls: [d.url], values: [] }),
  host: (d: { url: string }) => hostOf(d.url),
  summary: (v: Record<string, unknown>) => `${v.type} ${v.url ?? ''}`.trimEnd(),
} as const
