// HERALD_DATA_DIR is Herald's user's alone, on either database. With
// DATABASE_URL the directory was made by the first secret written into it,
// with the umask's mode: 0777 under umask 000. It is made 0700 and narrowed at
// every start, and the secret files in it (secret.key, admin.token,
// vapid.json) are narrowed to 0600 with a warning. Real processes, started
// under umask 000.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PG_URL, createTestDatabase } from '../harness'
import { spawnHerald, type HeraldProcess } from '../processes'

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

/** A data directory as an operator may have left it: mode 0777, its secrets readable by all. */
function looseDataDir(parent: string): string {
  const dir = join(parent, 'loose')
  mkdirSync(dir, { recursive: true })
  chmodSync(dir, 0o777)
  writeFileSync(join(dir, 'secret.key'), randomBytes(32).toString('base64') + '\n', { mode: 0o644 })
  writeFileSync(join(dir, 'admin.token'), randomBytes(24).toString('base64url') + '\n', { mode: 0o666 })
  chmodSync(join(dir, 'secret.key'), 0o644)
  chmodSync(join(dir, 'admin.token'), 0o666)
  return dir
}

describe('the data directory is private on either database, under umask 000', () => {
  let umask = 0
  let parent = ''
  const procs: HeraldProcess[] = []
  const dbs: { drop(): Promise<void> }[] = []
  beforeAll(() => {
    parent = mkdtempSync(join(tmpdir(), 'herald-private-dir-'))
    umask = process.umask(0) // the children inherit it
  })
  afterAll(async () => {
    process.umask(umask)
    for (const p of procs) await p.kill('SIGKILL')
    for (const d of dbs) await d.drop()
    rmSync(parent, { recursive: true, force: true })
  })
  const start = async (env: Record<string, string>) => {
    const p = await spawnHerald(env)
    procs.push(p)
    return p
  }
  const database = async () => {
    const db = await createTestDatabase()
    dbs.push(db)
    return db.url
  }

  test.skipIf(!PG_URL && process.env.CI !== 'true')('with DATABASE_URL, the directory Herald makes for its generated secrets is 0700 and they are 0600', async () => {
    const dir = join(parent, 'made-by-serve')
    await start({ DATABASE_URL: await database(), HERALD_DATA_DIR: dir })
    expect(modeOf(dir)).toBe('700')
    expect(modeOf(join(dir, 'secret.key'))).toBe('600')
    expect(modeOf(join(dir, 'vapid.json'))).toBe('600')
  }, 60_000)

  test.skipIf(!PG_URL && process.env.CI !== 'true')('with DATABASE_URL, a directory of mode 0777 and secrets readable by all are narrowed at start, with a warning', async () => {
    const dir = looseDataDir(join(parent, 'pg'))
    const p = await start({ DATABASE_URL: await database(), HERALD_DATA_DIR: dir })
    expect(modeOf(dir)).toBe('700')
    expect(modeOf(join(dir, 'secret.key'))).toBe('600')
    expect(modeOf(join(dir, 'admin.token'))).toBe('600')
    expect(p.output.filter((l) => l.includes('narrowed to mode 0600')).length).toBe(2)
  }, 60_000)

  test('on the embedded default, the secrets in a loose directory are narrowed too', async () => {
    const dir = looseDataDir(join(parent, 'embedded'))
    await start({ HERALD_DATA_DIR: dir })
    expect(modeOf(dir)).toBe('700')
    expect(modeOf(join(dir, 'secret.key'))).toBe('600')
    expect(modeOf(join(dir, 'admin.token'))).toBe('600')
    expect(modeOf(join(dir, 'vapid.json'))).toBe('600')
  }, 60_000)
})
