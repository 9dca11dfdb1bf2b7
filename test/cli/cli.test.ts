// The `herald` CLI, run as a subprocess against a real server: operator
// commands in text and JSON, API errors (exit 1), usage errors (exit 2), and
// `herald migrate` on a throwaway PostgreSQL database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ADMIN_TOKEN, createTestDatabase, describePg, useTestHerald } from '../harness'

const CLI = join(import.meta.dir, '..', '..', 'src', 'cli', 'main.ts')

interface Run {
  code: number
  stdout: string
  stderr: string
}

async function herald(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  // process.execPath is the bun binary under `bun test`; `bun` may not be on PATH.
  const proc = Bun.spawn([process.execPath, CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

describe('herald operator commands', () => {
  const h = useTestHerald('embedded')
  const op = (...args: string[]): Promise<Run> => herald(args, { HERALD_URL: h.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN })

  describe('happy', () => {
    test('workspace create prints the name and the API key once, with a note', async () => {
      const r = await op('workspace', 'create', 'Acme-Text', '--quota', '7')
      expect(r.code).toBe(0)
      expect(r.stderr).toBe('')
      // The name as given was lowered: said, not done silently.
      expect(r.stdout).toContain('Created workspace acme-text (from "Acme-Text": workspace names are lower case) with the default channel general.')
      expect(r.stdout).toContain('shown only this once')
      expect(r.stdout).toMatch(/^ {4}hrld_[0-9A-Za-z]{36}$/m)
    })

    test('workspace create --json prints the API answer', async () => {
      const r = await op('workspace', 'create', 'acme-json', '--quota', '10', '--rate', '5', '--burst', '9', '--json')
      expect(r.code).toBe(0)
      const body = JSON.parse(r.stdout)
      expect(body).toMatchObject({ workspace: 'acme-json', defaultChannel: 'general' })
      expect(body.apiKey).toMatch(/^hrld_/)
      const ws = await (await h.admin('GET', '/admin/workspaces/acme-json')).json()
      expect(ws).toMatchObject({ monthlyQuota: 10, rateLimit: { perSecond: 5, burst: 9 } })
    })

    test('workspace list prints an aligned table, or JSON', async () => {
      await h.workspace({ name: 'list-me', monthlyQuota: 42 })
      const r = await op('workspace', 'list')
      expect(r.code).toBe(0)
      const lines = r.stdout.trimEnd().split('\n')
      expect(lines[0]).toMatch(/^NAME\s+QUOTA\s+USED\s+REMAINING\s+RATE\/S\s+BURST\s+CREATED \(UTC\)$/)
      const row = lines.find((l) => l.startsWith('list-me '))!
      expect(row).toMatch(/^list-me\s+42\s+0\s+42\s+100\s+200\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      // Aligned: every row's QUOTA column ends where the header's does.
      expect(row.indexOf('42') + 2).toBe(lines[0]!.indexOf('QUOTA') + 'QUOTA'.length)
      const json = await op('workspace', 'list', '--json')
      expect(JSON.parse(json.stdout).some((w: { workspace: string }) => w.workspace === 'list-me')).toBe(true)
    })

    test('workspace set changes the quota, and show reflects it', async () => {
      const { name } = await h.workspace({ monthlyQuota: 5 })
      const set = await op('workspace', 'set', name, '--quota', '1234', '--rate', '2.5')
      expect(set.code).toBe(0)
      expect(set.stdout).toContain(`Updated workspace ${name}.`)
      const show = await op('workspace', 'show', name)
      expect(show.code).toBe(0)
      expect(show.stdout).toMatch(/^workspace:\s+\S+$/m)
      expect(show.stdout).toMatch(/^monthly quota:\s+1234$/m)
      expect(show.stdout).toMatch(/^rate limit:\s+2\.5\/s, burst 200$/m)
      expect(show.stdout).toMatch(/^usage \d{4}-\d\d:\s+0 used, 1234 remaining$/m)
      const json = JSON.parse((await op('workspace', 'show', name, '--json')).stdout)
      expect(json).toMatchObject({ workspace: name, monthlyQuota: 1234, rateLimit: { perSecond: 2.5, burst: 200 } })
    })

    test('key create, list and revoke: the key works, is listed by prefix, then stops working', async () => {
      const { name } = await h.workspace()
      const created = await op('key', 'create', name, '--name', 'production', '--json')
      expect(created.code).toBe(0)
      const key = JSON.parse(created.stdout) as { id: number; prefix: string; apiKey: string }
      expect((await h.post(key.apiKey, { message: 'from a CLI key' })).status).toBe(200)

      const list = await op('key', 'list', name)
      expect(list.code).toBe(0)
      expect(list.stdout).toMatch(/^ID\s+NAME\s+PREFIX\s+STATUS/)
      expect(list.stdout).toMatch(new RegExp(`^\\s*${key.id}\\s+production\\s+${key.prefix}\\s+active`, 'm'))
      expect(list.stdout).not.toContain(key.apiKey)

      const revoke = await op('key', 'revoke', name, String(key.id))
      expect(revoke.code).toBe(0)
      expect(revoke.stdout).toContain(`Revoked API key ${key.id} in workspace ${name}.`)
      let status = 0
      for (const deadline = Date.now() + 5000; Date.now() < deadline; await Bun.sleep(100)) {
        status = (await h.post(key.apiKey, { message: 'after revoke' })).status
        if (status === 401) break
      }
      expect(status).toBe(401)
      expect((await op('key', 'list', name)).stdout).toMatch(new RegExp(`^\\s*${key.id}\\s+production\\s+${key.prefix}\\s+revoked `, 'm'))
    })

    test('key create in text prints the key alone on its line with the shown-once note', async () => {
      const { name } = await h.workspace()
      const r = await op('key', 'create', name)
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(/^Created API key \d+ in workspace \S+ \(prefix hrld_\w+\)\.$/m)
      expect(r.stdout).toContain('shown only this once')
      const apiKey = /^ {4}(hrld_\w+)$/m.exec(r.stdout)![1]!
      expect((await h.post(apiKey, { message: 'hi' })).status).toBe(200)
    })

    test('help, --help and no arguments list every command; a command\'s --help lists its options', async () => {
      for (const args of [['help'], ['--help'], []]) {
        const r = await herald(args)
        expect(r.code).toBe(0)
        for (const c of ['start', 'serve', 'migrate', 'workspace create', 'workspace list', 'workspace show', 'workspace set', 'key create', 'key list', 'key revoke', '--json', '--url', '--token']) {
          expect(r.stdout).toContain(c)
        }
      }
      const key = await herald(['key', '-h'])
      expect(key.code).toBe(0)
      for (const c of ['create', 'list', 'revoke', 'herald key create acme']) expect(key.stdout).toContain(c)
      const set = await herald(['workspace', 'set', '--help'])
      for (const c of ['--quota', '--rate', '--burst', '--json', '--url', '--token']) expect(set.stdout).toContain(c)
    })
  })

  describe('error', () => {
    test('a duplicate workspace exits 1 with the 409 detail on stderr', async () => {
      const { name } = await h.workspace()
      const r = await op('workspace', 'create', name)
      expect(r.code).toBe(1)
      expect(r.stdout).toBe('')
      expect(r.stderr).toBe(`error: A workspace named "${name}" already exists.\n`)
    })

    test('an invalid name exits 1 with the validation detail; one that reads as an option exits 2', async () => {
      const r = await op('workspace', 'create', '-bad', '--json')
      expect(r.code).toBe(2) // "-bad" reads as an option: a usage error
      const v = await op('workspace', 'create', 'no spaces allowed')
      expect(v.code).toBe(1)
      expect(v.stderr).toMatch(/^error: name must be a slug/)
    })

    test('an unknown workspace exits 1 with the 404 detail', async () => {
      const r = await op('workspace', 'show', 'nobody-here')
      expect(r.code).toBe(1)
      expect(r.stderr).toBe('error: There is no workspace named "nobody-here".\n')
      const k = await op('key', 'revoke', 'nobody-here', '1')
      expect(k.code).toBe(1)
    })

    test('usage errors exit 2 with a one-line hint', async () => {
      const cases = [
        ['frobnicate'],
        ['workspace'],
        ['workspace', 'explode'],
        ['workspace', 'create'],
        ['workspace', 'show', 'a', 'b'],
        ['workspace', 'create', 'x', '--quota', 'lots'],
        ['workspace', 'create', 'x', '--quota', '-1'],
        ['workspace', 'set', 'x', '--rate', '0'],
        ['workspace', 'set', 'x', '--burst', '1.5'],
        ['workspace', 'set', 'x'],
        ['key', 'create', 'x', '--quota', '3'],
        ['key', 'revoke', 'x', 'abc'],
        ['key', 'revoke', 'x'],
        ['workspace', 'list', '--bogus'],
        ['migrate', 'now'],
      ]
      const runs = await Promise.all(cases.map((args) => op(...args)))
      for (const [i, r] of runs.entries()) {
        expect({ args: cases[i], code: r.code }).toEqual({ args: cases[i], code: 2 })
        expect(r.stdout).toBe('')
        expect(r.stderr).toMatch(/^error: .+\nRun 'herald help' to see every command and option\.\n$/)
      }
    }, 30_000) // fifteen processes at once on two cores

    test('a missing token is a usage error; nothing is sent', async () => {
      // No token file either: the data directory of no Herald.
      const r = await herald(['workspace', 'list'], { HERALD_URL: h.url, HERALD_ADMIN_TOKEN: '', HERALD_DATA_DIR: mkdtempSync(join(tmpdir(), 'herald-none-')) })
      expect(r.code).toBe(2)
      expect(r.stderr).toContain('HERALD_ADMIN_TOKEN')
    })

    test('an unreachable server exits 1 and names the URL', async () => {
      const r = await herald(['workspace', 'list', '--url', 'http://127.0.0.1:1'], { HERALD_ADMIN_TOKEN: ADMIN_TOKEN })
      expect(r.code).toBe(1)
      expect(r.stderr).toStartWith('error: cannot reach Herald at http://127.0.0.1:1')
    })
  })

  describe('security', () => {
    test('a wrong token exits 1 with the 401 detail and never prints a token', async () => {
      const wrong = 'wrong-token-abcdefghijklmnop'
      const r = await herald(['workspace', 'list'], { HERALD_URL: h.url, HERALD_ADMIN_TOKEN: wrong })
      expect(r.code).toBe(1)
      expect(r.stderr).toStartWith('error: The admin token is wrong: it is not the HERALD_ADMIN_TOKEN this server was started with.')
      for (const out of [r.stdout, r.stderr]) {
        expect(out).not.toContain(wrong)
        expect(out).not.toContain(ADMIN_TOKEN)
      }
    })

    test('--token overrides the environment', async () => {
      const r = await herald(['workspace', 'list', '--json', '--token', ADMIN_TOKEN], { HERALD_URL: h.url, HERALD_ADMIN_TOKEN: 'wrong-token-abcdefghijklmnop' })
      expect(r.code).toBe(0)
      expect(Array.isArray(JSON.parse(r.stdout))).toBe(true)
      expect(r.stdout + r.stderr).not.toContain(ADMIN_TOKEN)
    })
  })
})

describePg('herald migrate on PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  beforeAll(async () => {
    db = await createTestDatabase()
  })
  afterAll(() => db?.drop())

  test('applies every migration, then reports up to date', async () => {
    const first = await herald(['migrate'], { DATABASE_URL: db.url })
    expect(first.stderr).toBe('')
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('applied 0001_init.sql')
    const second = await herald(['migrate'], { DATABASE_URL: db.url })
    expect(second.code).toBe(0)
    expect(second.stdout).toContain('up to date')
    expect(second.stdout).not.toContain('applied')
  }, 30_000)

  test('an unreachable database exits 1', async () => {
    const r = await herald(['migrate'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' })
    expect(r.code).toBe(1)
    expect(r.stderr).toStartWith('error: ')
  }, 30_000)
})

describe('herald --config', () => {
  test('names the settings file for every command, as HERALD_CONFIG does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-config-'))
    const file = join(dir, 'settings.toml')
    writeFileSync(file, `HERALD_DATA_DIR = "${join(dir, 'data')}"\nLOG_LEVEL = "error"\n`)
    const { DATABASE_URL: _, NATS_URL: __, HERALD_DATA_DIR: ___, ...inherited } = process.env
    const proc = Bun.spawn([process.execPath, CLI, '--config', file, 'migrate'], { env: inherited, stdout: 'pipe', stderr: 'pipe' })
    const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()])
    expect(code).toBe(0)
    expect(stdout).toContain('applied 0001_init.sql')
    expect(existsSync(join(dir, 'data'))).toBe(true)
    const missing = await herald(['migrate', '--config', join(dir, 'none.toml')], { DATABASE_URL: undefined })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toStartWith(`error: cannot read the configuration file ${join(dir, 'none.toml')}`)
  }, 60_000)
})
