// The send configuration: what every delivery of a process shares (limits,
// the outbound rules, endpoints, push credentials), made from the
// configuration once, at boot, and handed to the fan-out (which sends it to
// the pool's threads with each task) and to the dashboard's test send.
import { ConfigError, type Config } from '../core/config'
import type { PushConfig } from './push/config'
import type { OutboundOptions, SendConfig } from './job'
import { caList } from './outbound'
import type { AckLinkConfig } from './ack_link'

// Of a response, an attempt keeps 1 KiB (outbound.ts preview) and a
// destination reads the JSON of an API's answer (Telegram's flood control):
// 64 KiB is ample for both, and a receiver cannot make a worker buffer more.
const MAX_RESPONSE_BYTES = 64 * 1024
// How long a delivery waits for a place at its destination (DESTINATION_CONCURRENCY)
// before it is held back for later, at most: a hanging destination must not
// hold a thread's sends for the whole of DELIVERY_TIMEOUT_MS.
const PLACE_WAIT_MS = 2000

/**
 * The limits, outbound rules and endpoints of every send, and the push
 * credentials `push` holds (none for a test send). `ackLinkKey`: the key of
 * the /ack/<token> links in e-mail and chat messages (ack_link.ts); none, no links.
 */
export function sendConfigFrom(config: Config, push: Partial<PushConfig> = {}, ackLinkKey?: string): SendConfig {
  return {
    maxInFlight: perThread(config.WORKER_CONCURRENCY, config.WORKER_THREADS),
    circuit: {
      maxInFlight: perThread(config.DESTINATION_CONCURRENCY, config.WORKER_THREADS),
      failures: config.CIRCUIT_FAILURES,
      cooldownMs: config.CIRCUIT_COOLDOWN_MS,
      maxCooldownMs: config.CIRCUIT_COOLDOWN_MAX_MS,
      waitMs: Math.min(PLACE_WAIT_MS, config.DELIVERY_TIMEOUT_MS),
    },
    outbound: {
      allow: config.outboundAllow, // HERALD_OUTBOUND_ALLOW, parsed by loadConfig
      timeoutMs: config.DELIVERY_TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      ...trustedCa(config.NODE_EXTRA_CA_CERTS),
    },
    endpoints: {
      telegram: config.TELEGRAM_API_URL, twilio: config.TWILIO_API_URL, smtpUrl: config.SMTP_URL, smtpFrom: config.SMTP_FROM,
      ...(ackLinkKey ? { ackLink: ackLinkOf(config, ackLinkKey) } : {}),
    },
    apns: push.apns,
    fcm: push.fcm,
    webpush: push.webpush && { ...push.webpush, connectionsPerOrigin: perThread(config.WEB_PUSH_CONNECTIONS_PER_ORIGIN, config.WORKER_THREADS) },
  }
}

/** A process-wide bound's share for one of `threads` pool threads (0: the worker's own thread). */
const perThread = (bound: number, threads: number) => Math.max(1, Math.ceil(bound / Math.max(1, threads)))

/** Where the links lead: HERALD_PUBLIC_URL, else this server on localhost (as the account e-mails' links). */
const ackLinkOf = (config: Pick<Config, 'HERALD_PUBLIC_URL' | 'PORT'>, key: string): AckLinkConfig =>
  ({ base: (config.HERALD_PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, ''), key })

/**
 * OutboundOptions.ca for NODE_EXTRA_CA_CERTS. Bun trusts the file its
 * process started with by itself, in every thread, for fetch and node:http2
 * alike, while a `ca` list handed to fetch costs some 60 µs a request (it
 * parses the ~140 bundled roots each time). So the list travels only when the
 * file is another: named in herald.toml, or given to a Herald started
 * in-process (the tests). `runtime`: the variable as the process started.
 */
export function trustedCa(file: string | undefined, runtime = process.env.NODE_EXTRA_CA_CERTS): Pick<OutboundOptions, 'ca'> {
  if (!file) return {}
  let ca: string[]
  try {
    ca = caList(file)
  } catch (err) {
    throw new ConfigError(`invalid configuration: NODE_EXTRA_CA_CERTS: cannot read ${file}: ${(err as { code?: string }).code ?? String(err)}`)
  }
  return file === runtime ? {} : { ca }
}
