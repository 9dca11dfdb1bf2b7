#!/usr/bin/env bun
// `herald`: starts the server, applies migrations, sends events, and drives
// the operator API of a running server. Built on commander: each command
// declares its arguments, options and examples once, and the help, the
// suggestions for a misspelled name and the shell completion are read from
// that. Exit codes: 0 success, 1 error, 2 usage error, 3 event refused (send).
import { readFileSync } from 'node:fs'
import { Command, CommanderError, Help } from 'commander'
import { ConfigError } from '../core/config'
import { addKeyCommands, addWorkspaceCommands } from './admin'
import { addChannelCommands } from './channels'
import { withExamples } from './command'
import { addCompletionCommands } from './completion'
import { addDeliveryCommands } from './deliveries'
import { addInviteCommand, addMemberCommands } from './members'
import { CliError, reportError, usageError } from './output'
import { addRouterCommands } from './routers'
import { addSendCommand } from './send'
import { addReceiptCommands } from './receipts'
import { addScheduledCommands } from './scheduled'
import { addPrefsCommands } from './prefs'
import { addFeedCommands } from './feed'
import { addStatusCommand } from './status'

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

/** What `start`, `serve` and `worker` leave behind: a server that runs until SIGTERM or SIGINT. */
interface Running {
  server: boolean
}

// The server's modules (PGlite, NATS, the worker pool) load only for the commands that run one.
async function runServer(command: 'start' | 'serve' | 'worker', running: Running) {
  const [{ loadConfig, unknownSettings }, { createLogger }, { startHerald, startWorker }] = await Promise.all([import('../core/config'), import('../core/log'), import('../server')])
  const config = loadConfig()
  const log = createLogger(config.LOG_LEVEL, undefined, config.LOG_FORMAT)
  for (const warning of unknownSettings()) log.warn(warning)
  if (command === 'serve' && !config.DATABASE_URL) {
    throw new CliError('config', 'herald serve is the API of a scaled-out Herald and needs DATABASE_URL (and NATS_URL for separate workers); `herald start` runs everything on the embedded database')
  }
  // NATS reached late, and unusable for this Herald (another database's stream, one it cannot change): stop.
  const onFatal = (err: Error) => {
    log.fatal({ err }, 'stopping: NATS is unusable for this Herald')
    setTimeout(() => process.exit(1), 100)
  }
  const herald = command === 'worker' ? await startWorker(config, log, { onFatal }) : await startHerald(config, log, command === 'serve' ? 'api' : 'all', { onFatal })
  running.server = true
  // Once: Ctrl-C under the npm launcher (src/cli/herald.mjs) arrives twice, from the terminal and forwarded.
  let stopping: Promise<void> | undefined
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => (stopping ??= herald.stop().then(() => process.exit(0))))
}

async function runMigrate() {
  const [{ default: pino }, { loadConfig }, { createLogger }, { openDatabase }, { migrate }] = await Promise.all([
    import('pino'),
    import('../core/config'),
    import('../core/log'),
    import('../core/db'),
    import('../core/migrate'),
  ])
  const config = loadConfig()
  // Logs go to stderr so that stdout holds only the list of migrations.
  const log = createLogger(config.LOG_LEVEL, pino.destination({ dest: 2, sync: true }), config.LOG_FORMAT)
  const db = await openDatabase(config, log)
  try {
    const applied = await migrate(db.sql)
    console.log(applied.length ? applied.map((name) => `applied ${name}`).join('\n') : 'The database is up to date: no migration to apply.')
  } finally {
    await db.close()
  }
}

function addServerCommands(program: Command, running: Running) {
  program.commandsGroup('Server commands (configured by the environment: PORT, DATABASE_URL, NATS_URL… see the README):')
  const server = (name: 'start' | 'serve' | 'worker', summary: string, description: string, examples: string[]) =>
    withExamples(program.command(name).summary(summary).description(description).action(() => runServer(name, running)), examples)
  server('start', 'Run Herald all-in-one: the API, the outbox relay and the delivery worker.',
    'Run Herald all-in-one: the API, the outbox relay and the delivery worker. Without DATABASE_URL it runs on the embedded database in HERALD_DATA_DIR (./.herald), where it also writes the operator token the CLI reads (admin.token).',
    ['herald start', 'PORT=9000 HERALD_DATA_DIR=/var/lib/herald herald start'])
  server('serve', 'Run the API and the outbox relay (needs DATABASE_URL); with NATS_URL, herald worker delivers.',
    'Run the API and the outbox relay, on PostgreSQL (DATABASE_URL). With NATS_URL, deliveries are left to herald worker processes; without it, serve delivers too, as start does.',
    ['DATABASE_URL=postgres://herald@db/herald NATS_URL=nats://nats:4222 herald serve'])
  server('worker', 'Run a delivery worker only: JetStream consumer, retries and the thread pool.',
    'Run a delivery worker only: the JetStream consumer, the retries and the thread pool. Needs DATABASE_URL and NATS_URL.',
    ['DATABASE_URL=postgres://herald@db/herald NATS_URL=nats://nats:4222 herald worker'])
  withExamples(program.command('migrate').summary('Apply pending database migrations, then exit.').action(runMigrate), ['DATABASE_URL=postgres://herald@db/herald herald migrate'])
  addStatusCommand(program)
}

/** Every command below `cmd`, by its full name: "router create". */
export function commandPaths(cmd: Command, prefix = ''): { path: string; command: Command }[] {
  return cmd.commands.flatMap((c) => {
    const path = prefix ? `${prefix} ${c.name()}` : c.name()
    return [{ path, command: c }, ...commandPaths(c, path)]
  })
}

const argsOf = (c: Command) => c.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`)).join(' ')

/**
 * The top-level help lists every command, not only the first word of each:
 * `router create <workspace>` under the heading of `router`. The groups' own
 * help keeps commander's listing of their commands.
 */
function listEveryCommand(program: Command) {
  const leaves = commandPaths(program).filter(({ command }) => command.commands.length === 0)
  const pathOf = new Map(leaves.map(({ path, command }) => [command, path]))
  const topOf = (c: Command): Command => (c.parent && c.parent !== program ? topOf(c.parent) : c)
  // Only the help's formatting lists the leaves: suggestions for a misspelled
  // command still come from the program's own commands.
  const everything: Partial<Help> = {
    visibleCommands: () => leaves.map(({ command }) => command),
    subcommandTerm: (c) => `${pathOf.get(c) ?? c.name()} ${argsOf(c)}`.trimEnd(),
    groupItems: (unsorted, visible, getGroup) =>
      Help.prototype.groupItems(unsorted, visible, (item) => (item instanceof Command ? topOf(item).helpGroup() || 'Commands:' : getGroup(item))),
  }
  program.configureHelp({
    formatHelp(cmd, helper) {
      const h = Object.assign(Object.create(helper) as Help, everything)
      return Help.prototype.formatHelp.call(h, cmd, h)
    },
  })
  program.addHelpText(
    'after',
    `
The operator commands take --url URL (default: $HERALD_URL, else http://127.0.0.1:$PORT,
PORT defaulting to 8080), --token TOKEN (default: $HERALD_ADMIN_TOKEN, else the
admin.token file that a Herald on the embedded default keeps in $HERALD_DATA_DIR,
./.herald by default) and --json (the API's JSON instead of text).

Run 'herald <command> --help' for the options and examples of one command, such as
'herald router create --help'. docs/cli.md is the guide.

Exit codes: 0 success, 1 error (from the API or the connection), 2 usage error,
3 the event was refused by Herald (herald send only: a 4xx answer).`,
  )
}

/** A commander error as the CLI's own: help and version are done (exit 0), anything else is a usage error on one line. */
function onCommanderError(cmd: Command, path: string, err: CommanderError): never {
  if (err.exitCode === 0) throw err // help or version, printed
  // A group alone (`herald router`): commander would print its help to stderr.
  if (err.code === 'commander.help') throw usageError(`herald ${path} needs a command: ${cmd.commands.map((c) => c.name()).join(', ')}`)
  const message = err.message.replace(/^error: /, '').replace(/\n\(Did you mean (.+)\?\)$/, ' (did you mean $1?)').replaceAll('\n', ' ')
  throw usageError(path ? `herald ${path}: ${message}` : message)
}

export function buildProgram(running: Running = { server: false }): Command {
  const program = new Command('herald')
    .usage('<command> [arguments] [options]')
    .description('Herald: a self-hostable event notification service.')
    .version(VERSION, '-V, --version', 'print the version of Herald')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand('help [command]', 'show help for a command')
    .option('--config <file>', 'a herald.toml of settings (HERALD_CONFIG); the environment wins over it')
    .showSuggestionAfterError()
    // Errors are printed by reportError, in the CLI's one style; help goes to stdout.
    .configureOutput({ writeErr: () => {}, outputError: () => {} })
  // Before any command reads the settings (the server's, or the CLI's PORT and token).
  program.hook('preAction', () => {
    const file = program.opts<{ config?: string }>().config
    if (file) process.env.HERALD_CONFIG = file
  })
  addServerCommands(program, running)
  program.commandsGroup('Sending events:')
  addSendCommand(program)
  addScheduledCommands(program)
  addReceiptCommands(program)
  addPrefsCommands(program)
  addFeedCommands(program)
  program.commandsGroup('Operator commands (call the operator API of a running server):')
  for (const add of [addWorkspaceCommands, addKeyCommands, addRouterCommands, addMemberCommands, addChannelCommands]) add(program)
  addInviteCommand(program)
  addDeliveryCommands(program)
  program.commandsGroup('Other commands:')
  addCompletionCommands(program)
  listEveryCommand(program)
  for (const { path, command } of [{ path: '', command: program }, ...commandPaths(program)]) {
    command.exitOverride((err) => onCommanderError(command, path, err))
  }
  return program
}

/** Runs one command line. Returns the exit code, or undefined when a server keeps running. */
export async function main(argv: string[]): Promise<number | undefined> {
  const running: Running = { server: false }
  const program = buildProgram(running)
  // No command at all: the help, as `herald help` prints it.
  if (argv.length === 0) argv = ['help']
  try {
    await program.parseAsync(argv, { from: 'user' })
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode === 0) return 0
    throw err
  }
  return running.server ? undefined : 0
}

function fail(err: unknown): number {
  if (err instanceof ConfigError) return reportError(new CliError('config', err.message))
  return reportError(err)
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2)).catch(fail)
  if (code !== undefined) process.exit(code)
}
