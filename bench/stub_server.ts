// Herald's own HTTP path with the database stubbed out: the real app
// (src/http/app.ts: routing, hooks, metrics, the API-key cache, body limits,
// validation, normalisation, the response), but a batcher that accepts every
// event at once and an API-key look-up that knows every key. Measured
// against Elysia with a TypeBox body (bench/elysia_server.ts), it shows what
// Herald's HTTP side costs before the database.
//
//   PORT=0 bun bench/stub_server.ts   → prints {"port":<n>} once listening
import { createChanges } from '../src/core/changes'
import { createInProcessBus } from '../src/delivery/bus'
import { randomBytes } from 'node:crypto'
import { createApp } from '../src/http/app'
import { apiKeyCacheOptions, createApiKeyAuth, type Principal } from '../src/ingest/auth'
import { loadConfig } from '../src/core/config'
import { sendConfigFrom } from '../src/delivery/send_config'
import type { Sql } from '../src/core/db'
import type { Batcher } from '../src/ingest/batcher'
import { resultBody } from '../src/ingest/submission'
import { createLogger } from '../src/core/log'
import { createMailer } from '../src/accounts/mailer'
import { createSecretBox } from '../src/core/secrets'
import { SERVER_MAX_BODY_BYTES } from '../src/http/body'

const config = loadConfig({ PORT: process.env.PORT ?? '0', HOST: '127.0.0.1', HERALD_DATA_DIR: 'memory://', LOG_LEVEL: 'warn' })
const log = createLogger(config.LOG_LEVEL)
const principal: Principal = { keyId: 1, workspaceId: 1, workspace: 'bench', defaultChannel: 'general' }
// The one query the API-key cache sends on a miss; any other use of the database is a bug of this stub.
const sql = ((strings: TemplateStringsArray) =>
  strings.join('').includes('FROM api_keys') ? Promise.resolve([principal]) : Promise.resolve([])) as unknown as Sql
const batcher: Batcher = {
  submit: async (s) => ({ kind: 'accepted', body: resultBody(s, 1_000_000), rate: { limit: 200, remaining: 199, reset: 1 } }),
  forgetChannels: () => {},
  drain: async () => {},
}
const app = createApp({
  sql, config, log, batcher,
  auth: createApiKeyAuth(sql, apiKeyCacheOptions(config, () => true)),
  state: { draining: false },
  secrets: createSecretBox(randomBytes(32)),
  changes: createChanges(),
  bus: createInProcessBus(),
  mailer: createMailer(config, log),
  send: sendConfigFrom(config),
})
const server = Bun.serve({ port: config.PORT, hostname: config.HOST, development: false, maxRequestBodySize: SERVER_MAX_BODY_BYTES, idleTimeout: 10, fetch: (req) => app.handle(req) })
console.log(JSON.stringify({ port: server.port }))
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => (server.stop(true), process.exit(0)))
