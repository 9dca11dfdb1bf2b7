// The client's committed types (clients/typescript/src/openapi.ts) and the
// document they came from must be what this tree's server generates: a route
// whose schema changed fails here until `npm run openapi` in clients/typescript.
// They are generated in a fresh process, as `npm run openapi` does: a server
// that already answered requests in this one can describe a schema with more
// keywords (Elysia adds `additionalProperties` to the shared objects).
import { expect, test } from 'bun:test'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { existsSync } from 'node:fs'
import { CLIENT_DIR, DOCUMENT_PATH, TYPES_PATH } from '../../clients/typescript/scripts/openapi'

const SCRIPT = join(import.meta.dir, '..', '..', 'clients', 'typescript', 'scripts', 'openapi.ts')
const REGENERATE = 'stale: run `npm run openapi` in clients/typescript and commit openapi.json and src/openapi.ts'

/** 'current', or where the committed text first differs from the generated one. */
function compare(name: string, committed: string, generated: string): string {
  if (committed === generated) return 'current'
  const [a, b] = [committed.split('\n'), generated.split('\n')]
  const i = a.findIndex((line, n) => line !== b[n])
  const at = i < 0 ? a.length : i
  return `${name} is ${REGENERATE}; line ${at + 1} is ${JSON.stringify(a[at])}, the server's ${JSON.stringify(b[at])}`
}

// openapi-typescript lives in the client's own node_modules (npm ci --prefix
// clients/typescript, as .ci/run does). Without it the document is still
// compared; the types are too under CI=true, where its absence fails.
const haveGenerator = existsSync(join(CLIENT_DIR, 'node_modules', 'openapi-typescript'))
if (!haveGenerator && process.env.CI !== 'true') console.warn('types.test.ts: src/openapi.ts not compared, clients/typescript has no node_modules (npm ci --prefix clients/typescript)')

test('the generated OpenAPI document and types match the server', async () => {
  const out = await mkdtemp(join(tmpdir(), 'herald-openapi-'))
  const types = haveGenerator || process.env.CI === 'true'
  try {
    const { DATABASE_URL: _, ...env } = process.env
    const proc = Bun.spawn([process.execPath, SCRIPT, '--out', out, ...(types ? [] : ['--document-only'])], { env, stdout: 'pipe', stderr: 'pipe' })
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited])
    expect(code === 0 ? 'generated' : stderr).toBe('generated')
    expect(compare('openapi.json', await readFile(DOCUMENT_PATH, 'utf8'), await readFile(join(out, 'openapi.json'), 'utf8'))).toBe('current')
    if (types) expect(compare('src/openapi.ts', await readFile(TYPES_PATH, 'utf8'), await readFile(join(out, 'openapi.ts'), 'utf8'))).toBe('current')
  } finally {
    await rm(out, { recursive: true, force: true })
  }
}, 60_000)
