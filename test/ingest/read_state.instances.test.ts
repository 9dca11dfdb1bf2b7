// Read state across instances: two Heralds on one PostgreSQL and one NATS
// stream. A member marks events read on one; their live stream on the other
// says so within a second (the change is announced over the JetStream bus).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { NATS_URL, describeJs, startPipelineHerald, startTestHerald, type TestHerald } from '../harness'
import { bearerCall, PASSWORD, signUp, type Person } from '../users'

describeJs('read state across instances (PostgreSQL + JetStream)', () => {
  let a: TestHerald & { stream?: string }
  let b: TestHerald
  let owner: Person
  beforeAll(async () => {
    a = await startPipelineHerald('jetstream')
    b = await startTestHerald('postgres', { DATABASE_URL: a.databaseUrl!, NATS_URL: NATS_URL!, NATS_STREAM: a.stream! })
    owner = await signUp(a)
  }, 60_000)
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  test('a mark on one instance reaches the member\'s stream on the other within a second', async () => {
    const key = ((await (await owner.call('POST', `/v1/workspaces/${owner.workspace}/keys`, { name: 'k' })).json()) as { apiKey: string }).apiKey
    const { eventId } = (await (await a.post(key, { message: 'read me elsewhere' })).json()) as { eventId: string }
    const signin = await fetch(`${b.url}/v1/auth/signin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: owner.email, password: PASSWORD }) })
    const onB = bearerCall(b, ((await signin.json()) as { token: string }).token)
    const res = await onB('GET', `/v1/feed/stream?workspace=${owner.workspace}`)
    const reader = res.body!.getReader()
    let text = ''
    const until = async (f: (t: string) => boolean, ms: number) => {
      const end = Date.now() + ms
      while (!f(text)) {
        if (Date.now() > end) throw new Error(`stream: ${text}`)
        const { value, done } = await Promise.race([reader.read(), Bun.sleep(Math.max(1, end - Date.now())).then(() => ({ value: undefined, done: true }))])
        if (done) break
        text += new TextDecoder().decode(value)
      }
    }
    await until((t) => t.includes(': watching'), 10_000)
    const t0 = Date.now()
    expect((await owner.call('POST', `/v1/workspaces/${owner.workspace}/feed/read`, { eventIds: [eventId] })).status).toBe(200)
    await until((t) => t.includes('event: read'), 1000)
    expect(Date.now() - t0).toBeLessThan(1000)
    const msg = text.split('\n\n').find((m) => m.includes('event: read'))!
    expect(JSON.parse(msg.split('data: ')[1]!)).toEqual({ eventIds: [eventId], status: 'read' })
    await reader.cancel()
  })
})
