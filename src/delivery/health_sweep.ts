// The sweeps every delivering process runs each DELIVERY_SWEEP_INTERVAL_MS
// (health.ts does the SQL): deliveries past their retry schedule fail for
// good; those of parked routers past their event's ttl expire; routers failing for ROUTER_FAILING_AFTER_MS are reported to their
// owners and admins, and those failing for ROUTER_DISABLE_AFTER_MS are
// disabled. Each transition is claimed by one statement, so several
// workers sweeping at once send each e-mail once.
import type { Sql } from '../core/db'
import type { Logger } from '../core/log'
import type { Config } from '../core/config'
import { linkBase, type Mailer } from '../accounts/mailer'
import type { Announce } from '../core/changes'
import { claimFailingRouters, disableFailingRouters, expireDeliveries, expireParkedPastTtl, type RouterAlarm } from './health'
import { deliveriesExpired, deliveryTtlExpired } from './metrics'

// Deliveries failed by one statement at most: a bounded statement; a larger
// backlog takes a few sweeps.
const EXPIRE_MAX = 10_000

export interface SweepDeps {
  sql: Sql
  log: Logger
  mailer: Mailer
  config: Pick<Config, 'DELIVERY_EXPIRY_GRACE_MS' | 'ROUTER_FAILING_AFTER_MS' | 'ROUTER_DISABLE_AFTER_MS' | 'DELIVERY_SWEEP_INTERVAL_MS' | 'HERALD_PUBLIC_URL' | 'PORT'>
  schedule: number[] // HERALD_RETRY_SCHEDULE, parsed
  announce: Announce
}

/** One round of every sweep. */
export async function sweepHealth(deps: SweepDeps) {
  const { sql, config } = deps
  const span = deps.schedule.reduce((a, b) => a + b, 0)
  for (const { kind, n } of await expireDeliveries(sql, span, config.DELIVERY_EXPIRY_GRACE_MS, EXPIRE_MAX)) {
    deliveriesExpired(kind, n)
    deps.log.warn({ kind, deliveries: n }, 'deliveries failed for good: their retry schedule ran out')
  }
  for (const { type, n } of await expireParkedPastTtl(sql, EXPIRE_MAX)) {
    deliveryTtlExpired(type, n)
    deps.log.info({ type, deliveries: n }, 'deliveries of parked routers expired: their events outlived their ttl')
  }
  for (const a of await claimFailingRouters(sql, config.ROUTER_FAILING_AFTER_MS)) await tell(deps, a, failingEmail(a, link(deps, a)))
  for (const a of await disableFailingRouters(sql, config.ROUTER_DISABLE_AFTER_MS)) {
    deps.announce({ kind: 'routers', workspaceId: a.workspaceId })
    await tell(deps, a, disabledEmail(a, link(deps, a)))
  }
}

/** Runs sweepHealth every DELIVERY_SWEEP_INTERVAL_MS until stop(). */
export function startHealthSweeps(deps: SweepDeps) {
  let running: Promise<void> = Promise.resolve()
  const timer = setInterval(() => {
    running = running.then(() => sweepHealth(deps)).catch((err) => deps.log.warn({ err }, 'delivery sweep failed; trying again at the next'))
  }, deps.config.DELIVERY_SWEEP_INTERVAL_MS)
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}

const link = (deps: SweepDeps, a: RouterAlarm) => `${linkBase(deps.config)}/w/${encodeURIComponent(a.workspace)}/routers`

async function tell(deps: SweepDeps, a: RouterAlarm, mail: { subject: string; text: string }) {
  deps.log.warn({ routerId: a.id, workspace: a.workspace, since: a.since, lastError: a.lastError }, mail.subject)
  for (const to of a.to) {
    await deps.mailer.send({ to, ...mail }).catch((err) => deps.log.error({ err, to }, `could not send the e-mail "${mail.subject}"`))
  }
}

export function failingEmail(a: RouterAlarm, link: string) {
  return {
    subject: `Router ${a.name} in ${a.workspace} is failing`,
    text: `The destination of the router "${a.name}" in the workspace "${a.workspace}" has not accepted a delivery since ${a.since}.\n`
      + `Last error: ${a.lastError ?? '(none recorded)'}\n\n`
      + 'Its deliveries are held and retried; those whose retry schedule runs out fail for good. '
      + 'Mend the receiver, or change the router\'s destination, and they go out again. '
      + 'If it keeps failing, the router will be disabled.\n\n'
      + `${link}\n`,
  }
}

export function disabledEmail(a: RouterAlarm, link: string) {
  return {
    subject: `Router ${a.name} in ${a.workspace} was disabled`,
    text: `The destination of the router "${a.name}" in the workspace "${a.workspace}" has not accepted a delivery since ${a.since}, so the router was disabled: it takes no more events, and its pending deliveries failed.\n`
      + `Last error: ${a.lastError ?? '(none recorded)'}\n\n`
      + 'Enable it again once the receiver is mended; replay the failed deliveries to send them.\n\n'
      + `${link}\n`,
  }
}
