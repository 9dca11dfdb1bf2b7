// The deployment files, linted (no Docker engine runs here): compose.yaml is
// valid YAML with the services the README promises, runs the CLI commands the
// tests run, sets every configuration key Herald knows and no other, and the
// NATS it runs fsyncs before acknowledging; the Dockerfile is multi-stage, on
// the official Bun image, non-root, with the CLI as its entry point.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigSchema } from '../../src/core/config'

const ROOT = join(import.meta.dir, '..', '..')
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8')
type Service = { image?: string; build?: string; command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }> | string[]; volumes?: string[]; ports?: string[]; healthcheck?: unknown }
const compose = Bun.YAML.parse(read('compose.yaml')) as { services: Record<string, Service>; volumes: Record<string, unknown>; 'x-herald-env': Record<string, string> }
const KEYS = Object.keys(ConfigSchema.properties)

describe('compose.yaml', () => {
  test('PostgreSQL, NATS, a migration, two API instances behind nginx, two workers', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api-1', 'api-2', 'migrate', 'nats', 'nginx', 'postgres', 'worker-1', 'worker-2'])
    const cmd = (s: string) => compose.services[s]!.command
    expect([cmd('migrate'), cmd('api-1'), cmd('api-2'), cmd('worker-1'), cmd('worker-2')]).toEqual([['migrate'], ['serve'], ['serve'], ['worker'], ['worker']])
    for (const s of ['api-1', 'api-2', 'worker-1', 'worker-2']) {
      expect(compose.services[s]!.depends_on).toEqual({ migrate: { condition: 'service_completed_successfully' }, nats: { condition: 'service_healthy' } })
      expect(compose.services[s]!.build).toBe('.')
    }
    expect(compose.services.migrate!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } })
    expect(compose.services.nginx!.ports).toEqual(['8080:8080'])
  })

  test('the commands are the CLI commands the tests run, through the image entry point', () => {
    expect(read('Dockerfile')).toContain('ENTRYPOINT ["bun", "src/cli/main.ts"]')
    expect(read('test/processes.ts')).toContain("Bun.spawn([process.execPath, 'src/cli/main.ts', cmd]")
    const cli = read('src/cli/main.ts')
    for (const c of ['serve', 'worker', 'migrate', 'start']) expect(cli).toContain(`'${c}'`)
  })

  test('every configuration key has a setting, and nothing else is set', () => {
    const env = compose['x-herald-env']
    expect(Object.keys(env).sort()).toEqual([...KEYS].sort())
    for (const s of ['migrate', 'api-1', 'api-2', 'worker-1', 'worker-2']) expect(compose.services[s]!.environment).toEqual(env)
  })

  test('the settings that matter for a scaled-out install', () => {
    const env = compose['x-herald-env']
    expect(env.DATABASE_URL).toStartWith('postgres://herald:')
    expect(env.NATS_URL).toBe('nats://nats:4222')
    expect(env.HERALD_SECRET_KEY).toMatch(/^\$\{HERALD_SECRET_KEY:\?/) // required: shared by every instance
    expect(env.HERALD_TRUST_PROXY).toBe('true')
    expect(Number(env.DATABASE_POOL_MAX) * 5).toBeLessThanOrEqual(100)
  })

  test('state lives on named volumes; NATS fsyncs every write before acknowledging it', () => {
    expect(compose.services.postgres!.volumes).toEqual(['pgdata:/var/lib/postgresql/data'])
    expect(compose.services.nats!.volumes).toContain('natsdata:/data')
    expect(Object.keys(compose.volumes).sort()).toEqual(['natsdata', 'pgdata'])
    const nats = read('deploy/nats.conf')
    expect(nats).toMatch(/^\s*store_dir: \/data$/m)
    expect(nats).toMatch(/^\s*sync_interval: always$/m)
    expect(compose.services.nats!.healthcheck).toBeDefined()
    expect(compose.services.postgres!.healthcheck).toBeDefined()
  })

  test('nginx sends to both API instances and keeps the live feed unbuffered', () => {
    const nginx = read('deploy/nginx.conf')
    expect(nginx).toContain('server api-1:8080')
    expect(nginx).toContain('server api-2:8080')
    expect(nginx).toMatch(/location \/v1\/feed\/stream \{[^}]*proxy_buffering off;/)
  })
})

describe('Dockerfile', () => {
  const docker = read('Dockerfile')
  test('multi-stage on the official Bun image, production dependencies only, non-root, data on a volume', () => {
    expect(docker.match(/^FROM oven\/bun:\$\{BUN_VERSION\}-slim/gm)?.length).toBe(2)
    expect(docker).toContain('bun install --production')
    expect(docker).toMatch(/^USER bun$/m)
    expect(docker).toMatch(/^VOLUME \/data$/m)
    expect(docker).toMatch(/^CMD \["start"\]$/m)
    expect(docker).toContain(`ARG BUN_VERSION=${JSON.parse(read('package.json')).engines.bun}`)
    for (const dir of ['src', 'workers', 'sql']) expect(docker).toContain(`COPY ${dir} ./${dir}`)
  })
})
