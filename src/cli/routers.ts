// The router commands: `herald router …`. Like the workspace and key commands
// (cli_admin.ts), each one is a call to the operator API of a running server,
// printed as text or, with --json, as the API's JSON.
import type { AdminClient } from './client'
import type { AdminOptions } from './admin'
import { CliError, json, record, table, usageError, utc } from './output'
import type { RouterView } from '../delivery/routers'

export interface RouterOptions extends AdminOptions {
  pattern?: string
  webhook?: string
  slack?: string
  discord?: string
  teams?: string
  destination?: string
  'title-template'?: string
  'body-template'?: string
}

export interface RouterCommand {
  /** Names of the positional arguments, in order; all required. */
  args: string[]
  /** Options beyond the common --url, --token, --json and --help. */
  options: (keyof RouterOptions)[]
  run(client: AdminClient, args: string[], opts: RouterOptions): Promise<string>
}

/** The options parseArgs must know, merged into the CLI's own. */
export const ROUTER_OPTIONS = {
  pattern: { type: 'string' },
  webhook: { type: 'string' },
  slack: { type: 'string' },
  discord: { type: 'string' },
  teams: { type: 'string' },
  destination: { type: 'string' },
  'title-template': { type: 'string' },
  'body-template': { type: 'string' },
} as const

const DESTINATION_FLAGS = ['webhook', 'slack', 'discord', 'teams', 'destination'] as const
const TEMPLATE_FLAGS = ['title-template', 'body-template'] as const
const UPDATE_FLAGS = ['name', 'pattern', ...DESTINATION_FLAGS, ...TEMPLATE_FLAGS] as const

// --- arguments -------------------------------------------------------------

/**
 * The destination given by the one destination flag, or undefined if none.
 * `--destination -` reads the JSON from stdin, which keeps tokens out of `ps`
 * and the shell's history.
 */
async function destinationOf(opts: RouterOptions, readStdin: () => Promise<string>): Promise<Record<string, unknown> | undefined> {
  const given = DESTINATION_FLAGS.filter((f) => opts[f] !== undefined)
  if (given.length > 1) throw usageError(`give one destination, not ${given.map((f) => `--${f}`).join(' and ')}`)
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

/** The template of the flags; on update, merged into the current one, where an empty value removes that part. */
function templateOf(opts: RouterOptions, current: RouterView['template'] = null) {
  if (TEMPLATE_FLAGS.every((f) => opts[f] === undefined)) return undefined
  const merged: Record<string, string | undefined> = { ...current }
  if (opts['title-template'] !== undefined) merged.title = opts['title-template'] || undefined
  if (opts['body-template'] !== undefined) merged.body = opts['body-template'] || undefined
  const template = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined))
  return Object.keys(template).length ? template : null
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
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
  const list = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v ?? '-'))
  switch (d.type) {
    case 'telegram':
      return `telegram chat ${d.chatId}`
    case 'email':
      return `email to ${list(d.to)}${d.smtp ? ` via ${(d.smtp as { host: string }).host}` : ''}`
    case 'sms':
      return `sms from ${d.from} to ${d.to}`
    default:
      return `${d.type} ${d.url ?? ''}${Array.isArray(d.headers) && d.headers.length ? ` (headers: ${d.headers.join(', ')})` : ''}`.trimEnd()
  }
}

function routerText(r: RouterView): string {
  const pairs: [string, string][] = [
    ['id', r.id],
    ['name', r.name],
    ['pattern', r.pattern],
    ['destination', destinationText(r.destination)],
    ['status', r.enabled ? 'enabled' : 'disabled'],
  ]
  if (r.template?.title !== undefined) pairs.push(['title template', JSON.stringify(r.template.title)])
  if (r.template?.body !== undefined) pairs.push(['body template', JSON.stringify(r.template.body)])
  pairs.push(['created (UTC)', utc(r.createdAt)], ['updated (UTC)', utc(r.updatedAt)])
  return record(pairs)
}

function routersTable(workspace: string, list: RouterView[]): string {
  if (list.length === 0) return `Workspace ${workspace} has no routers. Create one with: herald router create ${workspace} --name NAME --pattern 'user.*' --webhook URL`
  return table(
    ['ID', 'NAME', 'PATTERN', 'DESTINATION', 'STATUS', 'UPDATED (UTC)'],
    list.map((r) => [r.id, r.name, r.pattern, destinationText(r.destination), r.enabled ? 'enabled' : 'disabled', utc(r.updatedAt)]),
  )
}

const signingSecret = (value: string) =>
  `\nIts signing secret (webhook deliveries are signed with it, per Standard Webhooks; shown only this once, store it now):\n\n    ${value}\n`

// --- commands --------------------------------------------------------------

const readStdin = () => Bun.stdin.text()

function setEnabled(enabled: boolean): RouterCommand {
  return {
    args: ['workspace', 'id'],
    options: [],
    async run(client, [workspace, id], opts) {
      const r = await client.request<RouterView>('PATCH', await routerPath(client, workspace!, id!), { enabled })
      if (opts.json) return json(r)
      return `${enabled ? 'Enabled' : 'Disabled'} router ${r.name} (${r.id}) in workspace ${workspace}.`
    },
  }
}

export const routerCommands: Record<string, RouterCommand> = {
  'router create': {
    args: ['workspace'],
    options: ['name', 'pattern', ...DESTINATION_FLAGS, ...TEMPLATE_FLAGS],
    async run(client, [workspace], opts) {
      if (opts.name === undefined) throw usageError('router create needs --name NAME')
      if (opts.pattern === undefined) throw usageError("router create needs --pattern PATTERN, such as 'user.*' or '*'")
      const destination = await destinationOf(opts, readStdin)
      if (!destination) throw usageError('router create needs a destination: --webhook URL, --slack URL, --discord URL, --teams URL or --destination JSON')
      const template = templateOf(opts)
      const body = { name: opts.name, pattern: opts.pattern, destination, ...(template ? { template } : {}) }
      const created = await client.request<{ id: string; secret: string }>('POST', routersPath(workspace!), body)
      if (opts.json) return json(created)
      return `Created router ${opts.name} (${created.id}) in workspace ${workspace}: events matching ${opts.pattern} go to ${destination.type}.\n` + signingSecret(created.secret)
    },
  },
  'router list': {
    args: ['workspace'],
    options: [],
    async run(client, [workspace], opts) {
      const list = await client.request<RouterView[]>('GET', routersPath(workspace!))
      return opts.json ? json(list) : routersTable(workspace!, list)
    },
  },
  'router show': {
    args: ['workspace', 'id'],
    options: [],
    async run(client, [workspace, id], opts) {
      const r = await client.request<RouterView>('GET', await routerPath(client, workspace!, id!))
      return opts.json ? json(r) : routerText(r)
    },
  },
  'router update': {
    args: ['workspace', 'id'],
    options: [...UPDATE_FLAGS],
    async run(client, [workspace, id], opts) {
      if (UPDATE_FLAGS.every((f) => opts[f] === undefined)) throw usageError(`router update needs at least one of ${UPDATE_FLAGS.map((f) => `--${f}`).join(', ')}`)
      const destination = await destinationOf(opts, readStdin)
      const path = await routerPath(client, workspace!, id!)
      // The API replaces the template whole; one flag changes one part, so the other is read first.
      const needsCurrent = TEMPLATE_FLAGS.some((f) => opts[f] !== undefined)
      const current = needsCurrent ? await client.request<RouterView>('GET', path) : undefined
      const template = templateOf(opts, current?.template)
      const patch = {
        ...(opts.name === undefined ? {} : { name: opts.name }),
        ...(opts.pattern === undefined ? {} : { pattern: opts.pattern }),
        ...(destination ? { destination } : {}),
        ...(template === undefined ? {} : { template }),
      }
      const r = await client.request<RouterView>('PATCH', path, patch)
      return opts.json ? json(r) : `Updated router ${r.name} in workspace ${workspace}.\n\n${routerText(r)}`
    },
  },
  'router disable': setEnabled(false),
  'router enable': setEnabled(true),
  'router delete': {
    args: ['workspace', 'id'],
    options: [],
    async run(client, [workspace, id], opts) {
      const path = await routerPath(client, workspace!, id!)
      await client.request<void>('DELETE', path)
      const routerId = path.slice(path.lastIndexOf('/') + 1)
      // The API answers 204 without a body; --json still prints something a script can read.
      if (opts.json) return json({ workspace, id: routerId, deleted: true })
      return `Deleted router ${routerId} from workspace ${workspace}.`
    },
  },
}
