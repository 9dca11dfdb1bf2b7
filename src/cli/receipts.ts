// `herald receipt show|cancel|ack <id>`: the receipt of an event sent with
// `ack` (herald send --ack-retry … --ack-expire …). show and cancel are the
// sender's, with the workspace's API key (GET /receipts/{id}, POST
// /receipts/{id}/cancel, through the TypeScript client); ack is a member's,
// with their user token (hrlu_…, from signing in with client "app" or from the
// operator), in a workspace they belong to: --workspace, or the only one.
import type { Command } from 'commander'
import { HeraldError, type Herald, type Receipt } from '../../clients/typescript/src/index'
import { keyClient, localSettings, problemOf, REQUEST_TIMEOUT_MS as TIMEOUT_MS, resolveBaseUrl, transportError, type KeyOptions } from './client'
import { group, UUID, withExamples } from './command'
import { CliError, json, record, usageError, utc } from './output'

type Env = Record<string, string | undefined>


interface AckOptions {
  userToken?: string
  workspace?: string
  url?: string
  json?: boolean
}

const VIA: Record<string, string> = { web: 'on the dashboard', push: 'from a notification', link: 'through a link in a message', api: 'through the API' }

/** A receipt in `label: value` lines. */
export function receiptText(r: Receipt): string {
  const by = r.acknowledgedBy ? `by ${r.acknowledgedBy.email}` : ''
  const pairs: [string, string][] = [
    ['Receipt', r.receipt],
    ['Event', r.eventId],
    ['Status', r.status],
  ]
  if (r.status === 'acknowledged') pairs.push(['Acknowledged', [utc(r.acknowledgedAt), by, r.acknowledgedVia ? VIA[r.acknowledgedVia] ?? r.acknowledgedVia : ''].filter(Boolean).join(' ')])
  pairs.push(
    [r.status === 'pending' ? 'Expires' : 'Expiry', `${utc(r.expiresAt)} UTC`],
    ['Pushes', `${r.pushes}${r.lastPushAt ? ` (the last ${utc(r.lastPushAt)} UTC)` : ''}`],
    ['Escalated to', r.escalated.length ? r.escalated.map((c) => `#${c}`).join(', ') : '-'],
  )
  return record(pairs)
}

const checkId = (id: string) => {
  if (!UUID.test(id)) throw usageError(`the receipt id must be a UUID, such as 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b (from herald send), got ${JSON.stringify(id)}`)
}

/** A HeraldError of the client as the CLI says it: the problem's detail, or the unreachable URL. */
function cliError(baseUrl: string, err: unknown): unknown {
  if (!(err instanceof HeraldError)) return err
  if (err.status === 0) return transportError(baseUrl, err.cause, TIMEOUT_MS)
  return new CliError('api', err.detail, err.errors.map((e) => e.detail).filter((d) => d && d !== err.detail))
}

/** show and cancel: the API key's client. */
async function withKey(opts: KeyOptions, env: Env, call: (h: Herald) => Promise<Receipt>): Promise<string> {
  const { herald, baseUrl } = keyClient(opts, env)
  try {
    const r = await call(herald)
    return opts.json ? json(r) : receiptText(r)
  } catch (err) {
    throw cliError(baseUrl, err)
  }
}

export async function runShow(id: string, opts: KeyOptions, env: Env = process.env): Promise<string> {
  checkId(id)
  return withKey(opts, env, (h) => h.receipt(id))
}

export async function runCancel(id: string, opts: KeyOptions, env: Env = process.env): Promise<string> {
  checkId(id)
  const text = await withKey(opts, env, (h) => h.cancelReceipt(id))
  return opts.json ? text : `Cancelled: its repeats stop.\n${text}`
}

/** A member's call with their user token (herald prefs too); the answer's JSON, or a CliError. */
export async function asMember<T>(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  let res: Response
  try {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) }
    res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT_MS) })
  } catch (err) {
    throw transportError(baseUrl, err, TIMEOUT_MS)
  }
  if (!res.ok) throw await problemOf(res)
  return (await res.json()) as T
}

/** --workspace, else the only workspace the token's person belongs to. */
export async function workspaceOf(baseUrl: string, token: string, flag: string | undefined): Promise<string> {
  if (flag) return flag
  const me = await asMember<{ workspaces: { workspace: string }[] }>(baseUrl, token, 'GET', '/v1/me')
  if (me.workspaces.length === 1) return me.workspaces[0]!.workspace
  throw usageError(`you belong to ${me.workspaces.length} workspaces: say which with --workspace (${me.workspaces.map((w) => w.workspace).join(', ') || 'none'})`)
}

export async function runAck(id: string, opts: AckOptions, env: Env = process.env): Promise<string> {
  checkId(id)
  const settings = localSettings(env)
  const baseUrl = resolveBaseUrl(opts.url, settings)
  const token = opts.userToken || env.HERALD_USER_TOKEN
  if (!token) throw usageError('no user token: set HERALD_USER_TOKEN or pass --user-token (hrlu_…, from signing in with client "app"); an API key cannot acknowledge: a person does')
  const workspace = await workspaceOf(baseUrl, token, opts.workspace)
  const r = await asMember<Receipt>(baseUrl, token, 'POST', `/v1/workspaces/${encodeURIComponent(workspace)}/receipts/${encodeURIComponent(id)}/ack`)
  return opts.json ? json(r) : `Acknowledged: its repeats stop for everyone.\n${receiptText(r)}`
}

const keyOptions = (cmd: Command) =>
  cmd
    .option('--json', "print Herald's answer as JSON")
    .optionsGroup('Connection options:')
    .option('--key <key>', 'the API key of the workspace that sent the event (default: $HERALD_KEY; prefer the variable: a flag shows up in ps)')
    .option('--url <url>', 'base URL of Herald (default: $HERALD_URL, else http://127.0.0.1:$PORT, PORT defaulting to 8080)')

const ID: [string, string] = ['<id>', 'the receipt id, from herald send (or the 200 answer of POST /event)']

export const addReceiptCommands = (program: Command) =>
  group(program, 'receipt', 'Read, cancel or acknowledge the receipt of an event sent with --ack-retry and --ack-expire.', (g) => {
    const show = keyOptions(g.command('show').argument(...ID).summary('Show a receipt: pending, acknowledged (by whom, how), expired or cancelled; its pushes so far.'))
    withExamples(show, ['herald receipt show 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b', 'herald receipt show 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b --json | jq -r .status'])
    show.action(async (id: string, opts: KeyOptions) => console.log(await runShow(id, opts)))

    const cancel = keyOptions(g.command('cancel').argument(...ID).summary('Cancel a pending receipt: its repeats stop (an error once it is no longer pending).'))
    withExamples(cancel, ['herald receipt cancel 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b'])
    cancel.action(async (id: string, opts: KeyOptions) => console.log(await runCancel(id, opts)))

    const ack = g
      .command('ack')
      .argument(...ID)
      .summary('Acknowledge a receipt as a member: its repeats stop for everyone (an error naming who, once it is no longer pending).')
      .option('--workspace <name>', 'the workspace of the event (default: the only one you belong to)')
      .option('--json', "print Herald's answer as JSON")
      .optionsGroup('Connection options:')
      .option('--user-token <token>', 'your user token, hrlu_… (default: $HERALD_USER_TOKEN; prefer the variable: a flag shows up in ps)')
      .option('--url <url>', 'base URL of Herald (default: $HERALD_URL, else http://127.0.0.1:$PORT, PORT defaulting to 8080)')
    withExamples(ack, ['HERALD_USER_TOKEN=hrlu_… herald receipt ack 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b --workspace acme'])
    ack.action(async (id: string, opts: AckOptions) => console.log(await runAck(id, opts)))
  })
