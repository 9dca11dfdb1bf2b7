// The table of destination types in docs/routers.md, generated from the
// registry so that the two cannot drift: test/delivery/destinations.registry.test.ts
// fails when the committed table differs from this one. After adding or
// changing a type:
//
//   bun src/delivery/destinations/docs.ts     (rewrites the table in docs/routers.md)
import { readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { DESTINATIONS } from '.'

export const ROUTERS_DOC = join(import.meta.dir, '..', '..', '..', 'docs', 'routers.md')
export const TABLE_START = '<!-- destinations-table:start -->'
export const TABLE_END = '<!-- destinations-table:end -->'

interface Schema {
  type?: string
  properties?: Record<string, Schema>
  required?: string[]
}

/** `url`, `headers`?, `to[]`, `smtp`? {`host`,`port`,`secure`?}: a schema's fields, `?` after the optional ones. */
function fieldsOf(schema: Schema, nested = false): string {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties ?? {})
    .filter(([name]) => nested || name !== 'type') // the type is the row's first column
    .map(([name, s]) => {
      const field = `\`${name}${s.type === 'array' ? '[]' : ''}\`${required.has(name) ? '' : '?'}`
      return s.type === 'object' && s.properties ? `${field} {${fieldsOf(s, true)}}` : field
    })
    .join(nested ? ',' : ', ')
}

/** The Markdown table of every destination type: its `type`, its fields, what is sent. */
export function destinationsTable(): string {
  const rows = DESTINATIONS.map((d) => `| \`${d.type}\` | ${fieldsOf(d.schema as Schema)} | ${d.description.replaceAll('|', '\\|')} |`)
  return ['| `type` | Fields | What is sent |', '|---|---|---|', ...rows].join('\n')
}

/** `doc` with the text between the markers replaced by the generated table. */
export function withDestinationsTable(doc: string): string {
  const start = doc.indexOf(TABLE_START)
  const end = doc.indexOf(TABLE_END)
  if (start < 0 || end < start) throw new Error(`${ROUTERS_DOC} has no ${TABLE_START} … ${TABLE_END} region`)
  return `${doc.slice(0, start + TABLE_START.length)}\n${destinationsTable()}\n${doc.slice(end)}`
}

if (import.meta.main) {
  const before = readFileSync(ROUTERS_DOC, 'utf8')
  const after = withDestinationsTable(before)
  writeFileSync(ROUTERS_DOC, after)
  const name = relative(process.cwd(), ROUTERS_DOC)
  console.log(after === before ? `${name}: the table was up to date` : `${name}: the table was rewritten`)
}
