// Fuzzes every route but POST /event (test/ingest/fuzz.event.test.ts has it) with
// requests generated from the app's own route list (test/fuzz_routes.ts):
// path parameters, query strings and bodies, as the right caller and as the
// wrong ones. For every answer:
// 1. it is never a 5xx (the database is up, so a 503 is wrong too), and an
//    answer that is not a 2xx is a well-formed application/problem+json;
// 2. Herald stays responsive: a probe GETs /healthz over the socket all
//    through the run, and every probe is answered within 500 ms;
// 3. it echoes none of the secrets (admin token, user token, session, API
//    key) the request carried.
//
// Most requests go through app.handle in concurrent batches, a few hundred
// over the socket. GET /v1/feed/stream never ends: its answer is cut once its
// headers are in. Requests name their real values (the owner's workspace, a
// router id, a key id…) and their caller symbolically, looked up as they are
// sent: the destructive routes do revoke keys, sign out and remove members,
// and what they took is made again between batches. When a request fails, its
// run is replayed alone through fc.assert, which shrinks it. Replay a run with
// FUZZ_SEED=<seed>; FUZZ_ROUTE_REQUESTS and FUZZ_ROUTE_SOCKET_REQUESTS change
// the counts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { generateSecret } from '../../src/core/keys'
import { withPeer } from '../../src/core/peer'
import { ADMIN_TOKEN, backends, useTestHerald, type TestHerald } from '../harness'
import { newEmail, PASSWORD, signUp } from '../users'
import { chunked, describeCase, problemFault, requestArb, target, type Caller, type Ref, type RouteCase, type RouteInfo } from '../fuzz_routes'

const REQUESTS = Number(process.env.FUZZ_ROUTE_REQUESTS ?? 15_000)
const SOCKET_REQUESTS = Number(process.env.FUZZ_ROUTE_SOCKET_REQUESTS ?? 300)
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)
const BATCH = 12 // in flight at once in-process: enough for routes to race, few enough that a probe measures Herald, not a queue
const SOCKET_BATCH = 12
// A route that blocks the event loop (a synchronous hash, a long loop) holds
// every probe for a second or more; a busy CI machine delays a healthy probe
// by up to a couple of hundred milliseconds (203 ms seen with tests running
// beside it): the budget tells the two apart.
const PROBE_BUDGET_MS = 500
const PROBE_INTERVAL_MS = 20
const ANSWER_TIMEOUT_MS = 20_000
const MAX_FAILURES = Number(process.env.FUZZ_MAX_FAILURES ?? 8) // distinct ones, by route and fault, before the run stops
const SHRUNK_FAILURES = 3
const STREAM = 'GET /v1/feed/stream'
const BUN_MAX_HEAD = 16 * 1024 // Bun's limit on a request's line and headers
const SKIPPED = ['POST /event'] // fuzzed by test/ingest/fuzz.event.test.ts
const ENV = {
  // Each request comes from an address of its own, so the per-address sign-in
  // and e-mail throttles count requests of one address, not the whole fuzz.
  HERALD_TRUST_PROXY: 'true',
  // A router's test send or a replay fails fast: its hosts are .invalid.
  DELIVERY_TIMEOUT_MS: '1000',
  HERALD_RETRY_SCHEDULE: '0s',
  TELEGRAM_API_URL: 'https://telegram.invalid',
  TWILIO_API_URL: 'https://twilio.invalid',
}

type Via = 'handle' | 'socket'

/** The credentials and real values the requests use; made again when a request takes one away. */
interface World {
  refs: Record<Ref, string>
  /** The ids of the workspaces the fuzz may rename (PATCH /v1/workspaces/{workspace}), to give them their names back. */
  ids: { workspace: number; victim: number }
  owner: string
  member: string
  apiKey: string
  web: { cookie: string; csrf: string }
  email: string
  signIns: number
  strangers: Record<string, string>
}

interface Failure {
  seed: number
  index: number
  fault: string
  request: string
}

interface Tally {
  sent: number
  statuses: Record<number, number>
  routes: Record<string, number>
  kinds: Record<string, number>
  /** Live feeds that answered 200 and were cut after their headers. */
  streams: number
}
const newTally = (): Tally => ({ sent: 0, statuses: {}, routes: {}, kinds: {}, streams: 0 })
const count = (o: Record<string | number, number>, k: string | number) => (o[k] = (o[k] ?? 0) + 1)
const anyIp = () => `10.${(Math.random() * 255) | 0}.${(Math.random() * 255) | 0}.${(Math.random() * 255) | 0}`

/** Everything on Object.prototype and Array.prototype, to compare before and after. */
const prototypes = () => [Object.prototype, Array.prototype].map((p) => Reflect.ownKeys(p).map(String).sort().join(','))

type Answer = { status: number; body: any; headers: Headers }

/** A JSON request in-process, from an address of its own; for setting up, not fuzzing. */
async function call(h: TestHerald, method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await h.app.handle(withPeer(new Request('http://localhost' + path, {
    method,
    headers: { 'x-forwarded-for': anyIp(), ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  }), '127.0.0.1'))
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: res.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : text }
}
async function must(status: number, answer: Promise<Answer>) {
  const a = await answer
  if (a.status !== status) throw new Error(`set-up request: expected ${status}, got ${a.status}: ${JSON.stringify(a.body).slice(0, 300)}`)
  return a.body
}

async function signInWeb(h: TestHerald, email: string) {
  const a = await call(h, 'POST', '/v1/auth/signin', undefined, { email, password: PASSWORD, client: 'web' })
  if (a.status !== 200) throw new Error(`web sign-in: ${a.status} ${JSON.stringify(a.body)}`)
  return { cookie: a.headers.get('set-cookie')!.split(';')[0]!, csrf: a.body.csrf as string }
}

/** The first delivery of an event: the router's send to an .invalid host fails at once. */
async function firstDelivery(h: TestHerald, apiKey: string, eventId: string): Promise<string> {
  for (let i = 0; i < 250; i++) {
    const a = await call(h, 'GET', `/events/${eventId}`, apiKey)
    if (a.body?.deliveries?.[0]?.id) return a.body.deliveries[0].id
    await Bun.sleep(20)
  }
  return crypto.randomUUID()
}

async function prepare(h: TestHerald): Promise<World> {
  const owner = await signUp(h) // the first account of the install: created at once
  const ws = owner.workspace
  const victim = `victim-${process.pid}-${Date.now().toString(36)}`
  await must(201, call(h, 'POST', '/v1/workspaces', owner.token, { name: victim }))
  const key = await must(201, call(h, 'POST', `/v1/workspaces/${ws}/keys`, owner.token, { name: 'fuzz' }))
  const throwaway = await must(201, call(h, 'POST', `/v1/workspaces/${ws}/keys`, owner.token, { name: 'throwaway' }))
  const member = await must(201, call(h, 'POST', `/admin/workspaces/${ws}/members`, ADMIN_TOKEN, { email: newEmail('member'), role: 'member' }))
  const router = await must(201, call(h, 'POST', `/admin/workspaces/${ws}/routers`, ADMIN_TOKEN, { name: 'fuzz', pattern: '*', destination: { type: 'webhook', url: 'https://receiver.invalid/hook' } }))
  const event = await must(200, call(h, 'POST', '/event', key.apiKey, { message: 'fuzzed', event: 'user.signup' }))
  const invitation = await must(201, call(h, 'POST', `/v1/workspaces/${ws}/invitations`, owner.token, { email: newEmail('invitee') }))
  const device = await must(201, call(h, 'POST', '/v1/devices', owner.token, { platform: 'ios', provider: 'apns', token: `fuzz-${Date.now()}` }))
  const shell = (await call(h, 'GET', '/')).body as string
  return {
    refs: {
      workspace: ws, victim, channel: 'general', routerId: router.id, keyId: String(throwaway.id), deliveryId: await firstDelivery(h, key.apiKey, event.eventId),
      invitationId: invitation.id, invitationToken: invitation.link.split('/').at(-1), deviceId: device.id, userId: owner.userId, memberId: member.userId,
      eventId: event.eventId, asset: /\/assets\/([\w.]+)/.exec(shell)![1]!,
    },
    ids: { workspace: await workspaceId(h, ws), victim: await workspaceId(h, victim) },
    owner: owner.token, member: member.userToken, apiKey: key.apiKey, web: await signInWeb(h, owner.email), email: owner.email, signIns: 1,
    strangers: { admin: 'test-admin-token-wrong-98765', owner: generateSecret('hrlu_'), member: generateSecret('hrlu_'), apiKey: generateSecret('hrld_'), none: generateSecret('hrlu_'), web: generateSecret('hrls_'), 'web-nocsrf': generateSecret('hrls_') },
  }
}

const workspaceId = async (h: TestHerald, name: string) => (await h.db.sql<{ id: number }[]>`SELECT id::int AS id FROM workspaces WHERE name = ${name}`)[0]!.id

/**
 * The workspaces under their first names again where the fuzz renamed one,
 * and the owner's sign-in counters cleared: every fuzzed POST /v1/me/password
 * with a wrong current password counts against the owner's account, and the
 * set-up signs in with it.
 */
async function restoreNames(h: TestHerald, w: World) {
  for (const ref of ['workspace', 'victim'] as const) {
    const [row] = await h.db.sql<{ name: string }[]>`SELECT name FROM workspaces WHERE id = ${w.ids[ref]}`
    if (!row || row.name === w.refs[ref]) continue
    const back = await call(h, 'PATCH', `/v1/workspaces/${row.name}`, w.owner, { name: w.refs[ref] })
    if (back.status !== 200) await h.db.sql`UPDATE workspaces SET name = ${w.refs[ref]} WHERE id = ${w.ids[ref]}`
  }
  await h.db.sql`DELETE FROM signin_failures`
}

/** Gives back what the last batch took: the workspaces' names, the owner's token and role, the member, the API key, the web session. */
async function restoreCredentials(h: TestHerald, w: World) {
  await restoreNames(h, w)
  const ws = w.refs.workspace
  const owner = await call(h, 'GET', `/v1/workspaces/${ws}`, w.owner)
  if (owner.status !== 200 || owner.body.role !== 'owner') {
    const made = await must(201, call(h, 'POST', `/admin/workspaces/${ws}/members`, ADMIN_TOKEN, { email: newEmail('owner'), role: 'owner' }))
    Object.assign(w, { owner: made.userToken }, { refs: { ...w.refs, userId: made.userId } })
  }
  if ((await call(h, 'GET', `/v1/workspaces/${ws}`, w.member)).status !== 200) {
    const made = await must(201, call(h, 'POST', `/admin/workspaces/${ws}/members`, ADMIN_TOKEN, { email: newEmail('member'), role: 'member' }))
    Object.assign(w, { member: made.userToken }, { refs: { ...w.refs, memberId: made.userId } })
  }
  if ((await call(h, 'GET', `/events/${w.refs.eventId}`, w.apiKey)).status !== 200) {
    const made = await must(201, call(h, 'POST', `/admin/workspaces/${ws}/keys`, ADMIN_TOKEN, { name: 'fuzz again' }))
    w.apiKey = made.apiKey
  }
  // A sign-in hashes a password: a few at most.
  if (w.signIns < 4 && (await call(h, 'GET', '/v1/me', undefined, undefined, { cookie: w.web.cookie })).status !== 200) {
    w.web = await signInWeb(h, w.email)
    w.signIns++
  }
}

/** Real ids again where the fuzz deleted or renamed them: the default channel, a router, a spare key. */
async function restoreRefs(h: TestHerald, w: World) {
  const ws = w.refs.workspace
  const channels = await call(h, 'GET', `/v1/workspaces/${ws}/channels`, w.owner)
  const byDefault = Array.isArray(channels.body?.channels) ? channels.body.channels.find((c: { isDefault: boolean }) => c.isDefault) : undefined
  if (byDefault) w.refs.channel = byDefault.slug
  const routers = await call(h, 'GET', `/admin/workspaces/${ws}/routers`, ADMIN_TOKEN)
  if (Array.isArray(routers.body) && !routers.body.some((r: { id: string }) => r.id === w.refs.routerId)) {
    w.refs.routerId = routers.body[0]?.id ?? (await must(201, call(h, 'POST', `/admin/workspaces/${ws}/routers`, ADMIN_TOKEN, { name: `fuzz-${Date.now()}`, pattern: '*', destination: { type: 'webhook', url: 'https://receiver.invalid/hook' } }))).id
  }
  const keys = await call(h, 'GET', `/admin/workspaces/${ws}/keys`, ADMIN_TOKEN)
  if (Array.isArray(keys.body) && !keys.body.some((k: { id: number; revokedAt: string | null }) => String(k.id) === w.refs.keyId && !k.revokedAt)) {
    w.refs.keyId = String((await must(201, call(h, 'POST', `/admin/workspaces/${ws}/keys`, ADMIN_TOKEN, { name: 'throwaway' }))).id)
  }
}

const kindOf = (route: string): Caller => {
  const path = route.split(' ')[1]!
  return path.startsWith('/admin') ? 'admin' : path.startsWith('/v1/') ? 'owner' : path.startsWith('/events/') ? 'apiKey' : 'none'
}

/** The credential headers of a case's caller, as the world has them now. */
function credentials(c: RouteCase, w: World): Record<string, string> {
  const kind = c.caller === 'right' || c.caller === 'wrong' ? kindOf(c.route) : c.caller
  const tokens: Record<string, string> = { admin: ADMIN_TOKEN, owner: w.owner, member: w.member, apiKey: w.apiKey, web: w.web.cookie.split('=')[1]!, 'web-nocsrf': w.web.cookie.split('=')[1]!, none: w.owner }
  if (c.caller === 'wrong') {
    const real = tokens[kind]!
    const wrong = [`Bearer ${w.strangers[kind]}`, `Bearer ${real.slice(0, -1)}${real.endsWith('A') ? 'B' : 'A'}`, `Basic ${btoa(`x:${real}`)}`, 'Bearer', `Bearer ${real} x`, `Bearer ${real.toUpperCase()}`]
    return kind === 'web' || kind === 'web-nocsrf' ? { cookie: `herald_session=${w.strangers[kind]}` } : { authorization: wrong[c.variant % wrong.length]! }
  }
  if (kind === 'none') return {}
  if (kind === 'web') return { cookie: w.web.cookie, 'x-csrf-token': w.web.csrf }
  if (kind === 'web-nocsrf') return { cookie: w.web.cookie }
  return { authorization: `Bearer ${tokens[kind]}` }
}

// The probe runs in a worker thread of its own: it keeps sending on time while
// Herald's thread (which is also this test's) is stalled, so a stall shows
// as a slow probe rather than as a late one that is never measured.
const PROBE_WORKER = `
let running = true
onmessage = async ({ data }) => {
  if (data.stop) return void (running = false)
  while (running) {
    const started = performance.now()
    let failure
    try {
      const res = await fetch(data.url + '/healthz', { signal: AbortSignal.timeout(10000) })
      await res.text()
      if (res.status !== 200) failure = 'status ' + res.status
    } catch (err) {
      failure = String(err)
    }
    postMessage({ ms: performance.now() - started, failure })
    await Bun.sleep(data.intervalMs)
  }
  postMessage({ done: true })
}`

/** Probes GET /healthz over the socket until stopped, and keeps what was in flight when it was slow. */
function startProbe(url: string, inFlight: Set<RouteCase>) {
  const stats = { probes: 0, maxMs: 0, failures: [] as string[], slow: [] as string[] }
  const worker = new Worker(URL.createObjectURL(new Blob([PROBE_WORKER], { type: 'application/javascript' })))
  const done = new Promise<void>((resolve) => {
    worker.onmessage = ({ data }: MessageEvent<{ ms: number; failure?: string; done?: true }>) => {
      if (data.done) return resolve()
      stats.probes++
      stats.maxMs = Math.max(stats.maxMs, data.ms)
      if (data.failure) stats.failures.push(data.failure)
      if (data.ms > PROBE_BUDGET_MS && stats.slow.length < 5) {
        const routes: Record<string, number> = {}
        for (const c of inFlight) count(routes, `${c.route} {${c.kind}}`)
        stats.slow.push(`${data.ms.toFixed(0)} ms, with in flight: ${JSON.stringify(routes)}`)
      }
    }
  })
  worker.postMessage({ url, intervalMs: PROBE_INTERVAL_MS })
  let stopped: Promise<void> | undefined
  const stop = () => (stopped ??= (worker.postMessage({ stop: true }), done.then(() => worker.terminate())))
  return { stats, stop }
}

for (const backend of backends) {
  describe(`every route fuzzed on ${backend}`, () => {
    let w: World
    let routes: RouteInfo[]
    let arb: fc.Arbitrary<RouteCase>
    let probe: ReturnType<typeof startProbe>
    let before: string[]
    const inFlight = new Set<RouteCase>()
    const secrets = () => [ADMIN_TOKEN, w.owner, w.member, w.apiKey, w.web.cookie.split('=')[1]!]

    beforeAll(() => {
      before = prototypes()
    })
    // Registered before the Herald's own afterAll, so that the probe stops before Herald does.
    afterAll(() => probe?.stop(), 60_000)
    const h = useTestHerald(backend, ENV, 60_000)
    beforeAll(async () => {
      routes = (h.app.routes as RouteInfo[]).filter((r) => !SKIPPED.includes(`${r.method} ${r.path}`))
      arb = requestArb(routes)
      w = await prepare(h)
      probe = startProbe(h.url, inFlight)
    }, 60_000)

    function send(via: Via, c: RouteCase, signal: AbortSignal): Promise<Response> {
      const headers: Record<string, string> = { ...credentials(c, w) }
      if (c.forwardedFor) headers['x-forwarded-for'] = c.forwardedFor
      if (c.contentType !== null) headers['content-type'] = c.contentType
      const body = c.body && c.transfer === 'stream' ? chunked(c.body) : (c.body ?? undefined)
      const init = { method: c.method, headers, body, signal, duplex: 'half' } as RequestInit
      const path = target(c, w.refs)
      // In-process, a request has no socket: it names its peer, one of its own
      // (src/http/peer.ts), as a connection would.
      return via === 'socket' ? fetch(h.url + path, init) : h.app.handle(withPeer(new Request('http://localhost' + path, init), anyIp()))
    }

    /** Sends a case and checks its answer: what is wrong with it, or null. */
    async function trial(via: Via, c: RouteCase, tally?: Tally): Promise<string | null> {
      // The CSRF token is no secret from its own session: GET /v1/me hands it out.
      const { authorization = '', cookie = '' } = credentials(c, w)
      const sent = [...secrets(), ...`${authorization} ${cookie}`.split(/[ =]/).filter((s) => s.length >= 16)]
      const abort = new AbortController()
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS)))
      let res: Response
      let text = ''
      inFlight.add(c)
      try {
        res = await Promise.race([send(via, c, abort.signal), timeout])
        // The live feed never ends: its headers are the answer.
        if (c.route === STREAM && res.headers.get('content-type')?.startsWith('text/event-stream')) {
          await res.body?.cancel()
          if (tally) tally.streams++
        } else text = await Promise.race([res.text(), timeout])
      } catch (err) {
        // A time-out is no answer; anything else, a handler (or Bun) that threw instead of answering.
        return (err as Error).message.startsWith('no answer') ? (err as Error).message : `the request threw instead of answering: ${(err as Error).message}`
      } finally {
        clearTimeout(timer)
        abort.abort()
        inFlight.delete(c)
      }
      if (tally) {
        tally.sent++
        count(tally.statuses, res.status)
        count(tally.routes, c.route)
        count(tally.kinds, c.kind.split(':')[0]!)
      }
      if (res.status >= 500) return `a ${res.status}: ${text.slice(0, 400)}`
      const echoed = sent.find((s) => text.includes(s) || [...res.headers.values()].some((v) => v.includes(s)))
      if (echoed) return `the answer echoes a secret the request carried (${echoed.slice(0, 6)}…): ${text.slice(0, 200)}`
      if (res.status >= 200 && res.status < 300) return null
      // Bun refuses a request head past 16 KiB with a bare 431 before any route (or hook) sees it.
      if (via === 'socket' && res.status === 431 && headBytes(c) > BUN_MAX_HEAD - 512) return null
      return problemFault(res.status, res.headers.get('content-type') ?? '', text)
    }

    const headBytes = (c: RouteCase) => target(c, w.refs).length + c.forwardedFor.length + (c.contentType?.length ?? 0) + Object.values(credentials(c, w)).join('').length

    const shown = (via: Via, c: RouteCase) => `${describeCase(c, w.refs)} [${via}; headers ${JSON.stringify(Object.keys(credentials(c, w)))}]`

    /** Replays run `index` of `seed` alone through fc.assert, which shrinks it; resolves to fast-check's report. */
    async function shrink(via: Via, seed: number, index: number): Promise<string> {
      try {
        await fc.assert(
          fc.asyncProperty(arb, async (c) => {
            const fault = await trial(via, c)
            if (fault) throw new Error(`${fault}\n    request: ${shown(via, c)}`)
          }),
          { seed, path: String(index), interruptAfterTimeLimit: 60_000 },
        )
        return 'it did not fail again when sent alone'
      } catch (err) {
        return (err as Error).message
      }
    }

    /** Sends `total` requests in batches, each batch sampled from its own seed; throws with every distinct failure, the first few shrunk. */
    async function fuzz(via: Via, total: number, batch: number, seedBase: number): Promise<Tally> {
      const tally = newTally()
      const found = new Map<string, Failure>()
      for (let run = 0; run * batch < total && found.size < MAX_FAILURES; run++) {
        const seed = (seedBase + run) % 2 ** 31
        const cases = fc.sample(arb, { seed, numRuns: Math.min(batch, total - run * batch) })
        const faults = await Promise.all(cases.map((c) => trial(via, c, tally)))
        faults.forEach((fault, index) => {
          const key = fault && `${cases[index]!.route} ${fault.split(/[:(]/)[0]}`
          if (key && !found.has(key)) found.set(key, { seed, index, fault: fault!, request: shown(via, cases[index]!) })
        })
        // A request that got no answer stalls every batch after it: stop at the first.
        if ([...found.values()].some((f) => f.fault.startsWith('no answer'))) break
        await restoreCredentials(h, w)
        if (run % 4 === 3) await restoreRefs(h, w)
      }
      if (found.size) throw new Error(await explain(via, [...found.values()]))
      return tally
    }

    /** The failures in words: each request and what was wrong, and the first few shrunk by fast-check. */
    async function explain(via: Via, failures: Failure[]): Promise<string> {
      const parts = [`${failures.length} distinct failure(s) over ${via} (FUZZ_SEED=${SEED}):`]
      for (const [n, f] of failures.entries()) {
        parts.push(`\n${n + 1}. ${f.request}\n→ ${f.fault}\n(run seed ${f.seed}, index ${f.index})`)
        if (n < SHRUNK_FAILURES) parts.push(`Shrunk by fast-check:\n${await shrink(via, f.seed, f.index)}`)
      }
      return parts.join('\n')
    }

    const report = (via: Via, t: Tally, ms: number) =>
      console.log(`fuzz routes ${via} on ${backend}: ${t.sent} requests in ${(ms / 1000).toFixed(1)} s (${Math.round(t.sent / (ms / 1000))}/s), seed ${SEED}; statuses ${JSON.stringify(t.statuses)}; bodies ${JSON.stringify(t.kinds)}; live feeds cut ${t.streams}`)

    test('the route list is read from the app, and has every route', () => {
      expect(routes.length).toBeGreaterThanOrEqual(60)
      expect(routes.map((r) => `${r.method} ${r.path}`)).toContain(STREAM)
    })

    test(`${REQUESTS} requests through app.handle: no 5xx, every refusal a problem, no secret echoed`, async () => {
      const started = performance.now()
      const t = await fuzz('handle', REQUESTS, BATCH, SEED)
      report('handle', t, performance.now() - started)
      expect(t.sent).toBe(REQUESTS)
      // Every route got requests (when there are enough of them to go round).
      if (REQUESTS >= routes.length * 20) expect(routes.map((r) => `${r.method} ${r.path}`).filter((r) => !t.routes[r])).toEqual([])
      // Most requests got past authentication and the throttles, to validation and beyond.
      const share = (status: number) => (t.statuses[status] ?? 0) / t.sent
      expect(share(401)).toBeLessThan(0.3)
      expect(share(429)).toBeLessThan(0.05)
      expect(share(400)).toBeGreaterThan(0.2)
      expect(Object.entries(t.statuses).filter(([s]) => Number(s) < 300).reduce((n, [, k]) => n + k, 0) / t.sent).toBeGreaterThan(0.1)
    }, 300_000)

    test(`${SOCKET_REQUESTS} requests over the socket: the same`, async () => {
      const started = performance.now()
      const t = await fuzz('socket', SOCKET_REQUESTS, SOCKET_BATCH, SEED + 1_000_000)
      report('socket', t, performance.now() - started)
      expect(t.sent).toBe(SOCKET_REQUESTS)
    }, 300_000)

    test(`/healthz answered within ${PROBE_BUDGET_MS} ms all through`, async () => {
      await probe.stop()
      const { probes, maxMs, failures, slow } = probe.stats
      console.log(`fuzz routes on ${backend}: ${probes} /healthz probes, slowest ${maxMs.toFixed(1)} ms`)
      expect(failures).toEqual([])
      expect(probes).toBeGreaterThan(10)
      expect(slow).toEqual([])
      expect(maxMs).toBeLessThanOrEqual(PROBE_BUDGET_MS)
    })

    test('no request polluted a prototype, and Herald still answers', async () => {
      expect(prototypes()).toEqual(before)
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      await restoreCredentials(h, w)
      expect((await call(h, 'GET', `/v1/workspaces/${w.refs.workspace}`, w.owner)).status).toBe(200)
      expect((await fetch(h.url + '/healthz')).status).toBe(200)
    })
  })
}
