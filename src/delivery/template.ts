// Router templates: Mustache syntax, rendered by our own walker over the
// tokens mustache parses. Mustache's own renderer calls any function it finds
// in the view (lambdas) and reads inherited properties (`{{constructor}}`), so
// the walker below reads own properties only and never calls anything: a
// template can never run code, whatever the event data holds (docs/routers.md).
// Nor can it run long: sections nest a few levels at most, and every render
// has a budget of steps, time and output (a section inside a section over a
// list grows as items^depth), so no template stalls the API or a pool thread.
import Mustache from 'mustache'
import { Type, type Static } from '@sinclair/typebox'
import type { EventView } from './event_view'

/** A router's template: what the API takes and stores. */
export const Template = Type.Object({
  title: Type.Optional(Type.String({ maxLength: 1024, description: 'Mustache template of the title (`{{data.plan}}`, `{{event}}`…).' })),
  body: Type.Optional(Type.String({ maxLength: 16384, description: 'Mustache template of the body. For a webhook it replaces the whole JSON body.' })),
}, { additionalProperties: false })
export type Template = Static<typeof Template>

/**
 * How interpolated values are escaped: inside a JSON string, not at all, or
 * by a function for a chat's markup (Discord's or Teams' Markdown), so that
 * event text shows as text while the template's own markup still works.
 */
export type RenderMode = 'json' | 'text' | Escape
export type Escape = (value: string) => string

type Token = [type: string, value: string, start: number, end: number, children?: Token[], closeIndex?: number]

export const TEMPLATE_LIMITS = {
  /** Sections (`{{#x}}` and `{{^x}}`) inside one another. */
  sectionDepth: 4,
  /** Characters (UTF-16 units) a render may produce. */
  outputChars: 1_000_000,
  /** Tokens a render may visit: a section over a list visits its tokens once per item. */
  steps: 200_000,
  /** Wall time of one render, checked every 1,024 steps. */
  ms: 100,
} as const

/** A render that went over its budget: a 400 at preview time, a failed delivery (not retried) at send time. */
export class TemplateLimitError extends Error {}

interface Budget {
  steps: number
  chars: number
  deadline: number
}

// Mustache's cache is a plain object that never forgets; templates change with
// routers, so ours keeps only the most recently used ones.
const CACHE_SIZE = 1000
const cache = new Map<string, Token[]>()
const writer = new Mustache.Writer()
Object.assign(writer, { templateCache: undefined })
const TAGS: [string, string] = ['{{', '}}']

function parse(template: string): Token[] {
  let tokens = cache.get(template)
  if (tokens) {
    cache.delete(template) // re-insert: Map order is the recency order
  } else {
    tokens = writer.parse(template, TAGS) as Token[]
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string)
  }
  cache.set(template, tokens)
  return tokens
}

const sectionDepth = (tokens: Token[]): number =>
  tokens.reduce((deepest, [type, , , , children]) => Math.max(deepest, type === '#' || type === '^' ? 1 + sectionDepth(children ?? []) : 0), 0)

/** null when the template parses and its sections nest at most TEMPLATE_LIMITS.sectionDepth deep, else why not. */
export function validateTemplate(template: string): string | null {
  let tokens: Token[]
  try {
    tokens = parse(template)
  } catch (err) {
    return err instanceof Error ? err.message : String(err)
  }
  if (sectionDepth(tokens) > TEMPLATE_LIMITS.sectionDepth) return `sections nest more than ${TEMPLATE_LIMITS.sectionDepth} deep`
  return null
}

/** The variables a template can read (docs/routers.md, "Templates"). */
function viewOf(e: EventView): Record<string, unknown> {
  return {
    message: e.message,
    title: e.title,
    event: e.event,
    channel: e.channel,
    workspace: e.workspace,
    link: e.link,
    tags: e.tags,
    eventId: e.eventId,
    createdAt: e.createdAt,
    priority: e.priority ?? 3,
    ttl: e.ttl ?? null,
    collapseKey: e.collapseKey ?? null,
    receipt: e.receipt ?? null,
    to: e.to ?? null,
    data: e.data ?? null,
  }
}

// Own properties of data only: nothing inherited (`constructor`), nothing of a
// function (its `name`, its `prototype`).
const has = (value: unknown, key: string) =>
  value !== null && value !== undefined && typeof value !== 'function' && Object.hasOwn(Object(value), key)

// Mustache's rule: the innermost context in which the whole dotted path
// resolves wins; `.` is the current context.
function lookup(name: string, stack: unknown[]): unknown {
  if (name === '.') return stack[stack.length - 1]
  const path = name.split('.')
  for (let i = stack.length - 1; i >= 0; i--) {
    let value = stack[i]
    let hit = true
    for (const key of path) {
      if (!has(value, key)) {
        hit = false
        break
      }
      value = (value as Record<string, unknown>)[key]
    }
    if (hit) return value
  }
  return undefined
}

/** A value as text: missing → '', objects → their JSON, string lists → "a, b" in text mode. */
function textOf(value: unknown, mode: RenderMode): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  if (typeof value !== 'object') return '' // functions, symbols: nothing to show, nothing to run
  if (mode !== 'json' && Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ')
  return JSON.stringify(value) ?? ''
}

// The inside of a JSON string literal: quotes, backslashes and control
// characters escaped, so a value can never close the string it sits in.
const escapeJson = (s: string) => JSON.stringify(s).slice(1, -1)

function spend(budget: Budget, chars: number) {
  budget.chars += chars
  if (budget.chars > TEMPLATE_LIMITS.outputChars) throw new TemplateLimitError(`the template renders more than ${TEMPLATE_LIMITS.outputChars.toLocaleString('en')} characters`)
  if (--budget.steps < 0) throw new TemplateLimitError(`the template takes more than ${TEMPLATE_LIMITS.steps.toLocaleString('en')} steps to render (a section over a long list inside another?)`)
  if ((budget.steps & 1023) === 0 && performance.now() > budget.deadline) throw new TemplateLimitError(`the template takes longer than ${TEMPLATE_LIMITS.ms} ms to render`)
}

function renderTokens(tokens: Token[], stack: unknown[], mode: RenderMode, budget: Budget): string {
  let out = ''
  for (const [type, value, , , children = []] of tokens) {
    let piece = ''
    if (type === 'text') piece = value
    else if (type === 'name' || type === '&') {
      // `{{{x}}}` and `{{& x}}` parse as '&' and are escaped like `{{x}}`:
      // in JSON mode, unescaped output would let event data break the JSON.
      const text = textOf(lookup(value, stack), mode)
      piece = mode === 'json' ? escapeJson(text) : mode === 'text' ? text : mode(text)
    } else if (type === '#') out += renderSection(children, lookup(value, stack), stack, mode, budget)
    else if (type === '^') {
      const v = lookup(value, stack)
      if (!v || (Array.isArray(v) && v.length === 0)) out += renderTokens(children, stack, mode, budget)
    }
    // '>' partials render empty (there are none to include), '!' comments and
    // '=' delimiter changes produce nothing.
    spend(budget, piece.length)
    out += piece
  }
  return out
}

function renderSection(children: Token[], value: unknown, stack: unknown[], mode: RenderMode, budget: Budget): string {
  if (Array.isArray(value)) {
    let out = ''
    for (const item of value) out += renderTokens(children, [...stack, item], mode, budget)
    return out
  }
  if (!value || typeof value === 'function') return ''
  if (typeof value === 'object' || typeof value === 'string' || typeof value === 'number') {
    return renderTokens(children, [...stack, value], mode, budget)
  }
  return renderTokens(children, stack, mode, budget)
}

/**
 * Renders a router template against an event. Throws on a template that does
 * not parse, which the API refuses up front (validateTemplate), and with a
 * TemplateLimitError when the render goes over TEMPLATE_LIMITS.
 */
export function renderTemplate(template: string, event: EventView, mode: RenderMode, digest?: DigestContext): string {
  const tokens = parse(template)
  if (sectionDepth(tokens) > TEMPLATE_LIMITS.sectionDepth) throw new TemplateLimitError(`the template's sections nest more than ${TEMPLATE_LIMITS.sectionDepth} deep`)
  // A digest's template sees its first event's variables, and `count`, `key` and `events` (each with an event's variables).
  const root = digest ? { ...viewOf(event), count: digest.count, key: digest.key, events: digest.events.map(viewOf) } : viewOf(event)
  return renderTokens(tokens, [root], mode, { steps: TEMPLATE_LIMITS.steps, chars: 0, deadline: performance.now() + TEMPLATE_LIMITS.ms })
}

/** What a digest's template sees besides its first event: `{{count}}`, `{{key}}`, `{{#events}}…{{/events}}`. */
export interface DigestContext {
  key: string
  count: number
  events: EventView[]
}

/** What a chat, e-mail or SMS destination shows: title, body and link. */
export interface Message {
  title: string
  body: string
  link: string | null
}

/**
 * The event's title and body, or the router's templates rendered in text
 * mode. A template that renders blank (a missing `{{data.x}}`) falls back to
 * the default, because every chat API refuses an empty title or text. With
 * `escape`, every piece of event text (the defaults, and each value a
 * template interpolates) is escaped for the destination's markup; the
 * template's own text is kept as written. The link is left as it is.
 */
export function renderMessage(event: EventView, template: Template | undefined, escape?: Escape, digest?: DigestContext & { title: string; body: string }): Message {
  const title = digest ? digest.title : (escape ?? String)(event.title ?? event.event ?? 'New event')
  const body = digest ? digest.body : (escape ?? String)(event.message)
  const render = (t: string | undefined, fallback: string) => {
    if (t === undefined) return fallback
    const text = renderTemplate(t, event, escape ?? 'text', digest)
    return text.trim() === '' ? fallback : text
  }
  return { title: render(template?.title, title), body: render(template?.body, body), link: digest ? null : event.link }
}

/**
 * Cuts `s` to at most `max` UTF-16 units, ending with '…' when cut. Chat APIs
 * count in UTF-16 units or code points; units are never fewer, so this fits
 * both. Never splits a surrogate pair.
 */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s
  let cut = max - 1
  const last = s.charCodeAt(cut - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut--
  return s.slice(0, cut) + '…'
}

/** True for links a chat button can open (Slack and Discord refuse mailto: and tel:). */
export const isWebLink = (link: string | null): link is string => link !== null && /^https?:\/\//i.test(link)
