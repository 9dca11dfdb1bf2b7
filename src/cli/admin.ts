// The operator commands: `herald workspace …`, `herald key …` and `herald delivery …`. Each one is
// a call to the operator API of a running server, printed as text or, with
// --json, as the API's JSON.
import type { AdminClient } from './client'
import { json, record, table, usageError, utc } from './output'
import type { WorkspaceView, ApiKeyView } from '../accounts/workspaces'
import type { FailedDeliveryView } from '../delivery/deliveries'

export interface AdminOptions {
  json?: boolean
  quota?: string
  rate?: string
  burst?: string
  name?: string
}

export interface AdminCommand {
  /** Names of the positional arguments, in order; all required. */
  args: string[]
  /** Options beyond the common --url, --token, --json and --help. */
  options: (keyof AdminOptions)[]
  run(client: AdminClient, args: string[], opts: AdminOptions): Promise<string>
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

// --- arguments -------------------------------------------------------------

function wholeNumber(flag: string, raw: string, min: number): number {
  const n = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw usageError(`${flag} must be a whole number of at least ${min}, got ${JSON.stringify(raw)}`)
  }
  return n
}

function positiveNumber(flag: string, raw: string): number {
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) throw usageError(`${flag} must be a number above 0, got ${JSON.stringify(raw)}`)
  return n
}

/** The limits given as flags, shaped as the API's body; absent flags are left out. */
function limits(opts: AdminOptions) {
  const rateLimit = {
    ...(opts.rate === undefined ? {} : { perSecond: positiveNumber('--rate', opts.rate) }),
    ...(opts.burst === undefined ? {} : { burst: wholeNumber('--burst', opts.burst, 1) }),
  }
  return {
    ...(opts.quota === undefined ? {} : { monthlyQuota: wholeNumber('--quota', opts.quota, 0) }),
    ...(Object.keys(rateLimit).length ? { rateLimit } : {}),
  }
}

const wsPath = (name: string) => `/admin/workspaces/${encodeURIComponent(name)}`
const keysPath = (workspace: string) => `${wsPath(workspace)}/keys`

// --- text output -----------------------------------------------------------

/** A secret is printed alone on its line, so that it can be copied whole. */
const secret = (label: string, value: string) =>
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

function failedTable(workspace: string, list: FailedDeliveryView[]): string {
  if (list.length === 0) return `Workspace ${workspace} has no failed deliveries.`
  return table(
    ['DELIVERY', 'EVENT', 'ATTEMPTS', 'FAILED (UTC)', 'LAST ERROR'],
    list.map((d) => [d.id, d.eventId, d.attemptCount, utc(d.updatedAt), (d.lastError ?? '-').slice(0, 60)]),
  )
}

// --- commands --------------------------------------------------------------

export const adminCommands: Record<string, AdminCommand> = {
  'workspace create': {
    args: ['name'],
    options: ['quota', 'rate', 'burst'],
    async run(client, [name], opts) {
      const ws = await client.request<CreatedWorkspace>('POST', '/admin/workspaces', { name, ...limits(opts) })
      if (opts.json) return json(ws)
      return `Created workspace ${ws.workspace} with the default channel ${ws.defaultChannel}.\n` + secret('Its API key', ws.apiKey)
    },
  },
  'workspace list': {
    args: [],
    options: [],
    async run(client, _args, opts) {
      const list = await client.request<WorkspaceView[]>('GET', '/admin/workspaces')
      return opts.json ? json(list) : workspacesTable(list)
    },
  },
  'workspace show': {
    args: ['name'],
    options: [],
    async run(client, [name], opts) {
      const ws = await client.request<WorkspaceView>('GET', wsPath(name!))
      return opts.json ? json(ws) : workspaceText(ws)
    },
  },
  'workspace set': {
    args: ['name'],
    options: ['quota', 'rate', 'burst'],
    async run(client, [name], opts) {
      const patch = limits(opts)
      if (Object.keys(patch).length === 0) throw usageError('workspace set needs at least one of --quota, --rate, --burst')
      const ws = await client.request<WorkspaceView>('PATCH', wsPath(name!), patch)
      return opts.json ? json(ws) : `Updated workspace ${ws.workspace}.\n\n${workspaceText(ws)}`
    },
  },
  'key create': {
    args: ['workspace'],
    options: ['name'],
    async run(client, [workspace], opts) {
      const key = await client.request<CreatedKey>('POST', keysPath(workspace!), opts.name === undefined ? {} : { name: opts.name })
      if (opts.json) return json(key)
      const label = opts.name ? ` "${opts.name}"` : ''
      return `Created API key ${key.id}${label} in workspace ${workspace} (prefix ${key.prefix}).\n` + secret('The key', key.apiKey)
    },
  },
  'key list': {
    args: ['workspace'],
    options: [],
    async run(client, [workspace], opts) {
      const keys = await client.request<ApiKeyView[]>('GET', keysPath(workspace!))
      return opts.json ? json(keys) : keysTable(workspace!, keys)
    },
  },
  'key revoke': {
    args: ['workspace', 'id'],
    options: [],
    async run(client, [workspace, rawId], opts) {
      const id = wholeNumber('the key id', rawId!, 1)
      await client.request<void>('DELETE', `${keysPath(workspace!)}/${id}`)
      // The API answers 204 without a body; --json still prints something a script can read.
      if (opts.json) return json({ workspace, id, revoked: true })
      return `Revoked API key ${id} in workspace ${workspace}. It stops working within 5 s on every instance.`
    },
  },
  'delivery list': {
    args: ['workspace'],
    options: [],
    async run(client, [workspace], opts) {
      const list = await client.request<FailedDeliveryView[]>('GET', `${wsPath(workspace!)}/deliveries`)
      return opts.json ? json(list) : failedTable(workspace!, list)
    },
  },
  'delivery replay': {
    args: ['workspace', 'id'],
    options: [],
    async run(client, [workspace, id], opts) {
      const res = await client.request<{ id: string; status: string }>('POST', `${wsPath(workspace!)}/deliveries/${encodeURIComponent(id!)}/replay`)
      return opts.json ? json(res) : `Delivery ${id} is scheduled again (same id, fresh retry schedule).`
    },
  },
}
