// E-mail to people (password resets, invitations) through SMTP_URL with
// nodemailer. Without SMTP_URL the message is logged instead, so a fresh
// install can still reset a password: the operator reads the link in the log.
import { createTransport } from 'nodemailer'
import type { Config } from '../core/config'
import type { Logger } from '../core/log'

export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>
  /** Closes the pooled SMTP connections (shutdown). */
  close(): void
}

/** Where the links in e-mails lead: HERALD_PUBLIC_URL, else this server on localhost; no trailing slash. */
export const linkBase = (config: Pick<Config, 'HERALD_PUBLIC_URL' | 'PORT'>) => (config.HERALD_PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '')

export function createMailer(config: Config, log: Logger): Mailer {
  if (!config.SMTP_URL) {
    return {
      async send(m) {
        log.warn({ to: m.to, subject: m.subject, text: m.text }, 'e-mail not sent: SMTP_URL is unset; here it is instead')
      },
      close() {},
    }
  }
  const url = new URL(config.SMTP_URL)
  const secure = url.protocol === 'smtps:'
  const transport = createTransport({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port) || (secure ? 465 : 587),
    secure,
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    pool: true,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  })
  return {
    async send(m) {
      await transport.sendMail({ from: config.SMTP_FROM, to: m.to, subject: m.subject, text: m.text })
    },
    close: () => transport.close(),
  }
}
