// The settings are read once, at boot, against this schema: from the
// environment and, under it, an optional TOML file (herald.toml in the
// working directory, or HERALD_CONFIG / `--config`) with the same keys. A
// wrong value stops the process with the name of the key at fault. Every key
// here is in docs/configuration.md's table, generated from this schema.
import { closest, distance } from './spelling'
import { existsSync, readFileSync } from 'node:fs'
import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import ipaddr from 'ipaddr.js'
import { parse as parseToml, TomlError } from 'smol-toml'

const Int = (def: number, min: number, max: number, description: string) =>
  Type.Integer({ default: def, minimum: min, maximum: max, description })

export const ConfigSchema = Type.Object({
  PORT: Int(8080, 0, 65535, 'HTTP port of the API.'),
  HOST: Type.String({ default: '0.0.0.0', description: 'Address the API listens on.' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', error: 'a PostgreSQL URL, e.g. postgres://user:password@host:5432/herald', description: 'PostgreSQL URL. Unset: embedded PGlite in HERALD_DATA_DIR.' })),
  // postgres.js opens connections lazily; 10 keeps a few batches in flight
  // without crowding PostgreSQL's default max_connections of 100 when scaled out.
  DATABASE_POOL_MAX: Int(10, 1, 200, 'Connections per process to PostgreSQL.'),
  HERALD_DATA_DIR: Type.String({ default: './.herald', description: 'Directory of the embedded database and of the generated secrets; made (or narrowed to) mode 0700 at every start on either database, and the secret files in it to 0600. The embedded database runs in-process and listens on no port. One Herald at a time may use it: a second process (or `herald migrate`) on the same directory stops at once, naming the pid of the one that holds its lock (`herald.lock`, released when that process ends, even when killed).' }),
  HERALD_ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 16, error: 'at least 16 characters, e.g. from `openssl rand -hex 24`', description: 'Bearer token of the operator API (and of the CLI). Unset: on the embedded default, a token is generated into `HERALD_DATA_DIR/admin.token` (mode 0600), which the CLI on the same machine reads; with `DATABASE_URL`, the operator API is off.' })),
  // Unset by default: Prometheus scrapes over the internal network, and most
  // setups keep /metrics off the public ingress rather than share a token.
  HERALD_METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, error: 'at least 16 characters, e.g. from `openssl rand -hex 24`', description: 'Bearer token `/metrics` requires (16+ characters), on the API and on workers. Unset: `/metrics` is open; keep it on the internal network.' })),
  // 9464 is the port OpenTelemetry's Prometheus exporter uses by convention,
  // clear of the API's 8080; 0 picks a free port (the tests).
  METRICS_PORT: Int(9464, 0, 65535, 'Port of the `/metrics` and `/healthz` server of `herald worker` (the API serves `/metrics` on `PORT`). `0` picks a free port.'),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), { default: 'info', description: 'pino log level: `fatal` … `trace`, or `silent`.' }),
  // A lane sends what it has gathered as soon as it may (window 0): under
  // load, events gather while the batch ahead commits, so batches fill by
  // themselves, and an idle Herald answers in one commit. A window only delays
  // them: 1 ms cut the rate by a third (bench/ingest.ts).
  BATCH_MAX_EVENTS: Int(1000, 1, 10000, 'Most events written in one statement.'),
  BATCH_WINDOW_MS: Int(0, 0, 1000, 'How long an idle lane waits for more events before it writes them (0: at once; under load batches fill while the one ahead commits).'),
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
  // Caps on what one member or key holder can make, so that nobody exhausts
  // what the others share. 1,000 channels keep every channel list and the
  // dashboard's pages fast (each is paged) while leaving room for one channel
  // per service or team; 100 routers bound what one event can fan out to (an
  // event makes at most that many outbound requests); 10 workspaces per
  // person keep a person's monthly quota at 10 times a workspace's.
  HERALD_MAX_CHANNELS_PER_WORKSPACE: Int(1000, 1, 1_000_000, 'Most channels a workspace may have; an event that would create one more is refused (422), and so is creating one in the API (409).'),
  // 1,000 alerts ringing at once is far past what an on-call team can
  // acknowledge; the cap bounds the repeats one workspace can make every
  // retry (each pending receipt pushes every device that got its event).
  HERALD_MAX_PENDING_RECEIPTS: Int(1000, 1, 1_000_000, 'Most pending receipts (events with `ack` not yet acknowledged, cancelled or expired) a workspace may have; an event with `ack` past it is refused (429 `receipt-limit`), exactly, under the workspace\'s row lock.'),
  // 3 h, the contract's maximum: an alert nobody acknowledged in 3 hours is
  // better re-sent by its sender than rung for longer.
  // 30 days: the contract's default; a month ahead covers billing and
  // reminder runs, and events partitions exist two months ahead.
  HERALD_MAX_SCHEDULE: Int(2_592_000, 60, 31_536_000, 'Furthest ahead, in seconds, an event may be scheduled (`deliverAt` / `delay`); later is a 400. The nearest is 10 s.'),
  // 10,000 waiting events are a month of reminders for a large customer base,
  // and bound what one workspace holds in scheduled_events.
  HERALD_MAX_SCHEDULED_EVENTS: Int(10_000, 1, 10_000_000, 'Most scheduled events (not yet gone out, not cancelled) a workspace may have; one more is refused (429 `schedule-limit`), exactly, under the workspace\'s row lock.'),
  HERALD_MAX_ACK_EXPIRE: Int(10800, 10800, 2_419_200, 'Longest `ack.expire` (and escalation `after`) an event may ask for, in seconds; a longer one is a 400. It only raises the 3 h of the API\'s contract.'),
  HERALD_MAX_ROUTERS_PER_WORKSPACE: Int(100, 1, 100_000, 'Most routers a workspace may have, so that one event fans out to at most this many destinations; creating one more is a 409.'),
  // 100 live keys are one per service and environment with room to rotate
  // each (make the new one, then revoke the old); every live key is a secret
  // to keep and a row the key cache may hold.
  HERALD_MAX_API_KEYS_PER_WORKSPACE: Int(100, 1, 100_000, 'Most live (unrevoked) API keys a workspace may have; creating one more is a 409, on the user API and the operator API. Revoked keys do not count.'),
  // A person signs in from a few browsers and devices; 50 leaves room for
  // many more while a script that signs in in a loop cannot fill the table.
  HERALD_MAX_SESSIONS_PER_USER: Int(50, 1, 10_000, 'Most live sessions (web sessions and app tokens together) one account may have; signing in once more revokes the least recently used.'),
  // Three months: a phone in use opens the app far more often, and a lost or
  // forgotten one's token stops working by itself.
  HERALD_APP_TOKEN_IDLE_DAYS: Int(90, 1, 3650, 'Days an app token (`hrlu_…`, from signing in or from the operator) keeps working unused; past them it is a 401 and the app signs in again. Each use starts the count again (recorded at most once a minute). Web sessions last 30 days from their last use.'),
  HERALD_MAX_WORKSPACES_PER_USER: Int(10, 1, 100_000, 'Most workspaces a person may own (each has its own monthly quota); creating one more is a 409. The operator API is not bound by it.'),
  // A revoked key must stop working everywhere within 5 s, so the cache may
  // not hold an entry longer than that unless the revocation is announced to
  // every process (NATS connected, or the embedded database's one process).
  API_KEY_CACHE_TTL_MS: Int(2000, 0, 5000, 'How long a verified API key (and a channel known to exist) is trusted without a database look-up while a revocation (or a rename or deletion) may not be announced to this process (no NATS, or NATS away).'),
  // Announcements make the caches exact; the age only bounds what a bug in
  // them could cost. 10 min keeps look-ups rare at any number of workspaces.
  CACHE_MAX_AGE_MS: Int(600000, 0, 86400000, 'How long an API key, a workspace\'s routers or a channel\'s devices are trusted from memory while every change is announced to this process over NATS (or the embedded database\'s one process): a revocation or an edit takes effect at once, and this bounds the age of an entry anyway.'),
  // About 200 bytes a key: 100,000 keys are about 20 MB per API process.
  API_KEY_CACHE_MAX: Int(100000, 100, 10000000, 'API keys an API process keeps in memory; beyond it the least recently used is looked up again when it comes back.'),
  // A channel is a short string and a time: 200,000 are about 30 MB, every
  // channel of many thousands of busy workspaces.
  INGEST_CHANNEL_CACHE_MAX: Int(200000, 100, 10000000, 'Channels an API process remembers as existing, so that an event to one needs no look-up; beyond it the least recently used is looked up again when it comes back.'),
  // Routers of 10,000 workspaces and devices of 10,000 channels are a few tens of MB.
  WORKER_CACHE_MAX: Int(10000, 10, 1000000, 'Workspaces whose routers, and channels whose devices, a delivery worker keeps in memory (each); beyond it the least recently used are read again when needed.'),
  // 0 by default: dropping data is the operator's choice. What grows without
  // it is bounded anyway: usage_daily keeps 13 months (partitions.ts), idempotency keys 24 h.
  HERALD_RETENTION_MONTHS: Int(0, 0, 1200, 'Months of events kept, the current one included; older months are dropped whole: their events, the deliveries and delivery attempts of those events, and the outbox rows that list them. usage_daily keeps this many months, and at least 13. 0 keeps every event and delivery.'),
  // nginx lingers up to 30 s (lingering_time) on a refused upload; a refused
  // client here is more often an attacker than a slow uplink, so the bound is
  // small. 512 KiB covers what a client has in flight when its answer comes:
  // a 400 KB body refused from its headers (401), or past POST /event's
  // 256 KiB limit (413), ends within it. Each drained byte is a short-lived
  // buffer: 46 refused 64 MB floods raised the server's memory by 14 MB at
  // 512 KiB and 28 MB at 1 MiB, and by 2 to 7 MB once each drain asks for a
  // collection (test/http/security.bodies.test.ts allows 8). 2 s is the time
  // a client takes to read its answer and stop.
  LINGER_MAX_BYTES: Int(524288, 0, 16777216, 'After an answer sent before the request\'s body was read to its end (a 401, a 413 past the route\'s limit, a 415 …), the most further body bytes Herald reads and discards before it closes the connection, so that the client can read its answer rather than a reset. `0` closes at once.'),
  LINGER_MAX_MS: Int(2000, 0, 60000, 'How long Herald reads and discards the rest of such a body (see `LINGER_MAX_BYTES`) before it closes the connection.'),
  SHUTDOWN_TIMEOUT_MS: Int(10000, 0, 600000, 'How long SIGTERM waits for in-flight requests and batches.'),
  NATS_URL: Type.Optional(Type.String({ pattern: '^\\s*(nats|tls|wss?)://[^,\\s]+(\\s*,\\s*(nats|tls|wss?)://[^,\\s]+)*\\s*$', error: 'a NATS URL (nats://, tls://, ws:// or wss://), or several separated by commas, e.g. nats://10.0.0.1:4222,nats://10.0.0.2:4222', description: 'NATS server with JetStream (`nats://127.0.0.1:4222`), or several servers of one cluster separated by commas, which the client fails over between. Unset: the outbox is dispatched in-process, and `herald start`/`serve` runs the delivery worker itself. Processes start without NATS and join it when it comes.' })),
  NATS_STREAM: Type.String({ default: 'HERALD_EVENTS', pattern: '^[A-Za-z0-9_-]+$', error: 'a stream name: letters, digits, "-" and "_"', description: 'JetStream stream of committed events (a message per committed batch, on subject herald.events.b.<events in it> for the default stream, herald.<NATS_STREAM>.b.<events> for another; notices of changes (caches, read state) on core NATS subject herald.control.<NATS_STREAM>). One per Herald database: a Herald refuses to start on a stream that holds another database\'s events.' }),
  // One copy by default, as a single nats-server keeps; a cluster of three
  // keeps 3, so that losing one node's disk loses nothing and delivery goes on.
  NATS_STREAM_REPLICAS: Int(1, 1, 5, 'Copies of the stream a NATS cluster keeps (JetStream replicas): 1 on a single server, 3 on a cluster of three or more. An existing stream is changed to it at start.'),
  // The ledger (the outbox) keeps every accepted event owed until a worker
  // has recorded its fan-out. Past this age, what is still owed and no longer
  // in JetStream (a limit, an age, a lost store, a deleted stream) is
  // published again. Long enough that a busy worker is not raced, short enough
  // that a loss costs minutes.
  FANOUT_REPLAY_AFTER_MS: Int(120000, 1000, 86400000, 'An accepted event whose fan-out is not recorded this long after it was published is published again, if JetStream holds fewer events than PostgreSQL still owes (it dropped some).'),
  // A 32-byte key, base64. Unset: a key is generated once into
  // HERALD_DATA_DIR/secret.key; every instance sharing a database must then
  // share that file, so set this when scaling out.
  HERALD_SECRET_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$', error: '32 random bytes in base64 (44 characters ending in "="), as `openssl rand -base64 32` prints them', description: 'AES-256 key (32 bytes, base64: `openssl rand -base64 32`) that encrypts router secrets at rest. Unset: generated once into `HERALD_DATA_DIR/secret.key`; set it (the same everywhere) when several instances share a database.' })),
  HERALD_OUTBOUND_ALLOW: Type.String({ default: '', description: 'Comma-separated CIDRs deliveries may reach despite the SSRF rules, e.g. 10.0.0.0/8 for on-premise receivers.' }),
  // Node's and Bun's own variable, read here too so that herald.toml (and a
  // Herald started in-process, the tests) can name it: the runtime reads it
  // only from the environment of the process's start.
  NODE_EXTRA_CA_CERTS: Type.Optional(Type.String({ minLength: 1, description: 'A PEM file of certificate authorities that deliveries trust besides the bundled roots (receivers, the push services, APNs, the FCM token endpoint), e.g. an internal CA or a local stand-in\'s. Herald stops at start when it cannot read it.' })),
  // Svix's schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
  HERALD_RETRY_SCHEDULE: Type.String({ default: '0s,5s,5m,30m,2h,5h,10h,10h', error: 'delays separated by commas, each a whole number with ms, s, m or h, e.g. 0s,5s,5m,30m', pattern: '^\\s*[0-9]+(ms|s|m|h)(\\s*,\\s*[0-9]+(ms|s|m|h))*\\s*$', description: 'Delay before each attempt of a delivery; its length is the number of attempts.' }),
  DELIVERY_TIMEOUT_MS: Int(10000, 100, 120000, 'Time limit of one delivery attempt, connect to last byte.'),
  // Slow receivers must not stall the rest: this many deliveries run at once
  // per worker process; a batch of events waits while twice as many are queued.
  WORKER_CONCURRENCY: Int(256, 1, 10000, 'Deliveries in flight per worker process; a batch of events waits while twice as many are queued.'),
  WORKER_THREADS: Int(2, 0, 64, 'Threads of the piscina pool that renders and sends deliveries; 0 runs them on the worker\'s own thread, which costs less CPU per delivery on a machine of one or two cores.'),
  // One receiver that hangs may hold this many of a worker's sends, no more;
  // the rest of its deliveries wait a little, then are retried later.
  DESTINATION_CONCURRENCY: Int(32, 1, 10000, 'Sends under way to one router\'s destination per worker process; beyond it a delivery waits up to 2 s for a place, then is retried later.'),
  CIRCUIT_FAILURES: Int(5, 1, 1000, 'Consecutive failures (no answer, time-out, 429, 5xx) of a destination that open its circuit: its deliveries are then held back, without being sent or using an attempt, until a trial send succeeds.'),
  // An open circuit costs a dead destination one trial request per cool-down
  // and worker thread, next to nothing, so the cool-downs are short: 5 s at
  // first, doubled after each failed trial up to 20 s. The cap is how long a
  // destination that is back may wait for its first delivery (plus the
  // scheduler's second): within 30 s of its recovery, where a cool-down that
  // doubled up to 10 minutes kept a recovered receiver waiting for minutes.
  CIRCUIT_COOLDOWN_MS: Int(5000, 100, 3600000, 'How long an open circuit stays open before one trial send; doubled after each failed trial, up to `CIRCUIT_COOLDOWN_MAX_MS`.'),
  CIRCUIT_COOLDOWN_MAX_MS: Int(20000, 100, 3600000, 'Longest an open circuit stays open between two trial sends, however many failed: a destination that is back gets a delivery within about this long. Set below `CIRCUIT_COOLDOWN_MS`, it is `CIRCUIT_COOLDOWN_MS`.'),
  // Longer than any attempt can take (DELIVERY_TIMEOUT_MS) plus the queue in
  // front of it; a worker that dies holds its deliveries this long at most.
  DELIVERY_LEASE_MS: Int(60000, 1000, 3600000, 'A delivery taken by a worker that then died is retried by another after this.'),
  // The circuit holds a dead destination's deliveries without using their
  // attempts: this bounds their life. An hour past the schedule's span covers
  // the time its attempts themselves took and a lease or two.
  DELIVERY_EXPIRY_GRACE_MS: Int(3600000, 0, 604800000, 'A pending delivery whose event (or last replay) is older than the span of `HERALD_RETRY_SCHEDULE` plus this fails for good ("retries exhausted: destination unreachable since …"), even if its destination\'s circuit held it back and it used no attempt.'),
  // Long enough for a deploy or a short outage of the receiver to pass
  // unremarked; an open circuit is visible in the metrics at once.
  ROUTER_FAILING_AFTER_MS: Int(900000, 1000, 604800000, 'A router whose destination has failed (its circuit open, no success since) this long is shown as failing in the API, the dashboard and the CLI, and its workspace\'s owners and admins get one e-mail.'),
  // Svix's default: 5 days.
  ROUTER_DISABLE_AFTER_MS: Int(432000000, 1000, 2592000000, 'A router whose destination has failed this long is disabled, its pending deliveries fail, and its owners and admins get one more e-mail.'),
  DELIVERY_SWEEP_INTERVAL_MS: Int(5000, 100, 600000, 'How often each worker fails deliveries past their schedule, expires the pending deliveries of parked routers whose event outlived its ttl, and looks for routers to report as failing or to disable.'),
  // The longest the events of a worker that died wait for another (30 s
  // made its in-flight events arrive 30 s late). A live worker reports its
  // events in progress every third of it (bus_jetstream.ts, pump), so only an
  // event loop stalled for over 5 s lets JetStream give away work in hand, and
  // then the deliveries already recorded are not sent twice.
  JETSTREAM_ACK_WAIT_MS: Int(8000, 1000, 3600000, 'JetStream redelivers a message (a batch of events) whose worker has not acknowledged it after this (a worker reports the messages it is still delivering as in progress every third of it): how long the events of a worker that died wait for another.'),
  // A message (a committed batch) stays unacknowledged until the first
  // attempts of all its events are made and recorded; at 5,000 events/s and
  // 100 ms each, 500 events are pending, in at most 500 messages (batches
  // fill under load, so far fewer). The bound keeps a stalled worker from
  // holding the whole stream: 1,024 full batches are 100,000 events.
  JETSTREAM_MAX_ACK_PENDING: Int(1024, 1, 1000000, 'Messages (each a batch of up to JETSTREAM_BATCH_MAX_EVENTS events) handed to workers and not yet acknowledged, across all workers (the consumer\'s max_ack_pending).'),
  // A committed batch (up to BATCH_MAX_EVENTS, 1,000) is cut into messages
  // of this many events at most: a message goes whole to one worker and is
  // acknowledged when its last event is recorded, so smaller shares spread
  // better across workers and hold less back behind one slow delivery;
  // larger ones cost the stream and the workers less per event (one store,
  // one delivery, one acknowledgement per message).
  JETSTREAM_BATCH_MAX_EVENTS: Int(100, 1, 10000, 'Events of one JetStream message at most: a committed batch larger is published as several messages (as is one larger than 256 KiB, the server\'s max_payload or the stream\'s max_msg_size). Smaller shares work better across workers; larger cost less per event.'),
  // Rows committed by this process are relayed at once; this interval only
  // matters for rows of other processes and after a failure.
  OUTBOX_RELAY_INTERVAL_MS: Int(250, 10, 60000, 'How often the outbox relay looks for events committed by other processes (its own are relayed at once).'),
  TELEGRAM_API_URL: Type.String({ default: 'https://api.telegram.org', pattern: '^https?://', error: 'an http:// or https:// URL', description: 'Base URL of the Telegram Bot API.' }),
  TWILIO_API_URL: Type.String({ default: 'https://api.twilio.com', pattern: '^https?://', error: 'an http:// or https:// URL', description: 'Base URL of the Twilio REST API (SMS).' }),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://', error: 'an SMTP URL: smtp:// or smtps://, e.g. smtps://user:pass@smtp.example.com:465', description: 'SMTP server of account e-mails (password resets, invitations; unset: they are logged instead) and default server of e-mail routers, e.g. `smtps://user:pass@smtp.example.com:465`.' })),
  SMTP_FROM: Type.String({ default: 'Herald <herald@localhost>', description: 'Sender of account e-mails and default sender of e-mail routers.' }),
  // APNs token auth: all four of APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID and
  // APNS_TOPIC, or none (then iOS devices are not pushed).
  APNS_KEY_FILE: Type.Optional(Type.String({ minLength: 1, description: 'Path of the APNs auth key (`.p8`, token-based auth). APNs is on when all four `APNS_KEY_FILE`, `APNS_KEY_ID`, `APNS_TEAM_ID`, `APNS_TOPIC` are set; a partial set stops Herald naming the missing key.' })),
  APNS_KEY_ID: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{10}$', error: '10 capital letters and digits, as Apple shows the key id', description: 'Key ID of the .p8 key (10 characters).' })),
  APNS_TEAM_ID: Type.Optional(Type.String({ pattern: '^[A-Z0-9]{10}$', error: '10 capital letters and digits, as Apple shows the team id', description: 'Apple Developer Team ID (10 characters).' })),
  APNS_TOPIC: Type.Optional(Type.String({ minLength: 1, description: 'Default apns-topic: the iOS app\'s bundle id. A device may name its own.' })),
  // Off by default: `critical` needs Apple's Critical Alerts entitlement in the app, which Apple grants on request.
  APNS_CRITICAL_PRIORITY5: Type.Boolean({ default: false, description: 'Send priority 5 (urgent) to iOS as a critical alert (`interruption-level: critical` with a critical sound, through APNs and FCM\'s `apns` block): it sounds through the mute switch and Do Not Disturb. Only for an app Apple granted the Critical Alerts entitlement; off, priority 5 is `time-sensitive`.' }),
  APNS_ORIGIN: Type.Optional(Type.String({ pattern: '^https://', error: 'an https:// URL', description: 'Replaces both APNs hosts (`https://api.push.apple.com`, `https://api.sandbox.push.apple.com`), e.g. `https://127.0.0.1:8443` for a local stand-in; its CA goes in `NODE_EXTRA_CA_CERTS`.' })),
  FCM_SERVICE_ACCOUNT_FILE: Type.Optional(Type.String({ minLength: 1, description: 'Path of the Firebase service-account JSON. Unset: Android devices are not pushed.' })),
  FCM_ORIGIN: Type.String({ default: 'https://fcm.googleapis.com', pattern: '^https?://', error: 'an http:// or https:// URL', description: 'Base URL of the FCM HTTP v1 API.' }),
  GOOGLE_OAUTH_TOKEN_URL: Type.String({ default: 'https://oauth2.googleapis.com/token', pattern: '^https?://', error: 'an http:// or https:// URL', description: 'OAuth2 token endpoint for the FCM service account.' }),
  // Web Push (browsers, and the installed app on phones): a VAPID key pair,
  // both keys or neither; neither: generated into HERALD_DATA_DIR/vapid.json.
  WEB_PUSH_VAPID_PUBLIC_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{87}$', error: 'a VAPID public key: 87 characters of base64url, as `npx web-push generate-vapid-keys` prints it', description: 'VAPID public key (65-byte P-256 point, base64url), as `npx web-push generate-vapid-keys` prints it. Unset: a pair is generated into HERALD_DATA_DIR/vapid.json. Changing it ends every browser subscription.' })),
  WEB_PUSH_VAPID_PRIVATE_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', error: 'a VAPID private key: 43 characters of base64url, as `npx web-push generate-vapid-keys` prints it', description: 'VAPID private key (32 bytes, base64url), the pair of WEB_PUSH_VAPID_PUBLIC_KEY.' })),
  WEB_PUSH_SUBJECT: Type.Optional(Type.String({ error: 'mailto: with an e-mail address, or an https:// URL', pattern: '^(mailto:[^@\\s]+@[^@\\s]+|https://[^\\s]+)$', description: 'Contact the push services may use about your pushes: mailto:you@example.com or an https URL. Unset: HERALD_PUBLIC_URL when it is https, else mailto:herald@localhost (which Apple refuses).' })),
  WEB_PUSH_TTL_S: Int(86400, 0, 2419200, 'How long (seconds) a push service keeps a Web Push for a browser that is offline; 0: deliver now or never.'),
  WEB_PUSH_CONNECTIONS_PER_ORIGIN: Int(32, 1, 1000, 'Web Pushes under way at once per worker process to one push service that speaks HTTP/1.1 only, each on a connection kept alive and reused; more wait for a free one (within DELIVERY_TIMEOUT_MS). Push services that speak HTTP/2 (FCM, Mozilla, Apple) share one connection among all their pushes and are not bounded by it. Bun keeps 64 idle connections per process, all hosts together.'),
  // Links in e-mails (password resets, invitations) and the dashboard's deep
  // links are built on this; behind a proxy, the address people use.
  HERALD_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*)?$', error: 'an http:// or https:// URL, e.g. https://herald.example.com', description: 'Public base URL of Herald, for links in e-mails, and for the acknowledgement links (`/ack/<token>`) in e-mail and chat messages of events sent with `ack`. Unset: http://localhost:<PORT>.' })),
  HERALD_SIGNUP: Type.Union([Type.Literal('open'), Type.Literal('invite')], { default: 'open', description: '`open`: anyone can sign up (confirming the address by an e-mailed link) and gets a workspace of their own; `invite`: only people with an invitation can sign up.' }),
  // Only behind a proxy that sets them: otherwise a client could pick its own
  // address (sign-in throttling) and pretend to be on https.
  HERALD_TRUST_PROXY: Type.Boolean({ default: false, description: 'Behind a reverse proxy: take the client address (sign-in and e-mail throttling) from the rightmost `X-Forwarded-For` hop, the one the proxy added (a client can write the hops before it), and the scheme from the rightmost `X-Forwarded-Proto` hop (Secure cookies). Without it, the address is that of the connection. Only with a proxy that every request passes through; behind a chain of proxies, have the last one set the header to the client address it trusts.' }),
  HERALD_DEMO_WORKSPACE: Type.Boolean({ default: true, description: 'Embedded mode only: create a demo workspace on first start and print its API key; the first account to sign up owns it.' }),
  LOG_FORMAT: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], { default: 'auto', description: 'json: one JSON object per line; pretty: coloured lines for people; auto: pretty when stdout is a terminal, else json.' }),
  HERALD_CONFIG: Type.Optional(Type.String({ description: 'A TOML file of settings, with the same keys as the environment (`PORT = 8080`). Unset: herald.toml in the working directory, when there is one. The environment wins over the file. `herald --config FILE` sets it.' })),
})
/**
 * The settings, and the two lists loadConfig parses once from their text
 * (whose keys stay, as docs/configuration.md and the tests name them).
 */
export type Config = Static<typeof ConfigSchema> & {
  /** HERALD_OUTBOUND_ALLOW's entries, each an IP address or a CIDR. */
  outboundAllow: string[]
  /** HERALD_RETRY_SCHEDULE in milliseconds: the delay before each attempt; its length is the number of attempts. */
  retryScheduleMs: number[]
}

export class ConfigError extends Error {
  code = 'CONFIG_INVALID'
}

/** What a key takes, in words: its own `error` text, or what its type says. */
function validValues(schema: Record<string, unknown>): string {
  if (typeof schema.error === 'string') return schema.error
  if (Array.isArray(schema.anyOf)) return `one of ${(schema.anyOf as { const: unknown }[]).map((s) => JSON.stringify(s.const)).join(', ')}`
  if (schema.type === 'boolean') return 'true or false'
  if (schema.type === 'integer') return `a whole number from ${schema.minimum} to ${schema.maximum}`
  if (schema.type === 'number') return schema.exclusiveMinimum !== undefined ? `a number above ${schema.exclusiveMinimum}` : 'a number'
  return 'text'
}

// Values never shown in an error: keys, tokens, and URLs (they carry passwords).
const hidden = (key: string) => /TOKEN|URL|KEY|SECRET/.test(key)

/** HERALD_OUTBOUND_ALLOW's entries: the text split at commas, blanks dropped. */
const allowList = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean)

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const

/** HERALD_RETRY_SCHEDULE's delays: "0s,5s,5m" → [0, 5000, 300000]. The schema has checked the syntax. */
function parseSchedule(text: string): number[] {
  return text.split(',').map((part) => {
    const m = /^\s*(\d+)(ms|s|m|h)\s*$/.exec(part)
    if (!m) throw new Error(`invalid retry delay ${JSON.stringify(part)}`)
    return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
  })
}

/**
 * Why HERALD_OUTBOUND_ALLOW's entries are unusable, or null: each must be an
 * IP address or a CIDR (names are not allowed: DNS could move them).
 */
function allowProblem(text: string): string | null {
  const bad: string[] = []
  for (const entry of allowList(text)) {
    try {
      if (entry.includes('/')) ipaddr.parseCIDR(entry)
      else ipaddr.parse(entry)
      if (!ipaddr.isValid(entry.split('/')[0]!)) throw new Error()
    } catch {
      const [ip, bits] = entry.split('/')
      bad.push(ipaddr.isValid(ip!) && bits !== undefined
        ? `${JSON.stringify(entry)}: the prefix length must be 0 to ${ipaddr.parse(ip!).kind() === 'ipv4' ? 32 : 128}`
        : `${JSON.stringify(entry)} is not an IP address or CIDR (host names are not allowed)`)
    }
  }
  return bad.length ? `${bad.join('; ')}; expected IP addresses or CIDRs separated by commas, e.g. 10.0.0.0/8,192.168.1.20` : null
}

/**
 * Parses `env` against the schema; throws one ConfigError naming every bad
 * key, its value (unless secret) and what it takes, in words.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const file = readConfigFile(env)
  const settings = { ...file?.values, ...env }
  const from = (key: string) => (file && env[key] === undefined && file.values[key] !== undefined ? ` (in ${file.path})` : '')
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = settings[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const value = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, raw)) as Record<string, unknown>
  const problems = new Map<string, string>()
  for (const e of Value.Errors(ConfigSchema, value)) {
    const key = e.path.split('/')[1] ?? '(config)'
    if (problems.has(key)) continue
    const schema = (ConfigSchema.properties as Record<string, Record<string, unknown>>)[key]
    const shown = hidden(key) ? '(hidden)' : JSON.stringify(raw[key])
    problems.set(key, `${key}=${shown}${from(key)}: expected ${schema ? validValues(schema) : e.message}`)
  }
  const allow = typeof value.HERALD_OUTBOUND_ALLOW === 'string' ? allowProblem(value.HERALD_OUTBOUND_ALLOW) : null
  if (allow) problems.set('HERALD_OUTBOUND_ALLOW', `HERALD_OUTBOUND_ALLOW${from('HERALD_OUTBOUND_ALLOW')}: ${allow}`)
  if (problems.size) throw new ConfigError(`invalid configuration: ${[...problems.values()].join('\n  ')}`)
  const checked = value as Static<typeof ConfigSchema>
  return { ...checked, outboundAllow: allowList(checked.HERALD_OUTBOUND_ALLOW), retryScheduleMs: parseSchedule(checked.HERALD_RETRY_SCHEDULE) }
}

// The prefixes of Herald's own settings: an unknown variable with one is a
// typo. Another variable is one only when it is a near miss of a long key
// (HOME is not a typo of HOST).
const OURS = /^(HERALD|NATS|APNS|FCM|WEB_PUSH)_/
// What the `herald` CLI reads as a client of a server, not as one.
const CLIENT_SETTINGS = ['HERALD_URL', 'HERALD_KEY']
const nearMiss = (key: string, known: string) => key.length >= 8 && distance(known, key) <= 2


/**
 * Warnings for variables that look like Herald's but are not
 * (`DATABSE_URL`: "did you mean DATABASE_URL?"): a typo must not pass as
 * an unset key.
 */
export function unknownSettings(env: Record<string, string | undefined> = process.env): string[] {
  const known = [...Object.keys(ConfigSchema.properties), ...CLIENT_SETTINGS]
  const suggestion = (key: string) => {
    const best = closest(key, known)
    return best ? `: did you mean ${best}?` : ''
  }
  const out: string[] = []
  for (const key of Object.keys(env).sort()) {
    if (known.includes(key) || !(OURS.test(key) || known.some((k) => nearMiss(key, k)))) continue
    out.push(`${key} is not a Herald setting${suggestion(key)}`)
  }
  // Every key of the file is meant as a setting: all of them are checked.
  const file = readConfigFile(env)
  for (const key of Object.keys(file?.values ?? {}).sort()) {
    if (!known.includes(key) || key === 'HERALD_CONFIG') out.push(`${key} in ${file!.path} is not a Herald setting${key === 'HERALD_CONFIG' ? ' there: name the file with --config or HERALD_CONFIG' : suggestion(key)}`)
  }
  return out
}

/** The default configuration file, looked for in the working directory. */
export const CONFIG_FILE = 'herald.toml'

/**
 * The settings of the TOML file HERALD_CONFIG names, or of ./herald.toml
 * when there is one, as the environment would spell them (strings); undefined
 * without a file. A file that is named but missing, or does not parse, or
 * holds a value that is not a string, number, true/false or a list of those,
 * is a ConfigError naming the file and the place.
 */
export function readConfigFile(env: Record<string, string | undefined>): { path: string; values: Record<string, string> } | undefined {
  const named = env.HERALD_CONFIG || undefined
  const path = named ?? (existsSync(CONFIG_FILE) ? CONFIG_FILE : undefined)
  if (!path) return undefined
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new ConfigError(`cannot read the configuration file ${path} (HERALD_CONFIG or --config): ${(err as { code?: string }).code ?? String(err)}`)
  }
  let doc: Record<string, unknown>
  try {
    doc = parseToml(text)
  } catch (err) {
    const where = err instanceof TomlError ? ` at line ${err.line}, column ${err.column}` : ''
    throw new ConfigError(`${path} is not valid TOML${where}: ${(err as Error).message.split('\n')[0]}`)
  }
  const values: Record<string, string> = {}
  const bad: string[] = []
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'bigint'
  for (const [key, v] of Object.entries(doc)) {
    if (scalar(v)) values[key] = String(v)
    else if (Array.isArray(v) && v.every(scalar)) values[key] = v.map(String).join(',')
    else bad.push(`${key} in ${path}: expected a string, a number, true or false, or a list of them, not ${Array.isArray(v) ? 'a mixed list' : v instanceof Date ? 'a date' : 'a table'}`)
  }
  if (bad.length) throw new ConfigError(`invalid configuration: ${bad.join('\n  ')}`)
  return { path, values }
}
