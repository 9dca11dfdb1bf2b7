// The router commands: `herald router …`. Like the workspace and key commands
// (admin.ts), each one is a call to the operator API of a running server,
// printed as text or, with --json, as the API's JSON.
import type { Command } from 'commander'
import type { AdminClient } from './client'
import type { RouterView } from '../delivery/routers'
import { DESTINATIONS, destinationType, type DestinationName } from '../delivery/destinations'
import { group, operatorCommand, UUID } from './command'
import { CliError, json, record, table, usageError, utc } from './output'
import { PACING_FLAGS, pacingBody, pacingNeedsCurrent, pacingOptions, pacingPairs, type PacingOptions } from './router_pacing'
import { pacingWords } from '../delivery/router_pacing'
import { hostNote } from '../delivery/destinations/host_note'

/** The options of create and update: name, pattern, templates, and one destination (--<type> URL or --destination JSON). */
export type RouterOptions = {
  name?: string
  pattern?: string
  destination?: string
  titleTemplate?: string
  bodyTemplate?: string
  minPriority?: string
} & Partial<Record<DestinationName, string>> & PacingOptions

// A type that is one URL has a flag of its own (--webhook URL, --slack URL…);
// any type can be given as --destination JSON.
const URL_TYPES = DESTINATIONS.flatMap((d) => (d.flag ? [{ type: d.type, help: d.flag }] : []))
const DESTINATION_FLAGS = [...URL_TYPES.map((t) => t.type), 'destination' as const]
const TEMPLATE_FLAGS = ['titleTemplate', 'bodyTemplate'] as const
const UPDATE_FLAGS = ['name' as const, 'pattern' as const, ...DESTINATION_FLAGS, ...TEMPLATE_FLAGS, 'minPriority' as const, ...PACING_FLAGS]
const flagOf = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`

// --- arguments -------------------------------------------------------------

/**
 * The destination given by the one destination flag, or undefined if none.
 * `--destination -` reads the JSON from stdin, which keeps tokens out of `ps`
 * and the shell's history.
 */
async function destinationOf(opts: RouterOptions, readStdin: () => Promise<string>): Promise<Record<string, unknown> | undefined> {
  const given = DESTINATION_FLAGS.filter((f) => opts[f] !== undefined)
  if (given.length > 1) throw usageError(`give one destination, not ${given.map(flagOf).join(' and ')}`)
  const flag = given[0]
  if (!flag) return undefined
  if (flag !== 'destination') return { type: flag, url: opts[flag] }
  const raw = opts.destination === '-' ? await readStdin() : opts.destination!
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    throw usageError(`--destination must be JSON such as '{"type":"webhook","url":"https://…"}', got ${JSON.stringify(raw.slice(0, 80))}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usageError('--destination must be a JSON object with a "type"')
  return value as Record<string, unknown>
}

/** A line on a destination whose URL is not on its service's hosts (a Slack router not on hooks.slack.com): said, not refused. */
function destinationNote(destination: Record<string, unknown> | undefined): string {
  const type = destination && destinationType(String(destination.type))
  const field = type?.fields.find((f) => f.key === 'url')
  const note = field && typeof destination!.url === 'string' ? hostNote(field, type!.label, destination!.url) : null
  return note ? `\nNote: ${note}` : ''
}

// An event's priority names, as `herald send --priority` takes them.
const PRIORITY_NAMES = ['min', 'low', 'default', 'high', 'urgent']

/** --min-priority as the API takes it: 1-5, or a priority's name; absent when not given. */
function minPriorityOf(opts: RouterOptions): { minPriority: number } | Record<string, never> {
  const v = opts.minPriority
  if (v === undefined) return {}
  const named = PRIORITY_NAMES.indexOf(v.toLowerCase())
  if (named >= 0) return { minPriority: named + 1 }
  if (/^[1-5]$/.test(v)) return { minPriority: Number(v) }
  throw usageError(`--min-priority must be 1 to 5 or one of ${PRIORITY_NAMES.join(', ')}, got ${JSON.stringify(v)}`)
}

/** The template of the flags; on update, merged into the current one, where an empty value removes that part. */
function templateOf(opts: RouterOptions, current: RouterView['template'] = null) {
  if (TEMPLATE_FLAGS.every((f) => opts[f] === undefined)) return undefined
  const merged: Record<string, string | undefined> = { ...current }
  if (opts.titleTemplate !== undefined) merged.title = opts.titleTemplate || undefined
  if (opts.bodyTemplate !== undefined) merged.body = opts.bodyTemplate || undefined
  const template = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined))
  return Object.keys(template).length ? template : null
}

const routersPath = (workspace: string) => `/admin/workspaces/${encodeURIComponent(workspace)}/routers`

/** The router path of an id, or of a name looked up in the list (names are unique in a workspace). */
async function routerPath(client: AdminClient, workspace: string, idOrName: string): Promise<string> {
  if (UUID.test(idOrName)) return `${routersPath(workspace)}/${idOrName}`
  const list = await client.request<RouterView[]>('GET', routersPath(workspace))
  const found = list.find((r) => r.name === idOrName)
  if (!found) throw new CliError('api', `There is no router with the id or name ${JSON.stringify(idOrName)} in workspace ${JSON.stringify(workspace)}.`)
  return `${routersPath(workspace)}/${found.id}`
}

// --- text output -----------------------------------------------------------

/** One line for a redacted destination: its type and where it goes, without any secret. */
export function destinationText(d: Record<string, unknown>): string {
  return destinationType(d.type)?.summary(d) ?? `${d.type} ${d.url ?? ''}`.trimEnd() // a type this CLI does not know
}

/** "enabled", "disabled", or how it fails: "failing since 2026-… UTC" (health.ts). */
export function routerStatus(r: Pick<RouterView, 'enabled' | 'health'>): string {
  const h = r.health
  if (!h) return r.enabled ? 'enabled' : 'disabled'
  const since = `since ${utc(h.since)}`
  if (h.state === 'disabled') return r.enabled ? `enabled, circuit open ${since}` : `disabled (failing ${since})`
  return h.state === 'failing' ? `failing ${since}` : `circuit open ${since}`
}

function routerText(r: RouterView): string {
  const pairs: [string, string][] = [
    ['id', r.id],
    ['name', r.name],
    ['pattern', r.pattern],
    ['destination', destinationText(r.destination)],
    ['status', routerStatus(r)],
  ]
  if ((r.minPriority ?? 1) > 1) pairs.push(['min priority', `${r.minPriority} (${PRIORITY_NAMES[r.minPriority - 1]})`])
  pairs.push(...pacingPairs(r))
  if (r.health?.lastError) pairs.push(['last error', r.health.lastError])
  if (r.template?.title !== undefined) pairs.push(['title template', JSON.stringify(r.template.title)])
  if (r.template?.body !== undefined) pairs.push(['body template', JSON.stringify(r.template.body)])
  pairs.push(['created (UTC)', utc(r.createdAt)], ['updated (UTC)', utc(r.updatedAt)])
  return record(pairs)
}

function routersTable(workspace: string, list: RouterView[]): string {
  if (list.length === 0) return `Workspace ${workspace} has no routers. Create one with: herald router create ${workspace} --name NAME --pattern 'user.*' --webhook URL`
  return table(
    ['ID', 'NAME', 'PATTERN', 'DESTINATION', 'PACING', 'STATUS', 'UPDATED (UTC)'],
    list.map((r) => [r.id, r.name, r.pattern, destinationText(r.destination), pacingWords(r) ?? '-', routerStatus(r), utc(r.updatedAt)]),
  )
}

const signingSecret = (value: string) =>
  `\nIts signing secret (webhook deliveries are signed with it, per Standard Webhooks; shown only this once, store it now):\n\n    ${value}\n`

// --- commands --------------------------------------------------------------

const readStdin = () => Bun.stdin.text()

const WORKSPACE: [string, string] = ['<workspace>', "the workspace's name"]
const ROUTER: [string, string] = ['<router>', "the router's id or its name (names are unique in a workspace)"]

function destinationOptions(cmd: Command) {
  for (const t of URL_TYPES) cmd.option(`--${t.type} <url>`, t.help)
  cmd
    .option('--destination <json>', 'a destination of any type as JSON, e.g. \'{"type":"telegram","botToken":"…","chatId":42}\'; "-" reads it from stdin (keeps tokens out of ps and the shell history)')
    .option('--title-template <template>', 'Mustache template of the title ({{message}}, {{event}}, {{data.plan}}…)')
    .option('--body-template <template>', 'Mustache template of the body')
    .option('--min-priority <priority>', 'forward only events at or above this priority: 1-5 or min, low, default, high, urgent (default 1: every event)')
}

function setEnabled(g: Command, enabled: boolean) {
  const verb = enabled ? 'enable' : 'disable'
  operatorCommand(g, {
    name: verb,
    args: [WORKSPACE, ROUTER],
    summary: enabled ? 'Enable a router: matching events go to it again.' : 'Disable a router: it keeps its settings and takes no events.',
    examples: [`herald router ${verb} acme deploys`],
    async run(client, [workspace, id], opts) {
      const r = await client.request<RouterView>('PATCH', await routerPath(client, workspace!, id!), { enabled })
      if (opts.json) return json(r)
      return `${enabled ? 'Enabled' : 'Disabled'} router ${r.name} (${r.id}) in workspace ${workspace}.`
    },
  })
}

/** `herald router fail-pending` / `cancel-pending`: every pending delivery of a router ends at once. */
function settle(g: Command, state: 'failed' | 'cancelled') {
  const verb = state === 'failed' ? 'fail' : 'cancel'
  operatorCommand(g, {
    name: `${verb}-pending`,
    args: [WORKSPACE, ROUTER],
    summary: state === 'failed'
      ? "Fail a router's pending deliveries now (retrying, or held while its destination fails); a replay sends them again."
      : "Cancel a router's pending deliveries now: they end 'cancelled', and a bulk replay leaves them alone.",
    examples: [`herald router ${verb}-pending acme deploys`],
    async run(client, [workspace, id], opts) {
      const r = await client.request<{ settled: number }>('POST', `${await routerPath(client, workspace!, id!)}/deliveries/settle`, { state })
      if (opts.json) return json(r)
      return `${state === 'failed' ? 'Failed' : 'Cancelled'} ${r.settled} pending ${r.settled === 1 ? 'delivery' : 'deliveries'} of router ${id} in workspace ${workspace}.`
    },
  })
}

export const addRouterCommands = (program: Command) =>
  group(program, 'router', `Routers forward the events whose key matches a pattern to a destination: ${DESTINATIONS.map((d) => d.label).join(', ')}.`, (g) => {
    operatorCommand<RouterOptions>(g, {
      name: 'create',
      args: [WORKSPACE],
      summary: 'Create a router: events matching --pattern go to one destination.',
      description:
        "Create a router: the events whose key matches --pattern go to one destination. A pattern's \"*\" matches any run of characters ('user.*' takes user.signup and user.a.b, not user); '*' alone takes every event, even one without a key. A webhook router's signing secret is printed once.",
      options: (cmd) => {
        cmd.option('--name <name>', 'the router\'s name, unique in its workspace (required)').option('--pattern <pattern>', "event keys it takes, such as 'deploy.*' or '*' (required)")
        destinationOptions(cmd)
        pacingOptions(cmd)
      },
      examples: [
        "herald router create acme --name signups --pattern 'user.*' --webhook https://example.com/hooks/herald",
        "herald router create acme --name deploys --pattern 'deploy.*' --slack https://hooks.slack.com/services/T000/B000/XXXX --title-template 'Deploy {{data.sha}}'",
        'echo \'{"type":"telegram","botToken":"123:abc","chatId":42}\' | herald router create acme --name tg --pattern \'*\' --destination -',
        "herald router create acme --name disk --pattern 'alert.disk.*' --slack https://hooks.slack.com/services/T000/B000/XXXX --throttle 5/1h --throttle-key '{{data.host}}'",
        "herald router create acme --name orders --pattern 'order.*' --webhook https://example.com/hooks/orders --digest 10m --digest-key '{{data.customer}}' --digest-max 100 --digest-bypass urgent",
      ],
      async run(client, [workspace], opts) {
        if (opts.name === undefined) throw usageError('router create needs --name NAME')
        if (opts.pattern === undefined) throw usageError("router create needs --pattern PATTERN, such as 'user.*' or '*'")
        const destination = await destinationOf(opts, readStdin)
        if (!destination) throw usageError(`router create needs a destination: ${URL_TYPES.map((t) => `--${t.type} URL`).join(', ')} or --destination JSON`)
        const template = templateOf(opts)
        const body = { name: opts.name, pattern: opts.pattern, destination, ...(template ? { template } : {}), ...minPriorityOf(opts), ...pacingBody(opts) }
        const created = await client.request<{ id: string; secret: string }>('POST', routersPath(workspace!), body)
        if (opts.json) return json(created)
        const line = `Created router ${opts.name} (${created.id}) in workspace ${workspace}: events matching ${opts.pattern} go to ${destination.type}.`
        // Every router has a signing secret, but only the receivers of a signed type see it (webhook-signature).
        const note = destinationNote(destination)
        return destinationType(destination.type)?.signed ? `${line}${note}\n${signingSecret(created.secret)}` : `${line}${note}`
      },
    })
    operatorCommand(g, {
      name: 'list',
      args: [WORKSPACE],
      summary: "List a workspace's routers, oldest first, without their secrets.",
      examples: ['herald router list acme'],
      async run(client, [workspace], opts) {
        const list = await client.request<RouterView[]>('GET', routersPath(workspace!))
        return opts.json ? json(list) : routersTable(workspace!, list)
      },
    })
    operatorCommand(g, {
      name: 'show',
      args: [WORKSPACE, ROUTER],
      summary: 'Show a router, without its secrets.',
      examples: ['herald router show acme deploys'],
      async run(client, [workspace, id], opts) {
        const r = await client.request<RouterView>('GET', await routerPath(client, workspace!, id!))
        return opts.json ? json(r) : routerText(r)
      },
    })
    operatorCommand<RouterOptions>(g, {
      name: 'update',
      args: [WORKSPACE, ROUTER],
      summary: 'Change what is given: name, pattern, destination, templates, minimum priority, throttle or digest.',
      description:
        'Change what is given of a router: its name, pattern, destination, templates, throttle or digest. A new destination replaces the whole old one (its secrets too); the signing secret is kept. One template flag keeps the other part, and an empty value removes that part. A throttle or digest flag changes its part and keeps the others (--digest-max alone keeps the window and key); setting a throttle removes the digest and the other way round.',
      options: (cmd) => {
        cmd.option('--name <name>', 'a new name').option('--pattern <pattern>', 'a new pattern')
        destinationOptions(cmd)
        pacingOptions(cmd)
      },
      examples: [
        "herald router update acme deploys --pattern 'deploy.prod.*'",
        "herald router update acme deploys --body-template ''",
        'herald router update acme disk --throttle 10/1h',
        'herald router update acme orders --no-digest',
      ],
      async run(client, [workspace, id], opts) {
        if (UPDATE_FLAGS.every((f) => opts[f] === undefined)) throw usageError(`router update needs at least one of ${UPDATE_FLAGS.map(flagOf).join(', ')}`)
        const destination = await destinationOf(opts, readStdin)
        const path = await routerPath(client, workspace!, id!)
        // The API replaces the template whole; one flag changes one part, so the other is read first.
        // So does a throttle or digest: a flag changes one part of it.
        const needsCurrent = TEMPLATE_FLAGS.some((f) => opts[f] !== undefined) || pacingNeedsCurrent(opts)
        const current = needsCurrent ? await client.request<RouterView>('GET', path) : undefined
        const template = templateOf(opts, current?.template)
        const patch = {
          ...(opts.name === undefined ? {} : { name: opts.name }),
          ...(opts.pattern === undefined ? {} : { pattern: opts.pattern }),
          ...(destination ? { destination } : {}),
          ...(template === undefined ? {} : { template }),
          ...minPriorityOf(opts),
          ...pacingBody(opts, current ?? {}),
        }
        const r = await client.request<RouterView>('PATCH', path, patch)
        return opts.json ? json(r) : `Updated router ${r.name} in workspace ${workspace}.${destinationNote(destination)}\n\n${routerText(r)}`
      },
    })
    setEnabled(g, false)
    setEnabled(g, true)
    settle(g, 'failed')
    settle(g, 'cancelled')
    operatorCommand(g, {
      name: 'delete',
      args: [WORKSPACE, ROUTER],
      summary: 'Delete a router; its past deliveries stay on their events.',
      examples: ['herald router delete acme deploys'],
      async run(client, [workspace, id], opts) {
        const path = await routerPath(client, workspace!, id!)
        await client.request<void>('DELETE', path)
        const routerId = path.slice(path.lastIndexOf('/') + 1)
        // The API answers 204 without a body; --json still prints something a script can read.
        if (opts.json) return json({ workspace, id: routerId, deleted: true })
        return `Deleted router ${routerId} from workspace ${workspace}.`
      },
    })
  })
