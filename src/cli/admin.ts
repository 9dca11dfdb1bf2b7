// The operator commands `herald workspace …` and `herald key …`. Each one is a
// call to the operator API of a running server, printed as text or, with
// --json, as the API's JSON.
import type { Command } from 'commander'
import type { WorkspaceView, ApiKeyView } from '../accounts/workspaces'
import { burstOption, group, operatorCommand, quotaOption, rateOption, wholeNumber, wsPath } from './command'
import { json, record, table, usageError, utc } from './output'

interface LimitOptions {
  quota?: number
  rate?: number
  burst?: number
}

interface CreatedWorkspace {
  workspace: string
  defaultChannel: string
  apiKey: string
}

interface CreatedKey {
  id: number
  prefix: string
  apiKey: string
}

const keysPath = (workspace: string) => `${wsPath(workspace)}/keys`

function limitOptions(cmd: Command) {
  cmd
    .option('--quota <N>', 'events accepted per calendar month (UTC), a whole number; 0 accepts none', quotaOption)
    .option('--rate <per-second>', 'rate limit in events per second (decimals allowed)', rateOption)
    .option('--burst <N>', 'most events accepted at once (the size of the token bucket)', burstOption)
}

/** The limits given as flags, shaped as the API's body; absent flags are left out. */
function limits(opts: LimitOptions) {
  const rateLimit = {
    ...(opts.rate === undefined ? {} : { perSecond: opts.rate }),
    ...(opts.burst === undefined ? {} : { burst: opts.burst }),
  }
  return {
    ...(opts.quota === undefined ? {} : { monthlyQuota: opts.quota }),
    ...(Object.keys(rateLimit).length ? { rateLimit } : {}),
  }
}

// --- text output -----------------------------------------------------------

/** A secret is printed alone on its line, so that it can be copied whole. */
export const secret = (label: string, value: string) =>
  `\n${label} (shown only this once; store it now, Herald keeps only its hash):\n\n    ${value}\n`

function workspaceText(ws: WorkspaceView): string {
  return record([
    ['workspace', ws.workspace],
    ['default channel', ws.defaultChannel],
    ['monthly quota', ws.monthlyQuota],
    [`usage ${ws.usage.period}`, `${ws.usage.used} used, ${ws.usage.remaining} remaining`],
    ['rate limit', `${ws.rateLimit.perSecond}/s, burst ${ws.rateLimit.burst}`],
    ['created (UTC)', utc(ws.createdAt)],
  ])
}

function workspacesTable(list: WorkspaceView[]): string {
  if (list.length === 0) return 'No workspaces yet. Create one with: herald workspace create <name>'
  return table(
    ['NAME', 'QUOTA', 'USED', 'REMAINING', 'RATE/S', 'BURST', 'CREATED (UTC)'],
    list.map((w) => [w.workspace, w.monthlyQuota, w.usage.used, w.usage.remaining, w.rateLimit.perSecond, w.rateLimit.burst, utc(w.createdAt)]),
  )
}

function keysTable(workspace: string, keys: ApiKeyView[]): string {
  if (keys.length === 0) return `Workspace ${workspace} has no API keys.`
  return table(
    ['ID', 'NAME', 'PREFIX', 'STATUS', 'CREATED (UTC)', 'LAST USED (UTC)'],
    keys.map((k) => [k.id, k.name || '-', k.prefix, k.revokedAt ? `revoked ${utc(k.revokedAt)}` : 'active', utc(k.createdAt), utc(k.lastUsedAt)]),
  )
}

// --- commands --------------------------------------------------------------

const WORKSPACE: [string, string] = ['<workspace>', "the workspace's name"]

export const addWorkspaceCommands = (program: Command) =>
  group(program, 'workspace', 'Create, list, show and change workspaces: their quota and rate limit.', (g) => {
    operatorCommand<LimitOptions>(g, {
      name: 'create',
      args: [['<name>', 'a slug: lower-case letters, digits, "-" and "_" (upper case is lowered)']],
      summary: 'Create a workspace with its default channel and a first API key.',
      description: 'Create a workspace with its default channel (general) and a first API key, printed once. Without --quota, --rate and --burst the server defaults apply (HERALD_DEFAULT_MONTHLY_QUOTA, 100/s, burst 200).',
      options: limitOptions,
      examples: ['herald workspace create acme', 'herald workspace create acme --quota 50000 --rate 20 --burst 100', 'herald workspace create acme --json | jq -r .apiKey'],
      async run(client, [name], opts) {
        const ws = await client.request<CreatedWorkspace>('POST', '/admin/workspaces', { name, ...limits(opts) })
        if (opts.json) return json(ws)
        const lowered = ws.workspace !== name ? ` (from "${name}": workspace names are lower case)` : ''
        return `Created workspace ${ws.workspace}${lowered} with the default channel ${ws.defaultChannel}.\n` + secret('Its API key', ws.apiKey)
      },
    })
    operatorCommand(g, {
      name: 'list',
      summary: 'List every workspace with its quota, usage this month and rate limit.',
      examples: ['herald workspace list', 'herald workspace list --json'],
      async run(client, _args, opts) {
        const list = await client.request<WorkspaceView[]>('GET', '/admin/workspaces')
        return opts.json ? json(list) : workspacesTable(list)
      },
    })
    operatorCommand(g, {
      name: 'show',
      args: [WORKSPACE],
      summary: 'Show a workspace: default channel, quota, usage this month, rate limit.',
      examples: ['herald workspace show acme'],
      async run(client, [name], opts) {
        const ws = await client.request<WorkspaceView>('GET', wsPath(name!))
        return opts.json ? json(ws) : workspaceText(ws)
      },
    })
    operatorCommand<LimitOptions>(g, {
      name: 'set',
      args: [WORKSPACE],
      summary: "Change a workspace's monthly quota or rate limit; this month's usage is kept.",
      options: limitOptions,
      examples: ['herald workspace set acme --quota 100000', 'herald workspace set acme --rate 0.5 --burst 5'],
      async run(client, [name], opts) {
        const patch = limits(opts)
        if (Object.keys(patch).length === 0) throw usageError('workspace set needs at least one of --quota, --rate, --burst')
        const ws = await client.request<WorkspaceView>('PATCH', wsPath(name!), patch)
        return opts.json ? json(ws) : `Updated workspace ${ws.workspace}.\n\n${workspaceText(ws)}`
      },
    })
  })

export const addKeyCommands = (program: Command) =>
  group(program, 'key', "Create, list and revoke a workspace's API keys (what POST /event and herald send use).", (g) => {
    operatorCommand<{ name?: string }>(g, {
      name: 'create',
      args: [WORKSPACE],
      summary: 'Create an API key; it is printed once, Herald keeps only its hash.',
      options: (cmd) => cmd.option('--name <label>', 'a label for the key, such as "production"'),
      examples: ['herald key create acme --name production', 'herald key create acme --json | jq -r .apiKey'],
      async run(client, [workspace], opts) {
        const key = await client.request<CreatedKey>('POST', keysPath(workspace!), opts.name === undefined ? {} : { name: opts.name })
        if (opts.json) return json(key)
        const label = opts.name ? ` "${opts.name}"` : ''
        return `Created API key ${key.id}${label} in workspace ${workspace} (prefix ${key.prefix}).\n` + secret('The key', key.apiKey)
      },
    })
    operatorCommand(g, {
      name: 'list',
      args: [WORKSPACE],
      summary: 'List API keys by prefix, with when each was created, last used and revoked.',
      examples: ['herald key list acme'],
      async run(client, [workspace], opts) {
        const keys = await client.request<ApiKeyView[]>('GET', keysPath(workspace!))
        return opts.json ? json(keys) : keysTable(workspace!, keys)
      },
    })
    operatorCommand(g, {
      name: 'revoke',
      args: [WORKSPACE, ['<id>', "the key's id, from herald key list"]],
      summary: 'Revoke an API key: it stops working within 5 s on every instance.',
      examples: ['herald key revoke acme 3'],
      async run(client, [workspace, rawId], opts) {
        const id = wholeNumber(rawId!, 1, 'the key id must be a positive whole number, as herald key list shows it')
        await client.request<void>('DELETE', `${keysPath(workspace!)}/${id}`)
        // The API answers 204 without a body; --json still prints something a script can read.
        if (opts.json) return json({ workspace, id, revoked: true })
        return `Revoked API key ${id} in workspace ${workspace}. It stops working within 5 s on every instance.`
      },
    })
  })
