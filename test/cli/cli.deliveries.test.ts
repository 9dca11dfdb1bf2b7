// `herald delivery list` and `herald delivery replay`, run as child processes
// against a real Herald whose router posts to a real receiver on loopback:
// one delivery fails for good (400), one waits for a retry an hour away
// (500), one succeeds; then the failed one is replayed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ADMIN_TOKEN, useTestHerald } from '../harness'
import { eventually, startReceiver, type Receiver } from '../receiver'
import type { DeliverySummary } from '../../src/http/routes/deliveries'
import { herald, USAGE_ERROR, type Run } from './run'

describe('herald delivery', () => {
  const h = useTestHerald('embedded', { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8', HERALD_RETRY_SCHEDULE: '0s,1h' })
  let rx: Receiver
  let ws: string
  let op: (...args: string[]) => Promise<Run>
  const list = async (...args: string[]) => JSON.parse((await op('delivery', 'list', ws, '--json', ...args)).stdout) as DeliverySummary[]
  beforeAll(async () => {
    rx = startReceiver()
    op = (...args) => herald(args, { HERALD_URL: h.url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN })
    const w = await h.workspace()
    ws = w.name
    expect((await h.admin('POST', `/admin/workspaces/${ws}/routers`, { name: 'hook', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/in` } })).status).toBe(201)
    rx.script = [{ status: 400, body: 'no such thing' }, { status: 500, body: 'boom' }] // then 200
    for (const [i, message] of ['fails', 'waits', 'succeeds'].entries()) {
      expect((await h.post(w.apiKey, { message })).status).toBe(200)
      await rx.waitFor(i + 1)
    }
    await eventually(async () => {
      const all = await list()
      return all.length === 3 && new Set(all.map((d) => d.status)).size === 3
    }, 15_000, 'three deliveries, one of each state')
  }, 30_000)
  afterAll(() => rx?.stop())

  test('list prints every recent delivery, newest first, with its state', async () => {
    const r = await op('delivery', 'list', ws)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^DELIVERY\s+EVENT\s+KIND\s+STATUS\s+ATTEMPTS\s+UPDATED \(UTC\)\s+LAST ERROR$/)
    expect(lines.slice(1).map((l) => l.split(/\s+/)[3])).toEqual(['succeeded', 'pending', 'failed'])
    expect(lines[3]).toMatch(/\sfailed\s+1\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+\S/)
    const all = await list()
    expect(all.map((d) => d.status)).toEqual(['succeeded', 'pending', 'failed'])
    expect(all[1]!.nextAttemptAt).not.toBeNull()
  })

  test('--failed and --state filter; --limit caps', async () => {
    expect((await list('--failed')).map((d) => d.status)).toEqual(['failed'])
    expect((await list('--state', 'pending')).map((d) => d.status)).toEqual(['pending'])
    expect((await list('--state', 'succeeded')).map((d) => d.status)).toEqual(['succeeded'])
    // `all`, as docs/cli.md's route table spells it, is the default spelled out.
    expect((await list('--state', 'all')).map((d) => d.status)).toEqual(['succeeded', 'pending', 'failed'])
    expect(await list('--limit', '1')).toHaveLength(1)
    const none = await op('delivery', 'list', (await h.workspace()).name, '--failed')
    expect(none.stdout).toMatch(/^Workspace \S+ has no failed deliveries\.\n$/)
  })

  test('replay sends a failed delivery again under the same id', async () => {
    const [failed] = await list('--failed')
    const r = await op('delivery', 'replay', ws, failed!.id)
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(`Delivery ${failed!.id} is scheduled again (same id, fresh retry schedule).\n`)
    const again = await rx.waitFor(4)
    expect(again[3]!.headers['webhook-id']).toBe(again[0]!.headers['webhook-id']!)
    await eventually(async () => (await list('--failed')).length === 0, 10_000, 'the replayed delivery to succeed')
    const replayed = (await list()).find((d) => d.id === failed!.id)!
    expect([replayed.status, replayed.attemptCount]).toEqual(['succeeded', 2])
    // The ATTEMPTS column counts across the replay too.
    const row = (await op('delivery', 'list', ws)).stdout.split('\n').find((l) => l.startsWith(failed!.id))!
    expect(row.split(/\s+/).slice(3, 5)).toEqual(['succeeded', '2'])
  })

  test('a delivery the outbound rules refused: the table names the setting whole, though the error is cut', async () => {
    const w = await h.workspace()
    expect((await h.admin('POST', `/admin/workspaces/${w.name}/routers`, { name: 'moved', pattern: '*', destination: { type: 'webhook', url: `${rx.url}/moved` } })).status).toBe(201)
    // Accepted at creation (a loopback address this Herald allows), then redirected to a private one it does not.
    rx.script = [{ status: 307, headers: { location: 'http://10.20.30.40/in' } }]
    expect((await h.post(w.apiKey, { message: 'redirected' })).status).toBe(200)
    const failed = async () => JSON.parse((await op('delivery', 'list', w.name, '--json', '--failed')).stdout) as DeliverySummary[]
    await eventually(async () => (await failed()).length === 1, 15_000, 'the refused delivery to fail')
    expect((await failed())[0]!.lastError).toContain('10.20.30.40 is a private address; HERALD_OUTBOUND_ALLOW lets deliveries reach it')
    const r = await op('delivery', 'list', w.name)
    expect(r.code).toBe(0)
    const [table, ...notes] = r.stdout.trimEnd().split('\n\n')
    expect(table!.split('\n')[1]).toMatch(/\sfailed\s+1\s.*…$/)
    expect(notes).toEqual([
      "Some deliveries were refused by Herald's outbound rules (no loopback, private or link-local address). To let them through, set HERALD_OUTBOUND_ALLOW=10.20.30.40/32 (a comma-separated list of CIDRs) in Herald's environment and restart it; see docs/security.md.",
      'Errors are cut to fit: --json shows them whole.',
    ])
  })

  test('errors: an unknown or pending delivery exits 1; a bad id exits 1 with the API detail; --failed with another --state exits 2', async () => {
    const unknown = await op('delivery', 'replay', ws, '01900000-0000-7000-8000-000000000000')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toStartWith('error: There is no finished delivery with this id')
    const [pending] = await list('--state', 'pending')
    expect((await op('delivery', 'replay', ws, pending!.id)).code).toBe(1)
    const bad = await op('delivery', 'replay', ws, 'abc')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toBe('error: id must be a UUID\n')
    const both = await op('delivery', 'list', ws, '--failed', '--state', 'pending')
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(USAGE_ERROR)
    const state = await op('delivery', 'list', ws, '--state', 'lost')
    expect(state.code).toBe(2)
  })
})
