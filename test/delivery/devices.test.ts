// Members (operator API) and the device API a mobile app calls with its user
// token, on every backend.
import { beforeAll, describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'

for (const backend of backends) {
  describe(`members and devices (${backend})`, () => {
    const h = useTestHerald(backend)
    let ws: { name: string; apiKey: string }
    beforeAll(async () => {
      ws = await h.workspace()
    }, 30_000)

    const member = async (email: string, workspace = ws.name) => {
      const res = await h.admin('POST', `/admin/workspaces/${workspace}/members`, { email })
      expect(res.status).toBe(201)
      return (await res.json()) as { userId: string; userToken: string }
    }
    const asUser = (token: string, method: string, path: string, body?: unknown) =>
      fetch(h.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })

    test('adding a member answers exactly userId and userToken; the documented address works', async () => {
      const res = await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: 'a@b.c' })
      expect(res.status).toBe(201)
      const body = await res.json()
      expect(Object.keys(body).sort()).toEqual(['userId', 'userToken'])
      expect(body.userToken).toStartWith('hrlu_')
      const list = (await (await h.admin('GET', `/admin/workspaces/${ws.name}/members`)).json()) as { email: string; role: string }[]
      expect(list.find((m) => m.email === 'a@b.c')?.role).toBe('member')
    })

    test('a second add is 409; an unknown workspace 404; a bad address 400', async () => {
      await member('twice@example.com')
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: 'TWICE@example.com' })).status).toBe(409)
      expect((await h.admin('POST', `/admin/workspaces/nope-${Date.now()}/members`, { email: 'x@example.com' })).status).toBe(404)
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/members`, { email: 'not an address' })).status).toBe(400)
    })

    test('one person in two workspaces is one user', async () => {
      const other = await h.workspace()
      const a = await member('both@example.com')
      const b = await member('both@example.com', other.name)
      expect(b.userId).toBe(a.userId)
      expect(b.userToken).not.toBe(a.userToken)
    })

    test('register, refresh (same token: same device), list and delete a device', async () => {
      const { userToken } = await member(`dev-${Date.now()}@example.com`)
      const reg = await asUser(userToken, 'POST', '/v1/devices', { platform: 'ios', provider: 'apns', token: 'a1b2c3d4e5', environment: 'sandbox' })
      expect(reg.status).toBe(201)
      const { id } = (await reg.json()) as { id: string }
      const again = await asUser(userToken, 'POST', '/v1/devices', { platform: 'ios', provider: 'apns', token: 'a1b2c3d4e5', environment: 'production', topic: 'com.example.app' })
      expect(again.status).toBe(201)
      expect(((await again.json()) as { id: string }).id).toBe(id)
      const fcm = (await (await asUser(userToken, 'POST', '/v1/devices', { platform: 'android', provider: 'fcm', token: 'fcm-token-1' })).json()) as { id: string }
      const list = (await (await asUser(userToken, 'GET', '/v1/devices')).json()) as { id: string; environment: string; topic: string | null; tokenPrefix: string }[]
      expect(list.map((d) => d.id)).toEqual([id, fcm.id])
      expect(list[0]!.environment).toBe('production')
      expect(list[0]!.topic).toBe('com.example.app')
      expect(JSON.stringify(list)).not.toContain('a1b2c3d4e5') // only a prefix of the token is shown
      expect((await asUser(userToken, 'DELETE', `/v1/devices/${fcm.id}`)).status).toBe(204)
      expect((await asUser(userToken, 'DELETE', `/v1/devices/${fcm.id}`)).status).toBe(404)
      expect(((await (await asUser(userToken, 'GET', '/v1/devices')).json()) as unknown[]).length).toBe(1)
    })

    test('a user cannot delete another user\'s device', async () => {
      const a = await member(`owner-${Date.now()}@example.com`)
      const b = await member(`other-${Date.now()}@example.com`)
      const { id } = (await (await asUser(a.userToken, 'POST', '/v1/devices', { platform: 'android', provider: 'fcm', token: `t-${Date.now()}` })).json()) as { id: string }
      expect((await asUser(b.userToken, 'DELETE', `/v1/devices/${id}`)).status).toBe(404)
    })

    test('bad device bodies are 400 with a pointer', async () => {
      const { userToken } = await member(`bad-${Date.now()}@example.com`)
      for (const body of [
        { platform: 'windows', provider: 'apns', token: 'x' },
        { platform: 'ios', provider: 'gcm', token: 'x' },
        { platform: 'ios', provider: 'apns', token: '' },
        { platform: 'ios', provider: 'apns', token: 'x', environment: 'staging' },
        { platform: 'android', provider: 'apns', token: 'x' },
      ]) {
        const res = await asUser(userToken, 'POST', '/v1/devices', body)
        expect(res.status).toBe(400)
        expect(res.headers.get('content-type')).toStartWith('application/problem+json')
      }
    })

    test('the device API needs a user token: none, a workspace API key, or a forged token is 401', async () => {
      expect((await fetch(h.url + '/v1/devices')).status).toBe(401)
      expect((await asUser(ws.apiKey, 'GET', '/v1/devices')).status).toBe(401)
      expect((await asUser('hrlu_' + 'A'.repeat(36), 'GET', '/v1/devices')).status).toBe(401)
    })

    test('mute and unmute a channel', async () => {
      const { userToken } = await member(`mute-${Date.now()}@example.com`)
      expect((await h.admin('POST', `/admin/workspaces/${ws.name}/channels`, { slug: 'alerts' })).status).toBe(201)
      expect((await asUser(userToken, 'PUT', `/v1/workspaces/${ws.name}/channels/alerts/mute`)).status).toBe(204)
      let list = (await (await h.admin('GET', `/admin/workspaces/${ws.name}/members`)).json()) as { email: string; mutedChannels: string[] }[]
      expect(list.find((m) => m.email.startsWith('mute-'))!.mutedChannels).toEqual(['alerts'])
      expect((await asUser(userToken, 'DELETE', `/v1/workspaces/${ws.name}/channels/alerts/mute`)).status).toBe(204)
      list = (await (await h.admin('GET', `/admin/workspaces/${ws.name}/members`)).json()) as { email: string; mutedChannels: string[] }[]
      expect(list.find((m) => m.email.startsWith('mute-'))!.mutedChannels).toEqual([])
      const other = await h.workspace()
      expect((await asUser(userToken, 'PUT', `/v1/workspaces/${other.name}/channels/alerts/mute`)).status).toBe(404)
    })
  })
}
