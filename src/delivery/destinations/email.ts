// E-mail destination: one message through SMTP with nodemailer. The SMTP
// host passes the same SSRF rules as HTTP receivers (an SMTP client is just
// as good at probing an internal network), and nodemailer connects to the
// address we checked, with TLS still verifying the certificate against the
// host name. nodemailer is loaded with the first e-mail: the CLI reads this
// file for its flags and help, and a thread that sends no e-mail needs none.
import type { Transporter } from 'nodemailer'
import { Type, type Static } from '@sinclair/typebox'
import { ackUrlOf } from '../ack_link'
import { checkHost, preview, type DeliveryResult } from '../outbound'
import { clip, renderMessage } from '../template'
import { hostOf, type DestinationJob, type DestinationType } from './destination'
import { digestMessage, plainLine } from './digest_message'
import { priorityOf } from '../priority'

const schema = Type.Object({
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
}, { additionalProperties: false, examples: [{ type: 'email', to: ['ops@example.com'], from: 'Herald <herald@example.com>' }] })
export type EmailDestination = Static<typeof schema>

interface SmtpServer {
  host: string
  port: number
  secure: boolean
  user?: string
  pass?: string
}

/** The router's own server, else SMTP_URL (smtp://user:pass@host:port, smtps:// for TLS from the first byte). */
export function smtpServer(destination: EmailDestination, smtpUrl: string | undefined): SmtpServer | null {
  if (destination.smtp) return { ...destination.smtp, secure: destination.smtp.secure ?? destination.smtp.port === 465 }
  if (!smtpUrl || !URL.canParse(smtpUrl)) return null
  const url = new URL(smtpUrl)
  const secure = url.protocol === 'smtps:'
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port) || (secure ? 465 : 587),
    secure,
    ...(url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : {}),
  }
}

// One pooled transport per server (and checked address) per worker thread, so
// a burst of e-mails reuses connections. Bounded: evicted ones are closed.
const TRANSPORTS_MAX = 50
const transports = new Map<string, Transporter>()

let nodemailer: Promise<typeof import('nodemailer')> | undefined

async function transportFor(server: SmtpServer, address: string, timeoutMs: number): Promise<Transporter> {
  const key = JSON.stringify([server, address, timeoutMs])
  let transport = transports.get(key)
  if (!transport) {
    const { createTransport } = await (nodemailer ??= import('nodemailer'))
    transport = transports.get(key) // made by another send while nodemailer loaded
    if (transport) return transport
    if (transports.size >= TRANSPORTS_MAX) {
      const [oldest, evicted] = transports.entries().next().value as [string, Transporter]
      transports.delete(oldest)
      evicted.close()
    }
    transport = createTransport({
      pool: true,
      host: address,
      port: server.port,
      secure: server.secure,
      tls: { servername: server.host }, // SNI and certificate check against the name, not the IP
      ...(server.user ? { auth: { user: server.user, pass: server.pass ?? '' } } : {}),
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    })
    transports.set(key, transport)
  }
  return transport
}

/** Closes every pooled SMTP connection of this thread (tests, shutdown). */
export function closeTransports(): void {
  for (const t of transports.values()) t.close()
  transports.clear()
}

// A digest's e-mail lists its events up to this many characters (at most 1,000 events of ~300).
const DIGEST_TEXT_MAX = 300_000

export function emailMessage(job: DestinationJob, destination: EmailDestination, from: string) {
  const m = job.digest ? digestMessage({ ...job, digest: job.digest }, DIGEST_TEXT_MAX, plainLine) : renderMessage(job.event, job.router.template)
  return {
    from,
    to: destination.to,
    // A header cannot hold a line break; RFC 5322 advises short subjects.
    subject: clip(m.title.replace(/[\r\n]+/g, ' '), 255),
    text: [m.body, m.link, ackUrlOf(job) && `Acknowledge: ${ackUrlOf(job)}`].filter(Boolean).join('\n\n'),
    // The same on every attempt, so a receiving system can spot a duplicate.
    messageId: `<${job.deliveryId}@herald>`,
    // The event's priority as mail clients show it (none for the default, 3).
    headers: { 'X-Herald-Delivery': job.deliveryId, ...priorityOf(job.event).email },
  }
}

async function sendEmail(job: DestinationJob, destination: EmailDestination): Promise<DeliveryResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const server = smtpServer(destination, job.endpoints.smtpUrl)
  if (!server) return { ok: false, retryable: false, durationMs: 0, error: 'no SMTP server: set SMTP_URL (smtp:// or smtps://) or the destination smtp' }
  const from = destination.from ?? job.endpoints.smtpFrom
  if (!from) return { ok: false, retryable: false, durationMs: 0, error: 'no sender: set SMTP_FROM or the destination from' }
  const signal = AbortSignal.timeout(job.outbound.timeoutMs)
  const target = await checkHost(server.host, job.outbound.allow, signal)
  if (!target.ok) return { ok: false, retryable: target.kind !== 'refused', durationMs: elapsed(), error: target.error }
  const transport = await transportFor(server, target.address, job.outbound.timeoutMs)
  try {
    const info = await withTimeout(transport.sendMail(emailMessage(job, destination, from)), job.outbound.timeoutMs)
    const response = String(info.response ?? '')
    return { ok: true, retryable: false, status: replyCode(response) ?? 250, durationMs: elapsed(), response: preview(response) }
  } catch (err) {
    return { ...smtpFailure(err), durationMs: elapsed() }
  }
}

const replyCode = (response: string) => {
  const code = /^\d{3}/.exec(response)?.[0]
  return code === undefined ? undefined : Number(code)
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`timed out after ${ms} ms`), { code: 'ETIMEDOUT' })), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** SMTP 5xx is a permanent refusal; 4xx and connection trouble are worth retrying. */
function smtpFailure(err: unknown): Omit<DeliveryResult, 'durationMs'> {
  const e = err as { responseCode?: number; response?: string; code?: string; message?: string }
  const status = typeof e.responseCode === 'number' ? e.responseCode : undefined
  const permanent = status !== undefined && status >= 500
  return {
    ok: false,
    retryable: !permanent,
    ...(status === undefined ? {} : { status }),
    ...(e.response ? { response: preview(e.response) } : {}),
    error: `SMTP ${status ?? e.code ?? 'error'}: ${e.message ?? String(err)}`,
  }
}

export const email: DestinationType<typeof schema> = {
  type: 'email',
  label: 'E-mail',
  description: 'SMTP through nodemailer to the `to` addresses (default server `SMTP_URL`, sender `SMTP_FROM`): subject = title, text = body and link, header `X-Herald-Delivery`; `X-Priority` and `Importance` for priorities 1, 2, 4 and 5.',
  schema,
  fields: [
    { key: 'to', label: 'Recipients', kind: 'list', required: true, placeholder: 'ops@example.com, jane@example.com', hint: 'Separated by commas or spaces.' },
    { key: 'from', label: 'Sender', hint: 'Optional; default: the server’s SMTP_FROM.' },
    { key: 'smtp.host', label: 'SMTP host', hint: 'Optional, with the fields below; default: the server’s SMTP_URL.' },
    { key: 'smtp.port', label: 'SMTP port', kind: 'number', placeholder: '587' },
    { key: 'smtp.secure', label: 'TLS from the first byte (port 465)', kind: 'checkbox' },
    { key: 'smtp.user', label: 'SMTP user' },
    { key: 'smtp.pass', label: 'SMTP password', kind: 'secret' },
  ],
  signed: false,
  previewDefaults: { to: ['you@example.com'] },
  redact: (d) => ({ type: d.type, to: d.to, from: d.from, smtp: d.smtp ? { host: d.smtp.host, port: d.smtp.port } : undefined }),
  secrets: (d) => ({ urls: [], values: d.smtp?.pass ? [d.smtp.pass] : [] }),
  host: (d, endpoints) => (d.smtp ? `${d.smtp.host}:${d.smtp.port}` : hostOf(endpoints.smtpUrl)),
  summary: (v) => `email to ${Array.isArray(v.to) ? v.to.join(', ') : String(v.to ?? '-')}${v.smtp ? ` via ${(v.smtp as { host: string }).host}` : ''}`,
  preview(job, d) {
    const m = emailMessage(job, d, d.from ?? job.endpoints.smtpFrom ?? '')
    const priority = Object.entries(m.headers).filter(([k]) => k !== 'X-Herald-Delivery').map(([k, v]) => `${k}: ${v}\n`).join('')
    return { contentType: 'message/rfc822', body: `From: ${m.from}\nTo: ${m.to.join(', ')}\nSubject: ${m.subject}\n${priority}\n${m.text}` }
  },
  send: sendEmail,
}
