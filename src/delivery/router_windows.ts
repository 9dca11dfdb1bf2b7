// A router's throttle and digest as the API takes them and the pipeline reads
// them (docs/routers.md, "Throttle and digest"). Both count per
// rendered `key` (a template over the event, like a router's title) in a
// window that starts with the first event of its key. The bounds are in
// router_window_limits.ts, once: the API's schema, its checks, the docs, the
// engine and the dashboard read them.
import { Type, type Static } from '@sinclair/typebox'
import { formatDuration, parseDuration } from '../core/duration'
import type { FieldError } from '../core/problems'
import { renderTemplate, validateTemplate } from './template'
import type { EventView } from './event_view'
import { WINDOW_LIMITS } from './router_window_limits'

export { WINDOW_LIMITS } // in a file of its own, free of server code: the dashboard's form shows the bounds

const Duration = (description: string, examples: (number | string)[]) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,9}(s|m|h|d)$' })], { description, examples })
const KeyTemplate = Type.String({
  maxLength: WINDOW_LIMITS.keyTemplate,
  description: `A template over the event (\`{{data.host}}\`, \`{{channel}}\`…), up to ${WINDOW_LIMITS.keyTemplate} characters: each rendered value counts apart (cut to ${WINDOW_LIMITS.key} characters). Omitted or "": one key for every event.`,
  examples: ['{{data.host}}'],
})

export const ThrottleInput = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: WINDOW_LIMITS.throttleLimitMax, description: `At most this many deliveries per window and key (1-${WINDOW_LIMITS.throttleLimitMax}).`, examples: [5] }),
  per: Duration(`The window: seconds or a duration, ${formatDuration(WINDOW_LIMITS.perMin)} to ${formatDuration(WINDOW_LIMITS.perMax)}. It starts with the first event of its key. Read back as seconds.`, ['1h', 3600]),
  key: Type.Optional(KeyTemplate),
}, { additionalProperties: false, description: 'At most `limit` deliveries per `per` and rendered `key`; the rest end `throttled`: recorded, visible, never sent. Null: no throttle.' })

export const DigestInput = Type.Object({
  window: Duration(`How long events are gathered: seconds or a duration, ${formatDuration(WINDOW_LIMITS.windowMin)} to ${formatDuration(WINDOW_LIMITS.windowMax)}, from the first event of its key. Read back as seconds.`, ['10m', 600]),
  key: Type.Optional(KeyTemplate),
  max: Type.Optional(Type.Integer({ minimum: 1, maximum: WINDOW_LIMITS.digestMaxMax, description: `A digest goes at once when it holds this many events (1-${WINDOW_LIMITS.digestMaxMax}, default ${WINDOW_LIMITS.digestMaxDefault}).` })),
  bypassPriority: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: 'Events at or above this priority are not gathered: they go at once, on their own. Absent: every event is gathered.' })),
}, { additionalProperties: false, description: 'Gathers the matching events per rendered `key` and sends them as one delivery when the window ends or `max` is reached (webhooks: `{"type": "events.digest", "timestamp", "data": {"key", "count", "events"}}`; templates see `{{count}}` and `{{#events}}…{{/events}}`). Null: every event goes on its own.' })

/** A throttle as stored and read back: `per` in seconds. */
export interface Throttle {
  limit: number
  per: number
  key: string
}
/** A digest as stored and read back: `window` in seconds. */
export interface Digest {
  window: number
  key: string
  max: number
  bypassPriority?: number
}

export const ThrottleView = Type.Object({ limit: Type.Integer(), per: Type.Integer({ description: 'Seconds.' }), key: Type.String() })
export const DigestView = Type.Object({ window: Type.Integer({ description: 'Seconds.' }), key: Type.String(), max: Type.Integer(), bypassPriority: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })) })

const fieldError = (pointer: string, detail: string): FieldError => ({ pointer, detail: `${pointer.slice(1).replaceAll('/', '.')}: ${detail}` })

function seconds(v: unknown, pointer: string, min: number, max: number, errors: FieldError[]): number {
  const s = parseDuration(v)
  if (s === null) errors.push(fieldError(pointer, 'must be whole seconds or a duration such as 90s, 15m, 2h or 1d'))
  else if (s < min) errors.push(fieldError(pointer, `must be at least ${formatDuration(min)} (${min} s)`))
  else if (s > max) errors.push(fieldError(pointer, `must be at most ${formatDuration(max)} (${max} s)`))
  return s ?? 0
}

function keyOf(v: string | undefined, pointer: string, errors: FieldError[]): string {
  const key = v ?? ''
  const reason = key ? validateTemplate(key) : null
  if (reason) errors.push(fieldError(pointer, `not a valid template: ${reason}`))
  return key
}

/** A body's throttle checked (its shape already passed the schema) and stored form; errors go to `errors`. */
export function throttleOf(v: Static<typeof ThrottleInput>, errors: FieldError[]): Throttle {
  return { limit: v.limit, per: seconds(v.per, '/throttle/per', WINDOW_LIMITS.perMin, WINDOW_LIMITS.perMax, errors), key: keyOf(v.key, '/throttle/key', errors) }
}

/** A body's digest checked and stored form. */
export function digestOf(v: Static<typeof DigestInput>, errors: FieldError[]): Digest {
  return {
    window: seconds(v.window, '/digest/window', WINDOW_LIMITS.windowMin, WINDOW_LIMITS.windowMax, errors),
    key: keyOf(v.key, '/digest/key', errors),
    max: v.max ?? WINDOW_LIMITS.digestMaxDefault,
    ...(v.bypassPriority !== undefined ? { bypassPriority: v.bypassPriority } : {}),
  }
}

/**
 * An event's key under a throttle or digest: its template rendered as plain
 * text, cut to WINDOW_LIMITS.key characters. A template that fails to render
 * (over its budget) counts as the empty key rather than failing the delivery.
 */
export function windowKey(template: string, event: EventView): string {
  if (!template) return ''
  try {
    return [...renderTemplate(template, event, 'text')].slice(0, WINDOW_LIMITS.key).join('')
  } catch {
    return ''
  }
}
