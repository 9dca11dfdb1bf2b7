// `herald scheduled list|cancel`: the events a workspace scheduled (herald
// send --at/--in, or deliverAt/delay in POST /event) that have not gone out,
// with its API key (GET /events?status=scheduled, DELETE /events/{id},
// through the TypeScript client). Owners and admins see the same on the
// dashboard's Scheduled page, with their session.
import type { Command } from 'commander'
import { HeraldError, type ScheduledEvent, type ScheduledPage } from '../../clients/typescript/src/index'
import { keyClient, type KeyOptions } from './client'
import { group, UUID, wholeNumber, withExamples } from './command'
import { cliErrorOf } from './send'
import { json, table, timeUntil, usageError, utc } from './output'

type Env = Record<string, string | undefined>

interface ListOptions extends KeyOptions {
  limit?: number
  cursor?: string
  all?: boolean
}

const clip = (text: string, n: number) => (text.length > n ? `${text.slice(0, n - 1)}…` : text)

/** The page as a table, soonest first, and how to get the next page. */
export function scheduledText(events: ScheduledEvent[], nextCursor: string | null, now = Date.now()): string {
  if (events.length === 0) return 'No scheduled events: schedule one with herald send --in 30m or --at <RFC 3339 time> (deliverAt / delay in POST /event).'
  const rows = events.map((e) => [utc(e.scheduledFor), timeUntil(e.scheduledFor, now), e.eventId, e.channel, e.to?.length ?? '-', clip(e.title ? `${e.title}: ${e.message}` : e.message, 60)])
  const more = nextCursor ? `\nMore: herald scheduled list --cursor ${nextCursor}` : ''
  return table(['GOES OUT (UTC)', 'IN', 'EVENT', 'CHANNEL', 'TO', 'MESSAGE'], rows) + more
}

const heraldError = (baseUrl: string, err: unknown) => (err instanceof HeraldError ? cliErrorOf(baseUrl, err) : err)

export async function runList(opts: ListOptions, env: Env = process.env): Promise<string> {
  if (opts.cursor !== undefined && !UUID.test(opts.cursor)) throw usageError(`--cursor must be the event id a page ended with (from "More: …"), got ${JSON.stringify(opts.cursor)}`)
  if (opts.all && opts.cursor) throw usageError('--all starts from the first page: leave out --cursor')
  const { herald, baseUrl } = keyClient(opts, env)
  try {
    let page: ScheduledPage
    if (opts.all) {
      const events: ScheduledEvent[] = []
      for await (const e of herald.allScheduled({ limit: opts.limit })) events.push(e)
      page = { events, nextCursor: null }
    } else page = await herald.scheduled({ cursor: opts.cursor, limit: opts.limit })
    return opts.json ? json(opts.all ? page.events : page) : scheduledText(page.events, page.nextCursor)
  } catch (err) {
    throw heraldError(baseUrl, err)
  }
}

export async function runCancel(eventId: string, opts: KeyOptions, env: Env = process.env): Promise<string> {
  if (!UUID.test(eventId)) throw usageError(`the event id must be a UUID, such as 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b (from herald send or herald scheduled list), got ${JSON.stringify(eventId)}`)
  const { herald, baseUrl } = keyClient(opts, env)
  try {
    const c = await herald.cancel(eventId)
    return opts.json ? json(c) : `Cancelled event ${c.eventId}: it was to go out at ${utc(c.scheduledFor)} UTC, and never will.`
  } catch (err) {
    throw heraldError(baseUrl, err)
  }
}

const limitOption = (raw: string) => {
  const n = wholeNumber(raw, 1, 'the limit must be a whole number from 1 to 100')
  if (n > 100) throw usageError(`the limit must be a whole number from 1 to 100, got ${JSON.stringify(raw)}`)
  return n
}

const keyOptions = (cmd: Command) =>
  cmd
    .option('--json', "print Herald's answer as JSON")
    .optionsGroup('Connection options:')
    .option('--key <key>', 'the API key of the workspace (default: $HERALD_KEY; prefer the variable: a flag shows up in ps)')
    .option('--url <url>', 'base URL of Herald (default: $HERALD_URL, else http://127.0.0.1:$PORT, PORT defaulting to 8080)')

export const addScheduledCommands = (program: Command) =>
  group(program, 'scheduled', 'List or cancel the events scheduled with herald send --at or --in that have not gone out.', (g) => {
    const list = keyOptions(
      g
        .command('list')
        .summary('List the scheduled events that have not gone out, soonest first, a page at a time.')
        .option('--limit <n>', 'events per page, 1 to 100 (default 50)', limitOption)
        .option('--cursor <eventId>', 'the page after this one (the "More:" line of the page before)')
        .option('--all', 'every page, one after the other'),
    )
    withExamples(list, ['herald scheduled list', "herald scheduled list --all --json | jq -r '.[].eventId'"])
    list.action(async (opts: ListOptions) => console.log(await runList(opts)))
    const cancel = keyOptions(
      g
        .command('cancel')
        .argument('<eventId>', 'the scheduled event, from herald send or herald scheduled list')
        .summary('Cancel a scheduled event that has not gone out (an error, exit 3, once it went out).'),
    )
    withExamples(cancel, ['herald scheduled cancel 0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b'])
    cancel.action(async (eventId: string, opts: KeyOptions) => console.log(await runCancel(eventId, opts)))
  })
