// `herald send --at | --in` and `herald scheduled list|cancel`, run as child
// processes against a real Herald: the scheduled time printed and stored,
// the usage errors (both flags, a time without an offset, a bad duration),
// the list soonest first and paged, a cancel (again on a repeat), and a
// cancel once the event went out (exit 3, Herald's words).
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { herald, USAGE_ERROR } from './run'
import { timeUntil } from '../../src/cli/output'

const STEP_MS = 40_000
const SCHEDULED = /^Scheduled event ([0-9a-f-]{36}) for (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC \(in (\S+(?: \S+)?)\) to workspace /m

test('timeUntil: two units at most, now once due', () => {
  const now = Date.parse('2030-01-01T00:00:00Z')
  const at = (s: number) => new Date(now + s * 1000).toISOString()
  expect([at(-5), at(0), at(9), at(90), at(1799), at(3600), at(7325), at(90000)].map((i) => timeUntil(i, now))).toEqual(['now', 'now', '9s', '1m 30s', '29m 59s', '1h', '2h 2m', '1d 1h'])
})

for (const backend of backends) describe(`herald send --at/--in and herald scheduled (${backend})`, () => {
  const h = useTestHerald(backend)
  let ws: { name: string; apiKey: string }
  const run = (args: string[], env: Record<string, string> = {}) => herald(args, { HERALD_URL: h.url, HERALD_KEY: ws.apiKey, ...env })
  beforeAll(async () => {
    ws = await h.workspace()
  }, 30_000)

  test('send --in and --at print the scheduled time; Herald stores it; the usage errors send nothing', async () => {
    const r = await run(['send', 'Maintenance starts', '--in', '30m'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const [, id, when, inText] = SCHEDULED.exec(r.stdout)!
    expect(inText).toMatch(/^(29m 5\ds|30m)$/)
    expect(r.stdout).toContain(`herald scheduled cancel ${id}`)
    const stored = (await (await fetch(`${h.url}/events/${id}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json()) as { status: string; scheduledFor: string }
    expect(stored.status).toBe('scheduled')
    expect(stored.scheduledFor.slice(0, 19).replace('T', ' ')).toBe(when!)
    const at = new Date(Math.ceil((Date.now() + 3600_000) / 1000) * 1000)
    const j = await run(['send', 'New year', '--at', at.toISOString().replace('.000Z', '+00:00'), '--json'])
    expect(j.code).toBe(0)
    expect(Date.parse((JSON.parse(j.stdout) as { scheduledFor: string }).scheduledFor)).toBe(at.getTime())
    for (const args of [['--at', '2030-01-01T09:00:00Z', '--in', '5m'], ['--at', '2030-01-01T09:00:00'], ['--at', 'tomorrow'], ['--in', '1.5h']]) {
      const bad = await run(['send', 'x', ...args])
      expect({ args, code: bad.code, stdout: bad.stdout }).toEqual({ args, code: 2, stdout: '' })
      expect(bad.stderr).toMatch(USAGE_ERROR)
    }
    // Too soon: Herald's 400, exit 3, naming the field's rule.
    const soon = await run(['send', 'x', '--in', '5'])
    expect(soon.code).toBe(3)
    expect(soon.stderr).toContain('delay must be')
  }, STEP_MS)

  test('scheduled list: soonest first, paged with --limit and --cursor, --all, --json; scheduled cancel, twice; then it is gone', async () => {
    const all = await run(['scheduled', 'list'])
    expect(all.code).toBe(0)
    const lines = all.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^GOES OUT \(UTC\)\s+IN\s+EVENT\s+CHANNEL\s+TO\s+MESSAGE$/)
    expect(lines.slice(1).map((l) => /(Maintenance starts|New year)$/.exec(l)?.[1])).toEqual(['Maintenance starts', 'New year'])
    const first = await run(['scheduled', 'list', '--limit', '1'])
    const more = /^More: herald scheduled list --cursor (\S+)$/m.exec(first.stdout)![1]!
    const second = await run(['scheduled', 'list', '--limit', '1', '--cursor', more, '--json'])
    const page = JSON.parse(second.stdout) as { events: { eventId: string; message: string }[]; nextCursor: string | null }
    expect(page.events.map((e) => e.message)).toEqual(['New year'])
    const every = JSON.parse((await run(['scheduled', 'list', '--all', '--limit', '1', '--json'])).stdout) as { eventId: string; message: string }[]
    expect(every.map((e) => e.message)).toEqual(['Maintenance starts', 'New year'])

    const id = every[1]!.eventId
    for (let i = 0; i < 2; i++) {
      const c = await run(['scheduled', 'cancel', id])
      expect(c.stderr).toBe('')
      expect(c.stdout).toMatch(new RegExp(`^Cancelled event ${id}: it was to go out at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC, and never will\\.`))
    }
    const after = JSON.parse((await run(['scheduled', 'list', '--all', '--json'])).stdout) as { eventId: string }[]
    expect(after.map((e) => e.eventId)).not.toContain(id)
    const bad = await run(['scheduled', 'cancel', 'nope'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(USAGE_ERROR)
    const missing = await run(['scheduled', 'cancel', '0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b'])
    expect(missing.code).toBe(3)
  }, STEP_MS)

  // Waits 10 s for the event to go out: on one database only, as what it checks is this side's reading of the 409 (the race itself is tested on both in test/ingest/events.scheduled.test.ts).
  if (backend === backends[0]) test('scheduled cancel once it went out: exit 3 with Herald\'s words; an empty list explains how to schedule', async () => {
    const other = await h.workspace()
    const env = { HERALD_KEY: other.apiKey }
    const empty = await run(['scheduled', 'list'], env)
    expect(empty.stdout).toContain('herald send --in 30m')
    const sent = JSON.parse((await run(['send', 'soon', '--in', '10', '--json'], env)).stdout) as { eventId: string }
    await Bun.sleep(11_000)
    let r = await run(['scheduled', 'cancel', sent.eventId], env)
    for (let i = 0; i < 20 && r.code === 0; i++) {
      await Bun.sleep(250)
      r = await run(['scheduled', 'cancel', sent.eventId], env)
    }
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/^error: This event went out at .+: it can no longer be cancelled\./)
  }, STEP_MS)
})
