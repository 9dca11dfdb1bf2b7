// A router's throttle and digest as the APIs take them (DECISIONS.md,
// "Scheduling, throttling, digests"): stored with their durations as
// seconds, returned on both APIs, cleared with null; every fault is a 400
// naming its field, and a router has at most one of the two.
import { describe, expect, test } from 'bun:test'
import { backends, useTestHerald } from '../harness'
import { signUp } from '../users'

const hook = (over: object = {}) => ({ name: `r-${Math.random().toString(36).slice(2, 8)}`, pattern: '*', destination: { type: 'webhook', url: 'https://receiver.invalid/hook' }, ...over })
type View = { throttle: unknown; digest: unknown }
const pointers = async (res: Response) => ((await res.json()) as { errors?: { pointer: string }[] }).errors?.map((e) => e.pointer)

for (const backend of backends) {
  describe(`a router's throttle and digest on ${backend}`, () => {
    const h = useTestHerald(backend)

    test('stored with seconds and defaults, returned on both APIs, changed and cleared by PATCH', async () => {
      const owner = await signUp(h)
      const base = `/v1/workspaces/${owner.workspace}/routers`
      const res = await owner.call('POST', base, hook({ throttle: { limit: 3, per: '1h', key: '{{data.host}}' } }))
      expect(res.status).toBe(201)
      const { id } = (await res.json()) as { id: string }
      const read = (await (await owner.call('GET', `${base}/${id}`)).json()) as View
      expect(read.throttle).toEqual({ limit: 3, per: 3600, key: '{{data.host}}' })
      expect(read.digest).toBeNull()
      const admin = (await (await h.admin('GET', `/admin/workspaces/${owner.workspace}/routers/${id}`)).json()) as View
      expect(admin.throttle).toEqual({ limit: 3, per: 3600, key: '{{data.host}}' })
      // Swapping the throttle for a digest in one request.
      const patched = await owner.call('PATCH', `${base}/${id}`, { throttle: null, digest: { window: 600, bypassPriority: 5 } })
      expect(patched.status).toBe(200)
      expect((await patched.json()) as View).toMatchObject({ throttle: null, digest: { window: 600, key: '', max: 100, bypassPriority: 5 } })
      const cleared = (await (await owner.call('PATCH', `${base}/${id}`, { digest: null })).json()) as View
      expect([cleared.throttle, cleared.digest]).toEqual([null, null])
    })

    test('bad values are 400s naming each field at once; both at once, or one on top of the other, is a 400', async () => {
      const owner = await signUp(h)
      const base = `/v1/workspaces/${owner.workspace}/routers`
      const cases: [object, string[]][] = [
        [{ throttle: { limit: 0, per: '1h' } }, ['/throttle/limit']],
        [{ throttle: { limit: 5, per: '0s' } }, ['/throttle/per']],
        [{ throttle: { limit: 5, per: '2d' } }, ['/throttle/per']],
        [{ throttle: { limit: 5, per: '1 h' } }, ['/throttle/per']],
        [{ throttle: { limit: 5 } }, ['/throttle/per']],
        [{ throttle: { limit: 5, per: 60, key: '{{#data}}' } }, ['/throttle/key']],
        [{ throttle: { limit: 5, per: 60, key: 'x'.repeat(201) } }, ['/throttle/key']],
        [{ throttle: { limit: 5, per: 60, extra: 1 } }, ['/throttle/extra']],
        [{ throttle: 'often' }, ['/throttle']],
        [{ digest: { window: '5s' } }, ['/digest/window']],
        [{ digest: { window: '10m', max: 1001 } }, ['/digest/max']],
        [{ digest: { window: '10m', bypassPriority: 6 } }, ['/digest/bypassPriority']],
        [{ digest: { window: '10m', max: 0 }, throttle: { limit: 1, per: '2d' } }, ['/throttle/per', '/digest/max']],
        [{ digest: { window: '10m' }, throttle: { limit: 1, per: 60 } }, ['/digest']],
      ]
      for (const [body, expected] of cases) {
        const res = await owner.call('POST', base, hook(body))
        expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400])
        expect((await pointers(res))?.sort()).toEqual([...expected].sort())
      }
      const { id } = (await (await owner.call('POST', base, hook({ digest: { window: '10m' } }))).json()) as { id: string }
      const res = await owner.call('PATCH', `${base}/${id}`, { throttle: { limit: 1, per: 60 } })
      expect(res.status).toBe(400)
      expect(await pointers(res)).toEqual(['/throttle'])
      expect(((await (await owner.call('GET', `${base}/${id}`)).json()) as View).throttle).toBeNull()
    })
  })
}
