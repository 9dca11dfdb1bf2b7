// Every route group of Herald but POST /event is built on this. Its guard
// decides who may call the group's routes. It runs once Elysia has matched one
// of them, so the router and the guard always agree on what the path is: no
// guard ever looks at request.url, whose host and path a client controls. It
// runs from the headers alone, before a byte of the body is read. Only then
// is the body read, within the group's limit (src/http/body.ts).
import { Elysia } from 'elysia'
import { DEFAULT_BODY_LIMIT, readJsonObject } from '../body'

export interface GroupOptions {
  /** The plugin's name; Elysia drops a second plugin of the same name. */
  name: string
  prefix?: string
  /** Throws (401, 403, 404) unless the request may call the group's routes. */
  guard?: (request: Request) => unknown
  /** The most bytes a body of these routes may have; 413 past it. */
  bodyLimit?: number
}

export function routeGroup({ name, prefix, guard, bodyLimit = DEFAULT_BODY_LIMIT }: GroupOptions) {
  const passed = new WeakSet<Request>()
  const check = async (request: Request) => {
    if (!guard || passed.has(request)) return
    await guard(request)
    passed.add(request)
  }
  return (
    new Elysia({ name, prefix })
      // A route that may have a body (any method but GET and HEAD): the guard,
      // then the body. Elysia runs parse hooks before transform.
      .onParse({ as: 'local' }, async ({ request }) => {
        await check(request)
        return readJsonObject(request, bodyLimit)
      })
      // GET and HEAD have no parse phase.
      .onTransform({ as: 'local' }, ({ request }) => check(request))
  )
}
