// The bodies test/ingest/fuzz.event.test.ts sends to POST /event: fast-check
// arbitraries for each way a body can be odd, every case labelled with the
// statuses it may get. Bodies are bytes, built as text by hand where
// JSON.stringify cannot help: duplicate keys, `__proto__` as an own key, raw
// invalid UTF-8, truncated or non-JSON text.
import fc from 'fast-check'
import { LIMITS } from '../src/ingest/event'
import { MAX_JSON_DEPTH } from '../src/http/body'

export const MAX_BODY = 262_144

export interface SubmitBody {
  workspace: string
  channel: string
  eventId: string
  remainingQuota: number
  errors?: string[]
}

export interface FuzzCase {
  kind: string
  body: Uint8Array
  contentType: string | null
  /** The statuses this body may get. */
  expect: readonly number[]
  /** In-process only: with a Content-Length header, or as a stream of `chunk`-byte pieces (no length, as chunked). */
  transfer: 'length' | 'stream'
  chunk: number
  /** Send an Idempotency-Key header of this many characters (unique per request). */
  idempotencyKeyLength?: number
  /** Further checks of a 200 body: what is wrong, or null. */
  check?: (body: SubmitBody) => string | null
}
type Draft = Pick<FuzzCase, 'kind' | 'expect' | 'check'> & { body: Uint8Array | string; contentType?: string | null }

const OK = [200] as const
const BAD = [400] as const
const EITHER = [200, 400] as const
const encoder = new TextEncoder()
const js = (v: unknown) => JSON.stringify(v)
/** An object's JSON text from [key, value text] pairs: keys may repeat, and `__proto__` stays an own key. */
export const objText = (entries: [string, string][]) => `{${entries.map(([k, v]) => `${js(k)}:${v}`).join(',')}}`
export const storable = (s: string) => !s.includes('\0') && s.isWellFormed()
const codePoints = (s: string) => [...s].length
const cut = (s: string, n: number) => [...s].slice(0, n).join('')

// Content types: JSON_TYPES must be accepted, the others refused (DECISIONS: "application/json, optionally with parameters"),
// but text/plain and curl's form type, which POST /event takes as a message alone (PLAIN_TYPE below).
export const JSON_TYPES = ['application/json', 'APPLICATION/JSON', 'Application/Json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json ;charset=utf-8', 'application/json; charset=iso-8859-1', 'application/json;']
const OTHER_TYPES = [null, '', 'text/plain', 'text/json', 'application/jsonp', 'application/json-patch+json', 'application/problem+json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/javascript', 'json', 'application/', '*/*', 'application/json5', 'application/xjson']

// Text: storable pieces (astral, combining, ZWJ sequences, controls, quotes)
// and the two things PostgreSQL cannot store (U+0000, unpaired surrogates).
const STORABLE_UNITS = ['a', 'Z', '0', ' ', 'é', 'ß', '€', '中', '😀', '👍🏽', '👩‍👩‍👧‍👦', '🇫🇷', 'e\u0301', '\u0301', '\u200b', '\u200d', '\ufeff', '\ufffd', '\uffff', '\u2028', '\t', '\n', '\r', '\u0001', '\u001f', '\u007f', '\u0085', '"', '\\', '/', '<', '&', '{{', '}}', '%s', 'İ', 'ﬃ']
const UNSTORABLE_UNITS = ['\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', 'a\u0000b']
const FILL = ['a', 'é', '中', '😀', ' ']
const storableUnit = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...STORABLE_UNITS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter(storable) },
)
const anyUnit = fc.oneof({ weight: 6, arbitrary: storableUnit }, { weight: 1, arbitrary: fc.constantFrom(...UNSTORABLE_UNITS) })
type Unit = fc.Arbitrary<string>

/** Strings of `limit - 2` to `2 × limit` code points whose last two pieces sit at the truncation boundary. */
const nearLimit = (limit: number, unit: Unit) =>
  fc.tuple(fc.constantFrom(0, 1, limit - 2, limit - 1, limit, limit + 1, limit + 2, 2 * limit), fc.constantFrom(...FILL), unit, unit)
    .map(([n, fill, a, b]) => fill.repeat(Math.max(0, n - 1)) + a + b)
const text = (limit: number, unit: Unit) => fc.oneof(nearLimit(limit, unit), fc.string({ unit, maxLength: 30 }))
const blank = fc.constantFrom('', ' ', '\t\n', '\u00a0', '\u3000', '\u2028', '\ufeff', '   \r\n ')
const jsonText = fc.jsonValue({ maxDepth: 3 }).map(js)
const WRONG_TYPES = ['true', 'false', '0', '-0', '1.5', '1e308', '[]', '[""]', '["a",1]', '{}', '{"a":1}']
const wrongType = fc.oneof(fc.constantFrom(...WRONG_TYPES), jsonText.filter((t) => !t.startsWith('"')))

// Valid channel slugs (mixed case is lowercased; longer than 64 is truncated).
const SLUGS = ['general', 'signups', 'Signups', 'ALERTS', 'a', '0', 'a-b_c', 'deploys-2024', 'x'.repeat(64), 'y'.repeat(65), 'Z'.repeat(200)]
const BAD_SLUGS = ['', ' ', '-x', '_x', 'a b', 'é', 'a.b', 'İ', 'ａ', 'a/b', '\u0000', 'x'.repeat(63) + 'é']
const ALLOWED_SCHEMES = ['http://', 'https://', 'HTTP://', 'HtTpS://', 'mailto:', 'MAILTO:', 'tel:', 'Tel:']
const OTHER_SCHEMES = ['javascript:', 'JavaScript:', 'data:', 'ftp://', 'file://', 'vbscript:', '//', 'http:/', 'https:', 'http//', ' https://', '\thttps://', 'ｈｔｔｐｓ://', 'http\u0000://', 'mailto', '', 'x-https://']

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'constructor.prototype', '__defineGetter__', '__lookupGetter__', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf', 'polluted']
/** Properties a successful pollution would add to every object. */
export const POLLUTION_PROBES = ['polluted', 'isAdmin', 'message', 'fromProto', ...PROTO_KEYS]
const KNOWN_FIELDS = new Set(['message', 'event', 'channel', 'title', 'link', 'tags', 'data', 'priority', 'ttl', 'collapseKey', 'ack', 'to', 'deliverAt', 'delay'])

function make(d: Draft): Omit<FuzzCase, 'transfer' | 'chunk'> {
  return { kind: d.kind, body: typeof d.body === 'string' ? encoder.encode(d.body) : d.body, contentType: d.contentType === undefined ? 'application/json' : d.contentType, expect: d.expect, check: d.check }
}

/** A storable event that must be accepted, with the changes (the `errors` of the 200) it must report. */
const validEvent = fc.record(
  {
    message: text(LIMITS.message, storableUnit).filter((s) => s.trim() !== ''),
    event: fc.option(text(LIMITS.event, storableUnit)),
    title: fc.option(text(LIMITS.title, storableUnit)),
    channel: fc.option(fc.constantFrom(...SLUGS)),
    link: fc.option(fc.tuple(fc.constantFrom(...ALLOWED_SCHEMES), fc.oneof(text(LIMITS.link, storableUnit), fc.constantFrom('example.com/ü?q=1#x', 'a@b.c', '+1 555'))).map(([s, rest]) => cut(s + rest, LIMITS.link))),
    tags: fc.option(fc.array(text(LIMITS.tag, storableUnit), { maxLength: 14 })),
    data: fc.option(fc.dictionary(fc.string({ unit: storableUnit, maxLength: 8 }), fc.jsonValue({ maxDepth: 3, stringUnit: 'grapheme' }), { maxKeys: 5 })),
    unknown: fc.dictionary(fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ unit: anyUnit, maxLength: 70 })), jsonText, { maxKeys: 3 }),
  },
  { requiredKeys: ['message', 'unknown'] },
).filter((e) => allStorable(e.data) && !Object.keys(e.unknown).some((k) => KNOWN_FIELDS.has(k)))
type ValidEvent = typeof validEvent extends fc.Arbitrary<infer T> ? T : never

/** Every string and key of a JSON value is storable. */
function allStorable(v: unknown): boolean {
  if (typeof v === 'string') return storable(v)
  if (v === null || typeof v !== 'object') return true
  return Object.entries(v).every(([k, x]) => storable(k) && allStorable(x))
}

/** The JSON text of a valid event, and a check of the channel and the changes its 200 must report. */
export function validText(e: ValidEvent) {
  const entries: [string, string][] = [['message', js(e.message)]]
  for (const f of ['event', 'title', 'channel', 'link', 'tags', 'data'] as const) if (e[f] !== undefined) entries.push([f, js(e[f])])
  for (const k of Object.keys(e.unknown)) entries.push([k, e.unknown[k]!])
  const changes: string[] = []
  const over = (f: string, v: string | null | undefined, limit: number) => v != null && codePoints(v) > limit && changes.push(`${f} was truncated to ${limit} characters`)
  over('message', e.message, LIMITS.message)
  over('event', e.event, LIMITS.event)
  over('title', e.title, LIMITS.title)
  over('channel', e.channel?.toLowerCase(), LIMITS.channel)
  if (e.tags && e.tags.length > LIMITS.tags) changes.push(`tags beyond the first ${LIMITS.tags} were dropped (${e.tags.length} sent)`)
  e.tags?.slice(0, LIMITS.tags).forEach((t, i) => codePoints(t) > LIMITS.tag && changes.push(`tags[${i}] was truncated to ${LIMITS.tag} characters`))
  for (const k of Object.keys(e.unknown)) changes.push(`unknown property ${js(k.slice(0, 64))} was dropped`)
  const channel = e.channel ? e.channel.toLowerCase().slice(0, LIMITS.channel) : 'general'
  const check = (b: SubmitBody) => {
    if (b.channel !== channel) return `channel ${js(b.channel)}, expected ${js(channel)}`
    // A dropped property near a field's name also says which field it may
    // have meant (`: did you mean "tags"?`): compared without that hint.
    const got = [...(b.errors ?? [])].map((x) => x.replace(/^(unknown property .* was dropped): did you mean "[A-Za-z]+"\?$/s, '$1')).sort()
    return js(got) === js([...changes].sort()) ? null : `errors ${js(b.errors)}, expected ${js(changes)}`
  }
  return { text: objText(entries), check }
}

const valid = validEvent.map((e) => {
  const { text: t, check } = validText(e)
  return make({ kind: 'valid', body: t, expect: OK, check })
})

/** Any field with any value: right and wrong types, nulls, blanks, limits, unstorable text. */
const fields = fc.record(
  {
    message: fc.oneof(text(LIMITS.message, anyUnit).map(js), blank.map(js), wrongType, fc.constant('null')),
    event: fc.oneof(text(LIMITS.event, anyUnit).map(js), wrongType, fc.constant('null')),
    title: fc.oneof(text(LIMITS.title, anyUnit).map(js), blank.map(js), wrongType, fc.constant('null')),
    channel: fc.oneof(fc.constantFrom(...SLUGS, ...BAD_SLUGS).map(js), text(LIMITS.channel, anyUnit).map(js), wrongType, fc.constant('null')),
    link: fc.oneof(fc.tuple(fc.constantFrom(...ALLOWED_SCHEMES, ...OTHER_SCHEMES), text(LIMITS.link, anyUnit)).map(([s, r]) => js(s + r)), wrongType, fc.constant('null')),
    tags: fc.oneof(fc.array(text(LIMITS.tag, anyUnit), { maxLength: 14 }).map(js), fc.constantFrom('"a"', '[1]', '[null]', '[["a"]]', '{}', '[{}]', '["a",null]'), fc.constant('null')),
    data: fc.oneof(fc.dictionary(fc.string({ unit: anyUnit, maxLength: 8 }), fc.jsonValue({ maxDepth: 3, stringUnit: anyUnit }), { maxKeys: 5 }).map(js), wrongType, fc.constant('null')),
    extra: fc.constantFrom(...PROTO_KEYS, 'unknown', 'Message', 'MESSAGE', ''),
  },
  { requiredKeys: [] },
).map((r) => make({ kind: 'fields', body: objText(Object.entries(r).map(([k, v]) => (k === 'extra' ? [v, '1'] : [k, v]))), expect: EITHER }))

/** Objects and arrays nested from 1 to 100,000 levels, in `data` (limit LIMITS.dataDepth) and everywhere else. */
export function nest(depth: number, shape: 'obj' | 'arr' | 'mix', key: string, inner: string): string {
  const open: string[] = []
  const close: string[] = []
  for (let i = 0; i < depth; i++) {
    const obj = shape === 'obj' || (shape === 'mix' && i % 2 === 0)
    open.push(obj ? `{${js(key)}:` : '[')
    close.push(obj ? '}' : ']')
  }
  return open.join('') + inner + close.reverse().join('')
}
const DEEP_AT = ['data', 'dataField', 'unknown', 'message', 'title', 'event', 'channel', 'link', 'tags', 'tagItem', 'top'] as const
const deep = fc.record({
  depth: fc.oneof(fc.constantFrom(1, 2, 500, LIMITS.dataDepth - 2, LIMITS.dataDepth - 1, LIMITS.dataDepth, LIMITS.dataDepth + 1, LIMITS.dataDepth + 2, 2000, 5000, 40_000, 100_000), fc.integer({ min: 1, max: 3000 })),
  shape: fc.constantFrom('obj', 'arr', 'mix') as fc.Arbitrary<'obj' | 'arr' | 'mix'>,
  key: fc.constantFrom('k', '__proto__', 'constructor', 'prototype', ''),
  inner: fc.constantFrom('1', '"x"', 'null', 'true', '-0', '"😀"'),
  at: fc.constantFrom(...DEEP_AT),
}).map(({ depth, shape, key, inner, at }) => {
  const n = nest(depth, shape, key, inner)
  const L = LIMITS.dataDepth
  const expect =
    at === 'data' ? (shape !== 'arr' && depth <= L ? OK : BAD)
    : at === 'dataField' ? (depth + 1 <= L ? OK : BAD)
    : at === 'unknown' ? (depth + 1 <= MAX_JSON_DEPTH ? OK : BAD) // dropped, unless the body nests too deep
    : at === 'tags' && shape === 'arr' && depth === 1 && inner.startsWith('"') ? OK // ["x"]: plain tags
    : BAD
  const body =
    at === 'top' ? n
    : at === 'dataField' ? objText([['message', '"deep"'], ['data', `{"f":${n}}`]])
    : at === 'tagItem' ? objText([['message', '"deep"'], ['tags', `[${n}]`]])
    : at === 'message' ? objText([['message', n]])
    : objText([['message', '"deep"'], [at, n]])
  return make({ kind: `deep:${at}`, body, expect })
})

// Numbers: huge, tiny, negative zero, long digit strings, and number-like text that is not JSON.
const NUMBERS = ['0', '-0', '0.0', '-0.0', '0e0', '1e308', '-1e308', '1.7976931348623157e308', '1.7976931348623159e308', '1e309', '1e400', '-1e400', '1e-400', '5e-324', '2.4703282292062327e-324', '9007199254740993', '123456789012345678901234567890', '1E+2', '1e-0', '-1.5e-10',
  'NaN', '-NaN', 'Infinity', '-Infinity', '+1', '01', '-01', '.5', '1.', '1e', '1e+', '0x10', '1_000', '--1', '1.2.3', '١٢٣', '１', '0b1', '1n', 'nan', 'inf', '1,5', '- 1']
const number = fc.oneof(
  fc.constantFrom(...NUMBERS),
  fc.double().map(String),
  fc.bigInt({ min: -(10n ** 400n), max: 10n ** 400n }).map(String),
  fc.tuple(fc.integer({ min: 1, max: 6000 }), fc.constantFrom('', '.5', 'e10', 'e-400', 'E+400')).map(([n, tail]) => '9'.repeat(n) + tail),
  fc.integer({ min: 1, max: 6000 }).map((n) => `0.${'0'.repeat(n)}1`),
)
const parsesTo = (t: string): unknown => {
  try {
    return JSON.parse(t)
  } catch {
    return undefined
  }
}
const numbers = fc.record({ num: number, at: fc.constantFrom('data', 'dataArray', 'unknown', 'message', 'title', 'channel', 'link', 'event', 'tags', 'top') }).map(({ num, at }) => {
  const v = parsesTo(num)
  const isJson = typeof v === 'number'
  const expect = at === 'data' || at === 'dataArray' ? (isJson && Number.isFinite(v) ? OK : BAD) : at === 'unknown' ? (isJson ? OK : BAD) : BAD
  const body =
    at === 'top' ? num
    : at === 'data' ? objText([['message', '"n"'], ['data', `{"n":${num}}`]])
    : at === 'dataArray' ? objText([['message', '"n"'], ['data', `{"a":[1,${num},{"b":${num}}]}`]])
    : at === 'tags' ? objText([['message', '"n"'], ['tags', `[${num}]`]])
    : at === 'message' ? objText([['message', num]])
    : objText([['message', '"n"'], [at, num]])
  return make({ kind: `number:${at}`, body, expect })
})

// Prototype pollution: the keys as own keys, at the top, in data, nested, twice.
const PAYLOADS = ['{"polluted":"yes"}', '{"isAdmin":true}', '"polluted"', '[{"polluted":1}]', '{"__proto__":{"polluted":"deep"}}', '{"prototype":{"polluted":"p"}}', '{"toString":"not a function"}', '{"constructor":{"prototype":{"polluted":"c"}}}', '{"message":"fromProto","fromProto":1}', 'null', '1']
const payload: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof({ depthSize: 'small', maxDepth: 3, withCrossShrink: true }, fc.constantFrom(...PAYLOADS), fc.array(fc.tuple(fc.constantFrom(...PROTO_KEYS), tie('p')), { minLength: 1, maxLength: 3 }).map(objText)),
})).p
const proto = fc.record({ key: fc.constantFrom(...PROTO_KEYS), p: payload, p2: payload, at: fc.constantFrom('top', 'topOnly', 'data', 'dataNested', 'twice', 'tags', 'message') }).map(({ key, p, p2, at }) => {
  const m: [string, string] = ['message', '"proto"']
  const cases: Record<string, [string, readonly number[]]> = {
    top: [objText([m, [key, p]]), OK],
    topOnly: [objText([[key, p], [key, '{"message":"x"}']]), BAD],
    data: [objText([m, ['data', objText([[key, p]])]]), OK],
    dataNested: [objText([m, ['data', `{"a":{"b":[${objText([[key, p], ['__proto__', p2]])}]}}`]]), OK],
    twice: [objText([m, ['__proto__', p], ['__proto__', p2], [key, p2]]), OK],
    tags: [objText([m, ['tags', objText([[key, p]])]]), BAD],
    message: [objText([['message', objText([[key, p]])]]), BAD],
  }
  const [body, expect] = cases[at]!
  return make({ kind: `proto:${at}`, body, expect })
})

// Duplicate keys: the last one wins (JSON.parse), whether it is the good or the bad one.
const GOOD: Record<string, string[]> = {
  message: ['"first"', '"second"'], event: ['"user.signup"'], channel: ['"dupwins"', '"Signups"'], title: ['"t"'], link: ['"https://x.test/"', '"TEL:+1"'], tags: ['["a"]', '[]'], data: ['{"a":1}', '{}'],
}
const BAD_VALUES: Record<string, string[]> = {
  message: ['5', '""', '"  "', 'null', '"\\u0000"', '"\\ud800"', '{}'], event: ['5', '[]', '"\\ud800x"'], channel: ['"Not A Slug!"', '5', '"-x"'], title: ['{}', '"\\u0000"'],
  link: ['"javascript:alert(1)"', js('https://' + 'a'.repeat(LIMITS.link)), '"ftp://x"'], tags: ['"x"', '[1]', '["\\u0000"]'], data: ['[]', '"x"', '{"n":1e400}', '{"\\ud800":1}'],
}
const dup = fc.record({ field: fc.constantFrom(...Object.keys(GOOD)), order: fc.constantFrom('badThenGood', 'goodThenBad', 'goodThenGood'), g: fc.nat(), b: fc.nat() }).map(({ field, order, g, b }) => {
  const good = GOOD[field]!
  const bad = BAD_VALUES[field]!
  const [first, last] = order === 'badThenGood' ? [bad[b % bad.length]!, good[g % good.length]!] : order === 'goodThenBad' ? [good[g % good.length]!, bad[b % bad.length]!] : [good[0]!, good[good.length - 1]!]
  const entries: [string, string][] = field === 'message' ? [['message', first], ['event', '"e"'], ['message', last]] : [['message', '"dup"'], [field, first], ['title', '"t"'], [field, last]]
  const channel = field === 'channel' && order !== 'goodThenBad' ? (JSON.parse(last) as string).toLowerCase() : 'general'
  const check = (r: SubmitBody) => (r.channel === channel ? null : `channel ${js(r.channel)}: the last duplicate should win (${js(channel)})`)
  return make({ kind: `duplicate:${order}`, body: objText(entries), expect: order === 'goodThenBad' ? BAD : OK, check })
})

// Raw bytes: invalid UTF-8 (lone continuation bytes, overlong forms, UTF-8-encoded surrogates, out-of-range and truncated sequences) and valid multi-byte text, inside and outside strings.
const INVALID_UTF8 = [[0x80], [0xbf], [0x80, 0x80], [0xc0, 0x80], [0xc0, 0xaf], [0xc1, 0xbf], [0xe0, 0x80, 0xaf], [0xe0, 0x9f, 0xbf], [0xf0, 0x80, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80],
  [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xfc, 0x84, 0x80, 0x80, 0x80, 0x80], [0xfe], [0xff], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xe2, 0x28, 0xa1], [0xc3, 0x28], [0xf0, 0x28, 0x8c, 0xbc]]
const VALID_UTF8 = [[0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80], [0xef, 0xbf, 0xbf], [0xf4, 0x8f, 0xbf, 0xbf], [0xc2, 0x80], [0xe2, 0x80, 0xa8], [0xef, 0xbb, 0xbf], [0x7f]]
const invalidUtf8 = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...INVALID_UTF8) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 6 }).filter((b) => !decodes(new Uint8Array(b))) },
)
const decodes = (bytes: Uint8Array) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}
// A valid body, split where the bytes go: [before, after, inside a string?]
const SPLITS: [string, string, boolean][] = [
  ['{"message":"', 'hello","data":{"k":"v"}}', true], ['{"message":"hello', '","data":{"k":"v"}}', true], ['{"message":"hi","data":{"', 'k":"v"}}', true],
  ['{"message":"hi","data":{"k":"', '"}}', true], ['{"message":"hi","x', '":1}', true], ['', '{"message":"hi"}', false], ['{"message":"hi"}', '', false],
  ['{', '"message":"hi"}', false], ['{"message":"hi",', '"data":{}}', false], ['{"message":', '"hi"}', false], ['{"message":"hi","tags":[', '"a"]}', false],
]
const bytes = fc.record({
  split: fc.constantFrom(...SPLITS),
  seq: fc.oneof({ weight: 3, arbitrary: invalidUtf8.map((b) => ({ b, valid: false })) }, { weight: 1, arbitrary: fc.constantFrom(...VALID_UTF8).map((b) => ({ b, valid: true })) }, { weight: 1, arbitrary: fc.constantFrom([0x00], [0x01], [0x1f], [0x0a], [0x09], [0x20]).map((b) => ({ b, valid: true })) }),
}).map(({ split: [before, after, inString], seq: { b, valid } }) => {
  const body = new Uint8Array([...encoder.encode(before), ...b, ...encoder.encode(after)])
  const control = b.length === 1 && b[0]! < 0x20
  const whitespace = b.length === 1 && [0x09, 0x0a, 0x20].includes(b[0]!)
  const bom = b[0] === 0xef && b[1] === 0xbb && before === ''
  const expect = !valid ? BAD : inString ? (control ? BAD : OK) : whitespace ? OK : bom ? EITHER : BAD
  return make({ kind: `utf8:${valid ? (control ? 'control' : 'valid') : 'invalid'}:${inString ? 'in-string' : 'outside'}`, body, expect })
})

/** Links: allowed and refused schemes in any case, around 1000 code points. */
const links = fc.record({ scheme: fc.constantFrom(...ALLOWED_SCHEMES, ...OTHER_SCHEMES), rest: text(LIMITS.link, anyUnit) }).map(({ scheme, rest }) => {
  const link = scheme + rest
  // The rule itself, not the scheme drawn: "http:/" + "/…" is an allowed link.
  const ok = /^(https?:\/\/|mailto:|tel:)/i.test(link) && codePoints(link) <= LIMITS.link && storable(link)
  return make({ kind: `link:${ok ? 'valid' : 'invalid'}`, body: objText([['message', '"link"'], ['link', js(link)]]), expect: ok ? OK : BAD })
})

const contentTypes = fc.record({ ct: fc.constantFrom(...JSON_TYPES, ...OTHER_TYPES), body: fc.constantFrom('{"message":"ct"}', '{"message":"ct","data":{"a":[1,2]}}', 'message=ct', '{') }).map(({ ct, body }) =>
  make({ kind: `content-type:${JSON_TYPES.includes(ct as string) ? 'json' : 'other'}`, body, contentType: ct, expect: body.startsWith('{"') ? OK : BAD }),
)

/** Bodies of exactly `size` bytes around 262,144, padded with 1- to 4-byte characters in various places. */
const PAD_AT: Record<string, [string, string]> = {
  data: ['{"message":"size","data":{"pad":"', '"}}'], message: ['{"message":"', '"}'], unknown: ['{"message":"size","pad":"', '"}'], tag: ['{"message":"size","tags":["', '"]}'], whitespace: ['{"message":"size"', '}'], invalid: ['{"message":"size","pad":', '}'],
}
const sizes = fc.record({ size: fc.constantFrom(MAX_BODY - 3, MAX_BODY - 1, MAX_BODY, MAX_BODY + 1, MAX_BODY + 4, 200_000, 300_000, 1 << 20), at: fc.constantFrom(...Object.keys(PAD_AT)), pad: fc.constantFrom('a', 'é', '€', '😀', ' \n', '\t') }).map(({ size, at, pad }) => {
  const [head, tail] = PAD_AT[at]!
  const unit = at === 'whitespace' ? (pad.trim() ? ' ' : pad) : at === 'invalid' ? 'x' : pad.trim() ? pad : 'b'
  const filler = at === 'whitespace' ? ' ' : 'x' // one byte, for what whole units leave over
  const room = Math.max(0, size - encoder.encode(head + tail).length)
  const unitBytes = encoder.encode(unit).length
  const body = head + unit.repeat(Math.floor(room / unitBytes)) + filler.repeat(room % unitBytes) + tail
  return make({ kind: `size:${size > MAX_BODY ? 'over' : 'within'}`, body, expect: at === 'invalid' ? BAD : OK })
})

// Not JSON, not an object, truncated, or random bytes.
const LITERALS: [string, readonly number[]][] = [
  ['', BAD], [' ', BAD], ['null', BAD], ['true', BAD], ['0', BAD], ['"message"', BAD], ['[]', BAD], ['[{"message":"x"}]', BAD], ['{}', BAD], ['{"message"}', BAD], ['{"message":}', BAD],
  ['{"message":"x",}', BAD], ['{"message":"x"}}', BAD], ['{"message":"x"} {"message":"y"}', BAD], ["{'message':'x'}", BAD], ['{message:"x"}', BAD], ['{"message":"x" /*c*/}', BAD], ['// c\n{"message":"x"}', BAD],
  ['{"message":"x\ny"}', BAD], ['{"message":"\\x41"}', BAD], ['{"message":"\\u12"}', BAD], ['{"message":"\\uZZZZ"}', BAD], ['{"message":"x"}\u0000', BAD], ['\u0000{"message":"x"}', BAD],
  ['{"message":"x"} ', OK], [' \n\t{"message":"x"}\r\n', OK], ['{"message":"\u2028"}', BAD], ['{"message":"a\u2028b"}', OK], ['{"message":"\\u2028x"}', OK], ['{"message":"\\/"}', OK], ['{"message":"x","message":null}', BAD],
]
const garbage = fc.oneof(
  fc.constantFrom(...LITERALS).map(([body, expect]) => make({ kind: 'garbage:literal', body, expect })),
  fc.tuple(validEvent, fc.double({ min: 0, max: 1, noNaN: true })).map(([e, at]) => {
    const b = encoder.encode(validText(e).text)
    return make({ kind: 'garbage:truncated', body: b.subarray(0, Math.floor(at * (b.length - 1))), expect: BAD })
  }),
  fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: 'binary-ascii', maxLength: 300 }).map((s) => encoder.encode(s))).map((b) => {
    const v = decodes(b) ? parsesTo(new TextDecoder().decode(b)) : undefined
    return make({ kind: 'garbage:random', body: b, expect: v !== null && typeof v === 'object' && !Array.isArray(v) ? EITHER : BAD })
  }),
)

/** Every body the fuzzer sends, with how it travels and an optional Idempotency-Key. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.tuple(
  fc.oneof(
    { weight: 18, arbitrary: valid }, { weight: 18, arbitrary: fields }, { weight: 8, arbitrary: deep }, { weight: 8, arbitrary: numbers }, { weight: 8, arbitrary: proto },
    { weight: 8, arbitrary: dup }, { weight: 10, arbitrary: bytes }, { weight: 6, arbitrary: links }, { weight: 4, arbitrary: contentTypes }, { weight: 1, arbitrary: sizes }, { weight: 10, arbitrary: garbage },
  ),
  fc.constantFrom('length', 'stream') as fc.Arbitrary<'length' | 'stream'>,
  fc.constantFrom(1, 7, 1024, 16_384, 65_536),
  // Keys are unique per request (a UUID, padded); 0 and 256 characters are refused.
  fc.oneof({ weight: 20, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(0, 36, 255, 256) }),
).map(([c, transfer, chunk, idem]) => settle({ ...c, transfer, chunk: transfer === 'stream' && c.body.byteLength > 4096 && chunk < 1024 ? 1024 : chunk, idempotencyKeyLength: idem }))

// A text body is the message (src/ingest/plain_event.ts): curl -d's form type too.
const PLAIN_TYPE = /^\s*(text\/plain|application\/x-www-form-urlencoded)\s*(;|$)/i
const utf8 = new TextDecoder('utf-8', { fatal: true })
/** A text body is a 200 unless it is not UTF-8, blank, unstorable, or a JSON object (which must be sent as JSON). */
function plainExpect(body: Uint8Array): readonly number[] {
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    return BAD
  }
  if (text.trim() === '' || !storable(text)) return BAD
  try {
    const parsed: unknown = JSON.parse(text.trim())
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && text.trim().startsWith('{')) return BAD
  } catch {}
  return OK
}

/** Applies the checks that come before the body's own: 413 on size, then 400 on Content-Type and on a bad Idempotency-Key. */
function settle(c: FuzzCase): FuzzCase {
  let expect = c.expect
  const plain = c.contentType !== null && PLAIN_TYPE.test(c.contentType)
  if (c.body.byteLength > MAX_BODY) expect = [413]
  else if (plain ? plainExpect(c.body) === BAD : !JSON_TYPES.includes(c.contentType as string)) expect = BAD
  else if (c.idempotencyKeyLength !== undefined && (c.idempotencyKeyLength < 1 || c.idempotencyKeyLength > 255)) expect = BAD
  else if (plain) expect = OK
  const settled = { ...c, expect, check: expect.includes(200) ? c.check : undefined }
  return Object.assign(settled, { [fc.toStringMethod]: () => describeCase(settled) })
}

/** A readable account of a case: its kind, how it is sent, and its body (invalid bytes as \xNN). */
export function describeCase(c: FuzzCase, max = 600): string {
  const head = c.body.subarray(0, max)
  const shown = decodes(head) ? js(new TextDecoder().decode(head)) : `bytes "${[...head].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('')}"`
  const more = c.body.byteLength > max ? ` … (${c.body.byteLength} bytes in all)` : ''
  const idem = c.idempotencyKeyLength === undefined ? '' : `, Idempotency-Key of ${c.idempotencyKeyLength} characters`
  return `{${c.kind}, expects ${c.expect.join('/')}, Content-Type ${js(c.contentType)}, ${c.transfer}${c.transfer === 'stream' ? ` in ${c.chunk}-byte chunks` : ''}${idem}: ${shown}${more}}`
}
