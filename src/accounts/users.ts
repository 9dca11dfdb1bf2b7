// People who sign in: sign-up, password checks, sessions (a web session in an
// HttpOnly cookie, or a bearer token for the app), password resets. Secrets
// are stored as SHA-256 hashes only; passwords as argon2id (Bun.password).
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { Sql, Tx } from '../core/db'
import { generateSecret, hashSecret, keyPrefix } from '../core/keys'
import { USER_TOKEN_PREFIX } from './members'
import { hashingBusy } from '../core/errors'

export const SESSION_PREFIX = 'hrls_'
// A web session lasts a month from its last use; an app token as long as it
// is used at least every HERALD_APP_TOKEN_IDLE_DAYS (phones stay signed in,
// as people expect of a notification app, and a lost or forgotten one's
// token dies by itself).
export const WEB_SESSION_MS = 30 * 24 * 3600 * 1000
export const DAY_MS = 24 * 3600 * 1000
const RESET_MS = 60 * 60 * 1000 // a reset link works for an hour, once
const SIGNUP_LINK_MS = 24 * 3600 * 1000 // a sign-up link works for a day, once
export const PASSWORD_MIN = 10
export const PASSWORD_MAX = 200

export type SessionKind = 'web' | 'app'

export interface Session {
  tokenId: number
  userId: string
  email: string
  kind: SessionKind
  csrf: string | null
}

export const normalizeEmail = (email: string) => email.trim()

/** Why a password is refused, or null. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < PASSWORD_MIN) return `password must be at least ${PASSWORD_MIN} characters`
  if (password.length > PASSWORD_MAX) return `password must be at most ${PASSWORD_MAX} characters`
  return null
}

// argon2id is made to be slow: about 100 ms of a core, and 64 MiB, per hash.
// Hashes run one at a time, so that a flood of sign-ins takes one core and
// leaves the rest of Herald (and POST /event) the other; a few hundred
// waiting is a 503 to retry rather than a queue that grows without end.
const HASHES_AT_ONCE = 1
const HASHES_WAITING_MAX = 200
let hashing = 0
const waiting: (() => void)[] = []

async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  if (hashing >= HASHES_AT_ONCE) {
    if (waiting.length >= HASHES_WAITING_MAX) throw hashingBusy()
    await new Promise<void>((resolve) => waiting.push(resolve))
  } else hashing++
  try {
    return await work()
  } finally {
    // The next in line takes this place over; `hashing` stays as it is.
    const next = waiting.shift()
    if (next) next()
    else hashing--
  }
}

export const hashPassword = (password: string) => oneAtATime(() => Bun.password.hash(password, { algorithm: 'argon2id' }))
const verifyPassword = (password: string, hash: string) => oneAtATime(() => Bun.password.verify(password, hash))

// Verifying against this when the address is unknown makes a wrong address
// take as long as a wrong password.
let decoy: Promise<string> | undefined
const decoyHash = () => (decoy ??= hashPassword(randomBytes(16).toString('hex')))

/** Creates a user with a password. Null when the address is taken. */
export async function insertUser(tx: Tx, email: string, passwordHash: string): Promise<{ id: string } | null> {
  const [row] = await tx<{ id: string }[]>`
    INSERT INTO users (id, email, password_hash) VALUES (${Bun.randomUUIDv7()}, ${email}, ${passwordHash})
    ON CONFLICT (lower(email)) DO NOTHING RETURNING id`
  return row ?? null
}

/** The user whose address and password these are, or null; as slow either way. */
export async function checkPassword(sql: Sql, email: string, password: string): Promise<{ id: string; email: string } | null> {
  const [user] = await sql<{ id: string; email: string; hash: string | null }[]>`
    SELECT id, email, password_hash AS hash FROM users WHERE lower(email) = lower(${email})`
  const ok = await verifyPassword(password, user?.hash ?? (await decoyHash()))
  return ok && user?.hash ? { id: user.id, email: user.email } : null
}

/**
 * Opens a session (an app token, or a web session with its CSRF token) and
 * keeps the account within `max` live sessions: past it, the least recently
 * used are revoked, and returned so that their live streams can be ended.
 * The account's row is locked first, so two sign-ins at once cannot both
 * count the others without their own and leave one too many.
 */
export async function createSession(sql: Sql, userId: string, kind: SessionKind, max: number, userAgent: string | null = null) {
  const token = generateSecret(kind === 'web' ? SESSION_PREFIX : USER_TOKEN_PREFIX)
  const csrf = kind === 'web' ? randomBytes(24).toString('base64url') : null
  const expiresAt = kind === 'web' ? new Date(Date.now() + WEB_SESSION_MS) : null
  const ended = await sql.begin(async (tx) => {
    await tx`SELECT 1 FROM users WHERE id = ${userId} FOR UPDATE`
    await tx`INSERT INTO user_tokens (user_id, hash, prefix, kind, csrf, expires_at, last_used_at, user_agent)
      VALUES (${userId}, ${hashSecret(token)}, ${keyPrefix(token)}, ${kind}, ${csrf}, ${expiresAt}, now(), ${userAgent === null ? null : [...userAgent].slice(0, USER_AGENT_MAX).join('')})`
    return tx<{ id: number }[]>`
      UPDATE user_tokens SET revoked_at = now() WHERE id IN (
        SELECT id FROM user_tokens
        WHERE user_id = ${userId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
        ORDER BY coalesce(last_used_at, created_at) DESC, id DESC OFFSET ${max})
      RETURNING id`
  })
  return { token, csrf, expiresAt, ended: ended.map((r) => r.id) }
}

/**
 * The session of a token: live, 'idle' (an app token unused for
 * `appIdleMs`, which no longer works), or null (unknown, revoked or expired).
 * Operator-issued tokens never used count from when they were made.
 */
export async function lookupSession(sql: Sql, token: string, appIdleMs: number): Promise<Session | 'idle' | null> {
  const [row] = await sql<(Session & { idle: boolean })[]>`
    SELECT t.id AS "tokenId", u.id AS "userId", u.email, t.kind, t.csrf,
      t.kind = 'app' AND coalesce(t.last_used_at, t.created_at) <= now() - ${appIdleMs} * interval '1 ms' AS idle
    FROM user_tokens t JOIN users u ON u.id = t.user_id
    WHERE t.hash = ${hashSecret(token)} AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`
  if (!row) return null
  if (row.idle) return 'idle'
  const { idle: _, ...session } = row
  return session
}

/** The live session of a token, or null (unknown, revoked, expired or idle past `appIdleMs`). */
export async function findSession(sql: Sql, token: string, appIdleMs: number): Promise<Session | null> {
  const found = await lookupSession(sql, token, appIdleMs)
  return found === 'idle' ? null : found
}

/** Slides a web session's expiry forward and records its use (an app token's idle time starts again); at most once a minute per session. */
export const touchSession = (sql: Sql, tokenId: number) => sql`
  UPDATE user_tokens SET last_used_at = now(),
    expires_at = CASE WHEN kind = 'web' THEN now() + ${WEB_SESSION_MS} * interval '1 ms' ELSE expires_at END
  WHERE id = ${tokenId} AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`

export const revokeSession = (sql: Tx, tokenId: number) => sql`UPDATE user_tokens SET revoked_at = now() WHERE id = ${tokenId} AND revoked_at IS NULL`

/** The most of a session's User-Agent kept, in characters. */
export const USER_AGENT_MAX = 200

/** A live session of a person as their account page lists it: never its secret. */
export interface SessionView {
  id: number
  kind: SessionKind
  userAgent: string | null
  createdAt: Date
  lastUsedAt: Date | null
  expiresAt: Date | null
}

/** A page of a person's live sessions, the newest first (by id, which a session's use does not move); `after` is the last id of the page before. */
export const listSessions = (sql: Tx, userId: string, limit: number, after: number | null) => sql<SessionView[]>`
  SELECT id::int AS id, kind, user_agent AS "userAgent", created_at AS "createdAt", last_used_at AS "lastUsedAt", expires_at AS "expiresAt"
  FROM user_tokens
  WHERE user_id = ${userId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
    ${after === null ? sql`` : sql`AND id < ${after}`}
  ORDER BY id DESC
  LIMIT ${limit}`

/** Ends one of a person's own live sessions; false when they have no such live session. */
export const revokeOwnSession = async (sql: Tx, userId: string, tokenId: number) =>
  (await sql`UPDATE user_tokens SET revoked_at = now() WHERE id = ${tokenId} AND user_id = ${userId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`).count === 1

/**
 * Sets a person's password and ends every other session of theirs, and every
 * reset link, in one transaction; the ids of the sessions it ended.
 */
export async function setPassword(sql: Sql, userId: string, passwordHash: string, keepTokenId: number): Promise<number[]> {
  return sql.begin(async (tx) => {
    await tx`UPDATE users SET password_hash = ${passwordHash} WHERE id = ${userId}`
    await tx`UPDATE password_resets SET used_at = now() WHERE user_id = ${userId} AND used_at IS NULL`
    const ended = await tx<{ id: number }[]>`
      UPDATE user_tokens SET revoked_at = now() WHERE user_id = ${userId} AND id <> ${keepTokenId} AND revoked_at IS NULL RETURNING id::int AS id`
    return ended.map((r) => r.id)
  })
}

/** Whether `password` is the person's (a timing-safe argon2 check); false when they have none. */
export async function passwordMatches(sql: Sql, userId: string, password: string): Promise<boolean> {
  const [row] = await sql<{ hash: string | null }[]>`SELECT password_hash AS hash FROM users WHERE id = ${userId}`
  if (!row?.hash) return false
  return verifyPassword(password, row.hash)
}

export const revokeAllSessions = (sql: Tx, userId: string) => sql`UPDATE user_tokens SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL`

/** Compares the CSRF token a form sent with its session's, in constant time. */
export function csrfMatches(session: Session, sent: string | null): boolean {
  if (!session.csrf || !sent) return false
  const a = Buffer.from(session.csrf)
  const b = Buffer.from(sent)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * A one-hour, single-use reset token for the account of `email`, or null when
 * there is none. It voids every earlier link of the account: only the newest works.
 */
export async function createPasswordReset(sql: Sql, email: string): Promise<{ token: string; email: string } | null> {
  const token = randomBytes(32).toString('base64url')
  const [row] = await sql<{ email: string }[]>`
    WITH u AS (SELECT id, email FROM users WHERE lower(email) = lower(${email})),
    voided AS (UPDATE password_resets SET used_at = now() WHERE user_id IN (SELECT id FROM u) AND used_at IS NULL),
    made AS (INSERT INTO password_resets (hash, user_id, expires_at) SELECT ${hashSecret(token)}, id, ${new Date(Date.now() + RESET_MS)} FROM u)
    SELECT email FROM u`
  return row ? { token, email: row.email } : null
}

/**
 * Sets a new password with a reset token, voids the account's other reset
 * links, and signs the person out everywhere (whoever knew the old password
 * no longer has a session; sessions are never cached, so this holds at once
 * on every instance). Returns the user, or null when the token is unknown,
 * used or expired.
 */
export async function resetPassword(sql: Sql, token: string, passwordHash: string): Promise<{ id: string; email: string } | null> {
  return sql.begin(async (tx) => {
    const [reset] = await tx<{ userId: string }[]>`
      UPDATE password_resets SET used_at = now()
      WHERE hash = ${hashSecret(token)} AND used_at IS NULL AND expires_at > now()
      RETURNING user_id AS "userId"`
    if (!reset) return null
    await tx`UPDATE password_resets SET used_at = now() WHERE user_id = ${reset.userId} AND used_at IS NULL`
    const [user] = await tx<{ id: string; email: string }[]>`UPDATE users SET password_hash = ${passwordHash} WHERE id = ${reset.userId} RETURNING id, email`
    await revokeAllSessions(tx, reset.userId)
    return user ?? null
  })
}

export const countUsers = async (sql: Tx) => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM (SELECT 1 FROM users LIMIT 1) x`)[0]!.n

export const userExists = async (sql: Tx, email: string) => (await sql`SELECT 1 FROM users WHERE lower(email) = lower(${email})`).length > 0

/** A pending sign-up: nothing exists but this row until its link is used. */
export async function createSignupRequest(sql: Tx, email: string, passwordHash: string, workspace: string | null): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  await sql`INSERT INTO signup_requests (hash, email, password_hash, workspace, expires_at)
    VALUES (${hashSecret(token)}, ${email}, ${passwordHash}, ${workspace}, ${new Date(Date.now() + SIGNUP_LINK_MS)})`
  return token
}

/** Uses up a sign-up link; its address, password and workspace name, or null when unknown, used or expired. */
export async function takeSignupRequest(tx: Tx, token: string) {
  const [row] = await tx<{ email: string; passwordHash: string; workspace: string | null }[]>`
    UPDATE signup_requests SET used_at = now()
    WHERE hash = ${hashSecret(token)} AND used_at IS NULL AND expires_at > now()
    RETURNING email, password_hash AS "passwordHash", workspace`
  return row ?? null
}

export const deleteExpiredSignupRequests = (sql: Sql) => sql`DELETE FROM signup_requests WHERE expires_at < now() - interval '1 day'`
