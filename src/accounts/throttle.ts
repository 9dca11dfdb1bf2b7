// Throttles on what a caller can make Herald do: sign in, and send e-mails
// (reset and sign-up links to anyone; invitations, for a signed-in person). Each attempt is counted first,
// in one statement that adds to every counter it touches and returns them,
// and judged after: so forty attempts at once are counted as forty, and the
// eleventh is refused however they interleave. The counters are fixed
// windows in PostgreSQL, shared by every API instance. An unknown address is
// counted like a known one, so an answer never tells which addresses have
// accounts.
import type { Sql } from '../core/db'

const WINDOW_MS = 15 * 60_000
// Ten sign-ins per account per quarter hour stop a guesser and not a person;
// a client address (an office behind one NAT) gets ten times as many. Three
// e-mails to one address per quarter hour is more than a person asks for and
// too few to flood a mailbox.
export const SIGNIN_LIMITS = { email: 10, ip: 100 } as const
export const MAIL_LIMITS = { recipient: 3, ip: 20 } as const
// A signed-in person invites a team at a time, not hundreds of strangers.
export const INVITE_LIMITS = { recipient: MAIL_LIMITS.recipient, inviter: 50 } as const

export interface Counter {
  key: string
  limit: number
}

const lower = (email: string) => email.trim().toLowerCase()
export const signinCounters = (email: string, ip: string): Counter[] => [
  { key: `signin:email:${lower(email)}`, limit: SIGNIN_LIMITS.email },
  { key: `signin:ip:${ip}`, limit: SIGNIN_LIMITS.ip },
]
export const mailCounters = (email: string, ip: string): Counter[] => [
  { key: `mail:to:${lower(email)}`, limit: MAIL_LIMITS.recipient },
  { key: `mail:ip:${ip}`, limit: MAIL_LIMITS.ip },
]

/** An invitation is an e-mail too: counted per recipient (with resets and sign-ups) and per inviter. */
export const invitationCounters = (email: string, userId: string): Counter[] => [
  { key: `mail:to:${lower(email)}`, limit: INVITE_LIMITS.recipient },
  { key: `mail:by:${userId}`, limit: INVITE_LIMITS.inviter },
]

/**
 * Counts one attempt against every counter, atomically, and returns the
 * seconds to wait when any of them is now over its limit (0: go on).
 */
export async function countAttempt(sql: Sql, counters: Counter[]): Promise<number> {
  // Sorted, so two statements lock the same rows in the same order.
  const keys = counters.map((c) => c.key).sort()
  const rows = await sql<{ key: string; count: number; wait: number }[]>`
    INSERT INTO signin_failures (key, failures, window_start)
    SELECT k, 1, now() FROM unnest(${keys}::text[]) AS k ORDER BY k
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN signin_failures.window_start <= now() - ${WINDOW_MS} * interval '1 ms' THEN 1 ELSE signin_failures.failures + 1 END,
      window_start = CASE WHEN signin_failures.window_start <= now() - ${WINDOW_MS} * interval '1 ms' THEN now() ELSE signin_failures.window_start END
    RETURNING key, failures AS count, extract(epoch FROM window_start + ${WINDOW_MS} * interval '1 ms' - now())::float8 AS wait`
  let wait = 0
  for (const r of rows) {
    const limit = counters.find((c) => c.key === r.key)!.limit
    if (r.count > limit) wait = Math.max(wait, Math.ceil(r.wait), 1)
  }
  return wait
}

/**
 * A successful sign-in: its account starts again from zero, and the attempt
 * is taken back from its client address (which counts, in effect, failures).
 */
export async function forgiveSignin(sql: Sql, email: string, ip: string) {
  const [account, address] = signinCounters(email, ip)
  await sql`DELETE FROM signin_failures WHERE key = ${account!.key}`
  await sql`UPDATE signin_failures SET failures = greatest(failures - 1, 0) WHERE key = ${address!.key}`
}

export const deleteExpiredSigninFailures = (sql: Sql) => sql`DELETE FROM signin_failures WHERE window_start < now() - ${WINDOW_MS} * interval '1 ms'`
