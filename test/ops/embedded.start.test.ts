// `herald start` with no DATABASE_URL: embedded PGlite in HERALD_DATA_DIR, a
// demo workspace whose key is printed once, and data that survives a restart.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
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
    // The operator API is off without HERALD_ADMIN_TOKEN.
    expect((await fetch(`${first.url}/admin/workspaces`)).status).toBe(404)
    expect(await first.kill('SIGTERM')).toBe(0)

    const second = await spawnHerald({ HERALD_DATA_DIR: dir, HERALD_ADMIN_TOKEN: '' }, 'start')
    try {
      await Bun.sleep(100)
      expect(second.output.join('\n')).not.toMatch(/hrld_/)
      const read = await fetch(`${second.url}/events/${eventId}`, { headers: { authorization: `Bearer ${key}` } })
      expect(read.status).toBe(200)
      expect(((await read.json()) as { message: string }).message).toBe('hello')
    } finally {
      await second.kill('SIGTERM')
    }
  }, 60_000)
})
