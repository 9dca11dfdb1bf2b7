// `herald send`: POST /event from a shell or a CI job, with an API key,
// through the TypeScript client's `send` (clients/typescript, from its source:
// no build step under Bun). One Idempotency-Key per invocation makes its
// retries safe: a connection that failed, a 429 that says when to come back,
// or a 5xx is tried again with the same key and the same bytes, so Herald
// stores the event once however many tries reached it. The exit code tells a
// CI job which side is wrong: 3 when Herald refused the event (a 4xx: the
// key, the input, the quota), 1 when Herald could not be reached or failed
// (after the retries).
import type { Command } from 'commander'
import { Herald, HeraldError, type Accepted, type HeraldEvent } from '../../clients/typescript/src/index'
import { localSettings, resolveApiKey, resolveBaseUrl, transportError } from './client'
import { collect, wholeNumber, withExamples } from './command'
import { CliError, json, timeUntil, usageError, utc } from './output'

/** The retry policy, as data: backoff doubles from the first delay; a Retry-After is waited instead, up to its cap. */
export const SEND_RETRY = {
  retries: 3,
  firstDelayMs: 500,
  maxDelayMs: 8_000,
  // A 429 for the monthly quota says "come back next month": longer than any
  // CI job waits, so a Retry-After past this is a refusal, not a pause.
  maxRetryAfterMs: 30_000,
  // One POST /event commits within a second; 10 s means the server is stuck.
  attemptTimeoutMs: 10_000,
} as const

interface SendOptions {
  key?: string
  url?: string
  event?: string
  channel?: string
  title?: string
  link?: string
  tag?: string[]
  data?: string[]
  dataJson?: string
  priority?: number | string
  ttl?: number | string
  collapseKey?: string
  to?: string[]
  ackRetry?: number | string
  ackExpire?: number | string
  ackEscalate?: { after: number | string; channel: string }[]
  at?: string
  in?: number | string
  retries?: number
  json?: boolean
}

type Env = Record<string, string | undefined>

/** `--data-json` as the base, then each `--data KEY=VALUE` (a string) over it; null when neither is given. */
async function dataOf(opts: SendOptions, readStdin: () => Promise<string>): Promise<Record<string, unknown> | null> {
  let data: Record<string, unknown> | null = null
  if (opts.dataJson !== undefined) {
    const raw = opts.dataJson === '-' ? await readStdin() : opts.dataJson
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      throw usageError(`--data-json must be a JSON object such as '{"n":3,"ok":true}', got ${JSON.stringify(raw.slice(0, 80))}`)
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw usageError('--data-json must be a JSON object')
    data = value as Record<string, unknown>
  }
  for (const pair of opts.data ?? []) {
    const eq = pair.indexOf('=')
    if (eq < 1) throw usageError(`--data must be KEY=VALUE, such as sha=9f2c1e, got ${JSON.stringify(pair)}`)
    data = { ...data, [pair.slice(0, eq)]: pair.slice(eq + 1) }
  }
  return data
}

export async function eventBody(message: string, opts: SendOptions, readStdin = () => Bun.stdin.text()): Promise<Record<string, unknown>> {
  const data = await dataOf(opts, readStdin)
  return {
    message,
    ...(opts.event === undefined ? {} : { event: opts.event }),
    ...(opts.channel === undefined ? {} : { channel: opts.channel }),
    ...(opts.title === undefined ? {} : { title: opts.title }),
    ...(opts.link === undefined ? {} : { link: opts.link }),
    ...(opts.tag?.length ? { tags: opts.tag } : {}),
    ...(data ? { data } : {}),
    ...(opts.priority === undefined ? {} : { priority: opts.priority }),
    ...(opts.ttl === undefined ? {} : { ttl: opts.ttl }),
    ...(opts.collapseKey === undefined ? {} : { collapseKey: opts.collapseKey }),
    ...(opts.to?.length ? { to: opts.to } : {}),
    ...ackOf(opts),
    ...scheduleOf(opts),
  }
}

/** `deliverAt` from --at or `delay` from --in, not both; Herald checks the bounds (10 s to HERALD_MAX_SCHEDULE ahead). */
function scheduleOf(opts: SendOptions): { deliverAt?: string; delay?: number | string } {
  if (opts.at !== undefined && opts.in !== undefined) throw usageError('give --at or --in, not both: a time, or how long from now')
  if (opts.at !== undefined) return { deliverAt: opts.at }
  if (opts.in !== undefined) return { delay: opts.in }
  return {}
}

// RFC 3339 with seconds and an offset: a time without a zone would mean a different moment on each machine.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

/** --at: an RFC 3339 time with an offset, sent as it is (a space between date and time becomes the T). */
export function atOption(raw: string): string {
  const v = raw.trim()
  if (!RFC3339.test(v) || Number.isNaN(Date.parse(v.replace(' ', 'T')))) throw usageError(`--at must be an RFC 3339 time with an offset, such as 2030-01-01T09:00:00Z or 2030-01-01T10:00:00+01:00, got ${JSON.stringify(raw)}`)
  return v.replace(' ', 'T')
}

/** `ack` from --ack-retry, --ack-expire and each --ack-escalate; both of the first two, or none of the three. */
function ackOf(opts: SendOptions): { ack?: Record<string, unknown> } {
  const { ackRetry: retry, ackExpire: expire, ackEscalate: escalate } = opts
  if (retry === undefined && expire === undefined) {
    if (escalate?.length) throw usageError('--ack-escalate needs --ack-retry and --ack-expire: only an event that must be acknowledged escalates')
    return {}
  }
  if (retry === undefined || expire === undefined) throw usageError('give --ack-retry and --ack-expire together: how often the event repeats, and until when at the latest')
  return { ack: { retry, expire, ...(escalate?.length ? { escalate } : {}) } }
}

// Herald checks every bound (a 400 naming the field, exit 3); the CLI only
// refuses what cannot be one of them, before anything is sent.
const PRIORITY_NAMES = ['min', 'low', 'default', 'high', 'urgent']
const DURATION = /^\d+[smhd]?$/

/** 1 to 5, or a name: a number goes as a number, a name as itself. */
export function priorityOption(raw: string): number | string {
  const v = raw.trim().toLowerCase()
  if (/^[1-5]$/.test(v)) return Number(v)
  if (PRIORITY_NAMES.includes(v)) return v
  throw usageError(`--priority must be 1 to 5 or one of ${PRIORITY_NAMES.join(', ')}, got ${JSON.stringify(raw)}`)
}

/** Seconds (a whole number, sent as one) or a duration such as 90s, 15m, 2h, 7d. */
export const durationOption = (flag: string) => (raw: string): number | string => {
  const v = raw.trim()
  if (!DURATION.test(v)) throw usageError(`${flag} must be seconds or a duration such as 90s, 15m, 2h or 7d, got ${JSON.stringify(raw)}`)
  return /^\d+$/.test(v) ? Number(v) : v
}

/** `--ack-escalate AFTER:CHANNEL`, repeatable: `10m:oncall`. */
export function escalateOption(raw: string, previous: { after: number | string; channel: string }[] = []) {
  const colon = raw.indexOf(':')
  if (colon < 1 || colon === raw.length - 1) throw usageError(`--ack-escalate must be AFTER:CHANNEL, such as 10m:oncall, got ${JSON.stringify(raw)}`)
  return [...previous, { after: durationOption('--ack-escalate\'s AFTER')(raw.slice(0, colon)), channel: raw.slice(colon + 1) }]
}

/** A HeraldError as the CLI says it: the problem's detail (and each field error that says more), or the unreachable URL. */
export function cliErrorOf(baseUrl: string, err: HeraldError): CliError {
  if (err.status === 0) return transportError(baseUrl, err.cause, SEND_RETRY.attemptTimeoutMs)
  const errors = err.errors.map((e) => e.detail).filter(Boolean)
  // A single field error usually repeats `detail` word for word; print it once.
  const details = errors.length === 1 && errors[0] === err.detail ? [] : errors
  return new CliError(err.status >= 400 && err.status < 500 ? 'refused' : 'api', err.detail, details)
}

/** Sends the event until Herald answers for good; the answer of a 2xx, or the CliError of the last failure. */
export async function postEvent(baseUrl: string, key: string, event: HeraldEvent, retries: number): Promise<Accepted> {
  const herald = new Herald({
    apiKey: key,
    url: baseUrl,
    timeoutMs: SEND_RETRY.attemptTimeoutMs,
    // No jitter: one person's command, and the waits it prints are the waits it makes.
    retry: { maxAttempts: retries + 1, baseDelayMs: SEND_RETRY.firstDelayMs, maxDelayMs: SEND_RETRY.maxDelayMs, maxRetryAfterMs: SEND_RETRY.maxRetryAfterMs, jitter: 'none' },
    onRetry: (err, { attempt, delayMs }) =>
      console.error(`${cliErrorOf(baseUrl, err).message}: retrying in ${delayMs / 1000} s (retry ${attempt} of ${retries}, same Idempotency-Key)`),
  })
  try {
    return await herald.send(event)
  } catch (err) {
    throw err instanceof HeraldError ? cliErrorOf(baseUrl, err) : err
  }
}

function acceptedText(a: Accepted): string {
  const notes = (a.errors ?? []).map((e) => `\nnote: ${e}`).join('')
  const receipt = a.receipt ? `\nReceipt ${a.receipt}: it repeats until acknowledged (herald receipt show ${a.receipt}).` : ''
  if (a.scheduledFor) return `Scheduled event ${a.eventId} for ${utc(a.scheduledFor)} UTC (in ${timeUntil(a.scheduledFor)}) to workspace ${a.workspace}, channel ${a.channel}. ${a.remainingQuota} events left this month.\nCancel it until then: herald scheduled cancel ${a.eventId}${receipt}${notes}`
  return `Sent event ${a.eventId} to workspace ${a.workspace}, channel ${a.channel}. ${a.remainingQuota} events left this month.${receipt}${notes}`
}

export async function runSend(message: string, opts: SendOptions, env: Env = process.env): Promise<string> {
  const baseUrl = resolveBaseUrl(opts.url, localSettings(env))
  const key = resolveApiKey(opts.key, env)
  const event = (await eventBody(message, opts)) as HeraldEvent
  const accepted = await postEvent(baseUrl, key, event, opts.retries ?? SEND_RETRY.retries)
  return opts.json ? json(accepted) : acceptedText(accepted)
}

const retriesOption = (raw: string) => {
  const n = wholeNumber(raw, 0, 'the retries must be a whole number from 0 to 10')
  if (n > 10) throw usageError(`the retries must be a whole number from 0 to 10, got ${JSON.stringify(raw)}`)
  return n
}

export function addSendCommand(program: Command): Command {
  const cmd = program
    .command('send')
    .argument('<message>', 'the notification text (at most 500 characters)')
    .summary('Send an event to Herald with an API key (POST /event), retrying safely.')
    .description(
      'Send an event with an API key (POST /event). It carries a fresh Idempotency-Key, and a connection error, a 5xx or a 429 with a Retry-After of at most 30 s is retried with the same key after 0.5, 1 and 2 s (or the Retry-After): Herald stores the event once however many tries reach it.',
    )
    .option('--event <key>', "the event key routers match, such as deploy.finished")
    .option('--channel <slug>', "the channel (default: the workspace's default channel)")
    .option('--title <title>', 'a headline above the message')
    .option('--link <url>', 'opened when the notification is tapped: http(s)://, mailto: or tel:')
    .option('--tag <tag>', 'a tag; repeat for more (at most 10)', collect)
    .option('--data <key=value>', 'a field of data, as a string; repeat for more', collect)
    .option('--data-json <json>', 'data as a JSON object, for numbers, booleans and nesting; "-" reads it from stdin; --data fields go over it')
    .option('--priority <priority>', 'how urgent: 1 to 5, or min, low, default (3), high, urgent', priorityOption)
    .option('--ttl <duration>', 'not delivered once older than this: seconds, or 90s, 15m, 2h, 7d', durationOption('--ttl'))
    .option('--collapse-key <key>', 'a newer event with the same key replaces this notification on a device (1 to 32 of A-Z a-z 0-9 _ -)')
    .option('--to <recipient>', "send to this member only: an e-mail address or user:<id>; repeat for more (at most 100). Only they, and the workspace's owners and admins, see the event", collect)
    .option('--ack-retry <duration>', 'must be acknowledged: pushed again this often until it is (at least 30s); with --ack-expire', durationOption('--ack-retry'))
    .option('--ack-expire <duration>', 'must be acknowledged: stop repeating after this (at most 3h unless the operator raised it); with --ack-retry', durationOption('--ack-expire'))
    .option('--ack-escalate <after:channel>', "also push to a channel's members once unacknowledged this long, such as 10m:oncall; repeat for more (at most 3)", escalateOption)
    .option('--at <time>', 'schedule it: goes out at this RFC 3339 time, such as 2030-01-01T09:00:00Z (10 s to 30 days ahead); not with --in', atOption)
    .option('--in <duration>', 'schedule it: goes out this long from now, seconds or 90s, 30m, 2h, 7d (10 s to 30 days); not with --at', durationOption('--in'))
    .option('--retries <n>', `retries after a connection error, a 5xx or a 429 (default: ${SEND_RETRY.retries}; 0 to try once)`, retriesOption)
    .option('--json', "print Herald's answer as JSON")
    .optionsGroup('Connection options:')
    .option('--key <key>', 'the API key (default: $HERALD_KEY; prefer the variable: a flag shows up in ps)')
    .option('--url <url>', 'base URL of Herald (default: $HERALD_URL, else http://127.0.0.1:$PORT, PORT defaulting to 8080)')
  withExamples(cmd, [
    'herald send "Deploy finished" --event deploy.finished --channel deploys --tag prod --data sha=9f2c1e',
    'HERALD_KEY=hrld_… herald send "Backup failed" --title Backup --link https://status.example.com --data-json \'{"sizeGb":12.5,"ok":false}\'',
    'herald send "Nightly build" --json | jq -r .eventId',
    'herald send "Maintenance starts in 5 minutes" --in 25m   # or --at 2030-01-01T09:00:00Z',
    'herald send "Disk full on db-1" --priority urgent --ttl 1h --collapse-key disk-db-1 --ack-retry 60s --ack-expire 1h --ack-escalate 10m:oncall',
  ])
  cmd.addHelpText(
    'after',
    `
Exit codes:
  0  Herald accepted the event (it is stored and will be delivered; with --at
     or --in, at that time).
  1  Herald could not be reached, or failed (5xx), after the retries.
  2  Usage error: the command line is wrong; nothing was sent.
  3  Herald refused the event (4xx): a wrong or revoked API key, invalid input,
     the monthly quota used up, or the rate limit still hit after the retries.
     Sending it again as it is will not help.`,
  )
  return cmd.action(async (message: string, opts: SendOptions) => {
    console.log(await runSend(message, opts))
  })
}
