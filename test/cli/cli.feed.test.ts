// `herald feed unread|read|archive`, run as child processes against a real
// Herald with a member's user token: the counts, marks by id, --before with
// --channel, --all, and the refusals.
import { beforeAll, describe, expect, test } from 'bun:test'
import { useTestHerald } from '../harness'
import { herald, USAGE_ERROR } from './run'

describe('herald feed (embedded)', () => {
  const h = useTestHerald('embedded')
  let ws: { name: string; apiKey: string }
  let token = ''
  const ids: string[] = []
  const run = (args: string[], env: Record<string, string> = {}) => herald(args, { HERALD_URL: h.url, HERALD_USER_TOKEN: token, ...env })
  beforeAll(async () => {
    ws = await h.workspace()
    const res = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: `reader.${Date.now()}@example.com`, role: 'member' })
    token = ((await res.json()) as { userToken: string }).userToken
    for (const channel of ['a', 'b', 'a']) ids.push(((await (await h.post(ws.apiKey, { channel, message: channel })).json()) as { eventId: string }).eventId)
  }, 30_000)

  test('unread counts; read by id; archive --before --channel; read --all', async () => {
    const counts = await run(['feed', 'unread'])
    expect(counts.code).toBe(0)
    expect(counts.stdout).toMatch(/^Unread: +3$/m)
    expect(counts.stdout).toMatch(/#a: +2$/m)
    const byId = await run(['feed', 'read', '--id', ids[0]!, '--json'])
    expect(byId.code).toBe(0)
    expect(JSON.parse(byId.stdout)).toMatchObject({ status: 'read', eventIds: [ids[0]], counts: { unread: 2 } })
    const archived = await run(['feed', 'archive', '--before', ids[1]!, '--channel', 'b', '--workspace', ws.name])
    expect(archived.stdout).toContain(`Everything up to ${ids[1]} in #b marked archived.`)
    const all = await run(['feed', 'read', '--all'])
    expect(all.code).toBe(0)
    expect(all.stdout).toMatch(/^Unread: +0$/m)
  })

  test('refusals: no events named, two forms, a bad id, no token (exit 2); an id of no event (exit 1)', async () => {
    for (const args of [['feed', 'read'], ['feed', 'read', '--id', ids[0]!, '--all'], ['feed', 'read', '--id', 'nope'], ['feed', 'read', '--id', ids[0]!, '--channel', 'a']]) {
      const r = await run(args)
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(USAGE_ERROR)
    }
    expect((await run(['feed', 'unread'], { HERALD_USER_TOKEN: '' })).code).toBe(2)
    const unknown = await run(['feed', 'read', '--id', '01900000-0000-7000-8000-000000000000'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('is not an event of this workspace')
  })
})
