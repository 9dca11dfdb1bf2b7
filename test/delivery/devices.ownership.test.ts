// A push token or a browser's push endpoint belongs to the person who
// registered it, on every backend. Someone else who sends the same endpoint
// (it is a URL, and can leak) or the same APNs/FCM token with keys of their
// own is refused with a 409 that names no device and no owner: the device
// stays its owner's, with its owner's keys. The owner registering it again
// still refreshes the same device (DECISIONS.md). Two people registering one
// new endpoint at once leave it with exactly one of them.
import { beforeAll, describe, expect, test } from 'bun:test'
import { createECDH, randomBytes } from 'node:crypto'
import { backends, useTestHerald } from '../harness'
import { expectProblem } from '../support'

const b64 = (b: Buffer) => b.toString('base64url')
const keys = () => {
  const e = createECDH('prime256v1')
  e.generateKeys()
  return { p256dh: b64(e.getPublicKey()), auth: b64(randomBytes(16)) }
}
const endpoint = () => `https://push.example.com/wpush/v2/${b64(randomBytes(24))}`
const webpush = (url: string, k = keys()) => ({ provider: 'webpush', subscription: { endpoint: url, expirationTime: null, keys: k } })

for (const backend of backends) {
  describe(`a push endpoint or token belongs to one person (${backend})`, () => {
    const h = useTestHerald(backend)
    type Member = { userId: string; userToken: string; email: string }
    let a: Member
    let b: Member

    beforeAll(async () => {
      const ws = await h.workspace()
      const add = async (tag: string): Promise<Member> => {
        const email = `${tag}-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`
        const res = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email })
        expect(res.status).toBe(201)
        return { ...((await res.json()) as { userId: string; userToken: string }), email }
      }
      a = await add('owner-a')
      b = await add('other-b')
    }, 30_000)

    const as = (who: Member, method: string, path: string, body?: unknown) =>
      fetch(h.url + path, {
        method,
        headers: { authorization: `Bearer ${who.userToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    const row = async (token: string) => [
      ...(await h.db.sql<{ id: string; userId: string; p256dh: string | null; auth: string | null; environment: string }[]>`
        SELECT id, user_id AS "userId", p256dh, auth, environment FROM devices WHERE token = ${token}`),
    ]
    /** A refusal that tells nothing of the device it is about: no id, no owner, nothing but the problem's own fields. */
    const expectRefusedBlind = async (res: Response, device: { id: string }) => {
      const text = await res.clone().text()
      const problem = await expectProblem(res, 409, 'conflict')
      expect(Object.keys(problem).sort()).toEqual(['detail', 'status', 'title', 'type'])
      for (const secret of [device.id, a.userId, a.email]) expect(text).not.toContain(secret)
      expect(problem.detail).toContain('registered to another account')
      return problem
    }

    test("another person registering someone's Web Push endpoint with their own keys is refused; the device stays its owner's, keys and all", async () => {
      const url = endpoint()
      const mine = keys()
      const first = await as(a, 'POST', '/v1/devices', webpush(url, mine))
      expect(first.status).toBe(201)
      const { id } = (await first.json()) as { id: string }

      const problem = await expectRefusedBlind(await as(b, 'POST', '/v1/devices', webpush(url)), { id })
      // What an honest person at that browser can do about it.
      expect(problem.detail).toContain('subscribe again')

      expect(await row(url)).toEqual([{ id, userId: a.userId, p256dh: mine.p256dh, auth: mine.auth, environment: 'production' }])
      expect(await (await as(b, 'GET', '/v1/devices')).json()).toEqual([])
      const listed = (await (await as(a, 'GET', '/v1/devices')).json()) as { id: string; endpoint: string | null }[]
      expect(listed.filter((d) => d.endpoint === url).map((d) => d.id)).toEqual([id])
      // Nor can the other person remove it.
      expect((await as(b, 'DELETE', `/v1/devices/${id}`)).status).toBe(404)

      // Its owner registering it again still refreshes the same device.
      const renewed = keys()
      const again = await as(a, 'POST', '/v1/devices', webpush(url, renewed))
      expect(again.status).toBe(201)
      expect(((await again.json()) as { id: string }).id).toBe(id)
      expect(await row(url)).toEqual([{ id, userId: a.userId, p256dh: renewed.p256dh, auth: renewed.auth, environment: 'production' }])
    })

    for (const [provider, platform] of [['apns', 'ios'], ['fcm', 'android']] as const) {
      test(`the same for an ${provider} token: refused without a word of its device, kept by its owner`, async () => {
        const token = `${provider}-${randomBytes(16).toString('hex')}`
        const first = await as(a, 'POST', '/v1/devices', { provider, platform, token, ...(provider === 'apns' ? { environment: 'sandbox' } : {}) })
        expect(first.status).toBe(201)
        const { id } = (await first.json()) as { id: string }
        await expectRefusedBlind(await as(b, 'POST', '/v1/devices', { provider, platform, token }), { id })
        expect(await row(token)).toEqual([{ id, userId: a.userId, p256dh: null, auth: null, environment: provider === 'apns' ? 'sandbox' : 'production' }])
        expect(await (await as(b, 'GET', '/v1/devices')).json()).toEqual([])
      })
    }

    test('two people registering one new endpoint at once: exactly one owns it, the other is refused', async () => {
      for (let round = 0; round < 15; round++) {
        const url = endpoint()
        const [ra, rb] = await Promise.all([as(a, 'POST', '/v1/devices', webpush(url)), as(b, 'POST', '/v1/devices', webpush(url))])
        expect([ra.status, rb.status].sort()).toEqual([201, 409])
        const [winner, won, lost] = ra.status === 201 ? [a, ra, rb] : [b, rb, ra]
        const { id } = (await won.json()) as { id: string }
        const rows = await row(url)
        expect(rows).toHaveLength(1)
        expect(rows[0]).toMatchObject({ id, userId: winner.userId })
        const problem = (await lost.json()) as Record<string, unknown>
        expect(JSON.stringify(problem)).not.toContain(id)
      }
    }, 60_000)
  })
}
