// Sessions a person opens and ends: each operation announces the sessions it
// ends, so that every instance ends their live streams at once (the feed
// listens for 'session-ended'). The queries are in users.ts.
import type { Sql } from '../core/db'
import type { Announce } from '../core/changes'
import { currentPasswordWrong, noSuchSession, passwordRefused, resetLinkInvalid, signinThrottled, wrongCredentials } from '../core/errors'
import { checkPassword, countUsers, createSession, hashPassword, listSessions, passwordMatches, passwordProblem, resetPassword, revokeOwnSession, revokeSession, setPassword, type Session, type SessionKind, type SessionView } from './users'
import { countAttempt, forgiveSignin, signinCounters } from './throttle'
import { waitingWorkspace } from './workspaces'

export interface SessionDeps {
  sql: Sql
  announce: Announce
  /** HERALD_MAX_SESSIONS_PER_USER: past it, the least recently used sessions of the account end. */
  maxSessions: number
}

/** Opens a session (a web session or an app token); the ones it pushes out of the account's cap end now. `userAgent`: what opened it, for the account page. */
export async function openSession(deps: SessionDeps, userId: string, kind: SessionKind, userAgent: string | null = null) {
  const session = await createSession(deps.sql, userId, kind, deps.maxSessions, userAgent)
  for (const tokenId of session.ended) deps.announce({ kind: 'session-ended', userId, tokenId })
  return session
}

/** Ends one session or token. */
export async function endSession(deps: Pick<SessionDeps, 'sql' | 'announce'>, session: { userId: string; tokenId: number }): Promise<void> {
  await revokeSession(deps.sql, session.tokenId)
  deps.announce({ kind: 'session-ended', userId: session.userId, tokenId: session.tokenId })
}

/** Sets a new password with a reset link: every other link and every session of the account end. 400 for a weak password or a dead link. */
export async function setPasswordByLink(deps: Pick<SessionDeps, 'sql' | 'announce'>, token: string, password: string): Promise<{ id: string; email: string }> {
  const why = passwordProblem(password)
  if (why) throw passwordRefused(why)
  const user = await resetPassword(deps.sql, token, await hashPassword(password))
  if (!user) throw resetLinkInvalid()
  deps.announce({ kind: 'session-ended', userId: user.id })
  return user
}

/**
 * Checks a password, counting the attempt per account and per client address
 * first (429 past the limit); the same 401 for an unknown address and a wrong
 * password. A success forgives the account's and the address's failures.
 */
export async function signIn(deps: Pick<SessionDeps, 'sql'>, email: string, password: string, clientAddress: string): Promise<{ id: string; email: string }> {
  const wait = await countAttempt(deps.sql, signinCounters(email, clientAddress))
  if (wait > 0) throw signinThrottled(wait)
  const user = await checkPassword(deps.sql, email, password)
  if (!user) throw wrongCredentials()
  await forgiveSignin(deps.sql, email, clientAddress)
  return user
}

/** What the sign-up page needs to know: whether anyone has signed up, and the workspace waiting for its first owner. */
export async function signupState(deps: Pick<SessionDeps, 'sql'>) {
  return { anyAccount: (await countUsers(deps.sql)) > 0, waitingWorkspace: await waitingWorkspace(deps.sql) }
}

/** A page of the person's own live sessions, newest first, this one marked `current`. */
export async function mySessions(deps: Pick<SessionDeps, 'sql'>, session: Session, page: { limit: number; after: number | null }) {
  const rows = await listSessions(deps.sql, session.userId, page.limit + 1, page.after)
  const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString())
  const shown = rows.slice(0, page.limit).map((r: SessionView) => ({
    id: r.id, kind: r.kind, userAgent: r.userAgent, createdAt: iso(r.createdAt)!, lastUsedAt: iso(r.lastUsedAt), expiresAt: iso(r.expiresAt), current: r.id === session.tokenId,
  }))
  return { sessions: shown, nextCursor: rows.length > page.limit ? String(shown.at(-1)!.id) : null }
}

/** Ends one of the person's own sessions (this one too, as a sign-out does); 404 for one that is not theirs or not live. */
export async function endMySession(deps: Pick<SessionDeps, 'sql' | 'announce'>, session: Session, tokenId: number): Promise<void> {
  if (!(await revokeOwnSession(deps.sql, session.userId, tokenId))) throw noSuchSession()
  deps.announce({ kind: 'session-ended', userId: session.userId, tokenId })
}

/**
 * Changes the signed-in person's password: the current one is checked (and
 * counted like a sign-in, per account and per client address, so a stolen
 * session cannot guess it), then every other session and reset link of the
 * account ends. This one stays signed in.
 */
export async function changePassword(deps: Pick<SessionDeps, 'sql' | 'announce'>, session: Session, change: { currentPassword: string; newPassword: string }, clientAddress: string): Promise<void> {
  const wait = await countAttempt(deps.sql, signinCounters(session.email, clientAddress))
  if (wait > 0) throw signinThrottled(wait)
  if (!(await passwordMatches(deps.sql, session.userId, change.currentPassword))) throw currentPasswordWrong()
  await forgiveSignin(deps.sql, session.email, clientAddress)
  const why = passwordProblem(change.newPassword)
  if (why) throw passwordRefused(why.replace(/^password/, 'newPassword'), '/newPassword')
  const ended = await setPassword(deps.sql, session.userId, await hashPassword(change.newPassword), session.tokenId)
  for (const tokenId of ended) deps.announce({ kind: 'session-ended', userId: session.userId, tokenId })
}
