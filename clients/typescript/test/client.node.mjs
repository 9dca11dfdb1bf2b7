// The built package (dist/) under Node, against a real Herald: send, enqueue
// and flush, and a HeraldError with its fields.
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, test } from 'node:test'
import { Herald, HeraldError } from '../dist/index.js'
import { startHerald } from './herald.mjs'

let server
before(async () => {
  server = await startHerald()
})
after(() => server?.stop())

test('send returns the 200 body', async () => {
  const herald = new Herald({ apiKey: server.apiKey, url: server.url })
  const accepted = await herald.send({ message: 'Jane signed up', event: 'user.signup', channel: 'signups' })
  assert.equal(accepted.channel, 'signups')
  assert.match(accepted.eventId, /^[0-9a-f-]{36}$/)
  assert.equal(typeof accepted.remainingQuota, 'number')
  assert.deepEqual(herald.stats, { sent: 1, failed: 0, retried: 0, dropped: 0, rateLimited: 0 })
})

test('enqueue batches in the background; flush drains it, results in order', async () => {
  const herald = new Herald({ apiKey: server.apiKey, url: server.url, flushIntervalMs: 60_000 })
  const queued = await Promise.all(Array.from({ length: 25 }, (_, i) => herald.enqueue({ message: `event ${i}` })))
  await herald.flush()
  const outcomes = await Promise.all(queued.map((q) => q.result))
  assert.ok(outcomes.every((o) => o.ok))
  const ids = outcomes.map((o) => o.value.eventId)
  assert.deepEqual([...ids].sort(), ids, 'UUIDv7s in request order')
  assert.deepEqual(herald.stats, { sent: 25, failed: 0, retried: 0, dropped: 0, rateLimited: 0 })
  await herald.close()
})

test('a refused event is a HeraldError with its type, status and pointers', async () => {
  const herald = new Herald({ apiKey: server.apiKey, url: server.url })
  await assert.rejects(herald.send({ message: '' }), (err) => {
    assert.ok(err instanceof HeraldError)
    assert.equal(err.status, 400)
    assert.equal(err.type, 'https://herald.dev/problems/validation-failed')
    assert.equal(err.title, 'Validation Failed')
    assert.deepEqual(err.errors.map((e) => e.pointer), ['/message'])
    return true
  })
  const bad = new Herald({ apiKey: 'hrld_wrongwrongwrongwrongwrongwrongwrong', url: server.url })
  await assert.rejects(bad.send({ message: 'x' }), (err) => err instanceof HeraldError && err.status === 401)
})

test('an enqueued event Herald refuses goes to onError, the others are stored', async () => {
  const given = []
  const herald = new Herald({ apiKey: server.apiKey, url: server.url, onError: (err, event) => given.push([err.status, event.message]) })
  const [ok, refused] = await Promise.all([herald.enqueue({ message: 'fine' }), herald.enqueue({ message: 'bad', link: 'javascript:alert(1)' })])
  await herald.close()
  assert.equal((await ok.result).ok, true)
  const outcome = await refused.result
  assert.equal(outcome.ok, false)
  assert.deepEqual(outcome.error.errors.map((e) => e.pointer), ['/events/1/link'])
  assert.deepEqual(given, [[400, 'bad']])
})

test('no answer under Node says why: a refused connection and a host that does not resolve', async () => {
  // A port nothing listens on (port 1 would not do: Node's fetch refuses it as a "bad port" before connecting).
  const closed = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
  const refused = new Herald({ apiKey: 'hrld_x', url: `http://127.0.0.1:${closed}`, retry: { maxAttempts: 1 } })
  await assert.rejects(refused.send({ message: 'x' }), (err) => err instanceof HeraldError && err.status === 0 && err.kind === 'connection-refused' && /ECONNREFUSED/.test(err.detail))
  const dns = new Herald({ apiKey: 'hrld_x', url: 'http://herald-no-such-host.invalid', retry: { maxAttempts: 1 } })
  await assert.rejects(dns.send({ message: 'x' }), (err) => err instanceof HeraldError && err.kind === 'dns-failed' && /ENOTFOUND/.test(err.detail))
})

test('a scheduled event: send with delay or a Date, list it, cancel it', async () => {
  const herald = new Herald({ apiKey: server.apiKey, url: server.url })
  const at = new Date(Date.now() + 3600_000)
  const a = await herald.send({ message: 'later', deliverAt: at })
  assert.equal(Date.parse(a.scheduledFor), at.getTime())
  const b = await herald.send({ message: 'sooner', delay: '30m' })
  const page = await herald.scheduled({ limit: 1 })
  assert.deepEqual(page.events.map((e) => e.eventId), [b.eventId])
  const ids = []
  for await (const e of herald.allScheduled()) ids.push(e.eventId)
  assert.deepEqual(ids, [b.eventId, a.eventId])
  assert.deepEqual(await herald.cancel(a.eventId), { eventId: a.eventId, status: 'cancelled', scheduledFor: a.scheduledFor })
  await assert.rejects(herald.cancel('0197a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b'), (err) => err instanceof HeraldError && err.status === 404)
})
