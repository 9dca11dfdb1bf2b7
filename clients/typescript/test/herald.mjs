// Starts a real Herald for the package's Node tests: the repo's bun runs
// `herald start` on a fresh embedded database in a temporary directory, on a
// free port; the port comes from its "Herald is listening" log line and the
// demo workspace's API key from its start banner.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')

export async function startHerald() {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-client-'))
  // Only what this test chooses: an inherited DATABASE_URL would send the server to a shared database.
  const { DATABASE_URL: _d, NATS_URL: _n, HERALD_URL: _u, PORT: _p, ...env } = process.env
  const child = spawn(join(REPO, 'node_modules', '.bin', 'bun'), [join(REPO, 'src', 'cli', 'main.ts'), 'start'], {
    cwd: dataDir,
    env: { ...env, PORT: '0', HOST: '127.0.0.1', HERALD_DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = []
  const started = new Promise((resolve, reject) => {
    let port
    let apiKey
    const timer = setTimeout(() => reject(new Error(`Herald did not start:\n${output.join('\n')}`)), 30_000)
    const onLine = (line) => {
      output.push(line)
      apiKey ??= /^ {4}(hrld_[A-Za-z0-9]+)\s*$/.exec(line)?.[1]
      if (line.includes('"Herald is listening"')) port = JSON.parse(line).port
      if (port && apiKey) {
        clearTimeout(timer)
        resolve({ port, apiKey })
      }
    }
    for (const stream of [child.stdout, child.stderr]) {
      let rest = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk) => {
        const lines = (rest + chunk).split('\n')
        rest = lines.pop()
        lines.forEach(onLine)
      })
    }
    child.on('exit', (code) => reject(new Error(`Herald exited with ${code}:\n${output.join('\n')}`)))
  })
  const { port, apiKey } = await started
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
