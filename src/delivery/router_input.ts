// What a router's fields must be, beyond their JSON shape: a name without
// control characters, a pattern the matcher takes, a destination valid for
// its own `type` (checked by type, not against the Destination union, whose
// only error in TypeBox is "Expected union value", naming no field), at an
// address the outbound rules allow, and templates that parse. One 400 names
// every field at fault.
import type { TSchema } from '@sinclair/typebox'
import { Value, type ValueError } from '@sinclair/typebox/value'
import { inWords } from '../core/words'
import { validationError, type FieldError } from '../core/problems'
import { validatePattern } from './pattern'
import { urlRefusal } from './outbound'
import { Template, validateTemplate } from './template'
import { DESTINATION_TYPES, destinationType } from './destinations'
import { digestOf, DigestInput, throttleOf, ThrottleInput, type Digest, type Throttle } from './router_windows'

const fieldError = (pointer: string, message: string): FieldError => ({ pointer, detail: `${pointer.slice(1).replaceAll('/', '.')}: ${message}` })

/** The schema's own `error` text, else the rule in words (src/core/words.ts): never a regular expression. */
function errorMessage(e: ValueError): string {
  if (typeof e.schema.error === 'string') return e.schema.error
  const kinds = (e.schema.anyOf as { type?: string }[] | undefined)?.map((s) => s.type).filter(Boolean)
  if (kinds?.length) return `must be ${kinds.join(' or ')}`
  if (typeof e.value === 'string' && e.schema.format === 'uri') return 'must be an http:// or https:// URL'
  return inWords(e)
}

/** TypeBox's errors under `at`, one per field. */
function schemaErrors(schema: TSchema, value: unknown, at: string): FieldError[] {
  const seen = new Map<string, FieldError>()
  for (const e of Value.Errors(schema, value) as Iterable<ValueError>) {
    const pointer = at + e.path
    if (!seen.has(pointer)) seen.set(pointer, fieldError(pointer, errorMessage(e)))
  }
  return [...seen.values()]
}

/** Errors of a destination, checked against the schema of its own `type`. */
export function destinationErrors(value: unknown): FieldError[] {
  const types = DESTINATION_TYPES.join(', ')
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [fieldError('/destination', `Expected an object whose type is one of ${types}`)]
  const type = (value as { type?: unknown }).type
  if (type === undefined) return [fieldError('/destination/type', `Expected required property: one of ${types}`)]
  const schema = destinationType(type)?.schema
  if (!schema) return [fieldError('/destination/type', `Expected one of ${types}, got ${JSON.stringify(type)}`)]
  return schemaErrors(schema, value, '/destination')
}

/** Errors of a template: its shape, then each part's Mustache syntax. */
export function templateErrors(value: unknown): FieldError[] {
  const errors = schemaErrors(Template, value, '/template')
  if (errors.length) return errors
  for (const part of ['title', 'body'] as const) {
    const source = (value as Template)[part]
    const reason = source === undefined ? null : validateTemplate(source)
    if (reason) errors.push(fieldError(`/template/${part}`, `not a valid template: ${reason}`))
  }
  return errors
}

// Names are printed in CLI tables and logs: a line break would garble both.
const CONTROL = /[\u0000-\u001f\u007f]/

/** A router's throttle and digest as checked: undefined where the body leaves them as they are, null where it clears them. */
export interface RouterWindows {
  throttle?: Throttle | null
  digest?: Digest | null
}

/** Checks what the body schema leaves to the operation; throws one 400 naming every field at fault, else answers the throttle and digest to store. */
export function checkRouterFields(body: { name?: string; pattern?: string; destination?: unknown; template?: unknown; throttle?: unknown; digest?: unknown }, create: boolean, outboundAllow: readonly string[] = []): RouterWindows {
  const errors: FieldError[] = []
  if (body.name !== undefined && CONTROL.test(body.name)) errors.push(fieldError('/name', 'Expected no control characters'))
  const patternReason = body.pattern === undefined ? null : validatePattern(body.pattern)
  if (patternReason) errors.push({ pointer: '/pattern', detail: patternReason })
  if (create || body.destination !== undefined) errors.push(...destinationErrors(body.destination))
  // A URL at an address the outbound rules refuse would fail every delivery: refused now, naming the setting.
  const url = (body.destination as { url?: unknown } | undefined)?.url
  const unreachable = typeof url === 'string' && !errors.length ? urlRefusal(url, outboundAllow) : null
  if (unreachable) errors.push({ pointer: '/destination/url', detail: `destination.url: ${unreachable}` })
  if (body.template !== undefined && body.template !== null) errors.push(...templateErrors(body.template))
  const windows = windowsOf(body, errors)
  if (errors.length) throw validationError(errors.slice(0, 20))
  return windows
}

/** The throttle and digest of a body: each checked against its schema, then its durations and key template. */
function windowsOf(body: { throttle?: unknown; digest?: unknown }, errors: FieldError[]): RouterWindows {
  const out: RouterWindows = {}
  if (body.throttle !== undefined) {
    const shape = body.throttle === null ? [] : schemaErrors(ThrottleInput, body.throttle, '/throttle')
    errors.push(...shape)
    out.throttle = body.throttle === null || shape.length ? null : throttleOf(body.throttle as never, errors)
  }
  if (body.digest !== undefined) {
    const shape = body.digest === null ? [] : schemaErrors(DigestInput, body.digest, '/digest')
    errors.push(...shape)
    out.digest = body.digest === null || shape.length ? null : digestOf(body.digest as never, errors)
  }
  if (out.throttle && out.digest) errors.push(fieldError('/digest', 'a router has a throttle or a digest, not both'))
  return out
}
