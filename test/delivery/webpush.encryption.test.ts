// Herald's Web Push encryption (src/delivery/push/ece.ts, RFC 8291) and VAPID
// tokens (src/delivery/push/vapid.ts), held against three things that share
// no code with them:
// 1. RFC 8291's own test vector (Appendix A), byte for byte;
// 2. the push service stand-in (test/web_push_service.ts), which opens every
//    push with WebCrypto as a browser does, for payloads of every size up to
//    the limit and fresh subscriptions;
// 3. the third-party `web-push-testing` server (npm), which checks the VAPID
//    JWT against the key the subscription was made with and decrypts with
//    http_ece: a real Herald pushes an event to one of its subscriptions,
//    through a TLS proxy on loopback, as docs/push.md says to run a push
//    service that speaks plain HTTP.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createECDH, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { encryptPush, OVERHEAD_BYTES } from '../../src/delivery/push/ece'
import { generateVapidPair, vapidAuthorization, vapidPairProblem } from '../../src/delivery/push/vapid'
import { MAX_PAYLOAD_BYTES } from '../../src/delivery/push/webpush'
import { startTestHerald, type TestHerald } from '../harness'
import { eventually } from '../receiver'
import { CA_FILE, tlsDir } from '../stand_ins'
import { startPushService, type PushService } from '../web_push_service'
import { freePort } from '../faults/private_nats'

setDefaultTimeout(30_000)
const b64 = (s: string) => Buffer.from(s, 'base64url')

describe('RFC 8291 encryption', () => {
  test('Appendix A: the test vector, byte for byte', () => {
    const body = encryptPush(
      Buffer.from('When I grow up, I want to be a watermelon'),
      { publicKey: b64('BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4'), auth: b64('BTBZMqHH6r4Tts7J_aSIgg') },
      { privateKey: b64('yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw'), salt: b64('DGv6ra1nlYgDCS1FRnbzlw') },
    )
    expect(body.toString('base64url')).toBe(
      'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
    )
  })

  test('every message has its own key pair and salt', () => {
    const ua = createECDH('prime256v1')
    const to = { publicKey: ua.generateKeys(), auth: randomBytes(16) }
    const bodies = Array.from({ length: 50 }, () => encryptPush(Buffer.from('same text'), to))
    expect(new Set(bodies.map((b) => b.subarray(0, 16).toString('hex'))).size).toBe(50) // salt
    expect(new Set(bodies.map((b) => b.subarray(21, 86).toString('hex'))).size).toBe(50) // the sender's public key
    for (const b of bodies) expect([b.readUInt32BE(16), b[20], b[21], b.length]).toEqual([4096, 65, 4, OVERHEAD_BYTES + 9])
  })

  test('refused: a payload past one record, a key off the curve', () => {
    const to = { publicKey: createECDH('prime256v1').generateKeys(), auth: randomBytes(16) }
    expect(encryptPush(Buffer.alloc(MAX_PAYLOAD_BYTES), to).length).toBe(4096)
    expect(() => encryptPush(Buffer.alloc(MAX_PAYLOAD_BYTES + 1), to)).toThrow(RangeError)
    expect(() => encryptPush(Buffer.from('x'), { publicKey: Buffer.concat([Buffer.from([4]), randomBytes(64)]), auth: randomBytes(16) })).toThrow()
  })
})

describe('the push service stand-in opens every push', () => {
  let service: PushService
  const vapid = { ...generateVapidPair(), subject: 'mailto:ops@example.com', ttlSeconds: 60 }
  beforeAll(() => {
    service = startPushService({ vapidPublicKey: vapid.publicKey, verify: 'all' })
  })
  afterAll(() => service?.stop())

  test('300 pushes: payloads of 0 to 3,993 bytes, multibyte text, 30 subscriptions; each decrypts to what was sent', async () => {
    const subs = await Promise.all(Array.from({ length: 30 }, () => service.newSubscription({ applicationServerKey: vapid.publicKey })))
    const sent: string[] = []
    for (let i = 0; i < 300; i++) {
      const sub = subs[i % subs.length]!
      // Sizes over the whole range, the limit itself among them; some in 3-byte characters.
      const size = i === 0 ? MAX_PAYLOAD_BYTES : Math.floor((i / 300) * MAX_PAYLOAD_BYTES)
      const text = i % 3 === 0 ? '€'.repeat(Math.floor(size / 3)) : 'x'.repeat(size)
      const body = encryptPush(Buffer.from(text), { publicKey: b64(sub.keys.p256dh), auth: b64(sub.keys.auth) })
      const res = await fetch(sub.endpoint, {
        method: 'POST',
        headers: { authorization: vapidAuthorization(vapid, service.origin), 'content-encoding': 'aes128gcm', ttl: '60' },
        body,
        tls: { ca: readFileSync(CA_FILE, 'utf8') },
      } as RequestInit)
      expect(res.status).toBe(201)
      sent.push(text)
    }
    expect(service.problems).toEqual([])
    expect(service.received.map((r) => r.text)).toEqual(sent)
  })

  test('a generated VAPID pair is a pair, and the stand-in verifies its tokens', () => {
    for (let i = 0; i < 50; i++) {
      const pair = generateVapidPair()
      expect([b64(pair.publicKey).length, b64(pair.privateKey).length]).toEqual([65, 32])
      expect(vapidPairProblem(pair.publicKey, pair.privateKey)).toBeNull()
    }
    expect(service.verifications).toBeGreaterThan(0)
  })
})

describe('the third-party web-push-testing server takes a push from Herald', () => {
  let herald: TestHerald
  let server: Bun.Subprocess<'ignore', 'pipe', 'inherit'>
  let proxy: ReturnType<typeof Bun.serve>
  let upstream = ''
  // The RFC 8030 headers of each push as it passed the proxy on its way to web-push-testing (which checks TTL, but shows none of them).
  const forwarded: { ttl: string | null; urgency: string | null; topic: string | null; status: number }[] = []
  beforeAll(async () => {
    // web-push-testing is a Node program speaking plain HTTP on localhost: it runs under Node, behind a TLS proxy.
    const port = await freePort()
    server = Bun.spawn(['node', join(import.meta.dir, '../../node_modules/web-push-testing/src/bin/server.js'), String(port)], { stdin: 'ignore', stdout: 'pipe', stderr: 'inherit' })
    const reader = server.stdout.getReader()
    let out = ''
    while (!out.includes('Server running')) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`web-push-testing did not start: ${out}`)
      out += new TextDecoder().decode(value)
    }
    upstream = `http://127.0.0.1:${port}`
    proxy = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      tls: { key: readFileSync(join(tlsDir, 'key.pem'), 'utf8'), cert: readFileSync(join(tlsDir, 'cert.pem'), 'utf8') },
      fetch: async (req) => {
        const url = new URL(req.url)
        const res = await fetch(upstream + url.pathname, { method: req.method, headers: req.headers, body: await req.arrayBuffer() })
        forwarded.push({ ttl: req.headers.get('ttl'), urgency: req.headers.get('urgency'), topic: req.headers.get('topic'), status: res.status })
        return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers })
      },
    })
    herald = await startTestHerald('embedded', { HERALD_OUTBOUND_ALLOW: '127.0.0.1/32', WEB_PUSH_SUBJECT: 'mailto:ops@example.com', NODE_EXTRA_CA_CERTS: CA_FILE })
  }, 60_000)
  afterAll(async () => {
    await herald?.close()
    proxy?.stop(true)
    server?.kill()
  })

  const call = async (path: string, body: object) => {
    const res = await fetch(upstream + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown>; error?: { message: string } } }
  }

  test("it verifies Herald's VAPID token, decrypts the push, and holds the event's payload", async () => {
    const { publicKey } = (await (await fetch(`${herald.url}/v1/push/vapid-public-key`)).json()) as { publicKey: string }
    const subscribed = await call('/subscribe', { applicationServerKey: publicKey, userVisibleOnly: 'true' })
    expect(subscribed.status).toBe(200)
    const sub = subscribed.body.data as { endpoint: string; keys: { p256dh: string; auth: string }; clientHash: string }
    // Its endpoint names localhost and its plain-HTTP port: the browser would hold the proxy's https URL instead.
    const endpoint = `https://127.0.0.1:${proxy.port}${new URL(sub.endpoint).pathname}`
    const ws = await herald.workspace()
    const member = (await (await herald.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: `wpt-${Date.now()}@example.com` })).json()) as { userToken: string }
    const device = await fetch(`${herald.url}/v1/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'webpush', platform: 'web', subscription: { endpoint, expirationTime: null, keys: sub.keys } }),
    })
    expect(device.status).toBe(201)
    const posted = await herald.post(ws.apiKey, { message: 'Checked by a push service Herald did not write ✅', title: 'Third party', event: 'wpt.check' })
    expect(posted.status).toBe(200)
    const { eventId } = (await posted.json()) as { eventId: string }
    const messages = await eventually(async () => {
      const got = await call('/get-notifications', { clientHash: sub.clientHash })
      const list = (got.body.data?.messages ?? []) as string[]
      return list.length ? list : null
    }, 15_000, 'the push at web-push-testing')
    expect(messages).toHaveLength(1)
    expect(JSON.parse(messages[0]!)).toMatchObject({ v: 1, eventId, workspace: ws.name, title: 'Third party', body: 'Checked by a push service Herald did not write ✅', event: 'wpt.check' })
  })
  test("Urgency, TTL and Topic of the event's priority, ttl and collapse key reach it, and it takes the push", async () => {
    const { publicKey } = (await (await fetch(`${herald.url}/v1/push/vapid-public-key`)).json()) as { publicKey: string }
    const sub = (await call('/subscribe', { applicationServerKey: publicKey, userVisibleOnly: 'true' })).body.data as { endpoint: string; keys: { p256dh: string; auth: string }; clientHash: string }
    const endpoint = `https://127.0.0.1:${proxy.port}${new URL(sub.endpoint).pathname}`
    const ws = await herald.workspace()
    const member = (await (await herald.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: `wpt2-${Date.now()}@example.com` })).json()) as { userToken: string }
    const device = await fetch(`${herald.url}/v1/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'webpush', platform: 'web', subscription: { endpoint, expirationTime: null, keys: sub.keys } }),
    })
    expect(device.status).toBe(201)
    forwarded.length = 0
    const sent: { body: object; urgency: string; ttl: RegExp; topic: (eventId: string) => string }[] = [
      { body: { message: 'urgent', priority: 'urgent', ttl: '10m', collapseKey: 'db-1_disk' }, urgency: 'high', ttl: /^(599|600)$/, topic: () => 'db-1_disk' },
      { body: { message: 'min', priority: 1 }, urgency: 'very-low', ttl: /^86400$/, topic: (id) => id.replaceAll('-', '') },
      { body: { message: 'default', ttl: 0 }, urgency: 'normal', ttl: /^0$/, topic: (id) => id.replaceAll('-', '') },
    ]
    for (const [i, s] of sent.entries()) {
      const posted = await herald.post(ws.apiKey, s.body)
      expect(posted.status).toBe(200)
      const { eventId } = (await posted.json()) as { eventId: string }
      const messages = await eventually(async () => {
        const list = ((await call('/get-notifications', { clientHash: sub.clientHash })).body.data?.messages ?? []) as string[]
        return list.length > i ? list : null
      }, 15_000, 'the push at web-push-testing')
      expect(JSON.parse(messages[i]!)).toMatchObject({ eventId, priority: (s.body as { priority?: unknown }).priority === 'urgent' ? 5 : ((s.body as { priority?: number }).priority ?? 3) })
      const at = forwarded[i]!
      expect(at).toMatchObject({ urgency: s.urgency, topic: s.topic(eventId), status: 201 })
      expect(at.ttl).toMatch(s.ttl)
    }
  })
})
