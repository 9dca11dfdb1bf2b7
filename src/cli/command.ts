// What every command of the CLI is built from: a command of the operator API
// (its arguments, its own options, the common --json, --url and --token, its
// examples in the help) and the checks of the numbers it takes, each a usage
// error that says what the number must be.
import { Command } from 'commander'
import { adminClient, type AdminClient } from './client'
import { usageError } from './output'

export interface CommonOptions {
  json?: boolean
  url?: string
  token?: string
}

/** Adds "Examples:" to a command's help; the completion and the tests read them back with `examplesOf`. */
export function withExamples(cmd: Command, lines: string[]): Command {
  EXAMPLES.set(cmd, lines)
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`)
}
const EXAMPLES = new WeakMap<Command, string[]>()
export const examplesOf = (cmd: Command): string[] => EXAMPLES.get(cmd) ?? []

/** A group of commands (`herald router …`): its help lists them, with the first example of each. */
export function group(parent: Command, name: string, summary: string, build: (g: Command) => void): Command {
  const g = parent.command(name).summary(summary).description(summary).usage('<command> [arguments] [options]')
  build(g)
  withExamples(g, g.commands.flatMap((c) => examplesOf(c).slice(0, 1)))
  return g.addHelpText('after', `\nRun 'herald ${name} <command> --help' for the options and examples of one command.`)
}

/** The common options of the operator commands, shown apart from the command's own. */
export function connectionOptions(cmd: Command): Command {
  return cmd
    .optionsGroup('Connection options:')
    .option('--json', "print the API's JSON instead of text")
    .option('--url <url>', 'base URL of the server (default: $HERALD_URL, else http://127.0.0.1:$PORT, PORT defaulting to 8080)')
    .option('--token <token>', 'operator token (default: $HERALD_ADMIN_TOKEN, else the admin.token file of a Herald on the embedded default in $HERALD_DATA_DIR or ./.herald); prefer the variable: a flag shows up in ps')
}

type Arg = [name: string, description: string]

export interface OperatorSpec<O> {
  name: string
  /** The positional arguments, all required: `['<workspace>', 'the workspace's name']`. */
  args?: Arg[]
  summary: string
  /** The help's longer text; the summary when left out. */
  description?: string
  /** The command's own options, added before the connection options. */
  options?: (cmd: Command) => unknown
  examples: string[]
  /** Returns what to print: text, or with --json the API's JSON. */
  run(client: AdminClient, args: string[], opts: O & CommonOptions): Promise<string>
}

/** A command that calls the operator API of a running server. */
export function operatorCommand<O>(parent: Command, spec: OperatorSpec<O>): Command {
  const cmd = parent.command(spec.name).summary(spec.summary).description(spec.description ?? spec.summary)
  for (const [name, description] of spec.args ?? []) cmd.argument(name, description)
  spec.options?.(cmd)
  connectionOptions(cmd)
  withExamples(cmd, spec.examples)
  return cmd.action(async (...params: unknown[]) => {
    const command = params.at(-1) as Command
    const opts = command.opts<O & CommonOptions>()
    console.log(await spec.run(adminClient({ url: opts.url, token: opts.token }), command.processedArgs as string[], opts))
  })
}

// --- numbers ---------------------------------------------------------------

/** A whole number of at least `min`, or the usage error `rule`. */
export function wholeNumber(raw: string, min: number, rule: string): number {
  const n = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min) throw usageError(`${rule}, got ${JSON.stringify(raw)}`)
  return n
}

// Option parsers for commander: each gets the raw text (a negative number
// too: commander passes "-5" to --quota as its value, not as an option).
export const quotaOption = (raw: string) => wholeNumber(raw, 0, 'the quota must be a positive whole number (or 0, to accept no events)')
export const burstOption = (raw: string) => wholeNumber(raw, 1, 'the burst must be a positive whole number')
export function rateOption(raw: string): number {
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) throw usageError(`the rate must be a number of events per second above 0, such as 10 or 0.5, got ${JSON.stringify(raw)}`)
  return n
}
export const limitOption = (raw: string) => {
  const n = wholeNumber(raw, 1, 'the limit must be a whole number from 1 to 1000')
  if (n > 1000) throw usageError(`the limit must be a whole number from 1 to 1000, got ${JSON.stringify(raw)}`)
  return n
}
/** For a repeatable option: every value given, in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value]

// --- paths -----------------------------------------------------------------

export const wsPath = (name: string) => `/admin/workspaces/${encodeURIComponent(name)}`
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The options of a command a member runs with their user token (herald feed, herald prefs): workspace, JSON, token and URL. */
export const memberOptions = (cmd: Command) =>
  cmd
    .option('--workspace <name>', 'the workspace (default: the only one you belong to)')
    .option('--json', "print Herald's answer as JSON")
    .optionsGroup('Connection options:')
    .option('--user-token <token>', 'your user token, hrlu_… (default: $HERALD_USER_TOKEN; prefer the variable: a flag shows up in ps)')
    .option('--url <url>', 'base URL of Herald (default: $HERALD_URL, else http://127.0.0.1:$PORT, PORT defaulting to 8080)')
