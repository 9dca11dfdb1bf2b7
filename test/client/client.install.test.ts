// The README's install line, as a newcomer runs it: `npm install <path to
// this repo>/clients/typescript` into an app of their own, then an import
// under Node. The folder is linked, so the app runs the committed dist/: a
// copy of the repo's tracked files only (no node_modules, no local build)
// must be enough, and dist/ must be what tsc makes of src/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { useTestHerald } from '../harness'

const ROOT = join(import.meta.dir, '..', '..')
const CLIENT = join(ROOT, 'clients', 'typescript')
const TSC = join(CLIENT, 'node_modules', '.bin', 'tsc')

async function run(cmd: string[], cwd: string, env: Record<string, string | undefined> = process.env) {
  const proc = Bun.spawn(cmd, { cwd, env, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

describe('the client installed from a checkout, as the README says', () => {
  const h = useTestHerald('embedded')
  let work = ''
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'herald-install-'))
  })
  afterAll(() => (work ? rm(work, { recursive: true, force: true }) : undefined))

  test('dist/ is what `npm run build` makes of src/', async () => {
    const out = join(work, 'built')
    const built = await run([TSC, '-p', 'tsconfig.json', '--outDir', out], CLIENT)
    expect(built.code === 0 ? 'built' : built.stdout + built.stderr).toBe('built')
    const names = (await readdir(out)).toSorted()
    expect((await readdir(join(CLIENT, 'dist'))).toSorted()).toEqual(names)
    for (const name of names) {
      const same = (await readFile(join(out, name), 'utf8')) === (await readFile(join(CLIENT, 'dist', name), 'utf8'))
      expect(same ? name : `${name} is stale: run npm run build in clients/typescript and commit dist/`).toBe(name)
    }
  }, 60_000)

  test('npm install <repo>/clients/typescript, then import and send under Node', async () => {
    // The repo as cloned: its tracked files, nothing built or installed.
    const tracked = (await run(['git', 'ls-files', '-z', 'clients/typescript'], ROOT)).stdout.split('\0').filter(Boolean)
    expect(tracked).toContain('clients/typescript/dist/index.js')
    const repo = join(work, 'herald')
    for (const file of tracked) {
      await mkdir(dirname(join(repo, file)), { recursive: true })
      await cp(join(ROOT, file), join(repo, file))
    }
    const app = join(work, 'my-app')
    await mkdir(app)
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }))
    const install = await run(['npm', 'install', join(repo, 'clients', 'typescript'), '--offline', '--no-audit', '--no-fund'], app)
    expect(install.code === 0 ? 'installed' : install.stderr).toBe('installed')

    const { apiKey } = await h.workspace()
    await writeFile(
      join(app, 'send.mjs'),
      `import { Herald } from 'herald-client'
const herald = new Herald({ apiKey: process.env.HERALD_KEY, url: process.env.HERALD_URL })
const answer = await herald.send({ message: 'Installed from the checkout', event: 'install.check' })
console.log(JSON.stringify(answer))
await herald.close()
`,
    )
    const sent = await run(['node', 'send.mjs'], app, { PATH: process.env.PATH, HERALD_KEY: apiKey, HERALD_URL: h.url })
    expect(sent.code === 0 ? 'ran' : sent.stderr).toBe('ran')
    const answer = JSON.parse(sent.stdout) as { eventId: string; channel: string }
    expect(answer.channel).toBe('general')
    const stored = await fetch(`${h.url}/events/${answer.eventId}`, { headers: { authorization: `Bearer ${apiKey}` } })
    expect(((await stored.json()) as { message: string }).message).toBe('Installed from the checkout')

    // Its types resolve for a TypeScript app too (Node's own resolution).
    await writeFile(join(app, 'check.ts'), `import { Herald, type Accepted } from 'herald-client'\nconst a: Promise<Accepted> = new Herald({ apiKey: 'k', url: 'http://localhost:8080' }).send({ message: 'typed' })\nvoid a\n`)
    const compilerOptions = { noEmit: true, strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] }
    await writeFile(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.ts'] }))
    const typed = await run([TSC, '-p', 'tsconfig.json'], app)
    expect(typed.code === 0 ? 'typed' : typed.stdout + typed.stderr).toBe('typed')
  }, 120_000)
})
