// `to` from the surfaces a sender uses: `herald send --to` (repeatable, a
// child process) and the TypeScript client's `send({ to })`, against a real
// Herald: the members stored as the event's `to`, a non-member printed as a
// note and dropped, nobody left a refusal (exit 3, a HeraldError of 400).
import { beforeAll, describe, expect, test } from 'bun:test'
import { Herald, HeraldError } from '../../clients/typescript/src/index'
import { backends, useTestHerald } from '../harness'
import { herald } from './run'

const STEP_MS = 30_000

for (const backend of backends) describe(`sending to people from the CLI and the client (${backend})`, () => {
  const h = useTestHerald(backend)
  let ws: { name: string; apiKey: string }
  const members: { email: string; userId: string }[] = []
  const run = (args: string[]) => herald(args, { HERALD_URL: h.url, HERALD_KEY: ws.apiKey })
  const stored = async (id: string) => (await (await fetch(`${h.url}/events/${id}`, { headers: { authorization: `Bearer ${ws.apiKey}` } })).json()) as { to: string[] | null }
  beforeAll(async () => {
    ws = await h.workspace()
    for (const name of ['ana', 'ben']) {
      const email = `${name}.${Date.now()}@example.com`
      const res = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email, role: 'member' })
      expect(res.status).toBe(201)
      members.push({ email, userId: ((await res.json()) as { userId: string }).userId })
    }
  }, 30_000)

  test('herald send --to, repeated: by e-mail and by user id; a non-member is a note, and dropped', async () => {
    const r = await run(['send', 'Your export is ready', '--to', members[0]!.email.toUpperCase(), '--to', `user:${members[1]!.userId}`, '--to', 'stranger@example.com'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^note: to\[2\] \("stranger@example.com"\) is not a member of the workspace and was dropped$/m)
    const eventId = /Sent event (\S+) /.exec(r.stdout)![1]!
    expect((await stored(eventId)).to).toEqual([members[0]!.userId, members[1]!.userId])
  }, STEP_MS)

  test('herald send --to naming nobody who is a member is refused (exit 3), naming /to', async () => {
    const r = await run(['send', 'for nobody', '--to', 'stranger@example.com'])
    expect(r.code).toBe(3)
    expect(r.stderr).toContain('none of the recipients in to is a member')
  }, STEP_MS)

  test('the client sends to; a bad to is a HeraldError of 400 with its pointer', async () => {
    const client = new Herald({ apiKey: ws.apiKey, url: h.url })
    const a = await client.send({ message: 'for ana', to: [members[0]!.email] })
    expect(a.errors).toBeUndefined()
    expect((await stored(a.eventId)).to).toEqual([members[0]!.userId])
    const err = await client.send({ message: 'twice', to: [members[0]!.email, `user:${members[0]!.userId}`] }).then(() => null, (e: unknown) => e)
    expect(err).toBeInstanceOf(HeraldError)
    expect((err as HeraldError).status).toBe(400)
    expect((err as HeraldError).errors.map((e) => e.pointer)).toEqual(['/to/1'])
  })
})
