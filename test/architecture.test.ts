// The layout the README's architecture map describes, held against the code:
// no import cycles (type-only imports included), the shared core imports no
// area, the pool's threads (workers/) import only delivery, the areas import
// neither the HTTP layer nor workers/, and a route file holds no SQL and opens
// no transaction. Imports are read with Bun.Transpiler's scanImports, which
// leaves out type-only imports, plus those read from the source text.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..')
const transpiler = new Bun.Transpiler({ loader: 'ts' })

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })
}

/** The project files that `file` imports, as paths from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/^#!.*/, '') // scanImports refuses a shebang
  const specs = new Set(transpiler.scanImports(text).map((i) => i.path))
  for (const m of text.matchAll(/^\s*(?:import|export)\s+type\b[^;]*?from\s*['"]([^'"]+)['"]/gm)) specs.add(m[1]!)
  for (const m of text.matchAll(/^\s*import\s*\{[^}]*\btype\s[^}]*\}\s*from\s*['"]([^'"]+)['"]/gm)) specs.add(m[1]!)
  const out: string[] = []
  for (const spec of specs) {
    if (!spec.startsWith('.')) continue
    // The client's ESM source names its imports as built (./herald.js for ./herald.ts).
    const base = relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '')
    const found = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => {
      try {
        return statSync(join(ROOT, p)).isFile()
      } catch {
        return false
      }
    })
    if (!found) throw new Error(`${file} imports ${spec}, which is no file`)
    out.push(found)
  }
  return out
}

// The areas: each owns its SQL and its invariants, and is reached from the
// HTTP layer (src/http) and the pool's threads (workers/), never the reverse.
const AREAS = ['src/accounts/', 'src/ingest/', 'src/delivery/']

// The TypeScript client is in the graph too: `herald send` imports its source.
const files = [...sources('src'), ...sources('workers'), ...sources('clients/typescript/src')]
const graph = new Map(files.map((f) => [f, importsOf(f)]))

/** Every cycle, as the files in it (Tarjan's strongly connected components of more than one file, or a file that imports itself). */
function cycles(): string[][] {
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  const found: string[][] = []
  const visit = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    on.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const part: string[] = []
      let w: string
      do {
        w = stack.pop()!
        on.delete(w)
        part.push(w)
      } while (w !== v)
      if (part.length > 1 || graph.get(v)!.includes(v)) found.push(part.sort())
    }
  }
  for (const f of files) if (!idx.has(f)) visit(f)
  return found
}

describe('architecture', () => {
  test('the import graph is read (a broken reader would find no cycle in anything)', () => {
    expect(files.length).toBeGreaterThan(50)
    expect(graph.get('src/server.ts')).toContain('src/ingest/batcher.ts')
    expect(graph.get('src/ingest/batcher.ts')).toContain('src/core/db.ts') // a type-only import among them
  })

  test('no import cycles, type-only imports included', () => {
    expect(cycles()).toEqual([])
  })

  test('the core imports no area; workers/ imports only delivery', () => {
    const strays = [...graph].flatMap(([file, imports]) => {
      if (file.startsWith('src/core/')) return imports.filter((i) => !i.startsWith('src/core/')).map((i) => `${file} -> ${i}`)
      if (file.startsWith('workers/')) return imports.filter((i) => !i.startsWith('src/delivery/') && !i.startsWith('workers/')).map((i) => `${file} -> ${i}`)
      return []
    })
    expect(strays).toEqual([])
  })

  test('a route file holds no SQL: it parses, authorises and calls its area', () => {
    const withSql = sources('src/http/routes').filter((f) => /\b(?:sql|tx)(?:<[^>`]*>)?`/.test(readFileSync(join(ROOT, f), 'utf8')))
    expect(withSql).toEqual([])
  })

  test('a route file opens no transaction: an invariant that needs one lives in its area', () => {
    const opening = sources('src/http/routes').filter((f) => /\.begin\s*\(/.test(readFileSync(join(ROOT, f), 'utf8')))
    expect(opening).toEqual([])
  })

  test('the areas (accounts, ingest, delivery) import neither the HTTP layer nor the pool\'s threads', () => {
    const strays = [...graph].flatMap(([file, imports]) =>
      AREAS.some((a) => file.startsWith(a)) ? imports.filter((i) => i.startsWith('src/http/') || i.startsWith('workers/')).map((i) => `${file} -> ${i}`) : [])
    expect(strays).toEqual([])
  })

  test('no import runs back up in delivery: a subfolder (push/, destinations/) imports from above only files that never lead back into it', () => {
    const reaches = (from: string, folder: string, seen = new Set<string>()): boolean =>
      from.startsWith(folder) || (!seen.has(from) && (seen.add(from), (graph.get(from) ?? []).some((i) => reaches(i, folder, seen))))
    const folderOf = (f: string) => /^(src\/delivery\/[^/]+\/)/.exec(f)?.[1]
    const upward = [...graph].flatMap(([file, imports]) => {
      const folder = folderOf(file)
      if (!folder) return []
      return imports.filter((i) => i.startsWith('src/delivery/') && !i.startsWith(folder) && reaches(i, folder)).map((i) => `${file} -> ${i}`)
    })
    expect(upward).toEqual([])
  })

  test('a route file announces nothing: the operation that makes a change announces it (src/core/changes.ts)', () => {
    const announcing = sources('src/http/routes').filter((f) => /\b(?:announce|changed)\s*\(|\.announce\s*\(/.test(readFileSync(join(ROOT, f), 'utf8')))
    expect(announcing).toEqual([])
  })

  test('the words of every HeraldError are in the catalogue (src/core/errors.ts), none written elsewhere', () => {
    const CATALOGUE = ['src/core/errors.ts', 'src/core/problems.ts']
    const wording = [...sources('src'), ...sources('workers')]
      .filter((f) => !CATALOGUE.includes(f))
      .flatMap((f) => [...readFileSync(join(ROOT, f), 'utf8').matchAll(/new HeraldError\(/g)].map(() => f))
    expect(wording).toEqual([])
  })

  test('a route file imports no SQL: neither the database nor postgres.js; it is given its area\'s operations and reads', () => {
    const reaching = sources('src/http/routes').flatMap((f) => [
      ...(graph.get(f) ?? []).filter((i) => i === 'src/core/db.ts').map((i) => `${f} -> ${i}`),
      ...(/from\s*['"]postgres['"]/.test(readFileSync(join(ROOT, f), 'utf8')) ? [`${f} -> postgres`] : []),
    ])
    expect(reaching).toEqual([])
  })
})
