#!/usr/bin/env bun
// `herald`: starts the server, applies migrations, and drives the operator API
// of a running server. Exit codes: 0 success, 1 error, 2 usage error.
import { parseArgs } from 'node:util'
import pino from 'pino'
import { ConfigError, loadConfig } from '../core/config'
import { createLogger } from '../core/log'
import { openDatabase } from '../core/db'
import { migrate } from '../core/migrate'
import { startHerald, startWorker } from '../server'
import { adminCommands, type AdminCommand } from './admin'
import { ROUTER_OPTIONS, routerCommands, type RouterCommand, type RouterOptions } from './routers'
import { adminClient } from './client'
import { CliError, reportError, usageError } from './output'
import { runStatus } from './status'

export const USAGE = `Herald: a self-hostable event notification service.

Usage: herald <command> [arguments] [options]

Server commands (configured by the environment: PORT, DATABASE_URL, ... see the README):
  start                        Run Herald all-in-one: the API, the outbox relay and the delivery worker.
  serve                        Run the API and the outbox relay. With NATS_URL, deliveries are left to
                               \`herald worker\` processes; without it, serve delivers too (as start).
  worker                       Run a delivery worker only: JetStream consumer, retries and the thread pool.
                               Needs DATABASE_URL and NATS_URL.
  migrate                      Apply pending database migrations, then exit.
  status [--json]              Print the JetStream stream and consumer, the outbox backlog, deliveries by
                               state and the workspaces nearest their quota. Reads DATABASE_URL and NATS_URL.

Operator commands (call the operator API of a running server):
  workspace create <name> [--quota N] [--rate PER_SECOND] [--burst N]
  workspace list
  workspace show <name>
  workspace set <name> [--quota N] [--rate PER_SECOND] [--burst N]
  key create <workspace> [--name LABEL]
  key list <workspace>
  key revoke <workspace> <id>
  delivery list <workspace>            Failed deliveries, newest first.
  delivery replay <workspace> <id>     Send a delivery again (same id, fresh retry schedule).
  router create <workspace> --name NAME --pattern PATTERN
                (--webhook URL | --slack URL | --discord URL | --teams URL | --destination JSON)
                [--title-template T] [--body-template T]
  router list <workspace>
  router show <workspace> <id|name>
  router update <workspace> <id|name> [--name NAME] [--pattern PATTERN] [--webhook URL | ... | --destination JSON]
                [--title-template T] [--body-template T]
  router disable <workspace> <id|name>
  router enable <workspace> <id|name>
  router delete <workspace> <id|name>

  help, --help, -h             Show this text.

Options of the operator commands:
  --url URL          Base URL of the server. Default: $HERALD_URL, else http://127.0.0.1:$PORT (PORT defaults to 8080).
  --token TOKEN      Operator token. Default: $HERALD_ADMIN_TOKEN (prefer it: a flag shows up in ps).
  --json             Print the API's JSON instead of text.
  --quota N          Events accepted per calendar month (UTC), a whole number.
  --rate PER_SECOND  Rate limit in events per second (decimals allowed).
  --burst N          Most events accepted at once (the token bucket's size).
  --name LABEL       A label for the API key, such as "production"; the name of a router, unique in its workspace.
  --pattern PATTERN  Event keys a router takes: "*" matches any run of characters ('user.*' takes user.signup
                     and user.a.b, not user); '*' alone takes every event, even one without a key.
  --webhook URL, --slack URL, --discord URL, --teams URL
                     A router's destination of that type.
  --destination JSON A destination of any type, e.g. '{"type":"telegram","botToken":"…","chatId":42}';
                     "-" reads it from stdin (keeps tokens out of ps and the shell history).
  --title-template T, --body-template T
                     Mustache templates ({{message}}, {{event}}, {{data.plan}}…); on update an empty value
                     removes that part and the other part is kept.

Exit codes: 0 success, 1 error (from the API or the connection), 2 usage error.`

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  quota: { type: 'string' },
  rate: { type: 'string' },
  burst: { type: 'string' },
  name: { type: 'string' },
  ...ROUTER_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const
const COMMON_OPTIONS = ['url', 'token', 'json', 'help']

type Values = ReturnType<typeof parseOptions>['values']

function parseOptions(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (err) {
    const e = err as Error & { code?: string }
    // parseArgs's own sentence for an unknown option is long-winded; name the option instead.
    const option = e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(e.message)?.[1] : undefined
    throw usageError(option ? `unknown option ${option}` : e.message.replaceAll('\n', ' '))
  }
}

function rejectOptions(command: string, values: Values, allowed: string[]) {
  const extra = Object.keys(values).find((k) => !allowed.includes(k))
  if (extra) throw usageError(`${command} takes no option --${extra}`)
}

function checkArgs(command: string, names: string[], given: string[]) {
  if (given.length < names.length) throw usageError(`${command} needs <${names[given.length]}>: herald ${command} ${names.map((n) => `<${n}>`).join(' ')}`)
  if (given.length > names.length) throw usageError(`unexpected argument ${JSON.stringify(given[names.length])} after herald ${command}`)
}

/** `start`, `serve` and `worker` keep running until SIGTERM or SIGINT. */
async function runServer(command: string) {
  const config = loadConfig()
  const log = createLogger(config.LOG_LEVEL)
  const herald = command === 'worker' ? await startWorker(config, log) : await startHerald(config, log, command === 'serve' ? 'api' : 'all')
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => herald.stop().then(() => process.exit(0)))
}

async function runMigrate(): Promise<number> {
  const config = loadConfig()
  // Logs go to stderr so that stdout holds only the list of migrations.
  const log = createLogger(config.LOG_LEVEL, pino.destination({ dest: 2, sync: true }))
  const db = await openDatabase(config, log)
  try {
    const applied = await migrate(db.sql)
    console.log(applied.length ? applied.map((name) => `applied ${name}`).join('\n') : 'The database is up to date: no migration to apply.')
  } finally {
    await db.close()
  }
  return 0
}

const COMMANDS: Record<string, AdminCommand | RouterCommand> = { ...adminCommands, ...routerCommands }

async function runAdmin(command: string, args: string[], values: Values): Promise<number> {
  const spec = COMMANDS[command]!
  rejectOptions(command, values, [...COMMON_OPTIONS, ...spec.options])
  checkArgs(command, spec.args, args)
  const client = adminClient({ url: values.url, token: values.token })
  console.log(await spec.run(client, args, values as RouterOptions))
  return 0
}

const SERVER_COMMANDS = ['start', 'serve', 'worker', 'migrate', 'status']
const GROUPS = ['workspace', 'key', 'router', 'delivery']

/** Runs one command. Returns the exit code, or undefined when a server keeps running. */
export async function main(argv: string[]): Promise<number | undefined> {
  const { values, positionals } = parseOptions(argv)
  const [first, ...rest] = positionals
  if (values.help || first === undefined || first === 'help') {
    console.log(USAGE)
    return 0
  }
  if (SERVER_COMMANDS.includes(first)) {
    rejectOptions(first, values, first === 'status' ? ['json'] : [])
    checkArgs(first, [], rest)
    if (first === 'migrate') return runMigrate()
    if (first === 'status') {
      console.log(await runStatus(loadConfig(), !!values.json))
      return 0
    }
    await runServer(first)
    return undefined
  }
  if (GROUPS.includes(first)) {
    const [sub, ...args] = rest
    const command = `${first} ${sub}`
    if (!sub) throw usageError(`${first} needs a subcommand: ${Object.keys(COMMANDS).filter((c) => c.startsWith(first + ' ')).map((c) => c.split(' ')[1]).join(', ')}`)
    if (!COMMANDS[command]) throw usageError(`unknown command: herald ${command}`)
    return runAdmin(command, args, values)
  }
  throw usageError(`unknown command: ${first}`)
}

function fail(err: unknown): number {
  if (err instanceof ConfigError) return reportError(new CliError('config', err.message))
  return reportError(err)
}

if (import.meta.main) {
  const code = await main(process.argv.slice(2)).catch(fail)
  if (code !== undefined) process.exit(code)
}
