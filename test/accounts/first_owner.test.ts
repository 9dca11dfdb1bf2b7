// On a fresh embedded install, the demo workspace made at first start waits
// for an owner: the first account to sign up takes it, so the events posted
// with its key before anyone signed up are in that person's feed. Two
// sign-ups at once: one owner. With PostgreSQL no demo is made, and none waits.
import { afterEach, describe, expect, test } from 'bun:test'
import { createTestDatabase, describePg, startTestHerald, type TestHerald } from '../harness'
import postgres from 'postgres'
import { loadConfig } from '../../src/core/config'
import { createLogger } from '../../src/core/log'
import { startHerald } from '../../src/server'
import { PASSWORD, newEmail, signUp } from '../users'

let h: TestHerald | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const signupInfo = async (h: TestHerald) => (await (await fetch(`${h.url}/v1/auth/signup`)).json()) as { signup: string; anyAccount: boolean; waitingWorkspace: string | null }

/** A key of the demo workspace, made through the operator API (the banner's key is printed, not returned). */
async function demoKey(h: TestHerald): Promise<string> {
  const res = await h.admin('POST', '/admin/workspaces/demo/keys', { name: 'test' })
  expect(res.status).toBe(201)
  return ((await res.json()) as { apiKey: string }).apiKey
}

describe('the demo workspace and its first owner (embedded)', () => {
  test('the first account owns demo and reads the event posted before it existed; the second gets a workspace of its own', async () => {
    h = await startTestHerald('embedded', { HERALD_DEMO_WORKSPACE: 'true' })
    expect(await signupInfo(h)).toEqual({ signup: 'open', anyAccount: false, waitingWorkspace: 'demo' })
    const key = await demoKey(h)
    const posted = await fetch(`${h.url}/event`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'before anyone signed up' }) })
    expect(posted.status).toBe(200)
    const { eventId } = (await posted.json()) as { eventId: string }

    const first = await signUp(h)
    expect(first.workspace).toBe('demo')
    const feed = (await (await first.call('GET', '/v1/feed?workspace=demo')).json()) as { events: { eventId: string; message: string }[] }
    expect(feed.events.map((e) => e.eventId)).toContain(eventId)
    const me = (await (await first.call('GET', '/v1/me')).json()) as { workspaces: { workspace: string; role: string }[] }
    expect(me.workspaces).toEqual([expect.objectContaining({ workspace: 'demo', role: 'owner' })])
    // Nobody can sign in until someone has signed up; that is all the answer tells of the accounts.
    expect(await signupInfo(h)).toEqual({ signup: 'open', anyAccount: true, waitingWorkspace: null })

    const second = await signUp(h)
    expect(second.workspace).not.toBe('demo')
    expect((await second.call('GET', '/v1/feed?workspace=demo')).status).toBe(404)
  }, 30_000)

  test('a first account that names a workspace owns demo and that one too', async () => {
    h = await startTestHerald('embedded', { HERALD_DEMO_WORKSPACE: 'true' })
    const first = await signUp(h, { workspace: 'acme' })
    expect(first.workspace).toBe('demo')
    const me = (await (await first.call('GET', '/v1/me')).json()) as { workspaces: { workspace: string; role: string }[] }
    expect(me.workspaces.map((w) => `${w.workspace}:${w.role}`).sort()).toEqual(['acme:owner', 'demo:owner'])
  }, 30_000)

  test('two first sign-ups at once: exactly one owns demo, the other gets its own workspace, nothing fails', async () => {
    h = await startTestHerald('embedded', { HERALD_DEMO_WORKSPACE: 'true' })
    const answers = await Promise.all([newEmail('a'), newEmail('b')].map((email) =>
      fetch(`${h!.url}/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) })))
    const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, body: (await r.json()) as { workspace?: string } })))
    // Exactly one is "the first account" (201); the other waits for its link (202).
    expect(bodies.map((b) => b.status).sort()).toEqual([201, 202])
    expect(bodies.filter((b) => b.body.workspace === 'demo')).toHaveLength(1)
    const owners = await h.admin('GET', '/admin/workspaces/demo/members')
    expect(owners.status).toBe(200)
    const members = (await owners.json()) as { members?: { role: string }[] } | { role: string }[]
    const list = Array.isArray(members) ? members : members.members ?? []
    expect(list.filter((m) => m.role === 'owner')).toHaveLength(1)
  }, 30_000)
})

describePg('no demo waits with PostgreSQL', () => {
  test('sign-up info says no workspace waits, and the first account gets a workspace of its own', async () => {
    h = await startTestHerald('postgres', { HERALD_DEMO_WORKSPACE: 'true' })
    expect(await signupInfo(h)).toEqual({ signup: 'open', anyAccount: false, waitingWorkspace: null })
  }, 30_000)
})

describePg('the first account on PostgreSQL with two instances', () => {
  test('sign-ups at once on both instances of a fresh database: exactly one is the first (201), the rest get a link (202)', async () => {
    for (let round = 0; round < 3; round++) {
      const db = await createTestDatabase()
      const start = () => {
        const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: db.url, HERALD_DATA_DIR: 'memory://', LOG_LEVEL: 'silent', SMTP_URL: 'smtp://127.0.0.1:9' })
        return startHerald(config, createLogger('silent'), 'all', { banner: false })
      }
      const [a, b] = await Promise.all([start(), start()])
      // Workspaces are locked against inserts for a moment, as a slow disk
      // would hold them: every sign-up that has decided it is the first then
      // waits inside its transaction, so the decisions overlap.
      const locker = postgres(db.url, { max: 1, onnotice: () => {} })
      let locked!: () => void
      const held = new Promise<void>((r) => (locked = r))
      const lock = locker.begin(async (tx) => {
        await tx`LOCK TABLE workspaces IN EXCLUSIVE MODE`
        locked()
        await Bun.sleep(1500)
      })
      await held
      try {
        const answers = await Promise.all(Array.from({ length: 8 }, (_, i) =>
          fetch(`${(i % 2 ? a : b).url}/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: newEmail(`r${round}-${i}`), password: PASSWORD }) })
            .then((r) => r.status)))
        expect(answers.filter((s) => s === 201)).toHaveLength(1)
        expect(answers.filter((s) => s === 202)).toHaveLength(7)
      } finally {
        await lock.catch(() => {})
        await locker.end()
        await Promise.all([a.stop(), b.stop()])
        await db.drop()
      }
    }
  }, 60_000)
})
