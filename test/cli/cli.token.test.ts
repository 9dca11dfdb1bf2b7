// Where the CLI finds the operator token. A Herald started on the embedded
// default without HERALD_ADMIN_TOKEN writes one into its data directory
// (admin.token, 0600); the CLI on the same machine reads it there when
// neither --token nor HERALD_ADMIN_TOKEN is given, from HERALD_DATA_DIR or
// ./.herald. Without any token the CLI says where to look; a server without
// an operator API says so, and the CLI prints its words.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { useTestHerald } from '../harness'
import { spawnHerald, type HeraldProcess } from '../processes'
import { herald, USAGE_ERROR } from './run'

describe('the operator token of an embedded Herald', () => {
  let home: string
  let dataDir: string
  let server: HeraldProcess
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'herald-token-'))
    dataDir = join(home, '.herald')
    // No token given, no PostgreSQL, no NATS: the embedded default, which makes its own token.
    server = await spawnHerald({ HERALD_DATA_DIR: dataDir, HERALD_ADMIN_TOKEN: '', DATABASE_URL: '', NATS_URL: '', HERALD_DEMO_WORKSPACE: 'false', LOG_LEVEL: 'info' }, 'start')
  }, 60_000)
  afterAll(async () => {
    await server?.kill()
  })

  test('the server wrote admin.token, readable by its owner only', () => {
    expect(statSync(join(dataDir, 'admin.token')).mode & 0o777).toBe(0o600)
  })

  test('the CLI reads it from HERALD_DATA_DIR without HERALD_ADMIN_TOKEN', async () => {
    const created = await herald(['workspace', 'create', 'tokenless', '--json'], { HERALD_URL: server.url, HERALD_DATA_DIR: dataDir })
    expect(created.stderr).toBe('')
    expect(created.code).toBe(0)
    expect(JSON.parse(created.stdout).workspace).toBe('tokenless')
    const status = await herald(['status', '--json'], { HERALD_URL: server.url, HERALD_DATA_DIR: dataDir })
    expect(status.code).toBe(0)
    expect(JSON.parse(status.stdout).bus).toBe('in-process')
  })

  test('and from ./.herald, in the directory Herald was started from', async () => {
    const r = await herald(['workspace', 'list', '--json'], { HERALD_URL: server.url }, { cwd: home })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).map((w: { workspace: string }) => w.workspace)).toContain('tokenless')
  })

  test('--token and HERALD_ADMIN_TOKEN come first: a wrong one is not replaced by the file', async () => {
    const r = await herald(['workspace', 'list'], { HERALD_URL: server.url, HERALD_DATA_DIR: dataDir, HERALD_ADMIN_TOKEN: 'wrong-token-abcdefghijklmnop' })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('error: The admin token is wrong: it is not the HERALD_ADMIN_TOKEN this server was started with.\n')
  })

  test('no token anywhere: a usage error that says where a token comes from', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'herald-empty-'))
    const r = await herald(['workspace', 'list'], { HERALD_URL: server.url }, { cwd: empty })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(USAGE_ERROR)
    expect(r.stderr.split('\n')[0]).toBe('error: no operator token: set HERALD_ADMIN_TOKEN or pass --token (a Herald started on the embedded default keeps one in .herald/admin.token)')
  })
})

describe('a server without an operator API', () => {
  // In memory and without HERALD_ADMIN_TOKEN: no token file, so no operator API.
  const h = useTestHerald('embedded', { HERALD_ADMIN_TOKEN: '' })

  test('the CLI prints the server\'s answer as it is, and exits 1', async () => {
    const r = await herald(['workspace', 'list'], { HERALD_URL: h.url, HERALD_ADMIN_TOKEN: 'any-token-0123456789' })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe('error: The operator API is off: this server was started without HERALD_ADMIN_TOKEN.\n')
  })
})
