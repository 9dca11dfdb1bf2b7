// A 400 reads as words, never as a regular expression or TypeBox's phrasing:
// the dashboard and the CLI show these details as they are.
import { describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { PASSWORD, newEmail, signUp } from '../users'

const REGEX_LEAK = /Expected string to match|'\^|\$'|\\\\x[0-9a-f]{2}|\[a-z0-9\]/

for (const backend of backends) {
  describe(`validation messages in words on ${backend}`, () => {
    const h = useTestHerald(backend)

    test('sign-up with the workspace "My Team": the rule in words, once', async () => {
      const res = await fetch(`${h.url}/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: newEmail(), password: PASSWORD, workspace: 'My Team' }) })
      const body = (await res.json()) as { detail: string; errors: { pointer: string; detail: string }[] }
      expect(res.status).toBe(400)
      expect(JSON.stringify(body)).not.toMatch(REGEX_LEAK)
      expect(body.detail).toContain('lower-case letters, digits, "-" and "_", starting with a letter or digit')
      expect(body.errors).toEqual([{ pointer: '/workspace', detail: body.detail }])
    })

    test('no refusal across the routes quotes a pattern', async () => {
      const owner = await signUp(h)
      const ws = await h.workspace()
      const cases: [string, string, unknown, string?][] = [
        ['POST', '/admin/workspaces', { name: 'Bad Name' }],
        ['POST', `/admin/workspaces/${ws.name}/routers`, { name: 'r', pattern: '*', destination: { type: 'sms', to: '12345', from: '+14155550100', accountSid: 'AC1', authToken: 't' } }],
        ['POST', `/admin/workspaces/${ws.name}/routers`, { name: 'r', pattern: '*', destination: { type: 'webhook', url: 'ftp://x' } }],
        ['POST', `/admin/workspaces/${ws.name}/members`, { email: 'not an address' }],
        ['POST', `/v1/workspaces/${owner.workspace}/channels`, { slug: 'Has Space' }, owner.token],
        ['GET', `/v1/workspaces/${owner.workspace}/channels?q=UP`, undefined, owner.token],
        ['POST', '/v1/devices', { platform: 'web', provider: 'webpush', endpoint: 'http://push.example/x', keys: { p256dh: 'x', auth: 'y' } }, owner.token],
        ['POST', '/v1/devices', { platform: 'ios', provider: 'apns', token: 'has space' }, owner.token],
        ['POST', '/v1/workspaces', { name: 'UPPER' }, owner.token],
      ]
      for (const [method, path, body, token] of cases) {
        const res = token ? await owner.call(method, path, body) : await h.admin(method, path, body)
        const text = await res.text()
        expect({ path, status: res.status }).toEqual({ path, status: 400 })
        expect({ path, text }).not.toEqual({ path, text: expect.stringMatching(REGEX_LEAK) })
      }
    })
  })
}
