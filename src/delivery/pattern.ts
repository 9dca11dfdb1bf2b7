// Router patterns (docs/routers.md, "Patterns"): a glob on an event's `event` key
// where `*` matches any run of characters, dots included. `user.*` matches
// `user.signup` and `user.a.b` but neither `user` nor `users.x`. `*` alone
// matches every event, even one without a key; any other pattern needs a key.
import { createLru } from '../core/lru'

export const PATTERN_MAX_LENGTH = 200
// Event keys are free text, but patterns keep to the characters keys use by
// convention (`domain.action`, `billing:invoice.paid`), so that no pattern
// needs quoting in a shell or a URL and `*` is the only special character.
const PATTERN_CHARS = /^[A-Za-z0-9_.:*-]+$/

export type Matcher = (eventKey: string | null) => boolean

/** Null when `p` is a valid pattern, else the reason it is not, as a sentence about `pattern`. */
export function validatePattern(p: unknown): string | null {
  if (typeof p !== 'string' || p.length === 0) return 'pattern must be a non-empty string such as "user.*" or "*"'
  if (p.length > PATTERN_MAX_LENGTH) return `pattern must be at most ${PATTERN_MAX_LENGTH} characters, got ${p.length}`
  if (!PATTERN_CHARS.test(p)) return 'pattern may hold only letters, digits, ".", "_", "-", ":" and "*" (which matches any run of characters)'
  return null
}

const matchAll: Matcher = () => true
// Patterns come from a few routers per workspace and are matched for every
// event, so each is compiled once per thread. Every pattern ever saved would
// stay in a plain map, with 50,000 workspaces and patterns made by scripts
// too: the cache is an LRU, big enough for the patterns in use (the workers'
// router caches hold WORKER_CACHE_MAX workspaces, most with a few routers), and
// one dropped costs only a split to compile again.
export const COMPILED_PATTERNS_MAX = 10_000
const compiled = createLru<string, Matcher>(COMPILED_PATTERNS_MAX)

/** How many compiled patterns this thread keeps (for tests). */
export const compiledPatterns = () => compiled.size

/**
 * A matcher of event keys for `p`, which validatePattern has accepted.
 *
 * Not a regular expression: `a*a*a*a*a*a*b` as one backtracks through every
 * way of placing its stars, and took 5 s on a 128-character key, on a pool
 * thread, for every event. Here the part before the first star must begin
 * the key, the part after the last must end it, and each part between is
 * found leftmost after the one before; leftmost is never wrong, since a later
 * start leaves less room. At most one pass per part: linear in the key.
 */
export function compilePattern(p: string): Matcher {
  let matcher = compiled.get(p)
  if (matcher) return matcher
  const parts = p.split('*')
  if (p === '*') {
    matcher = matchAll
  } else if (parts.length === 1) {
    matcher = (eventKey) => eventKey === p
  } else {
    const first = parts[0]!
    const last = parts.at(-1)!
    const middle = parts.slice(1, -1).filter((part) => part !== '')
    matcher = (eventKey) => {
      if (eventKey === null || eventKey.length < first.length + last.length) return false
      if (!eventKey.startsWith(first) || !eventKey.endsWith(last)) return false
      const end = eventKey.length - last.length
      let at = first.length
      for (const part of middle) {
        const found = eventKey.indexOf(part, at)
        if (found < 0 || found + part.length > end) return false
        at = found + part.length
      }
      return true
    }
  }
  compiled.set(p, matcher)
  return matcher
}

/**
 * What matches an event key among many patterns, without testing each: the
 * routers of a workspace are indexed once when they are loaded, and every
 * event looks up its key. `*` is taken always; a pattern without a star is
 * found by its key; a pattern whose only star ends it (`user.*`) by each
 * prefix length the index holds; only the rest (`*.failed`, `a*b`) are tested
 * one by one. So an event costs about the same with 1,000 routers as with 10
 * when as many match. Matches come back in the order of `items`.
 */
export function patternIndex<T extends { pattern: string }>(items: readonly T[]): (eventKey: string | null) => T[] {
  const always: number[] = []
  const exact = new Map<string, number[]>()
  const prefixes = new Map<string, number[]>()
  const others: number[] = []
  const add = (map: Map<string, number[]>, key: string, i: number) => {
    const list = map.get(key)
    if (list) list.push(i)
    else map.set(key, [i])
  }
  items.forEach(({ pattern }, i) => {
    const star = pattern.indexOf('*')
    if (pattern === '*') always.push(i)
    else if (star < 0) add(exact, pattern, i)
    else if (star === pattern.length - 1) add(prefixes, pattern.slice(0, -1), i)
    else others.push(i)
  })
  const lengths = [...new Set([...prefixes.keys()].map((p) => p.length))]
  return (eventKey) => {
    if (eventKey === null) return always.map((i) => items[i]!)
    const found = [...always, ...(exact.get(eventKey) ?? [])]
    for (const n of lengths) if (n <= eventKey.length) found.push(...(prefixes.get(eventKey.slice(0, n)) ?? []))
    for (const i of others) if (compilePattern(items[i]!.pattern)(eventKey)) found.push(i)
    if (found.length > 1) found.sort((a, b) => a - b)
    return found.map((i) => items[i]!)
  }
}
