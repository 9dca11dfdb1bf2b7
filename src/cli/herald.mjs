#!/usr/bin/env node
// The `herald` command as npm installs it (package.json "bin"): `npx herald`
// in a clone, `npm install -g` of the package, `npm link`. Herald runs on Bun,
// and Bun is one of its dependencies (the `bun` package), so this launcher,
// which any Node runs, starts main.ts on that Bun: an installed herald needs
// no Bun of its own on the PATH. Run by Bun already, it starts that Bun.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const main = join(dirname(fileURLToPath(import.meta.url)), 'main.ts')

/** The Bun running this, else the `bun` package's beside Herald, else a `bun` on the PATH. */
function bunBinary() {
  if (process.versions.bun) return process.execPath
  try {
    return join(dirname(createRequire(import.meta.url).resolve('bun/package.json')), 'bin', 'bun.exe')
  } catch {
    return 'bun'
  }
}

const bun = bunBinary()
const child = spawn(bun, [main, ...process.argv.slice(2)], { stdio: 'inherit' })
// A signal sent to this process (a service manager's SIGTERM) is the
// server's to handle; Ctrl-C reaches both, and the server stops once.
const signals = ['SIGINT', 'SIGTERM', 'SIGHUP']
const forward = (signal) => child.kill(signal)
for (const signal of signals) process.on(signal, forward)
child.on('error', (err) => {
  console.error(`error: herald cannot start Bun (${bun}): ${err.message}\nInstall Herald with its dependencies (npm ci in a clone, npm install -g for the package), or put Bun 1.4.5 on the PATH (https://bun.sh).`)
  process.exit(1)
})
child.on('exit', (code, signal) => {
  if (!signal) process.exit(code ?? 1)
  // Ended by a signal: end the same way, as a shell expects.
  for (const s of signals) process.off(s, forward)
  process.kill(process.pid, signal)
})
