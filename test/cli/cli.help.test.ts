// The CLI's help, version, suggestions and shell completion, run as a child
// process. The commands are read from the commander tree itself, so a
// command added later is checked too: its --help exits 0 with its usage and
// examples, and the completion offers it.
import { beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildProgram, commandPaths } from '../../src/cli/main'
import { examplesOf } from '../../src/cli/command'
import { herald, USAGE_ERROR } from './run'

const program = buildProgram()
const commands = commandPaths(program)
const VERSION = JSON.parse(readFileSync(join(import.meta.dir, '..', '..', 'package.json'), 'utf8')).version as string

/** Runs `f` over `items`, `width` at a time (two cores: not all 40 processes at once). */
async function inBatches<T, R>(items: T[], width: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(f))))
  return out
}

describe('help', () => {
  test('the tree has every command of the CLI', () => {
    const paths = commands.map((c) => c.path)
    for (const p of ['start', 'serve', 'worker', 'migrate', 'status', 'send', 'invite', 'completion bash', 'completion zsh']) expect(paths).toContain(p)
    for (const p of ['workspace create', 'workspace list', 'workspace show', 'workspace set', 'key create', 'key list', 'key revoke']) expect(paths).toContain(p)
    for (const p of ['router create', 'router list', 'router show', 'router update', 'router disable', 'router enable', 'router delete']) expect(paths).toContain(p)
    for (const p of ['member add', 'member list', 'member remove', 'member role', 'channel list', 'channel create', 'channel rename', 'channel mute', 'delivery list', 'delivery replay']) expect(paths).toContain(p)
    for (const p of ['receipt show', 'receipt cancel', 'receipt ack', 'scheduled list', 'scheduled cancel']) expect(paths).toContain(p)
  })

  test('every command and group: --help exits 0 with its usage and its examples', async () => {
    const runs = await inBatches(commands, 4, async ({ path }) => ({ path, run: await herald([...path.split(' '), '--help']) }))
    for (const { path, run } of runs) {
      const command = commands.find((c) => c.path === path)!.command
      expect({ path, code: run.code, stderr: run.stderr }).toEqual({ path, code: 0, stderr: '' })
      expect(run.stdout).toStartWith(`Usage: herald ${path}`)
      const examples = examplesOf(command)
      expect({ path, examples: examples.length > 0 }).toEqual({ path, examples: true })
      expect(run.stdout).toContain('Examples:')
      for (const e of examples) expect(run.stdout).toContain(`  $ ${e}`)
    }
  }, 60_000)

  test('herald help, --help and no arguments list every command by its full name, grouped', async () => {
    const [help, flag, none] = await Promise.all([herald(['help']), herald(['--help']), herald([])])
    expect(help.code).toBe(0)
    expect(flag.stdout).toBe(help.stdout)
    expect(none.stdout).toBe(help.stdout)
    const leaves = commands.filter((c) => c.command.commands.length === 0)
    for (const { path } of leaves) expect(help.stdout).toMatch(new RegExp(`^  ${path}( <|\\s{2,})`, 'm'))
    const order = ['Server commands', 'Sending events:', 'Operator commands', 'Other commands:'].map((h) => help.stdout.indexOf(h))
    expect(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!))).toBe(true)
    expect(help.stdout).toContain('Exit codes: 0 success, 1 error')
  })

  test('herald help <command> is <command> --help', async () => {
    const [a, b] = await Promise.all([herald(['help', 'router']), herald(['router', '--help'])])
    expect(a.code).toBe(0)
    expect(a.stdout).toBe(b.stdout)
  })

  test('herald send --help documents the exit codes', async () => {
    const r = await herald(['send', '--help'])
    expect(r.stdout).toMatch(/Exit codes:\n {2}0 {2}Herald accepted the event/)
    expect(r.stdout).toMatch(/^ {2}1 {2}Herald could not be reached, or failed \(5xx\)/m)
    expect(r.stdout).toMatch(/^ {2}2 {2}Usage error/m)
    expect(r.stdout).toMatch(/^ {2}3 {2}Herald refused the event \(4xx\)/m)
  })

  test('--version and -V print the version of package.json', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await herald([flag])
      expect(r.code).toBe(0)
      expect(r.stdout).toBe(`${VERSION}\n`)
    }
  })
})

describe('usage errors', () => {
  test('a misspelled command, subcommand or option: exit 2, one line with a suggestion', async () => {
    const cases: [string[], string][] = [
      [['rooter'], "error: unknown command 'rooter' (did you mean router?)"],
      [['router', 'craete', 'acme'], "error: herald router: unknown command 'craete' (did you mean create?)"],
      [['router', 'create', 'acme', '--patern', 'x'], "error: herald router create: unknown option '--patern' (did you mean --pattern?)"],
      [['workspace', 'list', '--jsno'], "error: herald workspace list: unknown option '--jsno' (did you mean --json?)"],
    ]
    for (const [args, line] of cases) {
      const r = await herald(args, { HERALD_ADMIN_TOKEN: 'never-used-token-0123' })
      expect({ args, code: r.code }).toEqual({ args, code: 2 })
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(USAGE_ERROR)
      expect(r.stderr.split('\n')[0]).toBe(line)
    }
  })

  test('a group alone names its commands; a missing argument names it', async () => {
    const group = await herald(['member'])
    expect(group.code).toBe(2)
    expect(group.stderr.split('\n')[0]).toBe('error: herald member needs a command: add, list, remove, role')
    const arg = await herald(['channel', 'rename', 'acme', 'old'])
    expect(arg.code).toBe(2)
    expect(arg.stderr.split('\n')[0]).toBe("error: herald channel rename: missing required argument 'new-name'")
  })

  test('negative and fractional limits are values with a clear message, not options', async () => {
    const cases: [string[], string][] = [
      [['workspace', 'create', 'x', '--quota', '-5'], 'error: the quota must be a positive whole number (or 0, to accept no events), got "-5"'],
      [['workspace', 'set', 'x', '--quota', '2.5'], 'error: the quota must be a positive whole number (or 0, to accept no events), got "2.5"'],
      [['workspace', 'set', 'x', '--rate', '-1'], 'error: the rate must be a number of events per second above 0, such as 10 or 0.5, got "-1"'],
      [['workspace', 'set', 'x', '--burst', '-2'], 'error: the burst must be a positive whole number, got "-2"'],
      [['delivery', 'list', 'x', '--limit', '-3'], 'error: the limit must be a whole number from 1 to 1000, got "-3"'],
      [['send', 'hi', '--retries', '-1'], 'error: the retries must be a whole number from 0 to 10, got "-1"'],
    ]
    const runs = await Promise.all(cases.map(([args]) => herald(args, { HERALD_ADMIN_TOKEN: 'never-used-token-0123', HERALD_KEY: 'hrld_never_used' })))
    for (const [i, r] of runs.entries()) {
      expect({ args: cases[i]![0], code: r.code }).toEqual({ args: cases[i]![0], code: 2 })
      expect(r.stderr).toMatch(USAGE_ERROR)
      expect(r.stderr.split('\n')[0]).toBe(cases[i]![1])
    }
  })

  test('a choice outside its list is a usage error', async () => {
    const r = await herald(['member', 'add', 'acme', 'a@example.com', '--role', 'king'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('Allowed choices are member, admin, owner')
  })
})

describe('completion', () => {
  let dir: string
  const scripts: Record<string, string> = {}
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-completion-'))
    for (const shell of ['bash', 'zsh']) {
      const r = await herald(['completion', shell])
      expect(r.code).toBe(0)
      scripts[shell] = r.stdout
      writeFileSync(join(dir, shell), r.stdout)
    }
  })

  /** The candidates bash offers for the words typed so far (the last one is the word being completed). */
  async function complete(...typed: string[]): Promise<string[]> {
    const words = ['herald', ...typed]
    const quoted = words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(' ')
    const script = `source ${join(dir, 'bash')}\nCOMP_WORDS=(${quoted})\nCOMP_CWORD=${words.length - 1}\n_herald\nprintf '%s\\n' "\${COMPREPLY[@]}"`
    const proc = Bun.spawn(['bash', '--norc', '--noprofile', '-c', script], { stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect({ code, err }).toEqual({ code: 0, err: '' })
    return out.split('\n').filter(Boolean)
  }

  /** What bash offers for a whole command line as typed (npx or herald first), through the function bash would call. */
  async function bashLine(...words: string[]): Promise<string[]> {
    const quoted = words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(' ')
    const script = `source ${join(dir, 'bash')}\nCOMP_WORDS=(${quoted})\nCOMP_CWORD=${words.length - 1}\nf=$(complete -p ${words[0]} | grep -o -- '-F [^ ]*' | cut -c4-)\n$f\nprintf '%s\\n' "\${COMPREPLY[@]}"`
    const proc = Bun.spawn(['bash', '--norc', '--noprofile', '-c', script], { stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect({ code, err }).toEqual({ code: 0, err: '' })
    return out.split('\n').filter(Boolean)
  }

  test('bash: the script parses and registers _herald for herald, and for npx herald', async () => {
    expect(Bun.spawnSync(['bash', '-n', join(dir, 'bash')]).exitCode).toBe(0)
    const proc = Bun.spawnSync(['bash', '--norc', '-c', `source ${join(dir, 'bash')}; complete -p herald npx`])
    expect(proc.stdout.toString().trim().split('\n')).toEqual(['complete -F _herald herald', 'complete -o default -F _herald_npx npx'])
  })

  test('bash: `npx herald …`, as the README runs it, completes as herald does', async () => {
    expect(await bashLine('npx', 'herald', 'rou')).toEqual(['router'])
    expect(await bashLine('npx', 'herald', 'router', '')).toEqual(['create', 'list', 'show', 'update', 'disable', 'enable', 'fail-pending', 'cancel-pending', 'delete', 'help'])
    expect(await bashLine('npx', 'herald', 'member', 'add', 'acme', 'jane@example.com', '--role', '')).toEqual(['member', 'admin', 'owner'])
    expect(await bashLine('npx', '--yes', 'herald', 'router', 'create', 'acme', '--pat')).toEqual(['--pattern'])
    expect(await bashLine('npx', 'her')).toEqual(['herald'])
    // Another npx command is not ours: no candidates, and bash falls back to file names (-o default).
    expect(await bashLine('npx', 'tsc', '--no')).toEqual([])
    expect(await bashLine('herald', 'router', 'li')).toEqual(['list'])
  })

  /**
   * What zsh's completion offers for a command line, in a real zsh with the
   * script loaded as compinit would autoload it (a function _herald from the
   * file), called for the command's service. compadd and _describe, which
   * exist only inside a completion widget, print their candidates instead.
   */
  async function zshLine(...typed: string[]): Promise<string[]> {
    const quoted = typed.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(' ')
    const script = [
      `fpath=(${dir}/fpath $fpath)`,
      'autoload -Uz _herald',
      'compadd() { if [[ $1 == -a ]]; then print -rl -- "${(@P)2}"; else print -rl -- "${@[-1]}"; fi }',
      '_describe() { local name=${@[-1]}; print -rl -- ${${(P)name}%%:*} }',
      '_default() { print -r -- "(default)" }',
      `words=(${quoted}) CURRENT=${typed.length} service=${typed[0]}`,
      '_herald',
    ].join('\n')
    const proc = Bun.spawn(['zsh', '-f', '-c', script], { stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect({ code, err }).toEqual({ code: 0, err: '' })
    return out.split('\n').filter(Boolean)
  }

  const hasZsh = existsSync('/usr/bin/zsh') || existsSync('/bin/zsh')
  test.skipIf(!hasZsh && process.env.CI !== 'true')('zsh: herald and `npx herald` complete commands, subcommands and choices', async () => {
    mkdirSync(join(dir, 'fpath'), { recursive: true })
    writeFileSync(join(dir, 'fpath', '_herald'), scripts.zsh!)
    expect(await zshLine('herald', 'rou')).toContain('router')
    expect(await zshLine('herald', 'router', '')).toEqual(['create', 'list', 'show', 'update', 'disable', 'enable', 'fail-pending', 'cancel-pending', 'delete', 'help'])
    expect(await zshLine('npx', 'herald', 'router', '')).toEqual(['create', 'list', 'show', 'update', 'disable', 'enable', 'fail-pending', 'cancel-pending', 'delete', 'help'])
    expect(await zshLine('npx', 'herald', 'member', 'add', 'acme', 'j@example.com', '--role', '')).toEqual(['member', 'admin', 'owner'])
    expect(await zshLine('npx', 'her')).toEqual(['herald', '(default)'])
    expect(await zshLine('npx', 'tsc', '--no')).toEqual(['(default)'])
  })

  test('bash: commands, subcommands, options and choices, from the tree', async () => {
    expect(await complete('rou')).toEqual(['router'])
    expect(await complete('')).toEqual([...program.commands.map((c) => c.name()), 'help'])
    expect(await complete('router', '')).toEqual(['create', 'list', 'show', 'update', 'disable', 'enable', 'fail-pending', 'cancel-pending', 'delete', 'help'])
    const create = commands.find((c) => c.path === 'router create')!.command
    const longs = create.options.map((o) => o.long!)
    expect(await complete('router', 'create', '--')).toEqual([...longs, '--help'])
    expect(longs).toEqual(expect.arrayContaining(['--name', '--pattern', '--webhook', '--slack', '--title-template', '--json', '--url', '--token']))
    // After the workspace argument and an option with its value, still router create's options.
    expect(await complete('router', 'create', 'acme', '--name', 'x', '--pat')).toEqual(['--pattern'])
    expect(await complete('member', 'add', 'acme', 'jane@example.com', '--role', '')).toEqual(['member', 'admin', 'owner'])
    expect(await complete('delivery', 'list', 'acme', '--state', 'p')).toEqual(['pending'])
    expect(await complete('completion', '')).toEqual(['bash', 'zsh', 'help'])
    expect(await complete('send', 'hello', '--data')).toEqual(['--data', '--data-json'])
    expect(await complete('send', 'hello', '--ack')).toEqual(['--ack-retry', '--ack-expire', '--ack-escalate'])
    expect(await complete('send', 'hello', '--pri')).toEqual(['--priority'])
    expect(await complete('receipt', '')).toEqual(['show', 'cancel', 'ack', 'help'])
    expect(await complete('scheduled', '')).toEqual(['list', 'cancel', 'help'])
    expect(await complete('scheduled', 'list', '--')).toEqual(['--limit', '--cursor', '--all', '--json', '--key', '--url', '--help'])
    expect(await complete('send', 'hello', '--i')).toEqual(['--in'])
    expect(await complete('receipt', 'ack', 'x', '--')).toEqual(['--workspace', '--json', '--user-token', '--url', '--help'])
    expect(await complete('--ver')).toEqual(['--version'])
  })

  test('bash: an option value is not taken for a command', async () => {
    // "list" after --name is the router's name, not the subcommand.
    expect(await complete('router', 'create', 'acme', '--name', 'list', '--js')).toEqual(['--json'])
    // A value being typed for an option without choices gets no candidates.
    expect(await complete('router', 'create', 'acme', '--pattern', '')).toEqual([])
  })

  test('zsh: a #compdef script with every command and option, described', async () => {
    const zsh = scripts.zsh!
    expect(zsh).toStartWith('#compdef herald npx\n')
    expect(zsh).toContain('_describe -t commands')
    expect(zsh).toContain('_describe -t options')
    expect(zsh).toContain('compdef _herald herald')
    expect(zsh).toContain("    'router create') print -r -- '--name:the router'\\''s name, unique in its workspace (required)'; ")
    for (const { path, command } of commands) {
      if (command.commands.length) expect(zsh).toContain(`    '${path}') echo '${[...command.commands.map((c) => c.name()), 'help'].join(' ')}' ;;`)
    }
    // zsh is not on every machine; where it is, the script must parse.
    if (existsSync('/usr/bin/zsh') || existsSync('/bin/zsh')) expect(Bun.spawnSync(['zsh', '-n', join(dir, 'zsh')]).exitCode).toBe(0)
  })
})
