// The container's health check, for every role of the one image: `start` and
// `serve` answer /healthz on PORT; `worker` listens on no PORT and answers
// /healthz on METRICS_PORT. So: PORT's answer decides when something listens
// there, else METRICS_PORT's. Exit 0 healthy, 1 not (Docker's convention).
//
//   bun src/cli/healthcheck.ts
import { readConfigFile } from '../core/config'

const TIMEOUT_MS = 2500

async function probe(port: string): Promise<'ok' | 'unhealthy' | 'closed'> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS) })
    return res.ok ? 'ok' : 'unhealthy'
  } catch (err) {
    return (err as { code?: string }).code === 'ConnectionRefused' || /refused/i.test(String((err as Error).message)) ? 'closed' : 'unhealthy'
  }
}

export async function healthy(env: Record<string, string | undefined> = process.env): Promise<boolean> {
  // The ports as Herald reads them: herald.toml (or HERALD_CONFIG) under the environment.
  const settings = { ...readConfigFile(env)?.values, ...env }
  const api = await probe(settings.PORT || '8080')
  if (api !== 'closed') return api === 'ok'
  return (await probe(settings.METRICS_PORT || '9464')) === 'ok'
}

if (import.meta.main) process.exit((await healthy()) ? 0 : 1)
