// `herald prefs show|set`, run as child processes against a real Herald with
// a member's user token: set changes what its options name and keeps the
// rest, show prints the document (--json its JSON), and what the server
// refuses is an error naming the field. Embedded only: the route's storage is
// tested on both databases in test/accounts/preferences.test.ts.
import { beforeAll, describe, expect, test } from 'bun:test'
import { useTestHerald } from '../harness'
import { herald, USAGE_ERROR } from './run'

const STEP_MS = 30_000

describe('herald prefs (embedded)', () => {
  const h = useTestHerald('embedded')
  let ws: { name: string; apiKey: string }
  let token = ''
  const run = (args: string[]) => herald(args, { HERALD_URL: h.url, HERALD_USER_TOKEN: token, TZ: 'Europe/Paris' })
  beforeAll(async () => {
    ws = await h.workspace()
    const res = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: `prefs.${Date.now()}@example.com`, role: 'member' })
    token = ((await res.json()) as { userToken: string }).userToken
    for (const slug of ['ops', 'marketing']) expect((await h.admin('POST', `/admin/workspaces/${ws.name}/channels`, { slug })).status).toBe(201)
  }, 30_000)

  test('set quiet hours in this machine\'s zone, channel levels and the default; show prints them; set keeps what it does not name', async () => {
    const set = await run(['prefs', 'set', '--quiet-hours', '22:00-07:00', '--channel', 'ops=high', '--channel', 'marketing=none'])
    expect(set.stderr).toBe('')
    expect(set.code).toBe(0)
    expect(set.stdout).toMatch(/^Quiet hours: +22:00–07:00 Europe\/Paris; priority 5 and up still pushed$/m)
    expect(set.stdout).toMatch(/^#ops: +high \(priority 4 and 5\)$/m)
    const again = await run(['prefs', 'set', '--except', '4', '--default', 'urgent', '--channel', 'marketing=default'])
    expect(again.code).toBe(0)
    const json = await run(['prefs', 'show', '--json'])
    expect(JSON.parse(json.stdout)).toEqual({ quietHours: { timezone: 'Europe/Paris', from: '22:00', to: '07:00', except: 4 }, channels: { ops: 'high' }, default: 'urgent' })
    const none = await run(['prefs', 'set', '--no-quiet-hours', '--timezone', 'Asia/Tokyo'])
    expect(none.code).toBe(0)
    expect((await run(['prefs', 'show'])).stdout).toMatch(/^Quiet hours: +none$/m)
  }, STEP_MS)

  test('refusals: a bad level is a usage error; an unknown zone or channel is the server\'s 400, naming it', async () => {
    const level = await run(['prefs', 'set', '--channel', 'ops=loud'])
    expect(level.code).toBe(2)
    expect(level.stderr).toMatch(USAGE_ERROR)
    const zone = await run(['prefs', 'set', '--quiet-hours', '23:00-06:00', '--timezone', 'Mars/Olympus_Mons'])
    expect(zone.code).toBe(1)
    expect(zone.stderr).toContain('Mars/Olympus_Mons')
    const channel = await run(['prefs', 'set', '--channel', 'nope=none'])
    expect(channel.code).toBe(1)
    expect(channel.stderr).toContain('nope')
    const noToken = await herald(['prefs', 'show'], { HERALD_URL: h.url, HERALD_USER_TOKEN: '' })
    expect(noToken.code).toBe(2)
    expect(noToken.stderr).toContain('HERALD_USER_TOKEN')
  }, STEP_MS)
})
