// Reads the APNs and FCM credentials named by the config once, at start, into
// the plain objects the push task receives on its worker thread. APNs or FCM
// left unconfigured is simply off: its devices are not pushed. Web Push is
// always on (src/delivery/push/vapid.ts).
import { readFileSync } from 'node:fs'
import { ConfigError, type Config } from '../../core/config'
import type { Logger } from '../../core/log'
import type { ApnsConfig, FcmConfig, WebPushConfig } from './job'
import { loadWebPushConfig } from './vapid'

export interface PushConfig {
  apns?: ApnsConfig
  fcm?: FcmConfig
  webpush: WebPushConfig // always on: its key pair is generated when none is configured
}

const APNS_KEYS = ['APNS_KEY_FILE', 'APNS_KEY_ID', 'APNS_TEAM_ID', 'APNS_TOPIC'] as const

function read(key: string, path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    throw new ConfigError(`invalid configuration: ${key}: cannot read ${path}: ${(err as Error).message}`)
  }
}

export function loadPushConfig(config: Config, log?: Logger): PushConfig {
  const out: PushConfig = { webpush: loadWebPushConfig(config, log) }
  const apnsSet = APNS_KEYS.filter((k) => config[k])
  if (apnsSet.length && apnsSet.length < APNS_KEYS.length) {
    const missing = APNS_KEYS.find((k) => !config[k])!
    throw new ConfigError(`invalid configuration: ${missing} is required when ${apnsSet.join(', ')} ${apnsSet.length > 1 ? 'are' : 'is'} set`)
  }
  if (apnsSet.length) {
    const keyPem = read('APNS_KEY_FILE', config.APNS_KEY_FILE!)
    if (!keyPem.includes('PRIVATE KEY')) throw new ConfigError('invalid configuration: APNS_KEY_FILE: not a PEM private key (.p8)')
    out.apns = { keyPem, keyId: config.APNS_KEY_ID!, teamId: config.APNS_TEAM_ID!, topic: config.APNS_TOPIC!, origin: config.APNS_ORIGIN, critical: config.APNS_CRITICAL_PRIORITY5 }
  }
  if (config.FCM_SERVICE_ACCOUNT_FILE) {
    let account: FcmConfig['serviceAccount']
    try {
      account = JSON.parse(read('FCM_SERVICE_ACCOUNT_FILE', config.FCM_SERVICE_ACCOUNT_FILE))
    } catch (err) {
      if (err instanceof ConfigError) throw err
      throw new ConfigError('invalid configuration: FCM_SERVICE_ACCOUNT_FILE: not JSON')
    }
    if (!account?.project_id || !account.client_email || !account.private_key) {
      throw new ConfigError('invalid configuration: FCM_SERVICE_ACCOUNT_FILE: needs project_id, client_email and private_key')
    }
    out.fcm = { serviceAccount: account, origin: config.FCM_ORIGIN, tokenUrl: config.GOOGLE_OAUTH_TOKEN_URL, critical: config.APNS_CRITICAL_PRIORITY5 }
  }
  log?.info({ apns: !!out.apns, fcm: !!out.fcm, webpush: true }, 'push providers')
  return out
}
