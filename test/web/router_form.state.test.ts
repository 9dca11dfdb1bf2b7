// The router form's state (src/web/state/router_form.ts): the bodies made of
// what the form holds, and, against a real Herald and a real webhook
// receiver, the live preview (an answer to an older state of the form
// dropped), creating a router, and saving changes that keep or replace its
// secret destination.
import { afterAll, describe, expect, test } from 'bun:test'
import { ApiError } from '../../src/web/api'
import { createRouter, previewProblem, routerPreviews, routerSettings, shownBody, templateOf, updateRouter, type RouterDraft } from '../../src/web/state/router_form'
import { readRouter, shownUrl, testRouter } from '../../src/web/state/routers'
import { backends, useTestHerald } from '../harness'
import { startReceiver } from '../receiver'
import { signUpWeb } from './signed_in'

describe('what the form holds', () => {
  test('the settings of a submitted form, trimmed; enabled only when checked', () => {
    expect(routerSettings(new URLSearchParams({ name: '  hook ', pattern: ' user.* ', enabled: 'on', minPriority: '4' }))).toEqual({ name: 'hook', pattern: 'user.*', enabled: true, minPriority: 4 })
    expect(routerSettings(new URLSearchParams({ name: 'hook', pattern: '*' })).minPriority).toBe(1)
    expect(routerSettings(new URLSearchParams({ name: 'hook', pattern: '*' })).enabled).toBe(false)
  })

  test('a template only of the parts filled in; none when both are empty', () => {
    expect(templateOf('', '')).toBeNull()
    expect(templateOf('New {{event}}', '')).toEqual({ title: 'New {{event}}' })
    expect(templateOf('', '{"text":"{{message}}"}')).toEqual({ body: '{"text":"{{message}}"}' })
    expect(templateOf('T', 'B')).toEqual({ title: 'T', body: 'B' })
  })

  test('a JSON preview is indented; anything else, or broken JSON, is shown as it came', () => {
    expect(shownBody('application/json', '{"a":1}')).toBe('{\n  "a": 1\n}')
    expect(shownBody('application/json', '{"a":')).toBe('{"a":')
    expect(shownBody('text/plain', '{"a":1}')).toBe('{"a":1}')
  })

  test("a preview that fails says why in the API's words", () => {
    expect(previewProblem(new ApiError(400, 'The title template is invalid.'))).toBe('The preview cannot be rendered: The title template is invalid.')
    expect(previewProblem(new Error('boom'))).toBe('The preview cannot be rendered.')
  })
})

for (const backend of backends) {
  describe(`router form state against Herald (${backend})`, () => {
    const receiver = startReceiver()
    const h = useTestHerald(backend, { HERALD_OUTBOUND_ALLOW: '127.0.0.0/8' })
    afterAll(() => receiver.stop())

    const draft = (over: Partial<RouterDraft> = {}): RouterDraft => ({
      name: 'hook',
      pattern: 'user.*',
      enabled: true,
      minPriority: 1,
      destination: { type: 'webhook', url: `${receiver.url}/first?token=t` },
      filled: true,
      template: null,
      ...over,
    })

    test('the preview renders each type for a sample event, with the template; a broken one says why', async () => {
      const { api, workspace } = await signUpWeb(h, 'preview')
      const preview = routerPreviews(api, workspace)
      const webhook = await preview({ type: 'webhook', url: 'https://example.com/hook' }, null)
      expect(webhook).toMatchObject({ contentType: expect.stringContaining('json') })
      expect((webhook as { body: string }).body).toContain('"type": "event.created"')
      const slack = await preview({ type: 'slack' }, null)
      expect((slack as { body: string }).body).toContain('"blocks"')
      const templated = await preview({ type: 'webhook' }, templateOf('', '{"plan": "{{data.plan}}"}'))
      expect((templated as { body: string }).body).toBe('{\n  "plan": "pro"\n}')

      const broken = await preview({ type: 'webhook' }, templateOf('{{#broken}', ''))
      expect(broken).toEqual({ problem: expect.stringMatching(/^The preview cannot be rendered: \S/) })
    })

    test('an answer to an older state of the form is dropped', async () => {
      const { api, workspace } = await signUpWeb(h, 'preview-order')
      const preview = routerPreviews(api, workspace)
      const [older, newer] = await Promise.all([preview({ type: 'slack' }, null), preview({ type: 'webhook' }, templateOf('', 'newest'))])
      expect(older).toBeNull()
      expect(newer).toMatchObject({ body: 'newest' })
      // A problem of an older state is dropped as well.
      const [brokenOlder, fine] = await Promise.all([preview({ type: 'webhook' }, templateOf('{{#broken}', '')), preview({ type: 'webhook' }, templateOf('', 'ok'))])
      expect(brokenOlder).toBeNull()
      expect(fine).toMatchObject({ body: 'ok' })
    })

    test('creates a router with its signing secret; a field the API refuses is named', async () => {
      const { api, workspace } = await signUpWeb(h, 'create-router')
      const made = await createRouter(api, workspace, draft({ template: { title: 'New {{event}}' }, minPriority: 4 }))
      expect(made.secret).toStartWith('whsec_')
      const router = await readRouter(api, workspace, made.id)
      expect(router).toMatchObject({ name: 'hook', pattern: 'user.*', enabled: true, minPriority: 4, template: { title: 'New {{event}}' } })

      const refused = (await createRouter(api, workspace, draft({ name: 'bad', destination: { type: 'webhook', url: 'not an address' } })).catch((e: unknown) => e)) as ApiError
      expect(refused).toBeInstanceOf(ApiError)
      expect(refused.status).toBe(400)
      expect(refused.errors.map((e) => e.pointer)).toContain('/destination/url')
    })

    test('saving keeps the destination when its fields are left empty, replaces it when filled in or of another type', async () => {
      const { api, workspace } = await signUpWeb(h, 'update-router')
      const made = await createRouter(api, workspace, draft({ template: { title: 'T' } }))
      let router = await readRouter(api, workspace, made.id)
      const sentTo = async () => {
        await testRouter(api, workspace, made.id)
        return receiver.received.at(-1)!.path
      }

      // The form shows no secret: left empty, the fields keep the stored destination; an empty template clears it.
      await updateRouter(api, workspace, router, draft({ name: 'renamed', enabled: false, minPriority: 5, destination: { type: 'webhook' }, filled: false }))
      router = await readRouter(api, workspace, made.id)
      expect(router).toMatchObject({ name: 'renamed', enabled: false, minPriority: 5 })
      expect(router.template ?? null).toBeNull()
      expect(shownUrl(String(router.destination.url))).toEqual({ url: receiver.url, hidden: true })
      expect(await sentTo()).toBe('/first?token=t')

      await updateRouter(api, workspace, router, draft({ destination: { type: 'webhook', url: `${receiver.url}/second` } }))
      expect(await sentTo()).toBe('/second')

      // Another type is a new destination, even with no field filled in: the API names what it lacks.
      const lacking = (await updateRouter(api, workspace, router, draft({ destination: { type: 'slack' }, filled: false })).catch((e: unknown) => e)) as ApiError
      expect(lacking).toBeInstanceOf(ApiError)
      expect(lacking.status).toBe(400)
      expect(lacking.errors.some((e) => e.pointer?.startsWith('/destination'))).toBe(true)
      expect((await readRouter(api, workspace, made.id)).destination.type).toBe('webhook')
    })
  })
}
