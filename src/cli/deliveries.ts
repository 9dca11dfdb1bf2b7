// The operator commands `herald delivery …`: a workspace's recent deliveries
// (all, failed, or of one state), and replaying one.
import { Option, type Command } from 'commander'
import type { DeliverySummary } from '../http/routes/deliveries'
import { group, limitOption, operatorCommand, wsPath } from './command'
import { json, table, usageError, utc } from './output'

interface ListOptions {
  failed?: boolean
  state?: (typeof STATES)[number] | 'all'
  limit?: number
}

// A table row stays on one line: longer errors are cut, and said whole below it when they name a setting.
const ERROR_WIDTH = 60
// The example a refusal names (outbound.ts allowHint): what to set for it.
const ALLOW_HINT = /HERALD_OUTBOUND_ALLOW=[^\s)]+/g

/** Digest fields of a delivery, present once the digest engine is (a `digested` one's `digestId`, a digest's `digest`). */
type WithDigest = { status: string; kind: string; lastError: string | null } & { digestId?: string | null; digest?: { key: string; count: number } | null }

/** The last column of a row: the last error, else where a digested event went, else what a digest held. */
export function deliveryNote(d: WithDigest): string {
  if (d.lastError) return d.lastError
  if (d.status === 'digested') return d.digestId ? `sent in digest ${d.digestId}` : 'sent in a digest'
  if (d.kind === 'digest' && d.digest) return `digest of ${d.digest.count} event${d.digest.count === 1 ? '' : 's'}${d.digest.key ? ` for key ${JSON.stringify(d.digest.key)}` : ''}`
  if (d.status === 'throttled') return "held back by the router's throttle"
  return '-'
}

function deliveriesTable(workspace: string, what: string, list: DeliverySummary[]): string {
  if (list.length === 0) return `Workspace ${workspace} has no ${what}.`
  const cut = (e: string) => (e.length > ERROR_WIDTH ? `${e.slice(0, ERROR_WIDTH - 1)}…` : e)
  const lines = [table(
    ['DELIVERY', 'EVENT', 'KIND', 'STATUS', 'ATTEMPTS', 'UPDATED (UTC)', 'LAST ERROR'],
    list.map((d) => [d.id, d.eventId, d.kind, d.status, d.attemptCount, utc(d.updatedAt), cut(deliveryNote(d))]),
  )]
  const allows = [...new Set(list.flatMap((d) => d.lastError?.match(ALLOW_HINT) ?? []))]
  if (allows.length) {
    lines.push('', `Some deliveries were refused by Herald's outbound rules (no loopback, private or link-local address). To let them through, set ${allows.join(' or ')} (a comma-separated list of CIDRs) in Herald's environment and restart it; see docs/security.md.`)
  }
  if (list.some((d) => (d.lastError?.length ?? 0) > ERROR_WIDTH)) lines.push('', 'Errors are cut to fit: --json shows them whole.')
  return lines.join('\n')
}

// throttled: a router's throttle held it back (never sent); digested: its event went out inside a digest (the digest's own delivery is kind digest).
const STATES = ['pending', 'succeeded', 'failed', 'cancelled', 'expired', 'suppressed', 'throttled', 'digested'] as const

const WORKSPACE: [string, string] = ['<workspace>', "the workspace's name"]

export const addDeliveryCommands = (program: Command) =>
  group(program, 'delivery', "List a workspace's deliveries (to routers and devices) and replay one.", (g) => {
    operatorCommand<ListOptions>(g, {
      name: 'list',
      args: [WORKSPACE],
      summary: 'List recent deliveries, newest first; --failed for those that failed for good.',
      description:
        "List a workspace's recent deliveries, newest event first, with their state, attempts and last error. With --failed, the deliveries that failed for good (a permanent error, or every attempt of the retry schedule used), newest failure first: what herald delivery replay sends again.",
      options: (cmd) =>
        cmd
          .option('--failed', 'only the deliveries that failed for good (the same as --state failed)')
          .addOption(new Option('--state <state>', 'only the deliveries in this state (throttled: held back by a router\'s throttle, not sent; digested: sent inside a digest)').choices(['all', ...STATES]))
          .option('--limit <N>', 'most deliveries listed, from 1 to 1000 (default: 100)', limitOption),
      examples: ['herald delivery list acme', 'herald delivery list acme --failed', 'herald delivery list acme --state pending --limit 20 --json'],
      async run(client, [workspace], opts) {
        if (opts.failed && opts.state && opts.state !== 'failed') throw usageError(`give --failed or --state ${opts.state}, not both`)
        const state = opts.failed ? 'failed' : (opts.state ?? 'all')
        const list = await client.request<DeliverySummary[]>('GET', `${wsPath(workspace!)}/deliveries?state=${state}&limit=${opts.limit ?? 100}`)
        if (opts.json) return json(list)
        return deliveriesTable(workspace!, state === 'all' ? 'deliveries yet' : `${state} deliveries`, list)
      },
    })
    operatorCommand(g, {
      name: 'replay',
      args: [WORKSPACE, ['<id>', "the delivery's id, from herald delivery list or the event's delivery log"]],
      summary: 'Send a delivery again: same id (receivers can drop duplicates), fresh retry schedule.',
      examples: ['herald delivery replay acme 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b'],
      async run(client, [workspace, id], opts) {
        const res = await client.request<{ id: string; status: string }>('POST', `${wsPath(workspace!)}/deliveries/${encodeURIComponent(id!)}/replay`)
        return opts.json ? json(res) : `Delivery ${id} is scheduled again (same id, fresh retry schedule).`
      },
    })
  })
