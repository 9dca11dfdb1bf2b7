// `herald start` with no DATABASE_URL: embedded PGlite in HERALD_DATA_DIR, a
// demo workspace whose key is printed once, an operator token kept in the
// data directory, and data that survives a restart.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnHerald } from '../processes'

describe('embedded default', () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-embedded-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('first start prints a demo key once; the key and its events survive a restart', async () => {
    const first = await spawnHerald({ HERALD_DATA_DIR: dir, HERALD_ADMIN_TOKEN: '' }, 'start')
    await Bun.sleep(100)
    const keys = first.output.join('\n').match(/hrld_[0-9A-Za-z]{36}/g) ?? []
    expect(keys.length).toBeGreaterThanOrEqual(1)
    expect(new Set(keys).size).toBe(1)
    const key = keys[0]!
    const post = await fetch(`${first.url}/event`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    })
    expect(post.status).toBe(200)
    const { eventId, workspace, channel } = (await post.json()) as { eventId: string; workspace: string; channel: string }
    expect(workspace).toBe('demo')
    expect(channel).toBe('general')
    // The banner: where the dashboard is, who will own the demo, and the
    // operator token's file, generated for the CLI on this machine.
    const banner = first.output.join('\n')
    expect(banner).toContain(`Dashboard:   http://localhost:${first.port}  (the first account to sign up owns the workspace "demo")`)
    expect(banner).toContain(`API docs:    http://localhost:${first.port}/docs`)
    expect(banner).toContain(`the CLI on this machine reads the token in ${join(dir, 'admin.token')}: try \`npx herald workspace list\``)
    // The demo's limits are said, and are a local install's: the README's client is not paced at 100/s.
    expect(banner).toContain('Its limits: 50,000 events/s (bursts of 100,000) and 10,000,000 a month')
    expect(banner).toContain('npx herald workspace set demo --rate')
    expect(statSync(join(dir, 'admin.token')).mode & 0o777).toBe(0o600)
    const token = readFileSync(join(dir, 'admin.token'), 'utf8').trim()
    expect(token.length).toBeGreaterThanOrEqual(32)
    expect(banner).not.toContain(token)
    const admin = (t: string) => fetch(`${first.url}/admin/workspaces`, { headers: { authorization: `Bearer ${t}` } })
    expect((await admin(token)).status).toBe(200)
    const demo = (await (await fetch(`${first.url}/admin/workspaces/demo`, { headers: { authorization: `Bearer ${token}` } })).json()) as { monthlyQuota: number; rateLimit: { perSecond: number; burst: number } }
    expect({ monthlyQuota: demo.monthlyQuota, rateLimit: demo.rateLimit }).toEqual({ monthlyQuota: 10_000_000, rateLimit: { perSecond: 50_000, burst: 100_000 } })
    const wrong = await admin('x'.repeat(32))
    expect(wrong.status).toBe(401)
    expect(((await wrong.json()) as { detail: string }).detail).toContain('The admin token is wrong')
    expect(await first.kill('SIGTERM')).toBe(0)

    const second = await spawnHerald({ HERALD_DATA_DIR: dir, HERALD_ADMIN_TOKEN: '' }, 'start')
    try {
      await Bun.sleep(100)
      expect(second.output.join('\n')).not.toMatch(/hrld_/)
      // The same token: the file is kept.
      expect(readFileSync(join(dir, 'admin.token'), 'utf8').trim()).toBe(token)
      expect((await fetch(`${second.url}/admin/workspaces`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200)
      const read = await fetch(`${second.url}/events/${eventId}`, { headers: { authorization: `Bearer ${key}` } })
      expect(read.status).toBe(200)
      expect(((await read.json()) as { message: string }).message).toBe('hello')
    } finally {
      await second.kill('SIGTERM')
    }
  }, 60_000)
})
