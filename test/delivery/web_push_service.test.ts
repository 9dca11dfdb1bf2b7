// The Web Push service stand-in (test/web_push_service.ts) against the web-push
// library, the sender most servers use: what web-push sends is accepted and
// decrypts to exactly what was sent, and every kind of bad push (a token for
// another audience, expired or too long-lived, badly signed or from another
// key; a missing TTL, another encoding, too large a body, altered ciphertext, a
// subscription it never made) is refused with a problem on record. Otherwise a
// test that finds no problems there would prove nothing.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { createCipheriv, createECDH, generateKeyPairSync, hkdfSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { readFileSync } from 'node:fs'
import webpush, { type RequestOptions } from 'web-push'
import { CA_FILE } from '../stand_ins'
import { MAX_PUSH_BYTES, startPushService, type PushService, type WebPushSubscription } from '../web_push_service'

const CA = readFileSync(CA_FILE, 'utf8')
const SUBJECT = 'mailto:ops@herald.test'
const push = startPushService()
afterAll(() => push.stop())
beforeEach(() => push.reset())

/** A VAPID key pair as web-push takes it (base64url raw point and scalar), and as a node:crypto key to sign by hand. */
function vapidKeys() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const jwk = privateKey.export({ format: 'jwk' })
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')])
  return { publicKey: point.toString('base64url'), privateKey: jwk.d!, key: privateKey }
}
const VAPID = vapidKeys()
const OTHER = vapidKeys()
const vapidDetails = { subject: SUBJECT, publicKey: VAPID.publicKey, privateKey: VAPID.privateKey }

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s

/** A VAPID Authorization header signed by hand, for the tokens web-push refuses to make. */
function handToken(claims: Record<string, unknown>, o: { key?: KeyObject; k?: string; alg?: string } = {}) {
  const signed = `${b64({ typ: 'JWT', alg: o.alg ?? 'ES256' })}.${b64({ aud: push.origin, exp: inSeconds(3600), sub: SUBJECT, ...claims })}`
  const signature = sign('sha256', Buffer.from(signed), { key: o.key ?? VAPID.key, dsaEncoding: 'ieee-p1363' })
  return `vapid t=${signed}.${signature.toString('base64url')}, k=${o.k ?? VAPID.publicKey}`
}

/** An aes128gcm body made by hand with node:crypto (RFC 8291), for records web-push does not make. */
function handEncrypt(sub: WebPushSubscription, padded: Buffer, rs = 4096) {
  const ecdh = createECDH('prime256v1')
  const sender = ecdh.generateKeys()
  const ua = Buffer.from(sub.keys.p256dh, 'base64url')
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), ua, sender])
  const ikm = Buffer.from(hkdfSync('sha256', ecdh.computeSecret(ua), Buffer.from(sub.keys.auth, 'base64url'), info, 32))
  const salt = randomBytes(16)
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, 'Content-Encoding: aes128gcm\0', 16))
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, 'Content-Encoding: nonce\0', 12))
  const cipher = createCipheriv('aes-128-gcm', cek, nonce)
  const record = Buffer.concat([cipher.update(padded), cipher.final(), cipher.getAuthTag()])
  const header = Buffer.alloc(21)
  salt.copy(header)
  header.writeUInt32BE(rs, 16)
  header[20] = sender.length
  return Buffer.concat([header, sender, record])
}

interface Send {
  options?: RequestOptions
  headers?: Record<string, string | null> // null drops a header web-push set
  body?: (encrypted: Buffer) => Buffer
  endpoint?: string
}

/** Sends a push as web-push builds it (aes128gcm, VAPID), with whatever a test changes. */
async function send(sub: WebPushSubscription, payload: string, o: Send = {}) {
  const d = webpush.generateRequestDetails(sub, payload, { vapidDetails, TTL: 60, urgency: 'high', topic: 'herald', ...o.options })
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries({ ...d.headers, ...o.headers })) {
    if (value !== null && name !== 'Content-Length') headers[name] = String(value)
  }
  const body = new Uint8Array(o.body ? o.body(d.body) : d.body)
  return fetch(o.endpoint ?? d.endpoint, { method: 'POST', headers, body, tls: { ca: CA } })
}

/** The push was refused with this status and exactly one problem, and nothing was delivered. */
function expectRefused(service: PushService, res: Response, status: number, problem: RegExp) {
  expect(res.status).toBe(status)
  expect(service.problems).toHaveLength(1)
  expect(service.problems[0]).toMatch(problem)
  expect(service.received).toEqual([])
}

describe('web push service: what it accepts', () => {
  test('a push decrypts to exactly the text sent, multi-byte UTF-8 included; 201 with a Location', async () => {
    const sub = await push.newSubscription()
    expect(sub.endpoint).toMatch(new RegExp(`^${push.origin}/push/[A-Za-z0-9_-]+$`))
    expect(Buffer.from(sub.keys.p256dh, 'base64url')).toHaveLength(65)
    expect(Buffer.from(sub.keys.auth, 'base64url')).toHaveLength(16)
    const text = JSON.stringify({ title: 'Grüße 👋', body: 'Ünïcödé — 日本語 ✓ \u0000 end' })
    const res = await send(sub, text)
    expect(res.status).toBe(201)
    expect(res.headers.get('location')).toStartWith(`${push.origin}/message/`)
    expect(push.problems).toEqual([])
    const [r] = push.received
    expect(r).toMatchObject({ endpoint: sub.endpoint, text, status: 201, k: VAPID.publicKey, claims: { aud: push.origin, sub: SUBJECT } })
    expect(r!.headers).toMatchObject({ ttl: '60', urgency: 'high', topic: 'herald', 'content-encoding': 'aes128gcm' })
    expect(push.count).toBe(1)
  })

  test('the largest payload that fits in 4096 bytes is accepted; one byte more is 413', async () => {
    const sub = await push.newSubscription()
    const fits = MAX_PUSH_BYTES - 86 - 17 // header with the 65-byte key id; delimiter and tag
    expect((await send(sub, 'é'.repeat((fits - 1) / 2) + 'x')).status).toBe(201)
    expect(push.received[0]!.text).toHaveLength((fits - 1) / 2 + 1)
    push.reset()
    expectRefused(push, await send(sub, 'x'.repeat(fits + 1)), 413, /4097 bytes, over 4096/)
  })

  test('padding after the delimiter is stripped', async () => {
    const sub = await push.newSubscription()
    const body = () => handEncrypt(sub, Buffer.concat([Buffer.from('padded'), Buffer.from([2]), Buffer.alloc(40)]))
    expect((await send(sub, 'x', { body })).status).toBe(201)
    expect(push.received[0]!.text).toBe('padded')
  })

  test('a token is verified once, however many pushes carry it', async () => {
    const subs = await Promise.all(Array.from({ length: 10 }, () => push.newSubscription()))
    const { Authorization } = webpush.getVapidHeaders(push.origin, SUBJECT, VAPID.publicKey, VAPID.privateKey, 'aes128gcm')
    const before = push.verifications
    const sent = subs.flatMap((sub, i) => Array.from({ length: 10 }, (_, j) => send(sub, `push ${i}.${j}`, { headers: { Authorization } })))
    expect((await Promise.all(sent)).map((r) => r.status)).toEqual(Array(100).fill(201))
    expect(push.verifications - before).toBe(1)
    expect(push.received.map((r) => r.text).sort()).toEqual(subs.flatMap((_, i) => Array.from({ length: 10 }, (_, j) => `push ${i}.${j}`)).sort())
    expect(push.problems).toEqual([])
  })

  test('a subscription made with an applicationServerKey takes tokens from that key', async () => {
    const sub = await push.newSubscription({ applicationServerKey: VAPID.publicKey })
    expect((await send(sub, 'mine')).status).toBe(201)
  })
})

describe('web push service: what it refuses', () => {
  const refusals: [string, number, RegExp, (sub: WebPushSubscription) => Send][] = [
    ['a token for another audience', 401, /aud https:\/\/push\.example\.com/, () => ({
      headers: webpush.getVapidHeaders('https://push.example.com', SUBJECT, VAPID.publicKey, VAPID.privateKey, 'aes128gcm'),
    })],
    ['an expired token', 401, /has passed/, () => ({
      headers: webpush.getVapidHeaders(push.origin, SUBJECT, VAPID.publicKey, VAPID.privateKey, 'aes128gcm', inSeconds(-60)),
    })],
    ['a token that lives more than 24 h', 401, /more than 24 h ahead/, () => ({ headers: { Authorization: handToken({ exp: inSeconds(86400 + 120) }) } })],
    ['a token signed by another key than k', 401, /bad signature/, () => ({ headers: { Authorization: handToken({}, { key: OTHER.key }) } })],
    ['a token whose claims were changed after signing', 401, /bad signature/, () => {
      const [t, k] = handToken({}).split(', ')
      const [h, , s] = t!.split('.')
      return { headers: { Authorization: `${h}.${b64({ aud: push.origin, exp: inSeconds(60), sub: SUBJECT })}.${s}, ${k}` } }
    }],
    ['a token with another alg', 401, /alg ES384/, () => ({ headers: { Authorization: handToken({}, { alg: 'ES384' }) } })],
    ['a token whose sub is no contact', 401, /sub ops@herald\.test/, () => ({ headers: { Authorization: handToken({ sub: 'ops@herald.test' }) } })],
    ['no Authorization', 401, /Authorization is not/, () => ({ headers: { Authorization: null } })],
    ['the pre-RFC 8292 WebPush scheme', 401, /Authorization is not/, () => ({ headers: { Authorization: 'WebPush abc.def.ghi' } })],
    ['no TTL', 400, /no TTL header/, () => ({ headers: { TTL: null } })],
    ['a TTL that is not a whole number', 400, /TTL -5/, () => ({ headers: { TTL: '-5' } })],
    ['an unknown Urgency', 400, /Urgency urgent/, () => ({ headers: { Urgency: 'urgent' } })],
    ['a Topic outside base64url', 400, /Topic a topic/, () => ({ headers: { Topic: 'a topic' } })],
    ['a Topic over 32 characters', 400, /Topic a{33}/, () => ({ headers: { Topic: 'a'.repeat(33) } })],
    ['another Content-Encoding', 400, /Content-Encoding aesgcm/, () => ({ headers: { 'Content-Encoding': 'aesgcm' } })],
    ['altered ciphertext', 400, /does not decrypt/, () => ({ body: (b) => Buffer.concat([b.subarray(0, -1), Buffer.from([b.at(-1)! ^ 1])]) })],
    ['a body shorter than its header', 400, /shorter than an aes128gcm header/, () => ({ body: (b) => b.subarray(0, 20) })],
    ['a record larger than rs', 400, /rs 18 does not hold/, (sub) => ({ body: () => handEncrypt(sub, Buffer.from('hello\x02'), 18) })],
    ['a record that is not the last', 400, /delimiter 1, not 2/, (sub) => ({ body: () => handEncrypt(sub, Buffer.from('hello\x01')) })],
    ['a record without a delimiter', 400, /no padding delimiter/, (sub) => ({ body: () => handEncrypt(sub, Buffer.alloc(8)) })],
  ]
  for (const [name, status, problem, make] of refusals) {
    test(`${name}: ${status}`, async () => {
      const sub = await push.newSubscription()
      expectRefused(push, await send(sub, 'should not arrive', make(sub)), status, problem)
    })
  }

  test('a push encrypted for another subscription: 400', async () => {
    const [a, b] = await Promise.all([push.newSubscription(), push.newSubscription()])
    expectRefused(push, await send(b, 'for b', { endpoint: a.endpoint }), 400, /does not decrypt/)
  })

  test('a token from a key other than the applicationServerKey: 401, per subscription and per service', async () => {
    const sub = await push.newSubscription({ applicationServerKey: OTHER.publicKey })
    expectRefused(push, await send(sub, 'x'), 401, /is not the applicationServerKey/)
    const strict = startPushService({ vapidPublicKey: OTHER.publicKey })
    try {
      const s = await strict.newSubscription()
      expectRefused(strict, await send(s, 'x'), 401, /is not the applicationServerKey/)
    } finally {
      strict.stop()
    }
  })

  test('a valid token presented with another k: 401, even once the token is cached', async () => {
    const sub = await push.newSubscription()
    const { Authorization } = webpush.getVapidHeaders(push.origin, SUBJECT, VAPID.publicKey, VAPID.privateKey, 'aes128gcm')
    expect((await send(sub, 'x', { headers: { Authorization } })).status).toBe(201)
    push.reset()
    const swapped = Authorization.replace(VAPID.publicKey, OTHER.publicKey)
    expectRefused(push, await send(sub, 'x', { headers: { Authorization: swapped } }), 401, /bad signature/)
  })

  test('a subscription it never made: 404; anything but a POST to /push/…: 404', async () => {
    const sub = await push.newSubscription()
    expectRefused(push, await send(sub, 'x', { endpoint: `${push.origin}/push/nobody` }), 404, /^nobody: no such subscription/)
    push.reset()
    expectRefused(push, await fetch(sub.endpoint, { tls: { ca: CA } }), 404, /GET \/push\/.+ is not a push/)
  })
})

describe('web push service: scripted answers', () => {
  test('one subscription answers 404, 410, 429 with Retry-After, 500, then 201 again', async () => {
    const sub = await push.newSubscription()
    for (const status of [404, 410]) push.reply(sub.endpoint, { status })
    push.reply(sub.endpoint, { status: 429, headers: { 'Retry-After': '7' } })
    push.reply(sub.endpoint, { status: 500, times: 2 })
    const answers = []
    for (let i = 0; i < 6; i++) answers.push(await send(sub, `attempt ${i}`))
    expect(answers.map((r) => r.status)).toEqual([404, 410, 429, 500, 500, 201])
    expect(answers[2]!.headers.get('retry-after')).toBe('7')
    expect(push.problems).toEqual([])
    // Each attempt was still checked and opened before it was answered.
    expect(push.received.map((r) => [r.status, r.text])).toEqual(answers.map((r, i) => [r.status, `attempt ${i}`]))
  })

  test('a bad push is refused, and the scripted answer waits for a good one', async () => {
    const sub = await push.newSubscription()
    push.reply(sub.endpoint, { status: 503 })
    expect((await send(sub, 'x', { headers: { TTL: null } })).status).toBe(400)
    expect((await send(sub, 'x')).status).toBe(503)
    expect(push.problems).toHaveLength(1)
  })

  test('an expired subscription answers 410 Gone, which is not the sender\'s problem', async () => {
    const sub = await push.newSubscription()
    push.expire(sub.endpoint)
    expect((await send(sub, 'x')).status).toBe(410)
    expect(push.problems).toEqual([])
    expect(push.received).toEqual([])
  })
})

describe('web push service: awaiting pushes', () => {
  test('next resolves with the push; onPush sees every push', async () => {
    const sub = await push.newSubscription()
    const seen: string[] = []
    push.onPush = (r) => seen.push(r.text!)
    try {
      const next = push.next(sub.endpoint)
      const any = push.next()
      await send(sub, 'hello')
      expect((await next).text).toBe('hello')
      expect((await any).endpoint).toBe(sub.endpoint)
      expect(seen).toEqual(['hello'])
    } finally {
      push.onPush = undefined
    }
  })

  test('next rejects with the problem when the push is refused, and when none comes', async () => {
    const sub = await push.newSubscription()
    // Caught at once: bun's expect(…).rejects would wait for the promise before the push is sent.
    const refused = push.next(sub.endpoint).then(() => 'resolved', (e: Error) => e.message)
    await send(sub, 'x', { headers: { TTL: null } })
    expect(await refused).toMatch(/no TTL header/)
    await expect(push.next(sub.endpoint, 50)).rejects.toThrow(/within 50 ms/)
  })
})

describe('web push service: benchmark mode', () => {
  test('keep: false keeps counts only; verify: sample opens the first push and one in 50, and checks every token and header', async () => {
    const bench = startPushService({ keep: false, verify: 'sample' })
    try {
      const sub = await bench.newSubscription()
      const texts: (string | null)[] = []
      bench.onPush = (r) => texts.push(r.text)
      const tamper = { body: (b: Buffer) => Buffer.concat([b.subarray(0, -1), Buffer.from([b.at(-1)! ^ 1])]) }
      expect((await send(sub, 'first')).status).toBe(201)
      expect((await send(sub, 'second', tamper)).status).toBe(201) // not opened
      expect((await send(sub, 'third', { headers: { TTL: null } })).status).toBe(400) // headers are always checked
      for (let i = 4; i <= 50; i++) await send(sub, `push ${i}`)
      expect((await send(sub, 'fifty-first', tamper)).status).toBe(400) // opened
      expect(bench.count).toBe(51)
      expect(bench.received).toEqual([])
      expect(texts[0]).toBe('first')
      expect(texts.slice(1)).toEqual(Array(48).fill(null))
      expect(bench.problems).toEqual([expect.stringMatching(/no TTL header/), expect.stringMatching(/does not decrypt/)])
    } finally {
      bench.stop()
    }
  })
})
