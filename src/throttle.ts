// Sign-in throttling: failed attempts per account and per client address in
// fixed windows, kept in PostgreSQL so that every API instance counts
// together. An unknown address is throttled like a known one, so the answer
// never tells which addresses have accounts.
import type { Sql } from './db'

const WINDOW_MS = 15 * 60_000
// Ten wrong passwords per account per quarter hour stop a guesser and not a
// person; an address (an office behind one NAT) gets ten times as many.
export const SIGNIN_LIMITS = { email: 10, ip: 100 } as const

const keysOf = (email: string, ip: string) => [`email:${email.trim().toLowerCase()}`, `ip:${ip}`]

/** Seconds until another attempt is allowed, or 0 when it is allowed now. */
export async function signinRetryAfter(sql: Sql, email: string, ip: string): Promise<number> {
  const [emailKey, ipKey] = keysOf(email, ip)
  const rows = await sql<{ key: string; failures: number; wait: number }[]>`
    SELECT key, failures, extract(epoch FROM window_start + ${WINDOW_MS} * interval '1 ms' - now())::float8 AS wait
    FROM signin_failures WHERE key IN (${emailKey!}, ${ipKey!}) AND window_start > now() - ${WINDOW_MS} * interval '1 ms'`
  let wait = 0
  for (const r of rows) {
    const limit = r.key === emailKey ? SIGNIN_LIMITS.email : SIGNIN_LIMITS.ip
    if (r.failures >= limit) wait = Math.max(wait, Math.ceil(r.wait))
  }
  return wait
}

/** Counts a failed attempt against the account and the address. */
export const recordSigninFailure = (sql: Sql, email: string, ip: string) => sql`
  INSERT INTO signin_failures (key, failures, window_start)
  SELECT k, 1, now() FROM unnest(${keysOf(email, ip)}::text[]) AS k
  ON CONFLICT (key) DO UPDATE SET
    failures = CASE WHEN signin_failures.window_start <= now() - ${WINDOW_MS} * interval '1 ms' THEN 1 ELSE signin_failures.failures + 1 END,
    window_start = CASE WHEN signin_failures.window_start <= now() - ${WINDOW_MS} * interval '1 ms' THEN now() ELSE signin_failures.window_start END`

/** A successful sign-in clears its account's count (not its address's). */
export const clearSigninFailures = (sql: Sql, email: string) => sql`DELETE FROM signin_failures WHERE key = ${keysOf(email, '')[0]!}`

export const deleteExpiredSigninFailures = (sql: Sql) => sql`DELETE FROM signin_failures WHERE window_start < now() - ${WINDOW_MS} * interval '1 ms'`
