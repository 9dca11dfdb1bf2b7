// The router form's state: the bodies the routers API takes from what the
// form holds, the live preview of what the destination would receive (an
// answer to an older state of the form dropped), and creating or saving the
// router. Rendering the form and reading its destination fields are in
// page_router_form.ts and router_fields.ts.
import { ApiError, type Api, type Schemas } from '../api'
import type { RouterView } from './routers'
import type { Pacing } from './router_pacing'

export type Template = NonNullable<Schemas['RouterPreviewBody']['template']>
// The fields are the registry's, so the destination has the API's shape; the API checks it.
export type Destination = Schemas['CreateRouterBody']['destination']
export type CreatedRouter = Schemas['CreatedRouter']

/** What the form holds: the router's settings, its destination (`filled`: whether any field of it was filled in) and its template. */
export interface RouterDraft {
  name: string
  pattern: string
  enabled: boolean
  minPriority: number // 1-5: only events at or above it are forwarded
  destination: Record<string, unknown> & { type: string }
  filled: boolean
  template: Template | null
  pacing?: Pacing // a throttle, a digest or neither (state/router_pacing.ts); left out, a saved router keeps its own
}

/** The name, pattern, enabled and minPriority of a submitted form, trimmed. */
export function routerSettings(form: { get(name: string): unknown }): Pick<RouterDraft, 'name' | 'pattern' | 'enabled' | 'minPriority'> {
  return { name: String(form.get('name')).trim(), pattern: String(form.get('pattern')).trim(), enabled: form.get('enabled') === 'on', minPriority: Number(form.get('minPriority') ?? 1) || 1 }
}

/** The template of the form's two parts, or null when both are empty (the destination's default rendering). */
export function templateOf(title: string, body: string): Template | null {
  return title || body ? { ...(title ? { title } : {}), ...(body ? { body } : {}) } : null
}

/** A preview's body as shown: JSON indented, anything else as it came. */
export function shownBody(contentType: string, body: string): string {
  try {
    if (contentType.includes('json')) return JSON.stringify(JSON.parse(body), null, 2)
  } catch {}
  return body
}

/** Why a preview could not be rendered, in words: the API's detail (a broken template, a field the type lacks) when it gave one. */
export const previewProblem = (err: unknown) => (err instanceof ApiError ? `The preview cannot be rendered: ${err.detail}` : 'The preview cannot be rendered.')

export type PreviewOutcome = { contentType: string; body: string } | { problem: string }

/**
 * Previews for the form of a router of `workspace`: each call renders what
 * the destination would receive for a sample event (nothing is sent). The
 * form asks again on every change, and answers may overlap: one that comes
 * after a later call was made is for an older state of the form, and
 * resolves to null, to be dropped.
 */
export function routerPreviews(api: Api, workspace: string) {
  let seq = 0
  return async (destination: RouterDraft['destination'], template: Template | null): Promise<PreviewOutcome | null> => {
    const mine = ++seq
    let outcome: PreviewOutcome
    try {
      const answer = await api.post('/v1/workspaces/{workspace}/routers/preview', { path: { workspace }, body: { destination, ...(template ? { template } : {}) } })
      outcome = { contentType: answer.contentType, body: shownBody(answer.contentType, answer.body) }
    } catch (err) {
      outcome = { problem: previewProblem(err) }
    }
    return mine === seq ? outcome : null
  }
}

/** Creates a router; the answer holds its signing secret, shown this once. */
export const createRouter = (api: Api, workspace: string, d: RouterDraft): Promise<CreatedRouter> =>
  api.post('/v1/workspaces/{workspace}/routers', {
    path: { workspace },
    body: {
      name: d.name, pattern: d.pattern, enabled: d.enabled, minPriority: d.minPriority, destination: d.destination as Destination, ...(d.template ? { template: d.template } : {}),
      ...(d.pacing?.throttle ? { throttle: d.pacing.throttle } : {}), ...(d.pacing?.digest ? { digest: d.pacing.digest } : {}),
    },
  })

/**
 * Saves the form's changes to `router`. Its destination's settings are secret
 * and never shown, so the fields start empty: it is replaced only when one of
 * them was filled in or its type changed, and kept otherwise. An empty
 * template is sent as null, which clears the one it had; so are the throttle
 * and digest the form does not choose (a router has at most one).
 */
export async function updateRouter(api: Api, workspace: string, router: Pick<RouterView, 'id' | 'destination'>, d: RouterDraft): Promise<void> {
  const replace = d.filled || d.destination.type !== router.destination.type
  await api.patch('/v1/workspaces/{workspace}/routers/{id}', {
    path: { workspace, id: router.id },
    body: { name: d.name, pattern: d.pattern, enabled: d.enabled, minPriority: d.minPriority, template: d.template, ...(replace ? { destination: d.destination as Destination } : {}), ...(d.pacing ?? {}) },
  })
}
