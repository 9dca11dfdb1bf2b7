// Asking for a password-reset link, and the e-mail that carries it. The link
// works once, for an hour, and only the newest one works (users.ts makes and
// uses its token). Asking says nothing of whether the address has an account:
// the answer is the same, and only an account's address gets an e-mail.
import type { Sql } from '../core/db'
import type { Config } from '../core/config'
import type { Logger } from '../core/log'
import { linkBase, type Mailer } from './mailer'
import { countAttempt, mailCounters } from './throttle'
import { createPasswordReset } from './users'

export interface PasswordResetDeps {
  sql: Sql
  config: Config
  /** The request's logger, so that a failed e-mail names its request. */
  log: Logger
  mailer: Mailer
}

export type ResetAsked =
  | { kind: 'asked' } // a link is on its way, if the address has an account
  | { kind: 'throttled'; wait: number } // seconds until this address or client may ask again

/**
 * Counts the e-mail against the address's and the client's throttle (shared
 * with sign-up's e-mails), then e-mails a new link to the account of `email`,
 * if there is one. An e-mail that cannot be sent is logged, not an error.
 */
export async function requestPasswordReset(deps: PasswordResetDeps, email: string, clientAddress: string): Promise<ResetAsked> {
  const { sql, config, log, mailer } = deps
  const wait = await countAttempt(sql, mailCounters(email, clientAddress))
  if (wait > 0) return { kind: 'throttled', wait }
  const reset = await createPasswordReset(sql, email)
  if (reset) {
    const subject = 'Reset your Herald password'
    const text = `Someone (hopefully you) asked to reset the password of your Herald account.\n\nChoose a new password here (the link works once, for an hour, and only the newest link works):\n${linkBase(config)}/reset/${reset.token}\n\nIf it was not you, ignore this e-mail; your password stays as it is.\n`
    await mailer.send({ to: reset.email, subject, text }).catch((err) => log.error({ err }, `could not send the e-mail "${subject}"`))
  }
  return { kind: 'asked' }
}
