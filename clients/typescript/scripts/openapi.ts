// Regenerates the client's types from the server's OpenAPI document: starts
// Herald in memory, fetches /openapi.json, writes it to openapi.json, and
// writes src/openapi.ts with openapi-typescript. Run it with the repo's bun
// (`npm run openapi` in clients/typescript) after changing a route's schema;
// test/client/types.test.ts fails until the committed files match.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { loadConfig } from '../../../src/core/config'
import { createLogger } from '../../../src/core/log'
import { startHerald } from '../../../src/server'

export const CLIENT_DIR = join(import.meta.dir, '..')
export const DOCUMENT_PATH = join(CLIENT_DIR, 'openapi.json')
export const TYPES_PATH = join(CLIENT_DIR, 'src', 'openapi.ts')

const HEADER = `// Generated from Herald's /openapi.json by scripts/openapi.ts (openapi-typescript).
// Do not edit: run \`npm run openapi\` in clients/typescript instead.
`

/** The OpenAPI document of the server in this tree, as a Herald in memory serves it. */
export async function openapiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', HERALD_DATA_DIR: 'memory://', HERALD_DEMO_WORKSPACE: 'false', LOG_LEVEL: 'silent' })
  const herald = await startHerald(config, createLogger(config.LOG_LEVEL), 'all', { banner: false })
  try {
    const res = await fetch(`${herald.url}/openapi.json`)
    if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`)
    return (await res.json()) as Record<string, unknown>
  } finally {
    await herald.stop()
  }
}

/** openapi.json as written to disk: stable key order as served, two-space indent. */
export const documentText = (doc: Record<string, unknown>) => JSON.stringify(doc, null, 2) + '\n'

/**
 * The TypeScript of `doc`. openapi-typescript lives in the client's own
 * node_modules (it needs typescript 5, the repo runs 7): without them this
 * throws, naming the command that installs them.
 */
export async function typesText(doc: Record<string, unknown>): Promise<string> {
  // Typed here, not with typeof import(…): the root's type-check must not need the client's node_modules.
  let mod: { default(doc: unknown, options: { alphabetize: boolean }): Promise<unknown>; astToString(ast: unknown): string }
  try {
    mod = await import(join(CLIENT_DIR, 'node_modules', 'openapi-typescript', 'dist', 'index.mjs'))
  } catch (err) {
    throw new Error(`openapi-typescript is not installed in clients/typescript: run \`npm ci --prefix clients/typescript\` (${(err as Error).message})`)
  }
  const ast = await mod.default(doc, { alphabetize: false })
  return HEADER + mod.astToString(ast)
}

// `--out DIR` writes DIR/openapi.json and DIR/openapi.ts instead (the test
// compares them with the committed ones); `--document-only` skips the types.
if (import.meta.main) {
  const out = process.argv.indexOf('--out')
  const [docPath, typesPath] = out > 0 ? [join(process.argv[out + 1]!, 'openapi.json'), join(process.argv[out + 1]!, 'openapi.ts')] : [DOCUMENT_PATH, TYPES_PATH]
  const doc = await openapiDocument()
  await writeFile(docPath, documentText(doc))
  if (process.argv.includes('--document-only')) {
    console.log(`wrote ${docPath}`)
  } else {
    await writeFile(typesPath, await typesText(doc))
    console.log(`wrote ${docPath} and ${typesPath}`)
  }
}
