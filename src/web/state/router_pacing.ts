// The router form's "Delivery pacing": none, a throttle or a digest (a
// router has one of them), read from the form into the bodies the routers
// API takes, with the spelling of each field checked here so that a slip
// ("1 h", an empty limit) is named at its field before anything is sent; the
// API checks the bounds. And the values an edited router's fields start with.
import { ApiError, type FieldError } from '../api'
import { formatDuration } from '../../core/duration'
import { WINDOW_LIMITS } from '../../delivery/router_window_limits'

export { WINDOW_LIMITS }
export type PacingKind = 'none' | 'throttle' | 'digest'

export interface ThrottleBody {
  limit: number
  per: number | string
  key?: string
}
export interface DigestBody {
  window: number | string
  key?: string
  max?: number
  bypassPriority?: number
}
export interface Pacing {
  throttle: ThrottleBody | null
  digest: DigestBody | null
}

/** A router's pacing as it is read back (seconds), the fields of the form start with it. */
export interface PacingShown {
  throttle?: { limit: number; per: number; key: string } | null
  digest?: { window: number; key: string; max: number; bypassPriority?: number } | null
}

/** What the pacing fields of a form hold: their names in the form, as text. */
export interface PacingFields {
  pacing: PacingKind
  throttleLimit: string
  throttlePer: string
  throttleKey: string
  digestWindow: string
  digestKey: string
  digestMax: string
  digestBypass: string // '' for none, else 1-5
}

/** The fields an edited router's pacing starts with; a new router has none, and a digest's max its default. */
export function pacingFields(r: PacingShown | null): PacingFields {
  const t = r?.throttle
  const d = r?.digest
  return {
    pacing: t ? 'throttle' : d ? 'digest' : 'none',
    throttleLimit: t ? String(t.limit) : '',
    throttlePer: t ? formatDuration(t.per) : '',
    throttleKey: t?.key ?? '',
    digestWindow: d ? formatDuration(d.window) : '',
    digestKey: d?.key ?? '',
    digestMax: String(d?.max ?? WINDOW_LIMITS.digestMaxDefault),
    digestBypass: d?.bypassPriority !== undefined ? String(d.bypassPriority) : '',
  }
}

const DURATION = /^\d{1,9}[smhd]?$/
const WHOLE = /^\d{1,9}$/
const problem = (pointer: string, detail: string): FieldError => ({ pointer, detail: `${pointer.slice(1).replaceAll('/', '.')}: ${detail}` })

function duration(raw: string, pointer: string, errors: FieldError[]): number | string {
  const v = raw.trim()
  if (!DURATION.test(v)) errors.push(problem(pointer, v ? 'must be whole seconds or a duration such as 90s, 15m, 2h or 1d' : 'is required: a duration such as 1h'))
  return WHOLE.test(v) ? Number(v) : v
}

function whole(raw: string, pointer: string, errors: FieldError[]): number {
  const v = raw.trim()
  if (!WHOLE.test(v)) errors.push(problem(pointer, v ? 'must be a whole number' : 'is required'))
  return Number(v)
}

/**
 * The throttle and digest of the form's fields: the chosen one set, the other
 * null (so that saving a router that had the other one swaps them). A field
 * that is not even spelled right is an ApiError naming it, as the API would.
 */
export function pacingOf(f: PacingFields): Pacing {
  const errors: FieldError[] = []
  let pacing: Pacing = { throttle: null, digest: null }
  if (f.pacing === 'throttle') {
    const key = f.throttleKey.trim()
    pacing = { throttle: { limit: whole(f.throttleLimit, '/throttle/limit', errors), per: duration(f.throttlePer, '/throttle/per', errors), ...(key ? { key } : {}) }, digest: null }
  } else if (f.pacing === 'digest') {
    const key = f.digestKey.trim()
    const max = f.digestMax.trim() ? whole(f.digestMax, '/digest/max', errors) : undefined
    const bypass = f.digestBypass ? Number(f.digestBypass) : undefined
    pacing = { throttle: null, digest: { window: duration(f.digestWindow, '/digest/window', errors), ...(key ? { key } : {}), ...(max !== undefined ? { max } : {}), ...(bypass ? { bypassPriority: bypass } : {}) } }
  }
  if (errors.length) throw new ApiError(400, 'Check the delivery pacing: some fields are not valid.', errors)
  return pacing
}

/** The pacing fields of a submitted form. */
export function readPacingFields(form: { get(name: string): unknown }): PacingFields {
  const text = (name: string) => String(form.get(name) ?? '')
  const kind = text('pacing')
  return {
    pacing: kind === 'throttle' || kind === 'digest' ? kind : 'none',
    throttleLimit: text('throttleLimit'),
    throttlePer: text('throttlePer'),
    throttleKey: text('throttleKey'),
    digestWindow: text('digestWindow'),
    digestKey: text('digestKey'),
    digestMax: text('digestMax'),
    digestBypass: text('digestBypass'),
  }
}
