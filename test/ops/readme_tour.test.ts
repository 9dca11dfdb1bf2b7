// The README's tour, run as written: every shell block of "A five-minute
// tour", in order, against a fresh Herald on the embedded default, in a
// directory of its own that holds the repo as a clone would (its tracked
// top-level entries and node_modules, linked). What a block prints is checked
// against what the README says it prints. Only what a second run on one
// machine needs is changed, and nothing else: the ports (8080 and 9000 may be
// taken by other suites) and the receiver's output, sent to a file so the test
// can read it. `npm ci` is left out (the clone is installed), `npm link`
// links into a prefix of the test's own, not the machine's, and the CLI is
// given the port (HERALD_URL). The first block's second line is the test
// command itself, which .ci/run runs.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

const ROOT = join(import.meta.dir, '..', '..')
const README = await readFile(join(ROOT, 'README.md'), 'utf8')
const STEP_MS = 60_000

/** The ```sh blocks of the README, in order, each as its lines. */
function shellBlocks(text: string): string[][] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.replace(/\n$/, '').split('\n'))
}

/** A port nothing listens on now. */
function freePort(): number {
  const s = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

/** A line's command, without its trailing comment. */
const command = (line: string) => line.replace(/\s+#.*$/, '').trim()

describe('the README tour, as written', () => {
  const blocks = shellBlocks(README)
  const port = freePort()
  const receiverPort = freePort()
  let dir = ''
  let env: Record<string, string> = {}
  let herald: Subprocess<'ignore', 'pipe', 'pipe'> | undefined
  let banner = ''
  let key = ''
  /** The README's text with this run's ports. */
  const here = (s: string) => s.replaceAll('localhost:8080', `localhost:${port}`).replaceAll('127.0.0.1:9000', `127.0.0.1:${receiverPort}`).replaceAll('port: 9000', `port: ${receiverPort}`)

  /** Starts `cmd` (a README line) as Herald, and reads its output until it says it runs. */
  async function start(cmd: string) {
    // Leading assignments (HERALD_OUTBOUND_ALLOW=…) are the command's environment, as bash makes them.
    const assigned = /^((?:\w+=\S+\s+)*)(.*)$/.exec(cmd)!
    const vars = Object.fromEntries(assigned[1]!.trim().split(/\s+/).filter(Boolean).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]))
    // In a process group of its own (npx runs bun, which runs the script's
    // bun): stop() ends the whole group, as Ctrl-C in the reader's terminal does.
    herald = Bun.spawn(['setsid', 'bash', '-c', `exec ${assigned[2]}`], { cwd: dir, env: { ...env, ...vars, PORT: String(port) }, stdout: 'pipe', stderr: 'pipe' })
    banner = ''
    const reader = herald.stdout.getReader()
    const decoder = new TextDecoder()
    const deadline = Date.now() + 30_000
    while (!/Herald is running[\s\S]*\n\n/.test(banner) || (banner.includes('API key') && !/hrld_\S+/.test(banner))) {
      if (Date.now() > deadline) throw new Error(`Herald did not start: ${banner}${await new Response(herald.stderr).text()}`)
      const { value, done } = await reader.read()
      if (done) throw new Error(`Herald stopped: ${banner}${await new Response(herald.stderr).text()}`)
      banner += decoder.decode(value)
    }
    reader.releaseLock()
    // Its output goes on being read, so that it never blocks on a full pipe.
    void herald.stdout.pipeTo(new WritableStream())
    void herald.stderr.pipeTo(new WritableStream())
  }
  async function stop() {
    if (!herald) return
    try {
      process.kill(-herald.pid, 'SIGINT')
    } catch {}
    await herald.exited
    // Every process of the group has let go of the port before the next start.
    for (let i = 0; i < 100; i++) {
      const open = await fetch(`http://127.0.0.1:${port}/healthz`).then(() => true, () => false)
      if (!open) break
      await Bun.sleep(100)
    }
    herald = undefined
  }
  /** Runs a script in bash as the README's reader would, in the clone; its output and exit code. */
  async function bash(script: string) {
    // HERALD_URL: the CLI's default is port 8080, and this Herald has another.
    const proc = Bun.spawn(['bash', '-c', script], { cwd: dir, env: { ...env, HERALD_KEY: key, HERALD_URL: `http://127.0.0.1:${port}` }, stdout: 'pipe', stderr: 'pipe' })
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    return { stdout, stderr, code }
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-tour-'))
    const tracked = (await new Response(Bun.spawn(['git', 'ls-files'], { cwd: ROOT, stdout: 'pipe' }).stdout).text()).split('\n').filter(Boolean)
    for (const top of new Set([...tracked.map((f) => f.split('/')[0]!), 'node_modules'])) await symlink(join(ROOT, top), join(dir, top))
    // A clean shell's environment: no database or bus of the suites (the tour
    // runs on the embedded default), npm's global prefix inside the clone.
    env = { PATH: `${join(dir, 'npm-global', 'bin')}:${process.env.PATH}`, HOME: dir, npm_config_prefix: join(dir, 'npm-global'), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', LANG: 'C.UTF-8' }
  })
  afterAll(async () => {
    await stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  test('the tour has the blocks this test runs, in this order', () => {
    expect(blocks.length).toBe(3)
    expect(command(blocks[0]![0]!)).toBe('npm ci && npx bun start')
    expect(command(blocks[0]![1]!)).toBe('npm ci && npx bun test')
    expect(blocks[1]![0]).toStartWith('export HERALD_KEY=hrld_…')
    expect(command(blocks[2]![0]!)).toBe('HERALD_OUTBOUND_ALLOW=127.0.0.1/32 npx bun start')
    expect(README).toContain('`herald router delete demo local`')
  })

  test('1. the first command starts Herald, and its banner shows the dashboard and the demo key once', async () => {
    await start(command(blocks[0]![0]!).replace(/^npm ci && /, ''))
    expect(banner).toContain(`Dashboard:   http://localhost:${port}`)
    expect(banner).toContain('Herald created the workspace "demo". Its API key (shown only this once):')
    key = /hrld_\S+/.exec(banner)![0]
  }, STEP_MS)

  test('1. the curl block sends the event, and prints the answer the README shows', async () => {
    const [exportLine, ...rest] = blocks[1]!
    const expected = rest.find((l) => l.startsWith('# {'))!.slice(2)
    const script = [exportLine!.replace(/hrld_…/, key), ...rest.filter((l) => !l.startsWith('# '))].map(here).join('\n')
    const { stdout, stderr, code } = await bash(script)
    expect(code === 0 ? 'ran' : stderr).toBe('ran')
    const answer = JSON.parse(stdout) as Record<string, unknown>
    const shown = JSON.parse(expected.replace(/"019a…"/, '"id"')) as Record<string, unknown>
    expect(Object.keys(answer).toSorted()).toEqual(Object.keys(shown).toSorted())
    expect({ workspace: answer.workspace, channel: answer.channel }).toEqual({ workspace: shown.workspace, channel: shown.channel })
    expect(answer.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/) // a UUIDv7, as "019a…" stands for
    expect(answer.remainingQuota).toBe(shown.remainingQuota)
  }, STEP_MS)

  test('3. restarted allowing loopback, a receiver, npm link, a router and herald send: the receiver gets the signed event', async () => {
    await stop()
    await start(command(blocks[2]![0]!))
    const log = join(dir, 'receiver.log')
    const lines = blocks[2]!.slice(1).map((l) => {
      const c = here(command(l))
      // The receiver runs in the background: its output goes to a file the test reads.
      return c.endsWith('&') ? `${c.slice(0, -1).trim()} > ${log} 2>&1 &` : c
    })
    const script = [
      'set -e',
      ...lines,
      // The README's next sentence: stop the receiver, delete its router.
      `for i in $(seq 100); do grep -q 'Deploy finished' ${log} && break; sleep 0.1; done`,
      'herald router delete demo local',
      'kill %1',
    ].join('\n')
    const { stdout, stderr, code } = await bash(script)
    expect(code === 0 ? 'ran' : `${stdout}\n${stderr}`).toBe('ran')
    const received = await readFile(log, 'utf8')
    // "the receiver prints the signed request": its webhook-id, then the body.
    const line = received.split('\n').find((l) => l.includes('Deploy finished'))
    expect(line).toMatch(/^\S+ \{/)
    const body = JSON.parse(line!.slice(line!.indexOf(' ') + 1)) as { type: string; data: { message: string; event: string } }
    expect(body).toMatchObject({ type: 'event.created', data: { message: 'Deploy finished', event: 'deploy.finished', workspace: 'demo' } })
    // The router is gone: nothing is left to retry.
    expect(stdout).toContain('local')
  }, STEP_MS)
})
