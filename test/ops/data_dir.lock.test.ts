// One Herald per data directory. Two `herald start` on one HERALD_DATA_DIR
// both ran on the embedded database, both answered 200, and one's events
// were lost. The directory is locked (flock, src/core/dir_lock.ts) before the
// database is opened: a second process stops at once, naming the holder's pid
// and the directory; of two started together exactly one runs; a holder
// killed with SIGKILL leaves nothing that blocks a restart, and its events are
// all there. A taken PORT is said before the database is opened. Real
// processes, as test/ops/port.taken.test.ts.
import { describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN_TOKEN } from '../harness'
import { runToEnd, spawnHerald, useProcessScratch, type HeraldProcess } from '../processes'
import { freePort } from '../faults/private_nats'

const admin = (url: string, method: string, path: string, body?: unknown) =>
  fetch(url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })

/** A workspace made through `url`: its name and API key. */
async function workspace(url: string) {
  const name = `lk-${Math.random().toString(36).slice(2, 9)}`
  const made = (await (await admin(url, 'POST', '/admin/workspaces', { name, rateLimit: { perSecond: 1000, burst: 1000 } })).json()) as { apiKey: string }
  return { name, key: made.apiKey }
}

/** Posts `n` events; each must be accepted. Their ids. */
async function post(url: string, key: string, n: number): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${url}/event`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: `m${i}` }) })
    expect(res.status).toBe(200)
    ids.push(((await res.json()) as { eventId: string }).eventId)
  }
  return ids
}

describe('one Herald per data directory', () => {
  const { procs, dataDir } = useProcessScratch('herald-lock-')

  test('a second `herald start` on another port and the same HERALD_DATA_DIR stops at once, naming the pid and the directory; the first keeps serving', async () => {
    const dir = dataDir()
    const first = await spawnHerald({ HERALD_DATA_DIR: dir }, 'start')
    procs.push(first)
    const w = await workspace(first.url)
    await post(first.url, w.key, 5)
    const second = await runToEnd('start', { PORT: String(await freePort()), HERALD_DATA_DIR: dir })
    expect(second.code).toBe(1)
    expect(second.output).toContain(`the data directory ${dir} (HERALD_DATA_DIR) is in use by another Herald, pid ${first.pid}`)
    // `herald migrate` opens the embedded database too: it stops the same way.
    const migrate = await runToEnd('migrate', { HERALD_DATA_DIR: dir })
    expect(migrate.code).toBe(1)
    expect(migrate.output).toContain(`is in use by another Herald, pid ${first.pid}`)
    const more = await post(first.url, w.key, 5)
    for (const id of more) expect((await fetch(`${first.url}/events/${id}`, { headers: { authorization: `Bearer ${w.key}` } })).status).toBe(200)
    const used = ((await (await admin(first.url, 'GET', `/admin/workspaces/${w.name}`)).json()) as { usage: { used: number } }).usage.used
    expect(used).toBe(10)
  }, 90_000)

  test('two starts at the same moment on one directory: exactly one runs', async () => {
    const dir = dataDir()
    const both = await Promise.allSettled([spawnHerald({ HERALD_DATA_DIR: dir }, 'start'), spawnHerald({ HERALD_DATA_DIR: dir }, 'start')])
    for (const r of both) if (r.status === 'fulfilled') procs.push(r.value)
    const ran = both.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<HeraldProcess>[]
    const stopped = both.filter((r) => r.status === 'rejected') as PromiseRejectedResult[]
    expect(ran.length).toBe(1)
    expect(stopped.length).toBe(1)
    expect(String(stopped[0]!.reason)).toContain(`is in use by another Herald, pid ${ran[0]!.value.pid}`)
    expect((await fetch(`${ran[0]!.value.url}/healthz`)).status).toBe(200)
  }, 90_000)

  test('a holder killed with SIGKILL does not block a restart, and every event it accepted is there', async () => {
    const dir = dataDir()
    const first = await spawnHerald({ HERALD_DATA_DIR: dir }, 'start')
    procs.push(first)
    const w = await workspace(first.url)
    const ids = await post(first.url, w.key, 30)
    await first.kill('SIGKILL')
    expect(existsSync(join(dir, 'herald.lock'))).toBe(true) // left behind, naming a dead pid
    const again = await spawnHerald({ HERALD_DATA_DIR: dir }, 'start')
    procs.push(again)
    for (const id of ids) expect((await fetch(`${again.url}/events/${id}`, { headers: { authorization: `Bearer ${w.key}` } })).status).toBe(200)
    const used = ((await (await admin(again.url, 'GET', `/admin/workspaces/${w.name}`)).json()) as { usage: { used: number } }).usage.used
    expect(used).toBe(30)
  }, 90_000)

  test('a start on a taken PORT stops before it opens (or even makes) its data directory', async () => {
    // Whatever holds the port (another Herald, test/ops/port.taken.test.ts, or anything else).
    const holder = Bun.serve({ port: 0, hostname: '127.0.0.1', reusePort: false, fetch: () => new Response('the first') })
    try {
      const fresh = join(dataDir(), 'never-opened')
      const second = await runToEnd('start', { PORT: String(holder.port), HERALD_DATA_DIR: fresh })
      console.log(`[lock] a start on a taken port stopped after ${Math.round(second.ms)} ms`)
      expect(second.code).not.toBe(0)
      expect(second.output).toContain(`port ${holder.port} is already in use on 127.0.0.1 (PORT)`)
      expect(existsSync(fresh)).toBe(false)
      expect(second.output).not.toContain('embedded PostgreSQL (PGlite) started')
      expect(await (await fetch(`http://127.0.0.1:${holder.port}/`)).text()).toBe('the first')
    } finally {
      holder.stop(true)
    }
  }, 60_000)
})
