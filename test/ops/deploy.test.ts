// The deployment files, linted (no Docker engine runs here): compose.yaml is
// valid YAML with the services the README promises, runs the CLI commands the
// tests run, sets every configuration key Herald knows and no other, and the
// NATS it runs fsyncs before acknowledging, nginx accepts its configuration
// (`nginx -t`); the Dockerfile is multi-stage, on
// the official Bun image, non-root, with the CLI as its entry point.
import { describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { ConfigSchema } from '../../src/core/config'

const ROOT = join(import.meta.dir, '..', '..')
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8')
type Service = { image?: string; build?: string; command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }> | string[]; volumes?: string[]; ports?: string[]; healthcheck?: unknown }
const compose = Bun.YAML.parse(read('compose.yaml')) as { services: Record<string, Service>; volumes: Record<string, unknown>; 'x-herald-env': Record<string, string> }
const KEYS = Object.keys(ConfigSchema.properties)

describe('compose.yaml', () => {
  test('PostgreSQL, a three-node NATS cluster, a migration, two API instances behind nginx, two workers', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api-1', 'api-2', 'migrate', 'nats-1', 'nats-2', 'nats-3', 'nginx', 'postgres', 'worker-1', 'worker-2'])
    const cmd = (s: string) => compose.services[s]!.command
    expect([cmd('migrate'), cmd('api-1'), cmd('api-2'), cmd('worker-1'), cmd('worker-2')]).toEqual([['migrate'], ['serve'], ['serve'], ['worker'], ['worker']])
    for (const s of ['api-1', 'api-2', 'worker-1', 'worker-2']) {
      // Not NATS: the API starts without it, a worker waits for it.
      expect(compose.services[s]!.depends_on).toEqual({ migrate: { condition: 'service_completed_successfully' } })
      expect(compose.services[s]!.build).toBe('.')
    }
    expect(compose.services.migrate!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } })
    expect(compose.services.nginx!.ports).toEqual(['8080:8080'])
  })

  test('the commands are the CLI commands the tests run, through the image entry point', () => {
    expect(read('Dockerfile')).toContain('ENTRYPOINT ["bun", "src/cli/main.ts"]')
    expect(read('test/processes.ts')).toContain("Bun.spawn([process.execPath, 'src/cli/main.ts', command]")
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
    expect(env.NATS_URL).toBe('nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222')
    expect(env.NATS_STREAM_REPLICAS).toBe('3')
    expect(env.HERALD_SECRET_KEY).toMatch(/^\$\{HERALD_SECRET_KEY:\?/) // required: shared by every instance
    expect(env.WEB_PUSH_VAPID_PUBLIC_KEY).toMatch(/^\$\{WEB_PUSH_VAPID_PUBLIC_KEY:\?/) // likewise: browsers subscribed with it
    expect(env.WEB_PUSH_VAPID_PRIVATE_KEY).toMatch(/^\$\{WEB_PUSH_VAPID_PRIVATE_KEY:\?/)
    expect(env.HERALD_TRUST_PROXY).toBe('true')
    expect(Number(env.DATABASE_POOL_MAX) * 5).toBeLessThanOrEqual(100)
  })

  test('state lives on named volumes; NATS fsyncs every write before acknowledging it', () => {
    expect(compose.services.postgres!.volumes).toEqual(['pgdata:/var/lib/postgresql/data'])
    for (const i of [1, 2, 3]) {
      expect(compose.services[`nats-${i}`]!.volumes).toContain(`natsdata-${i}:/data`)
      expect(compose.services[`nats-${i}`]!.healthcheck).toBeDefined()
    }
    expect(Object.keys(compose.volumes).sort()).toEqual(['natsdata-1', 'natsdata-2', 'natsdata-3', 'pgdata'])
    const nats = read('deploy/nats.conf')
    expect(nats).toMatch(/^\s*store_dir: \/data$/m)
    expect(nats).toMatch(/^\s*sync_interval: always$/m)
    expect(nats).toMatch(/^\s*server_name: \$NATS_SERVER_NAME$/m)
    for (const i of [1, 2, 3]) expect(nats).toContain(`nats-route://nats-${i}:6222`)
    expect(compose.services.postgres!.healthcheck).toBeDefined()
  })

  test('nginx sends to both API instances and keeps the live feed unbuffered', () => {
    const nginx = read('deploy/nginx.conf')
    expect(nginx).toContain('server api-1:8080')
    expect(nginx).toContain('server api-2:8080')
    expect(nginx).toMatch(/location \/v1\/feed\/stream \{[^}]*proxy_buffering off;/)
    // The whole configuration, not a fragment for conf.d.
    expect(compose.services.nginx!.volumes).toEqual(['./deploy/nginx.conf:/etc/nginx/nginx.conf:ro'])
  })

  // nginx resolves upstream names when it loads its configuration: compose's
  // service names resolve only inside compose, so the copy checked here reads
  // 127.0.0.1 where the file says api-1 and api-2, and nothing else changes.
  const nginx = Bun.which('nginx') ?? (existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : null)
  if (process.env.CI === 'true' && !nginx) throw new Error('CI=true but nginx is missing: .ci/run installs it (apt-get install -y nginx)')
  if (!nginx) console.warn('deploy.test.ts: nginx -t is skipped, nginx is missing (apt-get install --no-install-recommends nginx)')
  ;(nginx ? test : test.skip)('deploy/nginx.conf is a complete configuration: nginx -t -c accepts it', () => {
    const text = read('deploy/nginx.conf')
    const copy = text.replace(/\bserver api-(\d):8080\b/g, 'server 127.0.0.1:808$1')
    expect(copy.split('\n').filter((line, i) => line !== text.split('\n')[i]).length).toBe(2)
    const file = join(mkdtempSync(join(tmpdir(), 'herald-nginx-')), 'nginx.conf')
    writeFileSync(file, copy)
    const p = Bun.spawnSync([nginx!, '-t', '-e', 'stderr', '-c', file], { stdout: 'pipe', stderr: 'pipe' })
    const output = `${p.stdout.toString()}${p.stderr.toString()}`
    expect(p.exitCode === 0 ? 'ok' : output).toBe('ok')
    expect(output).toContain('test is successful')
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
    expect(docker).toContain('HEALTHCHECK --interval=10s --timeout=6s CMD ["bun", "src/cli/healthcheck.ts"]')
  })

  test('every file the image runs is in it: the imports of src/ and workers/, followed, stay inside what it copies', () => {
    const copied = [...docker.matchAll(/^COPY (?!--from)(\S+) \.\/(\S+)$/gm)].map((m) => m[1]!)
    const inImage = (path: string) => copied.some((c) => path === c || path.startsWith(`${c}/`))
    const transpiler = new Bun.Transpiler({ loader: 'ts' })
    const seen = new Set<string>()
    const outside: string[] = []
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      if (!inImage(file)) outside.push(file)
      if (!/\.tsx?$/.test(file)) return // the image reads it (a README, an asset); it imports nothing
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/^#!.*/, '')
      for (const { path: spec } of transpiler.scanImports(text)) {
        if (!spec.startsWith('.')) continue
        const base = relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '')
        const found = [base, `${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(join(ROOT, p)) && statSync(join(ROOT, p)).isFile())
        if (found) visit(found)
      }
    }
    visit('src/cli/main.ts')
    for (const w of readdirSync(join(ROOT, 'workers')).filter((f) => f.endsWith('.ts'))) visit(`workers/${w}`)
    expect(seen.has('clients/typescript/src/herald.ts')).toBe(true) // herald send's client: the walk reaches it
    expect(outside).toEqual([])
  })

  // The script the HEALTHCHECK runs, against listeners on loopback as each role has them.
  test('the health check fits every role: the API on PORT, a worker on METRICS_PORT only', async () => {
    const { healthy } = await import('../../src/cli/healthcheck')
    const serve = (status: number) => Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(null, { status }) })
    const free = () => {
      const s = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
      const port = String(s.port)
      s.stop(true)
      return port
    }
    const api = serve(200)
    const sick = serve(503)
    const worker = serve(200)
    try {
      expect(await healthy({ PORT: String(api.port), METRICS_PORT: free() })).toBe(true) // start, serve
      expect(await healthy({ PORT: free(), METRICS_PORT: String(worker.port) })).toBe(true) // worker
      expect(await healthy({ PORT: String(sick.port), METRICS_PORT: String(worker.port) })).toBe(false) // an API answering 503 is not saved by another port
      expect(await healthy({ PORT: free(), METRICS_PORT: free() })).toBe(false) // nothing listens
      // Ports set in the configuration file count, under the environment's.
      const file = join(mkdtempSync(join(tmpdir(), 'herald-hc-')), 'herald.toml')
      writeFileSync(file, `PORT = ${free()}\nMETRICS_PORT = ${worker.port}\n`)
      expect(await healthy({ HERALD_CONFIG: file })).toBe(true)
      expect(await healthy({ HERALD_CONFIG: file, METRICS_PORT: free() })).toBe(false)
    } finally {
      for (const s of [api, sick, worker]) s.stop(true)
    }
  })
})
