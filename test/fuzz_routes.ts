// The requests test/http/fuzz.routes.test.ts sends to every route but POST /event:
// fast-check arbitraries built from the app's own route list, so a route
// added later is fuzzed without a change here. Path parameters, query values
// and bodies come from the route's TypeBox schemas (hooks.params, .query,
// .body) where it has them, mixed with real values (a workspace, a router id,
// a key id: named by a Ref and looked up when the request is sent, so that a
// seed replays the same case after the real values changed) and with hostile
// ones: NUL, encoded slashes and dots, invalid UTF-8, 10,000 characters,
// numbers past every range, deep nesting, prototype keys, non-JSON. At the
// end, the check every refusal must pass: a well-formed problem+json.
import fc from 'fast-check'

/** A real value of the fuzzed Herald, looked up when the request is sent. */
export type Ref = 'workspace' | 'victim' | 'channel' | 'routerId' | 'keyId' | 'deliveryId' | 'invitationId' | 'invitationToken' | 'deviceId' | 'userId' | 'memberId' | 'eventId' | 'asset'
/** Text as it goes in the URL (already encoded), or a real value (encoded when sent). */
export type Part = string | { ref: Ref }
/**
 * Who sends the request. `right`: the route's own kind of caller (the operator
 * for /admin, the owner for /v1, an API key for /events, nobody elsewhere);
 * `wrong`: that kind with a credential that is not valid; the others by name.
 */
export type Caller = 'right' | 'none' | 'wrong' | 'admin' | 'owner' | 'member' | 'apiKey' | 'web' | 'web-nocsrf'

type Schema = Record<string, any>
export interface RouteInfo {
  method: string
  path: string
  hooks?: { body?: unknown; query?: unknown; params?: unknown }
}

export interface RouteCase {
  kind: string
  method: string
  route: string
  path: Part[]
  query: Part[]
  caller: Caller
  forwardedFor: string
  contentType: string | null
  body: Uint8Array | null
  /** The body as bytes (with a length) or as a stream of 1 KiB chunks (without: chunked). */
  transfer: 'bytes' | 'stream'
  /** Picks which wrong credential a `wrong` caller sends. */
  variant: number
}

const encoder = new TextEncoder()
const LONE_SURROGATE = /([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/
/** encodeURIComponent, but a lone surrogate becomes the three bytes UTF-8 would give it (%ED%A0%80), invalid UTF-8. */
const enc = (v: unknown) =>
  String(v).split(LONE_SURROGATE).map((part, i) => {
    if (i % 2 === 0) return encodeURIComponent(part)
    const c = part.charCodeAt(0)
    return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('')
  }).join('')

// --- hostile values ----------------------------------------------------------

const LONG = 'a'.repeat(10_000)
// Path segments and query values, as they go in the URL.
export const HOSTILE_TEXT = [
  '%00', 'a%00', '%2f', '%2F', 'a%2fb', '%2e%2e', '%2e', '..', '.', '%5c', '%ED%A0%80', '%ED%BF%BF', '%FF', '%C0%AF', '%E2%80%A8', '%', '%zz', '%%', '',
  '99999999999999999999', '9007199254740993', '1.5', '-1', '0', '-0', '+1', '0x10', '1e3', '1e308', '-1e308', 'Infinity', '-Infinity', 'NaN', '%201', '1%20',
  'ffffffff-ffff-7fff-bfff-ffffffffffff', '00000000-0000-7000-8000-000000000000', '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF', '0190a8e4-0000-7000-8000-00000000000g',
  LONG, '%ED%A0%80'.repeat(1000), '%C3%BC', 'ü', '%F0%9F%94%94', '__proto__', 'constructor', 'general%00', 'GENERAL', 'null', 'true', '[]', '%7B%7D', '*', 'user.*',
  "'%3B%20DROP%20TABLE%20events%3B--", '%22', '%5C', '%0d%0aX-Injected:%201', '+', 'a+b', '%2B',
]
const HOSTILE_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800', '\ufeff', '\u2028', 'ü'.repeat(300), '🔔'.repeat(100), 'a'.repeat(1000), '%00', '../../etc/passwd',
  '<script>alert(1)</script>', 'javascript:alert(1)', 'http://127.0.0.1:9/x', 'https://[::1]/', 'file:///etc/passwd', 'user.*', '*', 'general', 'owner', 'a@b.c', ' a@b.c ',
  '{{constructor}}', '{{{data}}}', '{{#tags}}{{#tags}}{{#tags}}{{#tags}}{{.}}{{/tags}}{{/tags}}{{/tags}}{{/tags}}', '{{> partial}}', '{{=<% %>=}}', '{{#data}}{{/dat', '{{__proto__.x}}',
]
const HOSTILE_NUMBERS = [2 ** 63, -(2 ** 63), 1e308, -1e308, -0, 0, -1, 1.5, 5e-324, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, 2 ** 32 + 1]
// JSON number text JSON.stringify cannot write: past double range, or more digits than a double keeps.
const NUMBER_TEXT = ['1e400', '-1e400', '123456789012345678901234567890', '-0.0', '1E+2', '0.1e-400', '9007199254740993', '1.0']
export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf']
const ODD_KEYS = [...POLLUTION_KEYS, '', '\u0000', '\ud800', ' ', '$ref', 'a.b', 'a/b', '~1', 'polluted']
const CONTENT_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '', 'application/jsonx', 'application/json-patch+json', 'text/json', '*/*', 'application/problem+json']
const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=UTF-8']

// A raw number or invalid UTF-8 goes in as a marker string, replaced in the text or the bytes.
const RAW = (text: string) => `\u0001${text}\u0001`
const INVALID_UTF8 = '\u0002'
const INVALID_BYTES = [[0xed, 0xa0, 0x80], [0xff], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]]

/** JSON text of `value` as bytes, with RAW(...) markers as bare number text and INVALID_UTF8 as invalid bytes. */
export function jsonBytes(value: unknown, invalid = 0): Uint8Array {
  const text = JSON.stringify(value)?.replace(/"\\u0001([^"\\]*)\\u0001"/g, '$1') ?? 'undefined'
  const parts = text.split('\\u0002').map((p) => encoder.encode(p))
  const bad = INVALID_BYTES[invalid % INVALID_BYTES.length]!
  return Uint8Array.from(parts.flatMap((p, i) => (i === 0 ? [...p] : [...bad, ...p])))
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(...NUMBER_TEXT).map(RAW),
  fc.constant(INVALID_UTF8),
  fc.constantFrom(null, true, false, [], {}, [1, 'a'], { a: 1 }, [[[[[]]]]]),
  fc.integer({ min: 2, max: 150 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n))),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 4 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
)

// --- values from a route's TypeBox schema ------------------------------------

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n))

function stringOf(s: Schema): fc.Arbitrary<string> {
  const max = Math.min(s.maxLength ?? 40, 300)
  const plain = fc.string({ minLength: Math.min(s.minLength ?? 0, max), maxLength: max })
  const shaped: fc.Arbitrary<string>[] = []
  if (s.pattern) {
    try {
      shaped.push(fc.stringMatching(new RegExp(s.pattern)).map((v) => v.slice(0, s.maxLength ?? 300)))
    } catch {} // a pattern fast-check cannot generate from: plain strings only
  }
  // Real-looking URLs, on hosts that cannot resolve: a router's test send or a replay reaches nobody.
  if (s.format === 'uri' || /\^\[hH\]/.test(s.pattern ?? '')) shaped.push(fc.webUrl().map((u) => u.replace(/^(https?:\/\/[^/?#:]*)/, '$1.invalid')))
  if ((s.pattern ?? '').includes('@')) shaped.push(fc.emailAddress())
  if (s.format === 'uuid') shaped.push(fc.uuid())
  const hostile = fc.constantFrom(...HOSTILE_STRINGS)
  const arbs: fc.WeightedArbitrary<string>[] = [{ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: hostile }]
  if (shaped.length) arbs.push({ weight: 8, arbitrary: fc.oneof(...shaped) })
  return fc.oneof(...arbs)
}

function numberOf(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const lo = s.minimum ?? s.exclusiveMinimum ?? -1e9
  const hi = s.maximum ?? s.exclusiveMaximum ?? 1e9
  const edges = fc.constantFrom(lo, hi, lo - 1, hi + 1)
  if (!integer) return fc.oneof(fc.double({ min: lo, max: hi, noNaN: true }), edges)
  const inRange = lo >= -(2 ** 31) && hi <= 2 ** 31 - 1 ? fc.integer({ min: lo, max: hi }) : fc.maxSafeInteger().map((n) => clamp(n, lo, hi))
  return fc.oneof({ weight: 4, arbitrary: inRange }, { weight: 1, arbitrary: edges })
}

function objectOf(s: Schema, depth: number): fc.Arbitrary<unknown> {
  if (s.properties) {
    const props = Object.fromEntries(Object.entries<Schema>(s.properties).map(([k, v]) => [k, valueFrom(v, depth + 1)]))
    return fc.record(props, { requiredKeys: (s.required ?? []).filter((k: string) => k in props) })
  }
  const [pattern, value] = Object.entries<Schema>(s.patternProperties ?? {})[0] ?? []
  if (pattern && value) return fc.dictionary(stringOf({ pattern, maxLength: 64 }), valueFrom(value, depth + 1), { maxKeys: 4 })
  return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
}

/** Values shaped by a JSON schema: mostly valid, with edges (lengths, ranges) and the occasional wrong one. */
export function valueFrom(s: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!s || depth > 5) return fc.jsonValue({ maxDepth: 1 })
  if (s.const !== undefined) return fc.constant(s.const)
  if (s.enum) return fc.constantFrom(...s.enum)
  const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined
  if (union?.length) return fc.oneof(...union.map((u) => valueFrom(u, depth + 1)))
  const type = Array.isArray(s.type) ? s.type[0] : s.type
  switch (type) {
    case 'string':
      return stringOf(s)
    case 'integer':
      return numberOf(s, true)
    case 'number':
      return numberOf(s, false)
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return fc.array(valueFrom(s.items, depth + 1), { minLength: Math.min(s.minItems ?? 0, 3), maxLength: Math.min(s.maxItems ?? 4, 4) })
    case 'object':
      return objectOf(s, depth)
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

/** Every place in a JSON value, as a key path (the value itself is []). */
function placesIn(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at)
  if (at.length < 4 && value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) placesIn(v, [...at, Array.isArray(value) ? Number(k) : k], out)
  }
  return out
}

type Mutation = 'replace' | 'delete' | 'add'
/** A copy of `value` with one place replaced, deleted, or given an extra own key (`__proto__` too). */
function mutate(value: unknown, pick: number, how: Mutation, key: string, replacement: unknown): unknown {
  const root = { v: structuredClone(value) } as Record<string | number, unknown>
  const places = placesIn(root.v).map((p) => ['v', ...p])
  const place = places[pick % places.length]!
  const parent = place.slice(0, -1).reduce<any>((o, k) => o[k], root)
  const last = place.at(-1)!
  const target = parent[last]
  if (how === 'add' && target !== null && typeof target === 'object' && !Array.isArray(target)) {
    Object.defineProperty(target, key, { value: replacement, enumerable: true, writable: true, configurable: true })
  } else if (how === 'delete' && place.length > 1) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1)
    else delete parent[last]
  } else parent[last] = replacement
  return root.v
}

// --- bodies ------------------------------------------------------------------

interface Body {
  kind: string
  body: Uint8Array | null
  contentType: string | null
}
const jsonBody = (kind: string, value: unknown, contentType: string | null = 'application/json', invalid = 0): Body => ({ kind, body: jsonBytes(value, invalid), contentType })
const textBody = (kind: string, text: string, contentType: string | null = 'application/json'): Body => ({ kind, body: encoder.encode(text), contentType })

const LITERALS = ['', ' ', 'null', 'true', '0', '"x"', '[]', '[{}]', '{', '{"a":', '{"a":1,}', "{'a':1}", '{a:1}', 'NaN', 'undefined', '\u0000', '\ufeff{}', '{}{}', '{} x', 'a=1&b=2', '<x/>', '{"a":"\\ud800"}', '{"\\u0000":1}', '{"a":"\\u0000"}', '{"a":1,"a":2}', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}']
const SIZES = [4095, 4096, 4097, 16_383, 16_384, 16_385, 65_535, 65_536, 65_537]
const DEPTHS = [64, 99, 100, 101, 1000, 10_000]

/** A JSON object of exactly `bytes` bytes, padding one field. */
function sized(field: string, bytes: number): string {
  const head = `{${JSON.stringify(field)}:"`
  return head + 'x'.repeat(Math.max(0, bytes - head.length - 2)) + '"}'
}

function bodyArb(fields: string[], schema: Schema | undefined): fc.Arbitrary<Body> {
  const field = fields.length ? fc.constantFrom(...fields) : fc.constant('name')
  const valid = valueFrom(schema)
  const object = fc.dictionary(fc.oneof(field, fc.constantFrom(...ODD_KEYS), fc.string({ maxLength: 8 })), fc.oneof(hostileValue, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 5 })
  return fc.oneof(
    { weight: 30, arbitrary: valid.map((v) => jsonBody('schema', v)) },
    {
      weight: 24,
      arbitrary: fc.tuple(valid, fc.nat(), fc.constantFrom<Mutation>('replace', 'replace', 'delete', 'add'), fc.oneof(field, fc.constantFrom(...ODD_KEYS)), hostileValue, fc.nat())
        .map(([v, pick, how, key, bad, invalid]) => jsonBody(`mutant:${how}`, mutate(v, pick, how, key, bad), 'application/json', invalid)),
    },
    { weight: 8, arbitrary: fc.oneof(object, fc.jsonValue()).map((v) => jsonBody('json', v)) },
    { weight: 5, arbitrary: fc.tuple(field, fc.constantFrom(...DEPTHS), fc.constantFrom('[', '{"a":')).map(([f, n, open]) => textBody(`deep:${n}`, `{${JSON.stringify(f)}:${open.repeat(n)}1${(open === '[' ? ']' : '}').repeat(n)}}`)) },
    { weight: 2, arbitrary: fc.constantFrom(...DEPTHS).map((n) => textBody(`deep:${n}`, '['.repeat(n) + ']'.repeat(n))) },
    { weight: 4, arbitrary: fc.tuple(field, fc.constantFrom(...NUMBER_TEXT, ...HOSTILE_NUMBERS.map((n) => JSON.stringify(n)))).map(([f, n]) => textBody('number', `{${JSON.stringify(f)}:${n}}`)) },
    { weight: 4, arbitrary: fc.tuple(field, fc.constantFrom(...POLLUTION_KEYS)).map(([f, k]) => textBody('proto', `{${JSON.stringify(f)}:{"${k}":{"polluted":1}},"${k}":{"polluted":1}}`)) },
    { weight: 6, arbitrary: fc.constantFrom(...LITERALS).map((t) => textBody('garbage:literal', t)) },
    { weight: 3, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => ({ kind: 'garbage:bytes', body: b, contentType: 'application/json' })) },
    { weight: 3, arbitrary: fc.tuple(valid, fc.double({ min: 0, max: 1, noNaN: true })).map(([v, at]) => { const t = JSON.stringify(v) ?? ''; return textBody('garbage:truncated', t.slice(0, Math.floor(at * t.length))) }) },
    { weight: 5, arbitrary: fc.tuple(valid, fc.constantFrom(...CONTENT_TYPES, null)).map(([v, type]) => jsonBody('content-type', v, type)) },
    { weight: 2, arbitrary: fc.tuple(valid, fc.constantFrom(...JSON_TYPES)).map(([v, type]) => jsonBody('content-type:json', v, type)) },
    { weight: 2, arbitrary: fc.constant({ kind: 'empty', body: null, contentType: null }) },
    { weight: 2, arbitrary: fc.tuple(field, fc.constantFrom(...SIZES)).map(([f, n]) => textBody(`size:${n}`, sized(f, n))) },
    { weight: 1, arbitrary: fc.tuple(field, fc.integer({ min: 20 * 1024, max: 300 * 1024 })).map(([f, n]) => textBody('size:large', sized(f, n))) },
  )
}

// Most routes without a body schema take none; the fuzz still sends them some.
const strayBody: fc.Arbitrary<Body> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ kind: 'none', body: null, contentType: null }) },
  { weight: 4, arbitrary: bodyArb([], undefined) },
)

// --- paths and query strings -------------------------------------------------

/** The real values that fit a path parameter, by its name and the segment before it (`keys/:id`). */
export function refsFor(name: string, before: string): Ref[] {
  if (name === 'workspace') return ['workspace', 'workspace', 'victim']
  if (name === 'channel') return ['channel']
  if (name === 'eventId') return ['eventId']
  if (name === 'userId') return ['memberId', 'userId']
  if (name === 'token') return ['invitationToken']
  if (name === 'name') return ['asset']
  if (name !== 'id') return []
  const byCollection: Record<string, Ref> = { keys: 'keyId', routers: 'routerId', deliveries: 'deliveryId', invitations: 'invitationId', devices: 'deviceId' }
  return byCollection[before] ? [byCollection[before]] : ['routerId', 'keyId', 'deliveryId', 'eventId']
}

function paramArb(refs: Ref[], schema: Schema | undefined): fc.Arbitrary<Part> {
  const arbs: fc.WeightedArbitrary<Part>[] = [
    { weight: 3, arbitrary: (schema ? valueFrom(schema) : fc.string({ maxLength: 20 })).map(enc) },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(enc) },
  ]
  if (refs.length) arbs.push({ weight: 8, arbitrary: fc.constantFrom(...refs).map((ref) => ({ ref })) })
  return fc.oneof(...arbs)
}

function pathArb(route: RouteInfo): fc.Arbitrary<Part[]> {
  const params = ((route.hooks?.params as Schema | undefined)?.properties ?? {}) as Record<string, Schema>
  const segments = route.path.split('/').slice(1)
  const parts = segments.map((seg, i): fc.Arbitrary<Part[]> => {
    if (seg === '*') return fc.array(fc.oneof(fc.constantFrom(...HOSTILE_TEXT), fc.string({ maxLength: 8 }).map(enc)), { maxLength: 4 }).map((s) => ['/' + s.join('/')])
    if (!seg.startsWith(':')) return fc.constant(['/' + seg])
    const name = seg.slice(1)
    return paramArb(refsFor(name, segments[i - 1] ?? ''), params[name]).map((p) => ['/', p])
  })
  return fc.tuple(...parts, fc.constantFrom('', '', '', '', '', '', '', '', '/', '//', '/%2e')).map((ps) => ps.flat())
}

const QUERY_REFS: Record<string, Ref> = { workspace: 'workspace', channel: 'channel', before: 'eventId' }
const JUNK_QUERY = ['&', '&&', '=', '==1', '%', '%%', 'a[b]=c', 'a[]=1&a[]=2', ';x=1', '+=+', '%00=%00', '%FF=%FF', '%ED%A0%80', '?x', '#x', 'x=' + LONG, 'ü=ü', '__proto__[x]=1', 'constructor[prototype][x]=1']

function queryValue(key: string, schema: Schema | undefined): fc.Arbitrary<Part> {
  const arbs: fc.WeightedArbitrary<Part>[] = [
    { weight: 4, arbitrary: valueFrom(schema).map(enc) },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  ]
  if (QUERY_REFS[key]) arbs.push({ weight: 8, arbitrary: fc.constant({ ref: QUERY_REFS[key]! }) })
  return fc.oneof(...arbs)
}

function queryArb(route: RouteInfo): fc.Arbitrary<Part[]> {
  const schema = route.hooks?.query as Schema | undefined
  const props = (schema?.properties ?? {}) as Record<string, Schema>
  const keys = Object.keys(props)
  const required = (schema?.required ?? []) as string[]
  const pair = (key: string) => queryValue(key, props[key]).map((v): Part[] => [enc(key), '=', v])
  const needed = fc.tuple(...required.map((k) => fc.oneof({ weight: 8, arbitrary: pair(k) }, { weight: 1, arbitrary: fc.constant<Part[]>([]) })))
  const extra = fc.oneof(
    ...(keys.length ? [{ weight: 6, arbitrary: fc.constantFrom(...keys).chain(pair) }] : []),
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...POLLUTION_KEYS, 'unknown', 'limit', 'x'), fc.constantFrom(...HOSTILE_TEXT)).map(([k, v]): Part[] => [k, '=', v]) },
    { weight: 1, arbitrary: fc.constantFrom(...JUNK_QUERY).map((j): Part[] => [j]) },
  )
  const entries = fc.tuple(needed, fc.array(extra, { maxLength: keys.length ? 4 : 2 })).map(([n, e]) => [...n, ...e].filter((p) => p.length))
  const query = entries.map((es) => es.flatMap((e, i) => (i ? ['&', ...e] : e)))
  return keys.length ? query : fc.oneof({ weight: 4, arbitrary: fc.constant<Part[]>([]) }, { weight: 1, arbitrary: query })
}

// --- whole requests ----------------------------------------------------------

const callerArb = fc.oneof(
  { weight: 75, arbitrary: fc.constant<Caller>('right') },
  { weight: 7, arbitrary: fc.constant<Caller>('none') },
  { weight: 7, arbitrary: fc.constant<Caller>('wrong') },
  { weight: 11, arbitrary: fc.constantFrom<Caller>('admin', 'owner', 'member', 'member', 'apiKey', 'web', 'web', 'web-nocsrf') },
)
const forwardedArb = fc.oneof({ weight: 20, arbitrary: fc.ipV4() }, { weight: 1, arbitrary: fc.constantFrom('', 'unknown', ', ,', '1.2.3.4, 5.6.7.8', '::1', 'x'.repeat(2000), '[::1]:80') })

/** Account routes hash passwords (argon2) and count attempts: a small share of the requests. Routes with a body have more ways to go wrong. */
export const routeWeight = (r: RouteInfo) => (r.path.startsWith('/v1/auth/sign') || r.path.startsWith('/v1/auth/password') ? 1 : r.hooks?.body ? 8 : 4)

/** Every request the fuzzer sends to one route. */
export function routeCase(route: RouteInfo): fc.Arbitrary<RouteCase> {
  const schema = route.hooks?.body as Schema | undefined
  const fields = Object.keys(schema?.properties ?? {})
  const body = route.method === 'GET' || route.method === 'HEAD' ? fc.constant<Body>({ kind: 'none', body: null, contentType: null }) : schema ? bodyArb(fields, schema) : strayBody
  return fc.record({ path: pathArb(route), query: queryArb(route), caller: callerArb, forwardedFor: forwardedArb, body, transfer: fc.constantFrom<'bytes' | 'stream'>('bytes', 'bytes', 'bytes', 'stream'), variant: fc.nat(5) })
    .map(({ body: b, ...rest }) => {
      const c: RouteCase = { ...rest, kind: b.kind, method: route.method, route: `${route.method} ${route.path}`, contentType: b.contentType, body: b.body }
      return Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) })
    })
}

/** Every request to every route, weighted by routeWeight. */
export const requestArb = (routes: RouteInfo[]) => fc.oneof(...routes.map((r) => ({ weight: routeWeight(r), arbitrary: routeCase(r) })))

/** The URL path and query of a case; real values from `refs` (unresolved, as {ref}, without). */
export function target(c: RouteCase, refs?: Partial<Record<Ref, string>>): string {
  const text = (parts: Part[]) => parts.map((p) => (typeof p === 'string' ? p : refs ? enc(refs[p.ref] ?? `missing-${p.ref}`) : `{${p.ref}}`)).join('')
  const query = text(c.query)
  return text(c.path) + (c.query.length ? '?' + query : '')
}

/** A readable account of a case: route, target, caller, how the body goes, and its first bytes (invalid UTF-8 as \xNN). */
export function describeCase(c: RouteCase, refs?: Partial<Record<Ref, string>>, max = 400): string {
  const url = target(c, refs)
  const shownUrl = url.length > 300 ? `${url.slice(0, 300)}… (${url.length} characters)` : url
  let body = 'no body'
  if (c.body) {
    const head = c.body.subarray(0, max)
    const text = new TextDecoder('utf-8', { fatal: false }).decode(head)
    const shown = encoder.encode(text).length === head.length && !text.includes('\ufffd') ? JSON.stringify(text) : `bytes "${[...head].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('')}"`
    body = `${c.body.byteLength} bytes (${c.transfer}): ${shown}${c.body.byteLength > max ? ' …' : ''}`
  }
  return `{${c.kind}} ${c.method} ${shownUrl} as ${c.caller}, X-Forwarded-For ${JSON.stringify(c.forwardedFor.slice(0, 40))}, Content-Type ${JSON.stringify(c.contentType)}, ${body}`
}

// --- answers -----------------------------------------------------------------

/** A body as a stream of 1 KiB chunks: no length, sent chunked. */
export const chunked = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.byteLength; i += 1024) controller.enqueue(bytes.slice(i, i + 1024))
      controller.close()
    },
  })

/** What is wrong with a problem+json answer, or null (RFC 9457: type, title, status, detail). */
export function problemFault(status: number, type: string, text: string): string | null {
  if (!type.startsWith('application/problem+json')) return `${status} with Content-Type ${JSON.stringify(type)}: ${text.slice(0, 200)}`
  let p: Record<string, unknown>
  try {
    p = JSON.parse(text)
  } catch {
    return `the ${status} problem is not JSON: ${text.slice(0, 200)}`
  }
  if (p.status !== status) return `problem status ${JSON.stringify(p.status)} on a ${status}`
  if (typeof p.type !== 'string' || !p.type.startsWith('https://herald.dev/problems/')) return `problem type ${JSON.stringify(p.type)}`
  if (typeof p.title !== 'string' || !p.title) return 'problem without a title'
  if (typeof p.detail !== 'string' || !p.detail.trim()) return 'problem without a detail'
  return null
}
