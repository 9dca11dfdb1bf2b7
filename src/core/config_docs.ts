// The table of settings in docs/configuration.md, generated from the schema
// in config.ts, so the two cannot drift: test/ops/docs.test.ts fails when the
// committed table differs from this one. After a change to the schema:
//
//   bun src/core/config_docs.ts     (rewrites the table in docs/configuration.md)
import { readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ConfigSchema } from './config'

export const CONFIG_DOC = join(import.meta.dir, '..', '..', 'docs', 'configuration.md')
export const TABLE_START = '<!-- config-table:start -->'
export const TABLE_END = '<!-- config-table:end -->'

type Schema = Record<string, unknown>

/**
 * Markdown text: `<`, `>` and `|` escaped outside code spans, so that
 * "herald.events.<workspace id>" is not read as an HTML tag, nor a "|" as a
 * column.
 */
function text(s: string): string {
  return s
    .split('`')
    .map((part, i) => (i % 2 ? part : part.replaceAll('<', '&lt;').replaceAll('>', '&gt;')))
    .join('`')
    .replaceAll('|', '\\|')
}

const code = (v: unknown) => `\`${String(v)}\``

/** The default, as it would be written in the environment; — without one. */
function defaultOf(s: Schema): string {
  if (s.default === undefined || s.default === '') return '—'
  return code(s.default)
}

/** What the key takes, in words: the schema's own `error` text, or what its type says. */
function accepts(s: Schema): string {
  if (Array.isArray(s.anyOf)) return (s.anyOf as Schema[]).map((l) => code(l.const)).join(', ')
  if (s.type === 'boolean') return '`true`, `false`'
  if (s.type === 'integer') return `${s.minimum} to ${s.maximum}`
  if (s.type === 'number') return s.exclusiveMinimum !== undefined ? `a number above ${s.exclusiveMinimum}` : 'a number'
  if (typeof s.error === 'string') return text(s.error)
  if (typeof s.minLength === 'number' && s.minLength > 1) return `at least ${s.minLength} characters`
  return 'text'
}

/** The Markdown table of every setting: key, default, what it takes, what it does. */
export function configTable(): string {
  const rows = Object.entries(ConfigSchema.properties as Record<string, Schema>).map(
    ([key, s]) => `| ${code(key)} | ${defaultOf(s)} | ${accepts(s)} | ${text(String(s.description ?? ''))} |`,
  )
  return ['| Key | Default | Takes | Meaning |', '|---|---|---|---|', ...rows].join('\n')
}

/** `doc` with the text between the markers replaced by the generated table. */
export function withConfigTable(doc: string): string {
  const start = doc.indexOf(TABLE_START)
  const end = doc.indexOf(TABLE_END)
  if (start < 0 || end < start) throw new Error(`${CONFIG_DOC} has no ${TABLE_START} … ${TABLE_END} region`)
  return `${doc.slice(0, start + TABLE_START.length)}\n${configTable()}\n${doc.slice(end)}`
}

if (import.meta.main) {
  const before = readFileSync(CONFIG_DOC, 'utf8')
  const after = withConfigTable(before)
  writeFileSync(CONFIG_DOC, after)
  const name = relative(process.cwd(), CONFIG_DOC)
  console.log(after === before ? `${name}: the table was up to date` : `${name}: the table was rewritten`)
}
