// Sign-up: the three ways an account is made, and the e-mails they send.
// - With an invitation: the account joins the invitation's workspace at once.
// - The first account of a fresh install: made at once, as the owner of the
//   demo workspace when one awaits its owner. "First" is decided under one
//   lock, in a statement that starts once the lock is held, so two sign-ups
//   at once on any instances cannot both be first.
// - Anyone else: a link is e-mailed, and the account is made when it is
//   opened (`confirm`). An address that has an account gets the same answer,
//   and its owner an e-mail saying someone tried.
import type { Sql, Tx } from '../core/db'
import type { Config } from '../core/config'
import type { Logger } from '../core/log'
import { linkBase, type Mailer } from './mailer'
import { countUsers, createSignupRequest, hashPassword, insertUser, passwordProblem, takeSignupRequest, userExists } from './users'
import { passwordRefused } from '../core/errors'
import { countAttempt, mailCounters } from './throttle'
import { acceptInvitation, findInvitation } from './invitations'
import { claimWaitingWorkspace, createOwnedWorkspace, workspaceNameTaken, type WorkspaceLimits } from './workspaces'

export type Role = 'owner' | 'admin' | 'member'

export interface SignupRequest {
  email: string // normalised
  password: string // already checked against the password rules
  workspace: string | null
  invitation?: string
  clientAddress: string
}

export type SignupOutcome =
  | { kind: 'created'; userId: string; email: string; workspace: string; role: Role; how: 'invitation' | 'first' | 'confirmed' }
  | { kind: 'confirmation-sent' }
  | { kind: 'throttled'; wait: number }
  | { kind: 'invitation-invalid' }
  | { kind: 'invitation-for'; email: string } // the invitation names another address
  | { kind: 'invited-account-exists' }
  | { kind: 'workspace-taken'; name: string }
  | { kind: 'invite-only' }
  | { kind: 'link-invalid' }
  | { kind: 'account-exists' }

/** Thrown inside a transaction to roll it back with an outcome. */
class Refusal {
  constructor(readonly outcome: SignupOutcome) {}
}

/** A free workspace name from an e-mail address: "jane.doe@x" → "jane-doe", then "jane-doe-4f2a" if taken. */
function workspaceNameFrom(email: string, attempt: number): string {
  const base = email.split('@')[0]!.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, 40) || 'workspace'
  return attempt === 0 ? base : `${base}-${crypto.randomUUID().slice(0, 4)}`
}

/** Every account is made under this lock: "the first account" is then whoever takes it first. */
const lockAccounts = (tx: Tx) => tx`SELECT pg_advisory_xact_lock(hashtextextended('herald.accounts', 0))`

export function createSignup(deps: { sql: Sql; config: Config; log: Logger; mailer: Mailer }) {
  const { sql, config, log, mailer } = deps
  const publicUrl = linkBase(config)
  const limits: WorkspaceLimits = { monthlyQuota: config.HERALD_DEFAULT_MONTHLY_QUOTA, rateLimit: { perSecond: config.HERALD_DEFAULT_RATE_PER_SECOND, burst: config.HERALD_DEFAULT_RATE_BURST } }
  const mail = (to: string, subject: string, text: string) =>
    mailer.send({ to, subject, text }).catch((err) => log.error({ err }, `could not send the e-mail "${subject}"`))

  /** The user, their first workspace (named, or made from the address) and its owner membership; null when the address has an account. */
  async function createAccount(tx: Tx, email: string, passwordHash: string, workspace: string | null) {
    const user = await insertUser(tx, email, passwordHash)
    if (!user) return null
    // On a fresh install the first account owns the demo workspace, where the
    // events posted with the key printed at first start already are; a name
    // given as well still makes that workspace.
    const demo = await claimWaitingWorkspace(tx, user.id)
    if (demo && workspace && !(await createOwnedWorkspace(tx, workspace, limits, user.id))) throw new Refusal({ kind: 'workspace-taken', name: workspace })
    if (demo) return { userId: user.id, email, workspace: demo, role: 'owner' as const }
    for (let attempt = 0; ; attempt++) {
      const name = attempt === 0 && workspace ? workspace : workspaceNameFrom(email, attempt)
      if (await createOwnedWorkspace(tx, name, limits, user.id)) return { userId: user.id, email, workspace: name, role: 'owner' as const }
      if (workspace) throw new Refusal({ kind: 'workspace-taken', name: workspace })
    }
  }

  /** A transaction whose Refusal becomes its outcome. */
  async function deciding<T>(work: (tx: Tx) => Promise<T>): Promise<T | SignupOutcome> {
    try {
      return (await sql.begin((tx) => work(tx))) as T
    } catch (err) {
      if (err instanceof Refusal) return err.outcome
      throw err
    }
  }

  async function byInvitation(req: SignupRequest & { invitation: string }): Promise<SignupOutcome> {
    // The link was e-mailed to this address: whoever holds it may learn that
    // the address has an account, and needs no further proof.
    const invitation = await findInvitation(sql, req.invitation)
    if (!invitation) return { kind: 'invitation-invalid' }
    if (invitation.email.toLowerCase() !== req.email.toLowerCase()) return { kind: 'invitation-for', email: invitation.email }
    const passwordHash = await hashPassword(req.password)
    const user = await deciding(async (tx) => {
      await lockAccounts(tx)
      const user = await insertUser(tx, req.email, passwordHash)
      if (user && !(await acceptInvitation(tx, invitation, user.id))) throw new Refusal({ kind: 'invitation-invalid' })
      return user
    })
    if (user && 'kind' in user) return user
    if (!user) return { kind: 'invited-account-exists' }
    log.info({ userId: user.id, workspace: invitation.workspace }, 'signed up by invitation')
    return { kind: 'created', userId: user.id, email: req.email, workspace: invitation.workspace, role: invitation.role as Role, how: 'invitation' }
  }

  /** The first account of a fresh install, made at once; null when another account exists (by the time the lock is ours). */
  async function first(req: SignupRequest, passwordHash: string): Promise<SignupOutcome | null> {
    const made = await deciding(async (tx) => {
      await lockAccounts(tx)
      if ((await tx`SELECT 1 FROM users LIMIT 1`).length) return null
      return createAccount(tx, req.email, passwordHash, req.workspace)
    })
    if (!made || 'kind' in made) return made
    log.info({ userId: made.userId, workspace: made.workspace }, 'signed up (the first account)')
    return { ...made, kind: 'created', how: 'first' }
  }

  return {
    async signUp(req: SignupRequest): Promise<SignupOutcome> {
      const weak = passwordProblem(req.password)
      if (weak) throw passwordRefused(weak)
      if (req.invitation) return byInvitation({ ...req, invitation: req.invitation })
      if (config.HERALD_SIGNUP !== 'open') return { kind: 'invite-only' }
      if (req.workspace && (await workspaceNameTaken(sql, req.workspace))) return { kind: 'workspace-taken', name: req.workspace }
      const passwordHash = await hashPassword(req.password)
      // The first account of a fresh install has nobody to hide from.
      if ((await countUsers(sql)) === 0) {
        const made = await first(req, passwordHash)
        if (made) return made
      }
      const wait = await countAttempt(sql, mailCounters(req.email, req.clientAddress))
      if (wait > 0) return { kind: 'throttled', wait }
      if (await userExists(sql, req.email)) {
        await mail(req.email, 'Someone tried to create a Herald account with your address',
          `Someone (perhaps you) tried to create a Herald account with this address, which already has one. No account was created and nothing changed.\n\nTo sign in: ${publicUrl}/signin\nForgot your password? ${publicUrl}/reset\n\nIf it was not you, you can ignore this e-mail.\n`)
      } else {
        const token = await createSignupRequest(sql, req.email, passwordHash, req.workspace)
        await mail(req.email, 'Finish creating your Herald account',
          `Open this link to finish creating your Herald account (it works once, for 24 hours):\n${publicUrl}/signup/confirm/${token}\n\nIf you did not sign up for Herald, ignore this e-mail: no account is created without it.\n`)
      }
      return { kind: 'confirmation-sent' }
    },

    /** Opens an e-mailed sign-up link: the account and its first workspace. */
    async confirm(token: string): Promise<SignupOutcome> {
      const made = await deciding(async (tx) => {
        await lockAccounts(tx)
        const pending = await takeSignupRequest(tx, token)
        if (!pending) throw new Refusal({ kind: 'link-invalid' })
        return (await createAccount(tx, pending.email, pending.passwordHash, pending.workspace)) ?? new Refusal({ kind: 'account-exists' }).outcome
      })
      if ('kind' in made) return made
      log.info({ userId: made.userId, workspace: made.workspace }, 'signed up')
      return { ...made, kind: 'created', how: 'confirmed' }
    },
  }
}
export type Signup = ReturnType<typeof createSignup>
