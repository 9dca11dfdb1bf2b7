// `herald feed unread|read|archive`: a member's read state, with their user
// token (hrlu_…, from signing in with client "app" or from the operator), in
// a workspace they belong to (--workspace, or the only one): the unread
// counts, and events marked read or archived by id, or everything up to one
// (`--all`: up to the newest), of one channel or all. Through the TypeScript
// client's HeraldMember.
import type { Command } from 'commander'
import { HeraldError, HeraldMember, type MarkEvents, type MarkResult } from '../../clients/typescript/src/index'
import { localSettings, resolveBaseUrl, transportError } from './client'
import { collect, group, memberOptions, UUID, withExamples } from './command'
import { CliError, json, record, usageError } from './output'

type Env = Record<string, string | undefined>
const TIMEOUT_MS = 30_000

interface MemberOptions {
  userToken?: string
  workspace?: string
  url?: string
  json?: boolean
}
interface MarkOptions extends MemberOptions {
  id?: string[]
  before?: string
  all?: boolean
  channel?: string
}

function cliError(baseUrl: string, err: unknown): unknown {
  if (!(err instanceof HeraldError)) return err
  if (err.status === 0) return transportError(baseUrl, err.cause, TIMEOUT_MS)
  return new CliError('api', err.detail, err.errors.map((e) => e.detail).filter((d) => d && d !== err.detail))
}

/** The member's client and workspace (--workspace, else the only one they belong to). */
async function asMember<T>(opts: MemberOptions, env: Env, call: (m: HeraldMember, workspace: string) => Promise<T>): Promise<T> {
  const baseUrl = resolveBaseUrl(opts.url, localSettings(env))
  const token = opts.userToken || env.HERALD_USER_TOKEN
  if (!token) throw usageError('no user token: set HERALD_USER_TOKEN or pass --user-token (hrlu_…, from signing in with client "app"); read state is a person\'s')
  const member = new HeraldMember({ url: baseUrl, token, timeoutMs: TIMEOUT_MS })
  try {
    let workspace = opts.workspace
    if (!workspace) {
      const res = await fetch(`${baseUrl}/v1/me`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(TIMEOUT_MS) })
      const me = (await res.json()) as { workspaces?: { workspace: string }[] }
      const names = (me.workspaces ?? []).map((w) => w.workspace)
      if (names.length !== 1) throw usageError(`you belong to ${names.length} workspaces: say which with --workspace (${names.join(', ') || 'none'})`)
      workspace = names[0]!
    }
    return await call(member, workspace)
  } catch (err) {
    throw cliError(baseUrl, err)
  }
}

const countsText = (c: MarkResult['counts']) => {
  const more = (n: number) => (n >= 1000 ? '1000+' : String(n))
  return record([['Unread', more(c.unread)], ...Object.entries(c.byChannel).map(([ch, n]) => [`  #${ch}`, more(n)] as [string, string])])
}

export const runUnread = (opts: MemberOptions, env: Env = process.env) =>
  asMember(opts, env, async (m, ws) => {
    const { counts } = await m.feed(ws, { limit: 1 })
    return opts.json ? json(counts) : countsText(counts)
  })

export async function runMark(state: 'read' | 'archive', opts: MarkOptions, env: Env = process.env): Promise<string> {
  const ids = opts.id ?? []
  const forms = [ids.length > 0, !!opts.before, !!opts.all].filter(Boolean).length
  if (forms !== 1) throw usageError('name the events: --id <id> (repeated), or --before <id>, or --all (one of these)')
  if (ids.length > 100) throw usageError('at most 100 ids at once; use --before <id> for more')
  for (const id of [...ids, ...(opts.before ? [opts.before] : [])]) if (!UUID.test(id)) throw usageError(`an event id is a UUID (from the feed or herald send), got ${JSON.stringify(id)}`)
  if (ids.length && opts.channel) throw usageError('--channel goes with --before or --all, not with --id')
  return asMember(opts, env, async (m, ws) => {
    let events: MarkEvents
    if (ids.length) events = { eventIds: ids }
    else {
      const newest = opts.before ?? (await m.feed(ws, { limit: 1, ...(opts.channel ? { channel: opts.channel } : {}) })).events[0]?.eventId
      if (!newest) return opts.json ? json({ eventIds: [], moved: false }) : 'Nothing to mark: the feed is empty.'
      events = { before: newest, ...(opts.channel ? { channel: opts.channel } : {}) }
    }
    const r = state === 'read' ? await m.markRead(ws, events) : await m.archive(ws, events)
    if (opts.json) return json(r)
    const what = r.before ? (r.moved ? `Everything up to ${r.before}${r.channel ? ` in #${r.channel}` : ''}` : 'Nothing new') : `${r.eventIds.length} event(s)`
    return `${what} marked ${r.status}.\n${countsText(r.counts)}`
  })
}

export const addFeedCommands = (program: Command) =>
  group(program, 'feed', 'Your read state in a workspace\'s feed: unread counts; mark events read or archived (on all your devices).', (g) => {
    const unread = memberOptions(g.command('unread').summary('Show your unread counts, in total and per channel (each up to 1,000).'))
    withExamples(unread, ['HERALD_USER_TOKEN=hrlu_… herald feed unread --workspace acme'])
    unread.action(async (opts: MemberOptions) => console.log(await runUnread(opts)))
    for (const state of ['read', 'archive'] as const) {
      const cmd = memberOptions(
        g.command(state)
          .summary(state === 'read' ? 'Mark events read: by id, everything up to one (--before), or all (--all).' : 'Archive events (archived implies read): by id, --before or --all.')
          .option('--id <id>', 'an event id; repeat it for more (at most 100)', collect)
          .option('--before <id>', 'every event up to this one, this one included')
          .option('--all', 'every event up to the newest')
          .option('--channel <slug>', 'with --before or --all: only this channel'),
      )
      withExamples(cmd, [`herald feed ${state} --all --workspace acme`, `herald feed ${state} --id 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b`, `herald feed ${state} --before 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b --channel deploys`])
      cmd.action(async (opts: MarkOptions) => console.log(await runMark(state, opts)))
    }
  })
