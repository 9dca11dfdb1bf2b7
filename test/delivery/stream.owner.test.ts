// One NATS, two Herald databases, one NATS_STREAM: a careless operator's
// staging and production, or a database created anew beside an old stream.
// Workspace ids are per database, so a worker that took the other database's
// events would deliver them through the wrong workspace's routers. The stream
// carries its database's id; a Herald on another database refuses to start,
// saying why and what to do, and the stream's events stay where they are.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect, type NatsConnection } from '@nats-io/transport-node'
import postgres from 'postgres'
import { NATS_URL, describeJs, createTestDatabase, deleteStream, testStream } from '../harness'
import { spawnHerald, type HeraldProcess } from '../processes'

describeJs('a stream belongs to one Herald database', () => {
  const dbs: Awaited<ReturnType<typeof createTestDatabase>>[] = []
  const streams: string[] = []
  const procs: HeraldProcess[] = []
  let nc: NatsConnection

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL! })
  })
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')))
    await nc?.close()
    for (const s of streams) await deleteStream(s)
    for (const db of dbs) await db.drop()
  })

  const database = async () => {
    const db = await createTestDatabase()
    dbs.push(db)
    return db
  }
  const stream = () => {
    const s = testStream()
    streams.push(s)
    return s
  }
  const start = async (db: { url: string }, name: string, cmd: 'serve' | 'worker' = 'serve') => {
    const p = await spawnHerald({ DATABASE_URL: db.url, NATS_URL: NATS_URL!, NATS_STREAM: name }, cmd)
    procs.push(p)
    return p
  }
  const refusal = (p: Promise<unknown>) => p.then(() => expect.unreachable('it started'), (err: Error) => err.message)
  const idOf = async (db: { url: string }) => {
    const sql = postgres(db.url, { max: 1, onnotice: () => {} })
    try {
      return (await sql<{ id: string }[]>`SELECT id::text AS id FROM herald_instance`)[0]!.id
    } finally {
      await sql.end()
    }
  }
  const description = async (name: string) => (await (await jetstreamManager(nc)).streams.info(name)).config.description

  test('the first Herald marks the stream; its own serve and worker share it; another database is refused by name', async () => {
    const [a, b] = [await database(), await database()]
    const name = stream()
    await start(a, name)
    const mine = await idOf(a)
    expect(await description(name)).toBe(`Herald: the events of database ${mine}`)
    await start(a, name, 'worker')

    const message = await refusal(start(b, name))
    expect(message).toContain('Herald exited with 1')
    expect(message).toContain(`the JetStream stream ${name} (NATS_STREAM) holds the events of another Herald database (${mine}), not this one's (${await idOf(b)})`)
    expect(message).toContain('give each Herald its own NATS_STREAM')
    expect(message).toContain(`nats stream rm ${name}`)
    // Still the first database's, and the worker of another database never consumed from it.
    expect(await description(name)).toBe(`Herald: the events of database ${mine}`)
  }, 60_000)

  test('a database created anew beside an old stream with events waiting is refused, and the events stay', async () => {
    const old = await database()
    const name = stream()
    const first = await start(old, name)
    // Events published while no worker consumes: they wait in the stream.
    const res = await fetch(`${first.url}/admin/workspaces`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'old-one' }),
    })
    const { apiKey } = (await res.json()) as { apiKey: string }
    for (let i = 0; i < 3; i++) {
      const sent = await fetch(`${first.url}/event`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: `old ${i}` }) })
      expect(sent.status).toBe(200)
    }
    const jsm = await jetstreamManager(nc)
    for (let i = 0; (await jsm.streams.info(name)).state.messages < 3; i++) {
      if (i > 200) throw new Error('the events never reached the stream')
      await Bun.sleep(25)
    }
    await first.kill('SIGTERM')

    const fresh = await database()
    const message = await refusal(start(fresh, name, 'worker'))
    expect(message).toContain(`if that stream's 3 waiting events are not wanted any more, delete it (nats stream rm ${name})`)
    expect((await jsm.streams.info(name)).state.messages).toBe(3)
  }, 60_000)

  test('a stream made before streams carried their database is claimed by the first Herald to start on it', async () => {
    const [a, b] = [await database(), await database()]
    const name = stream()
    const jsm = await jetstreamManager(nc)
    await jsm.streams.add({ name, subjects: [`herald.${name}.>`] })
    expect((await jsm.streams.info(name)).config.description).toBeUndefined()
    await start(a, name)
    expect(await description(name)).toBe(`Herald: the events of database ${await idOf(a)}`)
    expect(await refusal(start(b, name))).toContain('holds the events of another Herald database')
  }, 60_000)

  test('two databases start on a new stream at once: one starts, the other is refused', async () => {
    const [a, b] = [await database(), await database()]
    const name = stream()
    const outcomes = await Promise.allSettled([start(a, name), start(b, name)])
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult
    expect((refused.reason as Error).message).toContain('holds the events of another Herald database')
  }, 60_000)
})
