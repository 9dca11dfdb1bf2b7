// The plain, serialisable job a worker thread receives for one push to one
// device, and the result it returns. Everything here is structured-cloned
// across threads: no class instances, no functions, no key objects (the .p8
// and the service-account key travel as PEM text and are parsed once per
// thread). An expected failure (a 410, a 503, a reset) is a result with
// ok: false, never a throw.
import type { EventView } from '../event_view'

/** APNs token-based auth (a .p8 key), from APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID, APNS_TOPIC. */
export interface ApnsConfig {
  keyPem: string // the .p8 contents: a PKCS#8 PEM EC P-256 private key
  keyId: string // the key's 10-character Key ID: the JWT's `kid`
  teamId: string // the 10-character Team ID: the JWT's `iss`
  topic: string // default apns-topic (the app's bundle id); a device may name its own
  origin?: string // APNS_ORIGIN, e.g. https://127.0.0.1:8443: replaces BOTH Apple hosts (local stand-ins)
  jwtTtlMs?: number // how long one provider token is reused; default 50 min (APNs rejects it at 60)
  shared?: { jwt: string; at: number } // the token the process's main thread signed, used by every pool thread
  critical?: boolean // APNS_CRITICAL_PRIORITY5: priority 5 is `critical` (the app needs Apple's entitlement)
}

/** FCM HTTP v1 with a service account, from FCM_SERVICE_ACCOUNT_FILE, FCM_ORIGIN, GOOGLE_OAUTH_TOKEN_URL. */
export interface FcmConfig {
  serviceAccount: {
    project_id: string
    client_email: string
    private_key: string // PEM; signs the RS256 assertion exchanged for an access token
    private_key_id?: string
    token_uri?: string // ignored: GOOGLE_OAUTH_TOKEN_URL decides
    [key: string]: unknown
  }
  origin: string // FCM_ORIGIN, default https://fcm.googleapis.com
  tokenUrl: string // GOOGLE_OAUTH_TOKEN_URL, default https://oauth2.googleapis.com/token
  shared?: { token: string; expiresAt: number } // the access token the process's main thread holds, used by every pool thread
  critical?: boolean // APNS_CRITICAL_PRIORITY5, for the iOS devices FCM pushes through its `apns` block
}

/**
 * Web Push (RFC 8030) with VAPID (RFC 8292), from WEB_PUSH_VAPID_PUBLIC_KEY,
 * WEB_PUSH_VAPID_PRIVATE_KEY and WEB_PUSH_SUBJECT, or a pair generated into
 * HERALD_DATA_DIR/vapid.json. Keys are base64url, as browsers take them.
 */
export interface WebPushConfig {
  publicKey: string // the 65-byte uncompressed P-256 point: the app's applicationServerKey
  privateKey: string // its 32-byte private scalar
  subject: string // the JWT's `sub`: mailto: or https: contact for the push services
  ttlSeconds: number // how long a push service keeps a push for a browser that is offline
  /** Sends under way to one push service that speaks HTTP/1.1 only, in this thread: WEB_PUSH_CONNECTIONS_PER_ORIGIN's share (send_config.ts); absent, 32. */
  connectionsPerOrigin?: number
}

/** A device to push: what a push needs of a `devices` row. */
export interface PushTarget {
  id: string
  provider: 'apns' | 'fcm' | 'webpush'
  token: string // Web Push: the subscription's endpoint URL
  environment: 'sandbox' | 'production' // APNs host; FCM and Web Push have one
  topic: string | null // APNs topic override (bundle id)
  p256dh?: string | null // Web Push: the browser's public key (base64url)
  auth?: string | null // Web Push: the subscription's auth secret (base64url)
}

export interface PushJob {
  deliveryId: string // stable across attempts; a UUID, sent to APNs as apns-id
  attempt: number // 1-based
  event: EventView
  device: PushTarget
  apns?: ApnsConfig
  fcm?: FcmConfig
  webpush?: WebPushConfig
  /** Whole attempt, queueing for a stream included; default 10 s (DELIVERY_TIMEOUT_MS fits). */
  timeoutMs?: number
  /** The certificate authorities to trust instead of the runtime's (OutboundOptions.ca); absent: the runtime's. */
  ca?: string[]
}

export interface PushResult {
  ok: boolean
  retryable: boolean // meaningful when !ok: 429, 5xx, network errors and time-outs
  status?: number // HTTP status when a response arrived
  reason?: string // APNs `reason` (e.g. "BadDeviceToken") or FCM error code (e.g. "UNREGISTERED")
  retryAfterMs?: number // from Retry-After; FCM quota errors wait at least a minute
  unregistered?: boolean // the token is dead: delete the device
  durationMs: number
  error?: string // why it failed, readable by an operator
}
