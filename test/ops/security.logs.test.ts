// No key, token, password or destination secret ever reaches the logs. Herald
// runs as a child process at LOG_LEVEL=trace, every line it prints is kept,
// and the test drives everything that handles a secret, the failures
// included: API keys (valid, mistyped, unknown, revoked, in the wrong header
// or in the query string), the admin token (right, wrong, misplaced), sign-up,
// sign-in (right and wrong passwords), password reset through a real SMTP
// receiver, sessions and their CSRF token, user tokens on the device API,
// invitations, routers whose destinations carry secrets, delivering to a
// receiver that fails, a router test send, and (on PostgreSQL) requests that
// fail with a 500 because the database dropped its connections. Then every
// secret is looked for in the captured output.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { generateApiKey } from '../../src/core/keys'
import { loggedPath } from '../../src/core/log'
import { createTestDatabase, PG_URL } from '../harness'
import { spawnHerald, type HeraldProcess } from '../processes'
import { startReceiver, type Receiver } from '../receiver'
import { startSmtp } from '../smtp'

const random = (prefix: string) => prefix + crypto.randomUUID().replaceAll('-', '')
const backend = PG_URL ? 'postgres' : 'embedded'

/** A loopback port nothing listens on: an SMTP server that refuses connections. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

const withPassword = (url: string, password: string) => {
  const u = new URL(url)
  u.password = password
  return u.toString()
}

test('a logged request path has no query string, and a link route\'s token is masked', () => {
  expect(loggedPath('http://127.0.0.1:8080/event?api_key=hrld_x#frag')).toBe('/event')
  expect(loggedPath('https://h.example/v1/invitations/abc_DEF-123/accept')).toBe('/v1/invitations/…/accept')
  expect(loggedPath('http://h/v1/invitations/abc')).toBe('/v1/invitations/…')
  expect(loggedPath('http://h/reset/abc')).toBe('/reset/…')
  expect(loggedPath('http://h/invite/abc?x=1')).toBe('/invite/…')
  expect(loggedPath('http://h/v1/workspaces/acme/invitations/0191-id')).toBe('/v1/workspaces/acme/invitations/0191-id')
})

describe(`secrets in the logs (${backend}, LOG_LEVEL=trace)`, () => {
  /** Every secret the test uses or is given, by name. */
  const secrets = new Map<string, string>()
  const secret = (name: string, value = random(`${name.replace(/\W/g, '')}`)) => (secrets.set(name, value), value)
  const ADMIN = secret('admin token')
  let herald: HeraldProcess
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  let receiver: Receiver
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined
  let dir: string | undefined
  let workspace: string
  let apiKey: string

  const call = (method: string, path: string, opts: { bearer?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(herald.url + path, {
      method,
      headers: { ...(opts.bearer ? { authorization: `Bearer ${opts.bearer}` } : {}), ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      redirect: 'manual',
    })
  const admin = (method: string, path: string, body?: unknown) => call(method, path, { bearer: ADMIN, body })
  /** A sign-up finished through its e-mailed link (a secret too). */
  const signedUp = async (email: string, password: string) => {
    await json(await call('POST', '/v1/auth/signup', { body: { email, password } }), 202)
    const until = Date.now() + 10_000
    const link = () => smtp.mails.find((m) => m.to.includes(email) && m.body.includes('/signup/confirm/'))
    while (!link() && Date.now() < until) await Bun.sleep(25)
    const token = secret(`sign-up link token of ${email}`, /\/signup\/confirm\/([A-Za-z0-9_-]+)/.exec(link()?.body ?? '')?.[1] ?? 'no sign-up mail')
    expect(token).not.toBe('no sign-up mail')
    return json(await call('POST', '/v1/auth/signup/confirm', { body: { token } }), 201)
  }
  const json = async <T = Record<string, any>>(res: Response, status: number): Promise<T> => {
    const text = await res.text()
    expect({ status: res.status, text }).toMatchObject({ status })
    return JSON.parse(text || '{}') as T
  }

  beforeAll(async () => {
    smtp = await startSmtp()
    receiver = startReceiver()
    receiver.fallback = { status: 500, body: 'the receiver is down' }
    dir = mkdtempSync(join(tmpdir(), 'herald-logs-'))
    herald = await spawnHerald({
      // PostgreSQL here trusts loopback, so a password in the URL is ignored, yet it is a secret of the config.
      ...(PG_URL ? { DATABASE_URL: withPassword((db = await createTestDatabase()).url, secret('database password')) } : {}),
      HERALD_DATA_DIR: dir,
      NATS_URL: '', // this process delivers, so its delivery errors are in its log
      HERALD_SECRET_KEY: secret('HERALD_SECRET_KEY', Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')),
      LOG_LEVEL: 'trace',
      HERALD_ADMIN_TOKEN: ADMIN,
      HERALD_METRICS_TOKEN: secret('metrics token'),
      HERALD_DEMO_WORKSPACE: 'false',
      SMTP_URL: `smtp://herald:${secret('SMTP_URL password')}@127.0.0.1:${smtp.port}`,
      HERALD_OUTBOUND_ALLOW: '127.0.0.0/8',
      TELEGRAM_API_URL: receiver.url,
      TWILIO_API_URL: receiver.url,
      HERALD_RETRY_SCHEDULE: '0s,1s',
      DELIVERY_TIMEOUT_MS: '3000',
      SHUTDOWN_TIMEOUT_MS: '1000',
    })
    workspace = `logs-${process.pid}`
    apiKey = secret('API key', (await json(await admin('POST', '/admin/workspaces', { name: workspace }), 201)).apiKey)
  }, 60_000)

  afterAll(async () => {
    if (herald && herald.proc.exitCode === null) await herald.kill()
    receiver?.stop()
    await smtp?.close()
    await db?.drop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }, 30_000)

  test('API keys: valid, mistyped, unknown, revoked, misplaced', async () => {
    const spoiled = secret('mistyped API key', apiKey.slice(0, 10) + (apiKey[10] === 'A' ? 'B' : 'A') + apiKey.slice(11))
    const unknown = secret('unknown API key', generateApiKey())
    const second = await json(await admin('POST', `/admin/workspaces/${workspace}/keys`, { name: 'second' }), 201)
    secret('revoked API key', second.apiKey)
    expect((await admin('DELETE', `/admin/workspaces/${workspace}/keys/${second.id}`)).status).toBe(204)
    const event = { message: 'hello' }
    await json(await call('POST', '/event', { bearer: apiKey, body: event }), 200)
    await json(await call('POST', '/event', { bearer: apiKey, body: { message: 5 } }), 400)
    for (const key of [spoiled, unknown, second.apiKey]) await json(await call('POST', '/event', { bearer: key, body: event }), 401)
    const basic = secret('API key as Basic auth', btoa(`${apiKey}:`))
    for (const headers of [{ 'x-api-key': apiKey }, { authorization: apiKey }, { authorization: `Basic ${basic}` }, { authorization: `Token ${apiKey}` }] as Record<string, string>[]) {
      await json(await call('POST', '/event', { headers, body: event }), 401)
    }
    await json(await call('POST', `/event?api_key=${apiKey}&token=${apiKey}`, { body: event }), 401)
    await json(await call('GET', `/events/${crypto.randomUUID()}?key=${apiKey}`, { bearer: unknown }), 401)
  })

  test('the admin and metrics tokens: right, wrong, misplaced', async () => {
    const wrong = secret('wrong admin token')
    await json(await admin('GET', '/admin/workspaces'), 200)
    await json(await call('GET', '/admin/workspaces', { bearer: wrong }), 401)
    await json(await call('GET', `/admin/workspaces?token=${ADMIN}`), 401)
    await json(await call('GET', '/admin/workspaces', { headers: { 'x-admin-token': ADMIN } }), 401)
    await json(await call('POST', '/event', { bearer: ADMIN, body: { message: 'hi' } }), 401)
    await json(await admin('POST', '/admin/workspaces', { name: workspace }), 409)
    // The metrics token, right and wrong (whatever /metrics answers).
    await (await call('GET', '/metrics', { bearer: secrets.get('metrics token') })).text()
    await (await call('GET', '/metrics', { bearer: secret('wrong metrics token') })).text()
  })

  test('accounts: sign-up, sign-in, wrong passwords, password reset by e-mail, sessions', async () => {
    const email = `owner-${process.pid}@example.com`
    const first = secret('sign-up password')
    const up = await json(await call('POST', '/v1/auth/signup', { body: { email, password: first, workspace: `people-${process.pid}` } }), 201)
    secret('user token (sign-up)', up.token)
    await json(await call('POST', '/v1/auth/signin', { body: { email, password: secret('wrong password') } }), 401)
    await json(await call('POST', '/v1/auth/signin', { body: { email: 'nobody@example.com', password: secret('password of nobody') } }), 401)
    // A second sign-up with the same address: the same 202 as for a new one, and an e-mail to its owner.
    await json(await call('POST', '/v1/auth/signup', { body: { email, password: secret('password of a second sign-up') } }), 202)
    await json(await call('POST', '/v1/auth/signup', { body: { email: `short-${process.pid}@example.com`, password: secret('too short password', 'shrt') } }), 400)
    secret('user token (sign-in)', (await json(await call('POST', '/v1/auth/signin', { body: { email, password: first } }), 200)).token)

    await json(await call('POST', '/v1/auth/password-reset', { body: { email } }), 202)
    const until = Date.now() + 10_000
    const resetMail = () => smtp.mails.find((m) => m.to.includes(email) && /\/reset\/[A-Za-z0-9_-]/.test(m.body))
    while (!resetMail() && Date.now() < until) await Bun.sleep(25)
    const mail = resetMail()
    const token = secret('reset token', /\/reset\/([A-Za-z0-9_-]+)/.exec(mail?.body ?? '')?.[1] ?? 'no reset mail')
    expect(token).not.toBe('no reset mail')
    expect((await call('GET', `/reset/${token}`)).status).toBe(200)
    await json(await call('POST', '/v1/auth/password-reset/confirm', { body: { token, password: secret('too short new password', 'tiny') } }), 400)
    const second = secret('new password')
    expect((await call('POST', '/v1/auth/password-reset/confirm', { body: { token, password: second } })).status).toBe(204)
    await json(await call('POST', '/v1/auth/password-reset/confirm', { body: { token, password: secret('password with a used token') } }), 400)
    const app = await json(await call('POST', '/v1/auth/signin', { body: { email, password: second } }), 200)
    secret('user token (after reset)', app.token)

    // A browser session: the cookie (hrls_…) and its CSRF token.
    const web = await call('POST', '/v1/auth/signin', { body: { email, password: second, client: 'web' } })
    const { csrf } = await json(web, 200)
    secret('CSRF token', csrf)
    const cookie = (web.headers.get('set-cookie') ?? '').split(';')[0]!
    secret('session token', cookie.slice(cookie.indexOf('=') + 1))
    await json(await call('GET', '/v1/me', { headers: { cookie } }), 200)
    await json(await call('POST', `/v1/workspaces/people-${process.pid}/keys`, { headers: { cookie }, body: { name: 'no csrf' } }), 403)
    await json(await call('GET', '/v1/me', { headers: { cookie: `herald_session=${secret('forged session token', `hrls_${random('')}`)}` } }), 401)
    expect((await call('POST', '/v1/auth/signout', { headers: { cookie, 'x-csrf-token': csrf } })).status).toBe(204)
    await json(await call('GET', '/v1/me', { headers: { cookie } }), 401)

    // A reset for an address the SMTP receiver refuses: the failure is logged, the link is not (checked below).
    const gone = `gone@reset-${process.pid}.example.com`
    // (Its account comes from the operator API: the receiver would refuse a sign-up link too.)
    await json(await admin('POST', `/admin/workspaces/${workspace}/members`, { email: gone }), 201)
    await json(await call('POST', '/v1/auth/password-reset', { body: { email: gone } }), 202)
  }, 30_000)

  test('user tokens: API keys, invitations, the device API', async () => {
    const owner = secrets.get('user token (after reset)')!
    const people = `people-${process.pid}`
    secret('API key (user API)', (await json(await call('POST', `/v1/workspaces/${people}/keys`, { bearer: owner, body: { name: 'ci' } }), 201)).apiKey)
    const invited = await json(await call('POST', `/v1/workspaces/${people}/invitations`, { bearer: owner, body: { email: `guest-${process.pid}@example.com` } }), 201)
    const invitation = secret('invitation token', /\/invite\/([A-Za-z0-9_-]+)/.exec(invited.link)![1]!)
    await json(await call('GET', `/v1/invitations/${invitation}`), 200)
    // The wrong person, then nobody, tries the link: refused, and the link still works afterwards.
    const stranger = await signedUp(`stranger-${process.pid}@example.com`, secret('stranger password'))
    secret('user token (stranger)', stranger.token)
    await json(await call('POST', `/v1/invitations/${invitation}/accept`, { bearer: stranger.token }), 403)
    await json(await call('POST', `/v1/invitations/${invitation}/accept`), 401)
    await json(await call('GET', `/v1/invitations/${secret('unknown invitation token')}`), 404)
    // The SMTP receiver refuses gone@…: the failure is logged, the link is not.
    const refused = await json(await call('POST', `/v1/workspaces/${people}/invitations`, { bearer: owner, body: { email: `gone@invite-${process.pid}.example.com` } }), 201)
    secret('invitation token (refused e-mail)', /\/invite\/([A-Za-z0-9_-]+)/.exec(refused.link)![1]!)

    const member = await json(await admin('POST', `/admin/workspaces/${workspace}/members`, { email: `member-${process.pid}@example.com` }), 201)
    const userToken = secret('user token (operator API)', member.userToken)
    const device = secret('device push token')
    await json(await call('POST', '/v1/devices', { bearer: userToken, body: { platform: 'android', provider: 'fcm', token: device } }), 201)
    await json(await call('POST', '/v1/devices', { bearer: secret('unknown user token', `hrlu_${random('')}`), body: { platform: 'android', provider: 'fcm', token: device } }), 401)
    await json(await call('POST', '/v1/devices', { bearer: userToken, body: { platform: 'android', provider: 'apns', token: secret('refused device push token') } }), 400)
  })

  test('routers with secrets in their destinations, delivering to a receiver that fails', async () => {
    const at = (path: string) => receiver.url + path
    const destinations = [
      { type: 'webhook', url: at(`/hooks/${secret('webhook path token')}?token=${secret('webhook query token')}`), headers: { Authorization: `Bearer ${secret('webhook header secret')}`, 'X-Api-Key': secret('webhook header key') } },
      { type: 'slack', url: at(`/services/T000/B000/${secret('Slack URL secret')}`) },
      { type: 'telegram', botToken: `123456:${secret('Telegram bot token')}`, chatId: '42' },
      { type: 'email', to: ['ops@example.com'], smtp: { host: '127.0.0.1', port: await closedPort(), user: 'herald', pass: secret('SMTP password') } },
      { type: 'sms', accountSid: `AC${'0'.repeat(32)}`, authToken: secret('Twilio auth token'), from: '+15550001111', to: '+15550002222' },
    ]
    for (const [i, destination] of destinations.entries()) {
      const created = await json(await admin('POST', `/admin/workspaces/${workspace}/routers`, { name: `r${i}`, pattern: '*', destination }), 201)
      secret(`signing secret of ${destination.type}`, created.secret)
    }
    // Refused destinations, with a secret where it does not belong.
    await json(await admin('POST', `/admin/workspaces/${workspace}/routers`, { name: 'bad', pattern: '*', destination: { type: 'telegram', botToken: `not a token ${secret('malformed bot token')}`, chatId: '1' } }), 400)
    await json(await admin('POST', `/admin/workspaces/${workspace}/routers`, { name: 'bad', pattern: '*', destination: { type: 'webhook', url: `ftp://x/${secret('non-http webhook URL')}` } }), 400)
    // A signed-in owner's router, and its test send to the failing receiver.
    const owner = secrets.get('user token (after reset)')!
    const people = `people-${process.pid}`
    const mine = await json(await call('POST', `/v1/workspaces/${people}/routers`, { bearer: owner, body: { name: 'discord', pattern: '*', destination: { type: 'discord', url: at(`/api/webhooks/1/${secret('Discord URL secret')}`) } } }), 201)
    secret('signing secret (user API)', mine.secret)
    const sent = await json(await call('POST', `/v1/workspaces/${people}/routers/${mine.id}/test`, { bearer: owner }), 200)
    expect(sent.ok).toBe(false)

    await json(await call('POST', '/event', { bearer: apiKey, body: { message: 'to every router', event: 'user.signup' } }), 200)
    // Two attempts per router (HERALD_RETRY_SCHEDULE=0s,1s), every one a failure.
    const until = Date.now() + 20_000
    const failed = () => herald.output.filter((l) => l.includes('delivery attempt failed')).length
    while (failed() < destinations.length * 2 && Date.now() < until) await Bun.sleep(50)
    expect(failed()).toBeGreaterThanOrEqual(destinations.length * 2)
  }, 30_000)

  test.skipIf(!PG_URL)('500s: tables vanish while requests carry secrets', async () => {
    const fresh = secret('API key never verified', (await json(await admin('POST', `/admin/workspaces/${workspace}/keys`, { name: 'fresh' }), 201)).apiKey)
    const pg = postgres(db!.url, { max: 1, onnotice: () => {} })
    const tables = ['users', 'user_tokens', 'api_keys', 'events']
    try {
      for (const t of tables) await pg.unsafe(`ALTER TABLE ${t} RENAME TO ${t}_away`)
      const email = `owner-${process.pid}@example.com`
      const answers = [
        await call('POST', '/v1/auth/signin', { body: { email, password: secrets.get('new password')! } }),
        await call('POST', '/event', { bearer: fresh, body: { message: 'while the keys are away' } }),
        await call('GET', '/v1/me', { bearer: secrets.get('user token (sign-in)')! }),
        await call('POST', '/v1/auth/signup', { body: { email: `late-${process.pid}@example.com`, password: secret('password during the outage') } }),
      ]
      expect(answers.map((r) => r.status)).toEqual([500, 500, 500, 500])
      for (const r of answers) expect(await r.text()).not.toContain(fresh)
    } finally {
      for (const t of tables) await pg.unsafe(`ALTER TABLE IF EXISTS ${t}_away RENAME TO ${t}`)
      await pg.end()
    }
  })

  test('no secret appears in any log line', async () => {
    expect(await herald.kill('SIGTERM')).toBe(0)
    await Bun.sleep(200) // the last lines of the pipes
    const lines = herald.output
    // Not vacuous: debug lines of refused requests, the failed deliveries and the sign-ups were all logged.
    expect(lines.some((l) => l.includes('"level":20') && l.includes('"status":401'))).toBe(true)
    expect(lines.some((l) => l.includes('delivery attempt failed'))).toBe(true)
    expect(lines.some((l) => l.includes('signed up'))).toBe(true)
    if (PG_URL) expect(lines.filter((l) => l.includes('"level":50') && l.includes('request failed')).length).toBeGreaterThanOrEqual(4)
    // The reset link went by e-mail (SMTP_URL is set), so it is not in the log.
    expect(smtp.mails.some((m) => m.body.includes(secrets.get('reset token')!))).toBe(true)
    expect(lines.filter((l) => l.includes('could not send the')).length).toBeGreaterThanOrEqual(2)
    expect(lines.filter((l) => /\/(reset|invite)\/[A-Za-z0-9_-]{20,}/.test(l))).toEqual([])
    const leaks: string[] = []
    for (const [name, value] of secrets) {
      const forms = new Set([value, encodeURIComponent(value)])
      const line = lines.find((l) => [...forms].some((f) => l.includes(f)))
      if (line) leaks.push(`${name} in: ${line.slice(0, 400)}`)
    }
    expect(secrets.size).toBeGreaterThan(35)
    expect(leaks).toEqual([])
  }, 30_000)
})
