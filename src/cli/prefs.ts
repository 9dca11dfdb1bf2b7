// `herald prefs show|set`: a member's own preferences in a workspace (GET and
// PUT /v1/workspaces/{ws}/preferences), with their user token (hrlu_…), as
// `herald receipt ack` does. set changes what its options name and keeps the
// rest: it reads the document, changes it and writes it back whole (the PUT
// replaces it). Quiet hours take this machine's time zone unless --timezone
// names another.
import { Option, type Command } from 'commander'
import { localSettings, resolveBaseUrl } from './client'
import { collect, group, memberOptions, withExamples } from './command'
import { json, record, usageError } from './output'
import { asMember, workspaceOf } from './receipts'

type Env = Record<string, string | undefined>
type Level = 'all' | 'high' | 'urgent' | 'none'
const LEVELS: Level[] = ['all', 'high', 'urgent', 'none']

export interface Preferences {
  quietHours: { timezone: string; from: string; to: string; except: number } | null
  channels: Record<string, Level>
  default: Level
}

interface MemberOptions {
  userToken?: string
  workspace?: string
  url?: string
  json?: boolean
}

export interface SetOptions extends MemberOptions {
  quietHours?: string | false // "22:00-07:00"; false: --no-quiet-hours
  timezone?: string
  except?: string
  channel?: string[] // "ops=high"
  default?: string
}

const LEVEL_WORDS: Record<Level, string> = { all: 'every event', high: 'priority 4 and 5', urgent: 'priority 5 only', none: 'no pushes (muted)' }

/** The document in `label: value` lines. */
export function preferencesText(workspace: string, p: Preferences): string {
  const q = p.quietHours
  const pairs: [string, string][] = [
    ['Workspace', workspace],
    ['Quiet hours', q ? `${q.from}–${q.to} ${q.timezone}; priority ${q.except} and up still pushed` : 'none'],
    ['Default', `${p.default} (${LEVEL_WORDS[p.default]})`],
  ]
  const channels = Object.entries(p.channels)
  for (const [slug, level] of channels) pairs.push([`#${slug}`, `${level} (${LEVEL_WORDS[level]})`])
  if (!channels.length) pairs.push(['Channels', 'all follow the default'])
  return record(pairs)
}

async function member(opts: MemberOptions, env: Env) {
  const baseUrl = resolveBaseUrl(opts.url, localSettings(env))
  const token = opts.userToken || env.HERALD_USER_TOKEN
  if (!token) throw usageError('no user token: set HERALD_USER_TOKEN or pass --user-token (hrlu_…, from signing in with client "app"); preferences are a person\'s own')
  const workspace = await workspaceOf(baseUrl, token, opts.workspace)
  const path = `/v1/workspaces/${encodeURIComponent(workspace)}/preferences`
  return { workspace, call: <T>(method: string, body?: unknown) => asMember<T>(baseUrl, token, method, path, body) }
}

export async function runShow(opts: MemberOptions, env: Env = process.env): Promise<string> {
  const { workspace, call } = await member(opts, env)
  const p = await call<Preferences>('GET')
  return opts.json ? json(p) : preferencesText(workspace, p)
}

const level = (value: string, what: string): Level => {
  if (!(LEVELS as string[]).includes(value)) throw usageError(`${what} must be one of ${LEVELS.join(', ')}, got ${JSON.stringify(value)}`)
  return value as Level
}

/** The document with the options' changes made (the server checks the rest and answers a 400 naming the field). */
export function changed(p: Preferences, opts: SetOptions, localZone: string): Preferences {
  const next: Preferences = { quietHours: p.quietHours, channels: { ...p.channels }, default: p.default }
  if (opts.quietHours === false) next.quietHours = null
  else if (opts.quietHours !== undefined || opts.timezone !== undefined || opts.except !== undefined) {
    const [from, to] = opts.quietHours !== undefined ? opts.quietHours.split('-') : [p.quietHours?.from, p.quietHours?.to]
    if (!from || !to) throw usageError(opts.quietHours !== undefined ? `--quiet-hours must be FROM-TO, such as 22:00-07:00, got ${JSON.stringify(opts.quietHours)}` : 'no quiet hours to change: set them with --quiet-hours FROM-TO')
    const except = opts.except !== undefined ? Number(opts.except) : (p.quietHours?.except ?? 5)
    next.quietHours = { timezone: opts.timezone ?? p.quietHours?.timezone ?? localZone, from, to, except }
  }
  for (const entry of opts.channel ?? []) {
    const at = entry.indexOf('=')
    if (at < 1) throw usageError(`--channel must be SLUG=LEVEL, such as ops=high, got ${JSON.stringify(entry)}`)
    const slug = entry.slice(0, at)
    const value = entry.slice(at + 1)
    if (value === 'default') delete next.channels[slug]
    else next.channels[slug] = level(value, `--channel ${slug}=`)
  }
  if (opts.default !== undefined) next.default = level(opts.default, '--default')
  return next
}

export async function runSet(opts: SetOptions, env: Env = process.env): Promise<string> {
  const { workspace, call } = await member(opts, env)
  const next = changed(await call<Preferences>('GET'), opts, Intl.DateTimeFormat().resolvedOptions().timeZone)
  const p = await call<Preferences>('PUT', next)
  return opts.json ? json(p) : `Saved: pushes from now on follow them.\n${preferencesText(workspace, p)}`
}

export const addPrefsCommands = (program: Command) =>
  group(program, 'prefs', 'Show or change your own preferences in a workspace: quiet hours, a level per channel, the default level.', (g) => {
    const show = memberOptions(g.command('show').summary('Show your quiet hours, channel levels and default level.'))
    withExamples(show, ['HERALD_USER_TOKEN=hrlu_… herald prefs show --workspace acme'])
    show.action(async (opts: MemberOptions) => console.log(await runShow(opts)))

    const set = g
      .command('set')
      .summary('Change your preferences; what no option names is kept.')
      .option('--quiet-hours <from-to>', 'quiet hours, HH:MM-HH:MM on your clock, such as 22:00-07:00 (crossing midnight is fine)')
      .option('--no-quiet-hours', 'no quiet hours')
      .option('--timezone <zone>', "the quiet hours' IANA time zone (default: this machine's)")
      .option('--except <priority>', 'inside quiet hours, events of this priority (1-5) and up are still pushed (default 5)')
      .option('--channel <slug=level>', 'a channel\'s level: all, high (priority 4+), urgent (5), none (mute), or default; repeatable', collect)
      .addOption(new Option('--default <level>', 'the level of channels not set with --channel').choices(LEVELS))
    memberOptions(set)
    withExamples(set, [
      'herald prefs set --quiet-hours 22:00-07:00 --timezone Europe/Paris --except 5',
      'herald prefs set --channel ops=high --channel marketing=none',
      'herald prefs set --default urgent --no-quiet-hours',
    ])
    set.action(async (opts: SetOptions) => console.log(await runSet(opts)))
  })
