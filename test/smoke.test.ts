import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { backends, startTestHerald, type TestHerald } from './harness'

describe.each(backends)('smoke on %s', (backend) => {
  let h: TestHerald
  beforeAll(async () => { h = await startTestHerald(backend) }, 30_000)
  afterAll(() => h?.close())
  test('post and read back', async () => {
    const { apiKey } = await h.workspace({ monthlyQuota: 3 })
    const r = await h.post(apiKey, { message: 'hi' })
    expect(r.status).toBe(200)
    const body = await r.json()
    expect(body.remainingQuota).toBe(2)
    const g = await fetch(`${h.url}/events/${body.eventId}`, { headers: { authorization: `Bearer ${apiKey}` } })
    expect(g.status).toBe(200)
    expect((await g.json()).message).toBe('hi')
  })
})
