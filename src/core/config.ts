// The environment is read once, at boot, against this schema. A wrong value
// stops the process with the name of the key at fault. Every key here is listed
// in the README's configuration table.
import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

const Int = (def: number, min: number, max: number, description: string) =>
  Type.Integer({ default: def, minimum: min, maximum: max, description })

export const ConfigSchema = Type.Object({
  PORT: Int(8080, 0, 65535, 'HTTP port of the API.'),
  HOST: Type.String({ default: '0.0.0.0', description: 'Address the API listens on.' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', description: 'PostgreSQL URL. Unset: embedded PGlite in HERALD_DATA_DIR.' })),
  // postgres.js opens connections lazily; 10 keeps a few batches in flight
  // without crowding PostgreSQL's default max_connections of 100 when scaled out.
  DATABASE_POOL_MAX: Int(10, 1, 200, 'Connections per process to PostgreSQL.'),
  HERALD_DATA_DIR: Type.String({ default: './.herald', description: 'Directory of the embedded database.' }),
  HERALD_ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 16, description: 'Bearer token of the operator API. Unset: the operator API is off.' })),
  // Unset by default: Prometheus scrapes over the internal network, and most
  // setups keep /metrics off the public ingress rather than share a token.
  HERALD_METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, description: 'Bearer token /metrics requires. Unset: /metrics is open (keep it on the internal network).' })),
  // 9464 is the port OpenTelemetry's Prometheus exporter uses by convention,
  // clear of the API's 8080; 0 picks a free port (the tests).
  METRICS_PORT: Int(9464, 0, 65535, 'Port of the /metrics and /healthz server of `herald worker` (the API serves /metrics on PORT).'),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), { default: 'info', description: 'pino log level.' }),
  // A lane sends what it has gathered as soon as it may (window 0): under
  // load, events gather while the batch ahead commits, so batches fill by
  // themselves, and an idle Herald answers in one commit. A window only delays
  // them: 1 ms cut the rate by a third (bench/ingest.ts).
  BATCH_MAX_EVENTS: Int(1000, 1, 10000, 'Most events written in one statement.'),
  BATCH_WINDOW_MS: Int(0, 0, 1000, 'How long an idle lane waits for more events before it writes them.'),
  // Each lane owns a share of the workspaces and a connection of its own. On
  // 2 cores one lane beat two and four (more, smaller batches, each with its
  // fixed cost); more lanes help where PostgreSQL has cores to spare.
  BATCH_CONCURRENCY: Int(1, 1, 64, 'Lanes of the ingest path per process: each owns a disjoint set of workspaces and a PostgreSQL connection.'),
  // Two batches in flight on a lane's connection: PostgreSQL starts the
  // second as soon as the first has committed, instead of waiting a round
  // trip for it. 2 beat 1 by a fifth and 3 (bench/ingest.ts).
  BATCH_PIPELINE: Int(2, 1, 8, 'Batches a lane sends ahead on its connection, one after the other; the next goes once it is as full as the one in flight.'),
  HERALD_DEFAULT_MONTHLY_QUOTA: Int(100000, 0, 2 ** 31 - 1, 'Monthly quota of a new workspace.'),
  HERALD_DEFAULT_RATE_PER_SECOND: Type.Number({ default: 100, exclusiveMinimum: 0, description: 'Rate limit of a new workspace, events per second.' }),
  HERALD_DEFAULT_RATE_BURST: Int(200, 1, 1_000_000, 'Token-bucket burst of a new workspace.'),
  // A revoked key must stop working everywhere within 5 s, so the cache may
  // not hold an entry longer than that.
  API_KEY_CACHE_TTL_MS: Int(2000, 0, 5000, 'How long a verified API key is trusted without a database look-up.'),
  HERALD_RETENTION_MONTHS: Int(0, 0, 1200, 'Months of events kept; older monthly partitions are dropped. 0 keeps everything.'),
  SHUTDOWN_TIMEOUT_MS: Int(10000, 0, 600000, 'How long SIGTERM waits for in-flight requests and batches.'),
  NATS_URL: Type.Optional(Type.String({ pattern: '^(nats|tls|wss?)://', description: 'NATS server with JetStream, e.g. nats://127.0.0.1:4222. Unset: the outbox is dispatched in-process.' })),
  NATS_STREAM: Type.String({ default: 'HERALD_EVENTS', pattern: '^[A-Za-z0-9_-]+$', description: 'JetStream stream of committed events (subjects herald.events.<workspace id>.<channel>).' }),
  // A 32-byte key, base64. Unset: a key is generated once into
  // HERALD_DATA_DIR/secret.key; every instance sharing a database must then
  // share that file, so set this when scaling out.
  HERALD_SECRET_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$', description: 'AES-256 key (32 bytes, base64) encrypting router secrets at rest. Unset: generated into HERALD_DATA_DIR/secret.key.' })),
  HERALD_OUTBOUND_ALLOW: Type.String({ default: '', description: 'Comma-separated CIDRs deliveries may reach despite the SSRF rules, e.g. 10.0.0.0/8 for on-premise receivers.' }),
  // Svix's schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
  HERALD_RETRY_SCHEDULE: Type.String({ default: '0s,5s,5m,30m,2h,5h,10h,10h', pattern: '^\\s*[0-9]+(ms|s|m|h)(\\s*,\\s*[0-9]+(ms|s|m|h))*\\s*$', description: 'Delay before each attempt of a delivery; its length is the number of attempts.' }),
  DELIVERY_TIMEOUT_MS: Int(10000, 100, 120000, 'Time limit of one delivery attempt, connect to last byte.'),
  // Slow receivers must not stall the rest: this many deliveries run at once
  // per worker process; a batch of events waits while twice as many are queued.
  WORKER_CONCURRENCY: Int(256, 1, 10000, 'Deliveries in flight per worker process.'),
  WORKER_THREADS: Int(2, 1, 64, 'Threads of the piscina pool that renders and sends deliveries.'),
  // One receiver that hangs may hold this many of a worker's sends, no more;
  // the rest of its deliveries wait a little, then are retried later.
  DESTINATION_CONCURRENCY: Int(32, 1, 10000, 'Sends under way to one router\'s destination per worker process.'),
  CIRCUIT_FAILURES: Int(5, 1, 1000, 'Consecutive failures (no answer, time-out, 429, 5xx) of a destination that open its circuit: its deliveries are then retried later without being sent.'),
  CIRCUIT_COOLDOWN_MS: Int(30000, 100, 3600000, 'How long an open circuit stays open before one trial send; doubled after each failed trial, up to 10 minutes.'),
  // Longer than any attempt can take (DELIVERY_TIMEOUT_MS) plus the queue in
  // front of it; a worker that dies holds its deliveries this long at most.
  DELIVERY_LEASE_MS: Int(60000, 1000, 3600000, 'A delivery taken by a worker that then died is retried by another after this.'),
  JETSTREAM_ACK_WAIT_MS: Int(30000, 1000, 3600000, 'JetStream redelivers an event whose worker has not acknowledged it after this.'),
  // An event stays unacknowledged until its first attempts are made and
  // recorded; at 5,000 events/s and 100 ms each, 500 are pending. The bound
  // keeps a stalled worker from holding the whole stream.
  JETSTREAM_MAX_ACK_PENDING: Int(4096, 1, 1000000, 'Events handed to workers and not yet acknowledged, across all workers (the consumer\'s max_ack_pending).'),
  // Rows committed by this process are relayed at once; this interval only
  // matters for rows of other processes and after a failure.
  OUTBOX_RELAY_INTERVAL_MS: Int(250, 10, 60000, 'How often the outbox relay looks for events committed by other processes.'),
  TELEGRAM_API_URL: Type.String({ default: 'https://api.telegram.org', pattern: '^https?://', description: 'Base URL of the Telegram Bot API.' }),
  TWILIO_API_URL: Type.String({ default: 'https://api.twilio.com', pattern: '^https?://', description: 'Base URL of the Twilio REST API (SMS).' }),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://', description: 'SMTP server of account e-mails (unset: logged instead) and default server of e-mail routers, e.g. smtps://user:pass@smtp.example.com:465.' })),
  SMTP_FROM: Type.String({ default: 'Herald <herald@localhost>', description: 'Default sender of e-mail routers.' }),
  // APNs token auth: all four of APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID and
  // APNS_TOPIC, or none (then iOS devices are not pushed).
  APNS_KEY_FILE: Type.Optional(Type.String({ minLength: 1, description: 'Path of the APNs auth key (.p8) for token-based auth.' })),
  APNS_KEY_ID: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{10}$', description: 'Key ID of the .p8 key (10 characters).' })),
  APNS_TEAM_ID: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{10}$', description: 'Apple Developer Team ID (10 characters).' })),
  APNS_TOPIC: Type.Optional(Type.String({ minLength: 1, description: 'Default apns-topic: the iOS app\'s bundle id. A device may name its own.' })),
  APNS_ORIGIN: Type.Optional(Type.String({ pattern: '^https://', description: 'Replaces both APNs hosts (api.push.apple.com, api.sandbox.push.apple.com), e.g. https://127.0.0.1:8443 for a local stand-in.' })),
  FCM_SERVICE_ACCOUNT_FILE: Type.Optional(Type.String({ minLength: 1, description: 'Path of the Firebase service-account JSON. Unset: Android devices are not pushed.' })),
  FCM_ORIGIN: Type.String({ default: 'https://fcm.googleapis.com', pattern: '^https?://', description: 'Base URL of the FCM HTTP v1 API.' }),
  GOOGLE_OAUTH_TOKEN_URL: Type.String({ default: 'https://oauth2.googleapis.com/token', pattern: '^https?://', description: 'OAuth2 token endpoint for the FCM service account.' }),
  // Links in e-mails (password resets, invitations) and the dashboard's deep
  // links are built on this; behind a proxy, the address people use.
  HERALD_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*)?$', description: 'Public base URL of Herald, for links in e-mails. Unset: http://localhost:<PORT>.' })),
  HERALD_SIGNUP: Type.Union([Type.Literal('open'), Type.Literal('invite')], { default: 'open', description: 'open: anyone can sign up and gets a workspace; invite: only people with an invitation can sign up.' }),
  // Only behind a proxy that sets them: otherwise a client could pick its own
  // address (sign-in throttling) and pretend to be on https.
  HERALD_TRUST_PROXY: Type.Boolean({ default: false, description: 'Take the client address from X-Forwarded-For and the scheme from X-Forwarded-Proto.' }),
  HERALD_DEMO_WORKSPACE: Type.Boolean({ default: true, description: 'Embedded mode only: create a demo workspace on first start and print its API key.' }),
})
export type Config = Static<typeof ConfigSchema>

export class ConfigError extends Error {
  code = 'CONFIG_INVALID'
}

/** Parses `env` against the schema; throws ConfigError naming the first bad key. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const value = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, raw))
  const first = Value.Errors(ConfigSchema, value).First()
  if (first) {
    const key = first.path.split('/')[1] ?? '(config)'
    const shown = key.includes('TOKEN') || key.includes('URL') ? '(hidden)' : JSON.stringify(raw[key])
    throw new ConfigError(`invalid configuration: ${key}=${shown}: ${first.message}`)
  }
  return value as Config
}
