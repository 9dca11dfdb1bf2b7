// Router patterns (docs/routers.md, "Patterns"): `*` matches any run of
// characters, dots included; `*` alone matches every event, even one without
// a key; every other pattern needs a key. Everything else is literal.
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { COMPILED_PATTERNS_MAX, compilePattern, compiledPatterns, patternIndex, validatePattern } from '../../src/delivery/pattern'

describe('compilePattern', () => {
  const cases: [string, (string | null)[], (string | null)[]][] = [
    ['user.*', ['user.signup', 'user.a.b', 'user.', 'user.*'], ['user', 'users.x', 'xuser.signup', 'USER.signup', null, '']],
    ['*', ['user.signup', '', 'anything at all', null], []],
    ['user.signup', ['user.signup'], ['user.signupx', 'user.signu', 'userXsignup', null]],
    ['*.failed', ['payment.failed', 'a.b.failed', '.failed'], ['failed', 'payment.failedx', null]],
    ['billing:*.paid', ['billing:invoice.paid', 'billing:a.b.paid'], ['billing:invoice.unpaid', 'billing.invoice.paid']],
    ['a*b*c', ['abc', 'aXbYc', 'a.b.c', 'abbc'], ['ab', 'acb', 'xabc']],
    ['**', ['x', ''], [null]],
    ['a-b_c', ['a-b_c'], ['a-b_cd', 'ab_c']],
  ]

  test.each(cases)('%p matches what it should and nothing else', (pattern, yes, no) => {
    const m = compilePattern(pattern)
    for (const key of yes) expect({ pattern, key, match: m(key) }).toEqual({ pattern, key, match: true })
    for (const key of no) expect({ pattern, key, match: m(key) }).toEqual({ pattern, key, match: false })
  })

  test('a dot is literal, not a regex wildcard', () => {
    expect(compilePattern('user.signup')('userXsignup')).toBe(false)
    expect(compilePattern('a.*')('abc')).toBe(false)
  })

  test('`*` matches across a line break in a key', () => {
    expect(compilePattern('user.*')('user.a\nb')).toBe(true)
  })

  test('compiled matchers are cached by pattern', () => {
    expect(compilePattern('cache.*')).toBe(compilePattern('cache.*'))
    expect(compilePattern('cache.*')).not.toBe(compilePattern('cache.x*'))
  })

  test('the cache of compiled patterns is bounded: patterns saved once and never again do not stay, those in use do', () => {
    const hot = compilePattern('hot.*')
    for (let i = 0; i < COMPILED_PATTERNS_MAX * 3; i++) {
      const m = compilePattern(`ws${i}.*.failed`)
      expect(m(`ws${i}.x.failed`)).toBe(true)
      if (i % 1000 === 0) expect(compilePattern('hot.*')).toBe(hot) // used all along: kept
    }
    expect(compiledPatterns()).toBeLessThanOrEqual(COMPILED_PATTERNS_MAX)
    expect(compilePattern('hot.*')).toBe(hot)
    // One dropped is compiled again, and matches as before.
    expect(compilePattern('ws0.*.failed')('ws0.y.failed')).toBe(true)
  })
})

describe('validatePattern', () => {
  test.each(['*', 'user.*', 'user.signup', 'billing:invoice.paid', 'a-b_c', 'A.*.Z', 'x'.repeat(200)])('accepts %p', (p) => {
    expect(validatePattern(p)).toBeNull()
  })

  test.each(['', ' ', 'user .x', 'user/*', 'a?b', 'a+b', '(a)', '[ab]', 'a|b', 'é.*', 'a\nb', 'user.$', 'x'.repeat(201)])('rejects %p with a reason naming the pattern', (p) => {
    const reason = validatePattern(p)
    expect(reason).toBeString()
    expect(reason!).toContain('pattern')
  })

  test('rejects what is not a string', () => {
    for (const p of [null, undefined, 5, {}, ['*']]) expect(validatePattern(p)).toBeString()
  })

  test('the length limit is stated', () => {
    expect(validatePattern('x'.repeat(201))).toContain('200')
  })
})

describe('matching is linear in the key, whatever the pattern', () => {
  // As a regular expression, each of these backtracks through every way of
  // placing its stars: 5 s for six stars on a 128-character key.
  test.each([
    ['a*a*a*a*a*a*b', 'a'.repeat(128)],
    [Array(60).fill('a').join('*') + '*b', 'a'.repeat(128)],
    ['*' + 'ab*'.repeat(60) + 'c', 'ab'.repeat(64)],
  ])('%s', (pattern, key) => {
    expect(validatePattern(pattern)).toBeNull()
    const t0 = performance.now()
    for (let i = 0; i < 100; i++) expect(compilePattern(pattern)(key)).toBe(false)
    expect(performance.now() - t0).toBeLessThan(1000) // a hundred matches; the regex took seconds for one
  })

  test('agrees with the glob as a regular expression on generated patterns and keys', () => {
    const alphabet = fc.constantFrom('a', 'b', '.', '*')
    const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')
    fc.assert(
      fc.property(fc.string({ unit: alphabet, minLength: 1, maxLength: 8 }), fc.string({ unit: fc.constantFrom('a', 'b', '.'), maxLength: 10 }), (pattern, key) => {
        const re = new RegExp(`^${pattern.split('*').map(escape).join('[^]*')}$`)
        expect(compilePattern(pattern)(key)).toBe(pattern === '*' || re.test(key))
      }),
      { numRuns: 20_000 },
    )
  })
})

describe('patternIndex', () => {
  const patterns = ['*', 'user.*', 'user.signup', '*.failed', 'billing:*.paid', 'a*b*c', '**', 'user.', 'u*', 'user.signup*', 'payment.failed']
  const keys = [null, '', 'user.signup', 'user.', 'user', 'users.x', 'payment.failed', 'a.b.failed', 'billing:invoice.paid', 'abc', 'aXbYc', 'user.signupx', 'u', 'x']

  test('finds exactly what testing each pattern finds, in the routers\' order', () => {
    const items = patterns.map((pattern, id) => ({ id, pattern }))
    const match = patternIndex(items)
    for (const key of keys) expect({ key, found: match(key).map((r) => r.id) }).toEqual({ key, found: items.filter((r) => compilePattern(r.pattern)(key)).map((r) => r.id) })
  })

  test('agrees with testing each pattern on any patterns and keys', () => {
    const piece = fc.constantFrom('a', 'b', '.', 'x', 'user', 'signup', ':')
    const pattern = fc.array(fc.oneof(piece, fc.constant('*')), { minLength: 1, maxLength: 6 }).map((p) => p.join(''))
    const key = fc.option(fc.array(piece, { maxLength: 6 }).map((p) => p.join('')), { nil: null })
    fc.assert(fc.property(fc.array(pattern, { minLength: 1, maxLength: 30 }), fc.array(key, { minLength: 1, maxLength: 10 }), (ps, ks) => {
      const items = ps.map((pattern, id) => ({ id, pattern }))
      const match = patternIndex(items)
      for (const k of ks) expect(match(k).map((r) => r.id)).toEqual(items.filter((r) => compilePattern(r.pattern)(k)).map((r) => r.id))
    }), { numRuns: 300 })
  })

  test('several routers on one pattern are all found', () => {
    const items = [{ id: 1, pattern: 'deploy.*' }, { id: 2, pattern: 'deploy.*' }, { id: 3, pattern: 'deploy.done' }, { id: 4, pattern: 'deploy.done' }]
    expect(patternIndex(items)('deploy.done').map((r) => r.id)).toEqual([1, 2, 3, 4])
  })
})
