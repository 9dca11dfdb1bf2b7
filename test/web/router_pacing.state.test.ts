// The router form's "Delivery pacing" (src/web/state/router_pacing.ts): the
// fields an edited router starts with, the bodies read from the fields (a
// slip named at its field before anything is sent), the pacing in words of
// the routers list; and, against a real Herald, creating a router with a
// throttle, swapping it for a digest, and clearing it.
import { describe, expect, test } from 'bun:test'
import { ApiError } from '../../src/web/api'
import { pacingFields, pacingOf, readPacingFields, type PacingFields } from '../../src/web/state/router_pacing'
import { createRouter, updateRouter, type RouterDraft } from '../../src/web/state/router_form'
import { readRouter } from '../../src/web/state/routers'
import { digestDetails, pacingWords } from '../../src/delivery/router_pacing'
import { backends, useTestHerald } from '../harness'
import { signUpWeb } from './signed_in'

const fields = (over: Partial<PacingFields> = {}): PacingFields => ({ ...pacingFields(null), ...over })
const pointers = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError)
    return (e as ApiError).errors.map((x) => x.pointer)
  }
  return []
}

describe('the pacing fields', () => {
  test('a new router has none, and a digest its default max; an edited one starts with its own, durations spelled short', () => {
    expect(pacingFields(null)).toEqual({ pacing: 'none', throttleLimit: '', throttlePer: '', throttleKey: '', digestWindow: '', digestKey: '', digestMax: '100', digestBypass: '' })
    expect(pacingFields({ throttle: { limit: 5, per: 3600, key: '{{data.host}}' }, digest: null })).toMatchObject({ pacing: 'throttle', throttleLimit: '5', throttlePer: '1h', throttleKey: '{{data.host}}' })
    expect(pacingFields({ throttle: null, digest: { window: 90, key: '', max: 20, bypassPriority: 4 } })).toMatchObject({ pacing: 'digest', digestWindow: '90s', digestMax: '20', digestBypass: '4' })
  })

  test('the bodies: the chosen kind set and the other null; seconds as numbers, durations as text; empty parts left out', () => {
    expect(pacingOf(fields())).toEqual({ throttle: null, digest: null })
    expect(pacingOf(fields({ pacing: 'throttle', throttleLimit: '5', throttlePer: '1h', throttleKey: ' {{data.host}} ' }))).toEqual({ throttle: { limit: 5, per: '1h', key: '{{data.host}}' }, digest: null })
    expect(pacingOf(fields({ pacing: 'throttle', throttleLimit: '5', throttlePer: '90' }))).toEqual({ throttle: { limit: 5, per: 90 }, digest: null })
    expect(pacingOf(fields({ pacing: 'digest', digestWindow: '10m', digestKey: '{{data.customer}}', digestBypass: '5' }))).toEqual({ throttle: null, digest: { window: '10m', key: '{{data.customer}}', max: 100, bypassPriority: 5 } })
    expect(pacingOf(fields({ pacing: 'digest', digestWindow: '600', digestMax: '' }))).toEqual({ throttle: null, digest: { window: 600 } })
    // The fields of the kind not chosen are ignored, even when they hold something.
    expect(pacingOf(fields({ pacing: 'none', throttleLimit: 'x', digestWindow: 'y' }))).toEqual({ throttle: null, digest: null })
  })

  test('a field not spelled right is an error at its pointer, before anything is sent', () => {
    expect(pointers(() => pacingOf(fields({ pacing: 'throttle' })))).toEqual(['/throttle/limit', '/throttle/per'])
    expect(pointers(() => pacingOf(fields({ pacing: 'throttle', throttleLimit: '5', throttlePer: '1 h' })))).toEqual(['/throttle/per'])
    expect(pointers(() => pacingOf(fields({ pacing: 'digest', digestWindow: 'soon', digestMax: 'lots' }))).sort()).toEqual(['/digest/max', '/digest/window'])
  })

  test('read from a submitted form; an unknown kind is none', () => {
    const form = new URLSearchParams({ pacing: 'digest', digestWindow: '10m', digestMax: '50', digestBypass: '' })
    expect(readPacingFields(form)).toMatchObject({ pacing: 'digest', digestWindow: '10m', digestMax: '50', throttleLimit: '' })
    expect(readPacingFields(new URLSearchParams({ pacing: 'sometimes' })).pacing).toBe('none')
  })

  test('the routers list says it in a word', () => {
    expect(pacingWords({ throttle: { limit: 5, per: 3600, key: '{{data.host}}' }, digest: null })).toBe('at most 5 per 1h per {{data.host}}')
    expect(pacingWords({ throttle: { limit: 10000, per: 60, key: '' } })).toBe('at most 10,000 per 1m')
    expect(pacingWords({ digest: { window: 600, key: '', max: 100 } })).toBe('digest every 10m')
    expect(pacingWords({ digest: { window: 90, key: '{{data.customer}}', max: 100 } })).toBe('digest every 90s per {{data.customer}}')
    expect(pacingWords({ throttle: null, digest: null })).toBeNull()
    expect(pacingWords({})).toBeNull()
    expect(digestDetails({ window: 600, max: 100, bypassPriority: 4 })).toBe('at most 100 events; priority 4 (high) and above go at once')
  })
})

for (const backend of backends) {
  describe(`router pacing against Herald (${backend})`, () => {
    const h = useTestHerald(backend)
    const draft = (over: Partial<RouterDraft> = {}): RouterDraft => ({
      name: 'paced', pattern: '*', enabled: true, minPriority: 1, destination: { type: 'webhook', url: 'https://receiver.invalid/hook' }, filled: true, template: null, ...over,
    })

    test('a router made with a throttle, saved with a digest in its place, then with none; the API names a field out of bounds', async () => {
      const { api, workspace } = await signUpWeb(h, 'pacing')
      const made = await createRouter(api, workspace, draft({ pacing: pacingOf(fields({ pacing: 'throttle', throttleLimit: '5', throttlePer: '1h', throttleKey: '{{data.host}}' })) }))
      let router = await readRouter(api, workspace, made.id)
      expect(router).toMatchObject({ throttle: { limit: 5, per: 3600, key: '{{data.host}}' }, digest: null })
      expect(pacingFields(router).throttlePer).toBe('1h')

      await updateRouter(api, workspace, router, draft({ destination: { type: 'webhook' }, filled: false, pacing: pacingOf(fields({ pacing: 'digest', digestWindow: '10m', digestBypass: '5' })) }))
      router = await readRouter(api, workspace, made.id)
      expect(router).toMatchObject({ throttle: null, digest: { window: 600, key: '', max: 100, bypassPriority: 5 } })

      // A draft without pacing (an older form) leaves it as it is.
      await updateRouter(api, workspace, router, draft({ name: 'renamed', destination: { type: 'webhook' }, filled: false }))
      expect(await readRouter(api, workspace, made.id)).toMatchObject({ name: 'renamed', digest: { window: 600 } })

      await updateRouter(api, workspace, router, draft({ destination: { type: 'webhook' }, filled: false, pacing: pacingOf(fields()) }))
      expect(await readRouter(api, workspace, made.id)).toMatchObject({ throttle: null, digest: null })

      const refused = (await createRouter(api, workspace, draft({ name: 'bad', pacing: pacingOf(fields({ pacing: 'throttle', throttleLimit: '5', throttlePer: '2d' })) })).catch((e: unknown) => e)) as ApiError
      expect(refused).toBeInstanceOf(ApiError)
      expect(refused.errors).toEqual([{ pointer: '/throttle/per', detail: 'throttle.per: must be at most 1d (86400 s)' }])
      const big = (await createRouter(api, workspace, draft({ name: 'bad', pacing: pacingOf(fields({ pacing: 'digest', digestWindow: '10m', digestMax: '1001' })) })).catch((e: unknown) => e)) as ApiError
      expect(big.errors.map((e) => e.pointer)).toEqual(['/digest/max'])
    })
  })
}
