import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigSchema, loadConfig, unknownSettings } from '../../src/core/config'
import { PG_URL, createTestDatabase } from '../harness'
import { spawnHerald } from '../processes'

describe('config', () => {
  test('defaults when the environment is empty', () => {
    const c = loadConfig({})
    expect(c.PORT).toBe(8080)
    expect(c.HERALD_DATA_DIR).toBe('./.herald')
    expect(c.HERALD_ADMIN_TOKEN).toBeUndefined()
    expect(c.DATABASE_URL).toBeUndefined()
  })

  test('numbers and booleans are converted from strings', () => {
    const c = loadConfig({ PORT: '9000', HERALD_DEMO_WORKSPACE: 'false', HERALD_DEFAULT_RATE_PER_SECOND: '2.5' })
    expect(c.PORT).toBe(9000)
    expect(c.HERALD_DEMO_WORKSPACE).toBe(false)
    expect(c.HERALD_DEFAULT_RATE_PER_SECOND).toBe(2.5)
  })

  test.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['API_KEY_CACHE_TTL_MS', '6000'],
    ['DATABASE_URL', 'mysql://x'],
    ['LOG_LEVEL', 'loud'],
    ['HERALD_ADMIN_TOKEN', 'short'],
  ])('a bad %s fails fast and names the key', (key, value) => {
    expect(() => loadConfig({ [key]: value })).toThrow(new RegExp(`invalid configuration: ${key}=`))
  })

  test('secrets are not echoed in the error', () => {
    expect(() => loadConfig({ HERALD_ADMIN_TOKEN: 'short' })).toThrow(/HERALD_ADMIN_TOKEN=\(hidden\)/)
  })

  test('what a key takes is said in words, for every bad key at once; no secret is echoed', () => {
    let message = ''
    try {
      loadConfig({ HERALD_SIGNUP: 'closed', HERALD_TRUST_PROXY: 'maybe', PORT: 'x', HERALD_SECRET_KEY: 'my-secret-key-material', HERALD_RETRY_SCHEDULE: '5 minutes' })
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toContain('HERALD_SIGNUP="closed": expected one of "open", "invite"')
    expect(message).toContain('HERALD_TRUST_PROXY="maybe": expected true or false')
    expect(message).toContain('PORT="x": expected a whole number from 0 to 65535')
    expect(message).toContain('HERALD_SECRET_KEY=(hidden): expected 32 random bytes in base64')
    expect(message).toContain('HERALD_RETRY_SCHEDULE="5 minutes": expected delays separated by commas')
    expect(message).not.toContain('my-secret-key-material')
    expect(message).not.toMatch(/\^|\$|\[A-Z/) // no regex
  })

  test('HERALD_OUTBOUND_ALLOW takes IP addresses and CIDRs only, and says which entry is wrong', () => {
    expect(loadConfig({ HERALD_OUTBOUND_ALLOW: '10.0.0.0/8, 192.168.1.20,fd00::/8' }).HERALD_OUTBOUND_ALLOW).toBe('10.0.0.0/8, 192.168.1.20,fd00::/8')
    expect(() => loadConfig({ HERALD_OUTBOUND_ALLOW: 'localhost,10.0.0.0/33' })).toThrow(/"localhost" is not an IP address or CIDR.*"10\.0\.0\.0\/33": the prefix length must be 0 to 32/)
    expect(() => loadConfig({ HERALD_OUTBOUND_ALLOW: '10.0.0.0/8,300.1.1.1' })).toThrow(/"300\.1\.1\.1" is not an IP address/)
  })

  test('HERALD_OUTBOUND_ALLOW and HERALD_RETRY_SCHEDULE are parsed once, at load, beside their text', () => {
    const c = loadConfig({ HERALD_OUTBOUND_ALLOW: ' 10.0.0.0/8, 192.168.1.20,,fd00::/8 ', HERALD_RETRY_SCHEDULE: '0s, 250ms,5m,2h' })
    expect(c.outboundAllow).toEqual(['10.0.0.0/8', '192.168.1.20', 'fd00::/8'])
    expect(c.retryScheduleMs).toEqual([0, 250, 300_000, 7_200_000])
    const d = loadConfig({})
    expect(d.outboundAllow).toEqual([])
    expect(d.retryScheduleMs).toEqual([0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000])
  })

  test('a variable that looks like a setting but is none is named, with the closest setting', () => {
    expect(unknownSettings({ DATABSE_URL: 'x', HERALD_SECERT_KEY: 'y', NATS_URLS: 'z', WEB_PUSH_SUBJ: 'w', HERALD_FOO: '1' })).toEqual([
      'DATABSE_URL is not a Herald setting: did you mean DATABASE_URL?',
      'HERALD_FOO is not a Herald setting',
      'HERALD_SECERT_KEY is not a Herald setting: did you mean HERALD_SECRET_KEY?',
      'NATS_URLS is not a Herald setting: did you mean NATS_URL?',
      'WEB_PUSH_SUBJ is not a Herald setting: did you mean WEB_PUSH_SUBJECT?',
    ])
    // Known settings, the CLI's own, and the rest of a shell's environment pass quietly.
    expect(unknownSettings({ DATABASE_URL: 'x', HERALD_URL: 'u', HERALD_KEY: 'k', HOME: '/root', PATH: '/bin', HOSTNAME: 'h', SHELL: 'bash', USER: 'me', TERM: 'xterm' })).toEqual([])
  })
})

describe('the configuration file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-config-'))
  const file = (name: string, text: string) => {
    const path = join(dir, name)
    writeFileSync(path, text)
    return path
  }
  const messageOf = (f: () => unknown) => {
    try {
      f()
    } catch (err) {
      return (err as Error).message
    }
    return ''
  }

  test('holds the same keys as the environment, lists included; the environment wins', () => {
    const path = file('a.toml', 'PORT = 9001\nHERALD_SIGNUP = "invite"\nHERALD_TRUST_PROXY = true\nHERALD_OUTBOUND_ALLOW = ["10.0.0.0/8", "192.168.1.20"]\nHERALD_DEFAULT_RATE_PER_SECOND = 2.5\n')
    const c = loadConfig({ HERALD_CONFIG: path })
    expect(c.PORT).toBe(9001)
    expect(c.HERALD_SIGNUP).toBe('invite')
    expect(c.HERALD_TRUST_PROXY).toBe(true)
    expect(c.HERALD_OUTBOUND_ALLOW).toBe('10.0.0.0/8,192.168.1.20')
    expect(c.HERALD_DEFAULT_RATE_PER_SECOND).toBe(2.5)
    expect(loadConfig({ HERALD_CONFIG: path, PORT: '9002', HERALD_SIGNUP: 'open' })).toMatchObject({ PORT: 9002, HERALD_SIGNUP: 'open' })
  })

  test('a bad value in it is named with the file, and hidden when secret', () => {
    const path = file('bad.toml', 'PORT = "x"\nHERALD_ADMIN_TOKEN = "short-secret"\n')
    const message = messageOf(() => loadConfig({ HERALD_CONFIG: path }))
    expect(message).toContain(`PORT="x" (in ${path}): expected a whole number from 0 to 65535`)
    expect(message).toContain(`HERALD_ADMIN_TOKEN=(hidden) (in ${path}): expected at least 16 characters`)
    expect(message).not.toContain('short-secret')
    // The same key set in the environment is the environment's mistake.
    expect(messageOf(() => loadConfig({ HERALD_CONFIG: path, PORT: 'y', HERALD_ADMIN_TOKEN: 'x'.repeat(20) }))).toContain('PORT="y": expected')
  })

  test('a missing file, broken TOML and a table are each said with the file and the place', () => {
    expect(messageOf(() => loadConfig({ HERALD_CONFIG: join(dir, 'none.toml') }))).toContain(`cannot read the configuration file ${join(dir, 'none.toml')} (HERALD_CONFIG or --config): ENOENT`)
    expect(messageOf(() => loadConfig({ HERALD_CONFIG: file('broken.toml', 'PORT = 1\nLOG_LEVEL = "info\n') }))).toMatch(/broken\.toml is not valid TOML at line 2, column \d+/)
    expect(messageOf(() => loadConfig({ HERALD_CONFIG: file('table.toml', '[server]\nPORT = 1\n') }))).toContain('server in ' + join(dir, 'table.toml') + ': expected a string, a number, true or false, or a list of them, not a table')
  })

  test('a key it holds that is no setting is a warning naming the closest one', () => {
    const path = file('typo.toml', 'DATABSE_URL = "postgres://x"\nPORT = 8080\nfavourite_colour = "blue"\n')
    expect(unknownSettings({ HERALD_CONFIG: path })).toEqual([
      `DATABSE_URL in ${path} is not a Herald setting: did you mean DATABASE_URL?`,
      `favourite_colour in ${path} is not a Herald setting`,
    ])
  })

  test('herald.toml in the working directory is read without being named', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-cwd-'))
    try {
      writeFileSync(join(cwd, 'herald.toml'), 'HERALD_DATA_DIR = "./from-toml"\nLOG_LEVEL = "error"\n')
      const { DATABASE_URL: _, NATS_URL: __, HERALD_DATA_DIR: ___, ...inherited } = process.env
      const proc = Bun.spawn([process.execPath, join(import.meta.dir, '../../src/cli/main.ts'), 'migrate'], { cwd, env: inherited, stdout: 'pipe', stderr: 'pipe' })
      const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()])
      expect(code).toBe(0)
      expect(stdout).toContain('applied 0001_init.sql')
      expect(existsSync(join(cwd, 'from-toml'))).toBe(true)
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('start-up that cannot go on says why', () => {
  const herald = async (command: string, env: Record<string, string>) => {
    const { DATABASE_URL: _, NATS_URL: __, ...inherited } = process.env
    const proc = Bun.spawn([process.execPath, 'src/cli/main.ts', command], { cwd: `${import.meta.dir}/../..`, env: { ...inherited, HERALD_DATA_DIR: 'memory://', LOG_LEVEL: 'error', PORT: '0', METRICS_PORT: '0', ...env }, stdout: 'pipe', stderr: 'pipe' })
    const timer = setTimeout(() => proc.kill(), 20_000)
    const [code, stderr, stdout] = await Promise.all([proc.exited, new Response(proc.stderr).text(), new Response(proc.stdout).text()])
    clearTimeout(timer)
    return { code, stderr, stdout }
  }

  test('herald serve without DATABASE_URL stops, and points at herald start', async () => {
    const { code, stderr, stdout } = await herald('serve', { DATABSE_URL: 'postgres://x', LOG_LEVEL: 'warn' })
    expect(code).not.toBe(0)
    expect(stderr).toContain('herald serve is the API of a scaled-out Herald and needs DATABASE_URL')
    expect(stdout).toContain('DATABSE_URL is not a Herald setting: did you mean DATABASE_URL?') // the log
  }, 30_000)

  test('herald worker without DATABASE_URL and NATS_URL stops and says what it needs', async () => {
    const { code, stderr } = await herald('worker', {})
    expect(code).not.toBe(0)
    expect(stderr).toContain('herald worker needs DATABASE_URL and NATS_URL')
  }, 30_000)

  test('logs are JSON lines for machines, and lines for people on a terminal or with LOG_FORMAT=pretty', async () => {
    const json = await herald('serve', { DATABSE_URL: 'postgres://x', LOG_LEVEL: 'warn' })
    const warning = json.stdout.split('\n').find((l) => l.includes('DATABSE_URL'))!
    expect(JSON.parse(warning)).toMatchObject({ level: 40, msg: 'DATABSE_URL is not a Herald setting: did you mean DATABASE_URL?' })
    const pretty = await herald('serve', { DATABSE_URL: 'postgres://x', LOG_LEVEL: 'warn', LOG_FORMAT: 'pretty' })
    expect(pretty.stdout).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: DATABSE_URL is not a Herald setting: did you mean DATABASE_URL\?$/m)
    // On a terminal (script(1) gives the child one), `auto` is pretty, in colour.
    const { DATABASE_URL: _, NATS_URL: __, ...inherited } = process.env
    const tty = Bun.spawn(['script', '-qec', `${process.execPath} src/cli/main.ts serve`, '/dev/null'], { cwd: `${import.meta.dir}/../..`, env: { ...inherited, HERALD_DATA_DIR: 'memory://', LOG_LEVEL: 'warn', DATABSE_URL: 'postgres://x' }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
    const out = await new Response(tty.stdout).text()
    await tty.exited
    expect(out).toContain('\u001b[') // colour
    expect(out.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(/\] WARN: DATABSE_URL is not a Herald setting/)
    expect(out).not.toContain('"level":')
  }, 30_000)

  test('an unreachable PostgreSQL is named with its setting and address, never its password', async () => {
    const { code, stderr } = await herald('serve', { DATABASE_URL: 'postgres://herald:s3cret-pw@127.0.0.1:1/herald' })
    expect(code).not.toBe(0)
    expect(stderr).toContain('cannot reach PostgreSQL at 127.0.0.1:1 (DATABASE_URL)')
    expect(stderr).not.toContain('s3cret-pw')
  }, 30_000)

  test.skipIf(!PG_URL)('an unreachable NATS is named with its setting and address, and the API starts without it', async () => {
    const db = await createTestDatabase()
    const api = await spawnHerald({ DATABASE_URL: db.url, NATS_URL: 'nats://127.0.0.1:1' }, 'serve')
    try {
      expect(api.output.join('\n')).toContain('cannot reach NATS at 127.0.0.1:1 (NATS_URL)')
      expect((await fetch(`${api.url}/healthz`)).status).toBe(200)
    } finally {
      await api.kill()
      await db.drop()
    }
  }, 30_000)
})
