// A live feed stream (GET /v1/feed/stream) lasts as long as the access it was
// opened with, on every backend: signing its session out, a password reset
// (which ends every session of the account) and removing its person from the
// workspace (by an owner, or by the operator) end it at once, not at the next
// heartbeat, and no event posted after that reaches it. What did not end
// keeps streaming: another session of the same person, the same person's
// stream of another workspace. And across instances: two API processes on
// one PostgreSQL and one NATS, where the change is made through one and the
// stream is held by the other.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { ADMIN_TOKEN, NATS_URL, describeJs, backends, createTestDatabase, deleteStream, useTestHerald, testStream } from '../harness'
import { PASSWORD, signUp, type Person } from '../users'
import { waitFor } from '../support'
import { spawnHerald, type HeraldProcess } from '../processes'
import { openFeedStream, type FeedStream } from '../feed_stream'

// At once: well under the 8 s heartbeat that used to be the only check.
const AT_ONCE_MS = 1000

/** Posts an event and answers its id. */
async function post(url: string, apiKey: string, message: string): Promise<string> {
  const res = await fetch(`${url}/event`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ message }) })
  expect(res.status).toBe(200)
  return ((await res.json()) as { eventId: string }).eventId
}

const received = (s: FeedStream, eventId: string) => waitFor(() => s.text.includes(eventId), 5000, `event ${eventId} on the stream`)

/** The stream ended at once, with its "ended" message, and never saw `after` (posted after the change). */
async function expectEndedAtOnce(s: FeedStream, url: string, apiKey: string) {
  const after = await post(url, apiKey, 'posted after the access ended')
  expect(await s.endsWithin(AT_ONCE_MS)).toBe(true)
  expect(s.text).toContain('event: ended')
  expect(s.text).not.toContain(after)
  expect(s.text).not.toContain('posted after the access ended')
}

for (const backend of backends) {
  describe(`a live stream ends with its access (${backend})`, () => {
    const open: FeedStream[] = []
    // Registered before the Herald's own afterAll: an open stream would hold its shutdown.
    afterAll(() => {
      for (const s of open) s.cancel()
    })
    const h = useTestHerald(backend)
    const stream = async (token: string, workspace: string) => {
      const s = await openFeedStream(h.url, token, `workspace=${workspace}`)
      open.push(s)
      return s
    }
    const keyOf = async (p: Person) => ((await (await p.call('POST', `/v1/workspaces/${p.workspace}/keys`, { name: 'stream' })).json()) as { apiKey: string }).apiKey

    test('signing out ends the streams of that session at once; another session of the same person keeps streaming', async () => {
      const p = await signUp(h)
      const key = await keyOf(p)
      const signin = await fetch(`${h.url}/v1/auth/signin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: p.email, password: PASSWORD }) })
      const other = ((await signin.json()) as { token: string }).token
      const [mine, theirs] = [await stream(p.token, p.workspace), await stream(other, p.workspace)]
      const before = await post(h.url, key, 'before')
      await Promise.all([received(mine, before), received(theirs, before)])

      expect((await p.call('POST', '/v1/auth/signout')).status).toBe(204)
      await expectEndedAtOnce(mine, h.url, key)
      const later = await post(h.url, key, 'for the session still signed in')
      await received(theirs, later)
      expect(await theirs.endsWithin(0)).toBe(false)
    })

    test('a password reset ends every stream of the account at once', async () => {
      const p = await signUp(h)
      const key = await keyOf(p)
      const signin = await fetch(`${h.url}/v1/auth/signin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: p.email, password: PASSWORD }) })
      const streams = [await stream(p.token, p.workspace), await stream(((await signin.json()) as { token: string }).token, p.workspace)]
      const asked = await fetch(`${h.url}/v1/auth/password-reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: p.email }) })
      expect(asked.status).toBe(202)
      let link = ''
      await waitFor(() => {
        const mail = h.mails!.findLast((m) => m.to.includes(p.email) && /\/reset\//.test(m.body))
        link = mail ? /\/reset\/([A-Za-z0-9_-]+)/.exec(mail.body)![1]! : ''
        return link !== ''
      }, 5000, 'the reset e-mail')
      const reset = await fetch(`${h.url}/v1/auth/password-reset/confirm`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: link, password: 'another long passphrase' }) })
      expect(reset.status).toBe(204)
      const after = await post(h.url, key, 'posted after the reset')
      expect(await Promise.all(streams.map((s) => s.endsWithin(AT_ONCE_MS)))).toEqual([true, true])
      for (const s of streams) expect(s.text).not.toContain(after)
    })

    test("removing a member ends their stream of that workspace at once (by an owner, and by the operator); their stream of another workspace goes on", async () => {
      const owner = await signUp(h)
      const key = await keyOf(owner)
      const elsewhere = await h.workspace()
      const email = `removed-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`
      const added = (await (await h.admin('POST', `/admin/workspaces/${owner.workspace}/members`, { email })).json()) as { userId: string; userToken: string }
      expect((await h.admin('POST', `/admin/workspaces/${elsewhere.name}/members`, { email })).status).toBe(201)

      const here = await stream(added.userToken, owner.workspace)
      const there = await stream(added.userToken, elsewhere.name)
      const before = await post(h.url, key, 'before the removal')
      await received(here, before)

      expect((await owner.call('DELETE', `/v1/workspaces/${owner.workspace}/members/${added.userId}`)).status).toBe(204)
      await expectEndedAtOnce(here, h.url, key)
      await received(there, await post(h.url, elsewhere.apiKey, 'still a member here'))
      expect(await there.endsWithin(0)).toBe(false)

      // The operator removing them from the other workspace ends that one too.
      expect((await h.admin('DELETE', `/admin/workspaces/${elsewhere.name}/members/${added.userId}`)).status).toBe(204)
      await expectEndedAtOnce(there, h.url, elsewhere.apiKey)
    })
  })
}

// Two API processes on one PostgreSQL and one JetStream: the change is made
// through one, the stream is held by the other.

describeJs('a live stream ends with its access on every instance (two API processes, PostgreSQL + NATS)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>
  let nats: string
  const procs: HeraldProcess[] = []
  const open: FeedStream[] = []
  let one: HeraldProcess
  let two: HeraldProcess
  const admin = (p: HeraldProcess, method: string, path: string, body?: unknown) =>
    fetch(p.url + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })

  beforeAll(async () => {
    db = await createTestDatabase()
    nats = testStream()
    const env = { DATABASE_URL: db.url, NATS_URL: NATS_URL!, NATS_STREAM: nats }
    procs.push((one = await spawnHerald(env, 'serve')))
    procs.push((two = await spawnHerald(env, 'serve')))
  }, 90_000)
  afterAll(async () => {
    for (const s of open) s.cancel()
    for (const p of procs) await p.kill('SIGTERM').catch(() => {})
    if (nats) await deleteStream(nats)
    await db?.drop()
  })

  /** A workspace made through instance one, a member of it, and that member's stream held by instance two. */
  const setUp = async (tag: string) => {
    const name = `${tag}-${randomBytes(3).toString('hex')}`
    const ws = await admin(one, 'POST', '/admin/workspaces', { name })
    expect(ws.status).toBe(201)
    const { apiKey } = (await ws.json()) as { apiKey: string }
    const added = await admin(one, 'POST', `/admin/workspaces/${name}/members`, { email: `${name}@example.com` })
    expect(added.status).toBe(201)
    const member = (await added.json()) as { userId: string; userToken: string }
    const s = await openFeedStream(two.url, member.userToken, `workspace=${name}`)
    open.push(s)
    // Events posted through instance one reach the stream on instance two.
    const before = await post(one.url, apiKey, 'before')
    await received(s, before)
    return { name, apiKey, member, stream: s }
  }

  test('removing a member through one instance ends their stream on the other at once', async () => {
    const { name, apiKey, member, stream } = await setUp('removal')
    expect((await admin(one, 'DELETE', `/admin/workspaces/${name}/members/${member.userId}`)).status).toBe(204)
    await expectEndedAtOnce(stream, one.url, apiKey)
  }, 30_000)

  test('signing out through one instance ends that session\'s stream on the other at once', async () => {
    const { apiKey, member, stream } = await setUp('signout')
    const out = await fetch(`${one.url}/v1/auth/signout`, { method: 'POST', headers: { authorization: `Bearer ${member.userToken}` } })
    expect(out.status).toBe(204)
    await expectEndedAtOnce(stream, one.url, apiKey)
  }, 30_000)
})
