// `herald send` with priority, ttl, collapse key and ack, and `herald receipt
// show|cancel|ack`, run as child processes against a real Herald: what is
// stored, the receipt printed, its state as the commands print it, a
// member's acknowledgement with their user token, and the refusals.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { herald, USAGE_ERROR } from './run'

// Each step runs the CLI, a process of its own, a few times.
const STEP_MS = 30_000
const RECEIPT = /^Receipt ([0-9a-f-]{36}): it repeats until acknowledged/m

for (const backend of backends) describe(`herald send with ack, and herald receipt (${backend})`, () => {
  const h = useTestHerald(backend)
  let ws: { name: string; apiKey: string }
  let member = { email: '', token: '' }
  const run = (args: string[], env: Record<string, string> = {}) => herald(args, { HERALD_URL: h.url, HERALD_KEY: ws.apiKey, ...env })
  const stored = async (id: string) => (await fetch(`${h.url}/events/${id}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json() as Promise<Record<string, unknown>>
  beforeAll(async () => {
    ws = await h.workspace()
    member.email = `oncall.${Date.now()}@example.com`
    const res = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: member.email, role: 'member' })
    expect(res.status).toBe(201)
    member.token = ((await res.json()) as { userToken: string }).userToken
    expect((await h.admin('POST', `/admin/workspaces/${ws.name}/channels`, { slug: 'oncall' })).status).toBe(201)
  }, 30_000)

  /** Sends an alert with ack through the CLI; its event id and receipt. */
  async function alert(extra: string[] = []) {
    const r = await run(['send', 'Disk full on db-1', '--priority', 'urgent', '--ttl', '1h', '--collapse-key', 'disk-db-1', '--ack-retry', '60s', '--ack-expire', '1h', ...extra, '--json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    return JSON.parse(r.stdout) as { eventId: string; receipt: string }
  }

  test('send --priority --ttl --collapse-key --ack-retry --ack-expire --ack-escalate: stored as given, the receipt printed', async () => {
    const text = await run(['send', 'Disk full on db-1', '--priority', 'urgent', '--ttl', '1h', '--collapse-key', 'disk-db-1', '--ack-retry', '60s', '--ack-expire', '1h', '--ack-escalate', '10m:oncall'])
    expect(text.stderr).toBe('')
    expect(text.code).toBe(0)
    const receipt = RECEIPT.exec(text.stdout)![1]!
    const eventId = /Sent event (\S+) /.exec(text.stdout)![1]!
    expect(await stored(eventId)).toMatchObject({ priority: 5, ttl: 3600, collapseKey: 'disk-db-1', receipt })
    // A number is a number, a name its number; no --ack-*: no receipt.
    const plain = await run(['send', 'Deploy finished', '--priority', '2', '--json'])
    expect(plain.code).toBe(0)
    const a = JSON.parse(plain.stdout) as { eventId: string; receipt?: string }
    expect(a.receipt).toBeUndefined()
    expect(await stored(a.eventId)).toMatchObject({ priority: 2, ttl: null, collapseKey: null, receipt: null })
  }, STEP_MS)

  test('receipt show prints the receipt (and --json its JSON); receipt cancel ends it; a second cancel fails naming its state', async () => {
    const { eventId, receipt } = await alert()
    const show = await run(['receipt', 'show', receipt])
    expect(show.code).toBe(0)
    expect(show.stdout).toMatch(new RegExp(`^Receipt: +${receipt}$`, 'm'))
    expect(show.stdout).toMatch(new RegExp(`^Event: +${eventId}$`, 'm'))
    expect(show.stdout).toMatch(/^Status: +pending$/m)
    const json = await run(['receipt', 'show', receipt, '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({ receipt, eventId, status: 'pending' })

    const cancel = await run(['receipt', 'cancel', receipt])
    expect(cancel.stderr).toBe('')
    expect(cancel.code).toBe(0)
    expect(cancel.stdout).toMatch(/^Status: +cancelled$/m)
    const again = await run(['receipt', 'cancel', receipt])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('cancelled')
  }, STEP_MS)

  test('receipt ack acknowledges as the member of the user token (the only workspace, or --workspace); a second ack names who did', async () => {
    const { receipt } = await alert()
    const ack = await run(['receipt', 'ack', receipt], { HERALD_USER_TOKEN: member.token })
    expect(ack.stderr).toBe('')
    expect(ack.code).toBe(0)
    expect(ack.stdout).toMatch(/^Status: +acknowledged$/m)
    expect(ack.stdout).toContain(member.email)
    const r = (await (await fetch(`${h.url}/receipts/${receipt}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json()) as Record<string, unknown>
    expect(r).toMatchObject({ status: 'acknowledged', acknowledgedVia: 'api', acknowledgedBy: { email: member.email } })
    const again = await run(['receipt', 'ack', receipt, '--workspace', ws.name], { HERALD_USER_TOKEN: member.token })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`already acknowledged by ${member.email}`)
  }, STEP_MS)

  test('refusals: a bad priority, duration or escalation, half an ack, no key or token, a malformed id (exit 2); ack bounds (exit 3)', async () => {
    for (const args of [
      ['send', 'x', '--priority', 'loud'],
      ['send', 'x', '--ttl', 'soon'],
      ['send', 'x', '--ack-retry', '60s'],
      ['send', 'x', '--ack-escalate', '10m:oncall'],
      ['send', 'x', '--ack-retry', '60s', '--ack-expire', '1h', '--ack-escalate', 'oncall'],
      ['receipt', 'show', 'nope'],
    ]) {
      const r = await run(args)
      expect({ args, code: r.code }).toEqual({ args, code: 2 })
      expect(r.stderr).toMatch(USAGE_ERROR)
      expect(r.stdout).toBe('')
    }
    const noToken = await run(['receipt', 'ack', '0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b'])
    expect(noToken.code).toBe(2)
    expect(noToken.stderr).toContain('HERALD_USER_TOKEN')
    // Herald checks the bounds: a retry under 30 s is the event refused, naming the field.
    const short = await run(['send', 'x', '--ack-retry', '5s', '--ack-expire', '1h'])
    expect(short.code).toBe(3)
    expect(short.stderr).toContain('retry')
  }, STEP_MS)
})
