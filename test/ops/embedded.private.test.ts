// The embedded database is Herald's alone: `herald start` listens on its HTTP
// port and nowhere else (no TCP port, no Unix socket a local user could speak
// the PostgreSQL protocol to), its data directory is 0700, and a local client
// hammering whatever the process listens on gets no database session while
// Herald goes on serving.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { spawnHerald } from '../processes'

/** The inodes of the sockets a process holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (m) inodes.add(m[1]!)
    } catch {} // the descriptor closed meanwhile
  }
  return inodes
}

/** What a process listens on: TCP ports (v4 and v6) and Unix socket paths. */
function listeners(pid: number): { tcp: number[]; unix: string[] } {
  const mine = socketInodes(pid)
  const tcp: number[] = []
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      // local_address is f[1] ("0100007F:1F90"), st is f[3] ("0A" = LISTEN), inode is f[9].
      if (f.length > 9 && f[3] === '0A' && mine.has(f[9]!)) tcp.push(parseInt(f[1]!.split(':')[1]!, 16))
    }
  }
  const unix: string[] = []
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    // Flags f[3] has __SO_ACCEPTCON (0x10000) on a listening socket; inode is f[6], path f[7].
    if (f.length > 6 && (parseInt(f[3]!, 16) & 0x10000) !== 0 && mine.has(f[6]!)) unix.push(f[7] ?? '(unnamed)')
  }
  return { tcp: [...new Set(tcp)], unix }
}

/** A PostgreSQL client's attempt to read users from a port: the rows it got, or why not (a port that is not PostgreSQL may never answer). */
async function tryPostgres(port: number): Promise<string> {
  const sql = postgres({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: 1, connect_timeout: 2, idle_timeout: 1, onnotice: () => {} })
  try {
    const rows = await Promise.race([sql`SELECT email FROM users`, Bun.sleep(3000).then(() => { throw new Error('no answer in 3 s') })])
    return `a session: ${rows.length} users read`
  } catch (err) {
    return `refused: ${(err as Error).message}`
  } finally {
    sql.end({ timeout: 0 }).catch(() => {})
  }
}

/** A PostgreSQL startup message (protocol 3.0, user postgres) sent raw: the first byte of the answer ('R' opens a session), or '' when none came. */
function rawStartup(port: number): Promise<string> {
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0')
  const msg = Buffer.alloc(8 + params.length)
  msg.writeInt32BE(msg.length, 0)
  msg.writeInt32BE(196608, 4)
  params.copy(msg, 8)
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.write(msg))
    const done = (v: string) => (s.destroy(), resolve(v))
    s.on("data", (d: Buffer) => done(String.fromCharCode(d[0]!)))
    s.on('error', () => done(''))
    s.on('close', () => done(''))
    setTimeout(() => done(''), 500)
  })
}

describe('the embedded database is reachable by Herald alone', () => {
  const parent = join(tmpdir(), `herald-private-${process.pid}`)
  const dir = join(parent, 'data')
  afterAll(() => rmSync(parent, { recursive: true, force: true }))

  test('herald start listens on its HTTP port only; the data directory is 0700; a local PostgreSQL client gets nothing while Herald serves', async () => {
    // A data directory made by an earlier version (or by hand) with the usual umask.
    mkdirSync(dir, { recursive: true, mode: 0o755 })
    const herald = await spawnHerald({ HERALD_DATA_DIR: dir, HERALD_ADMIN_TOKEN: '' }, 'start')
    try {
      const key = herald.output.join('\n').match(/hrld_[0-9A-Za-z]{36}/)![0]
      // A user to steal, as the probe read e-mails and hashes.
      const signup = await fetch(`${herald.url}/v1/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: herald.url },
        body: JSON.stringify({ email: 'owner@example.com', password: 'correct horse battery staple' }),
      })
      expect(signup.status).toBeLessThan(300)

      expect(statSync(dir).mode & 0o777).toBe(0o700)
      const open = listeners(herald.pid)
      expect(open).toEqual({ tcp: [herald.port], unix: [] })
      expect(herald.output.join('\n')).not.toMatch(/"port":(?!\s*0\b)\d+.*embedded PostgreSQL|embedded PostgreSQL.*"port"/)

      // An attacker on the host speaks PostgreSQL to every port the process
      // has, over and over, while the owner keeps posting events.
      let attempts = 0
      const outcomes = new Set<string>()
      let attacking = true
      const attacker = (async () => {
        while (attacking) {
          for (const port of open.tcp) {
            if (port !== herald.port) outcomes.add(await tryPostgres(port))
            else if ((await rawStartup(port)) === 'R') outcomes.add(`a session on the HTTP port ${port}`)
          }
          attempts++
        }
      })()
      const statuses: number[] = []
      for (let i = 0; i < 20; i++) {
        const r = await fetch(`${herald.url}/event`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: `while attacked ${i}` }),
        })
        statuses.push(r.status)
        await Bun.sleep(20)
      }
      attacking = false
      await attacker
      expect(attempts).toBeGreaterThan(0)
      expect(statuses).toEqual(Array(20).fill(200))
      expect([...outcomes].filter((o) => o.startsWith('a session'))).toEqual([])
    } finally {
      await herald.kill('SIGTERM')
    }
  }, 60_000)
})
