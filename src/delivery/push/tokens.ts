// The APNs provider token and the FCM access token are had on the main
// thread, once for the process, and go to the pool's threads with each task:
// one token of each, however many threads push (Apple throttles a provider
// that renews its token more often than every 20 minutes). A key that cannot
// sign, or a token endpoint that fails, is reported by each push: the threads
// try too, and say why.
import { signedProviderToken } from './apns'
import { sharedAccessToken } from './fcm'
import type { ApnsConfig, FcmConfig } from './job'

/** What the tokens are had for: the providers' credentials, and the authorities to trust (the send configuration, job.ts SendConfig, has them). */
export interface PushCredentials {
  apns?: ApnsConfig
  fcm?: FcmConfig
  outbound: { ca?: string[] }
}

/** `config` with the tokens of the providers a task pushes to (`providers`: apns, fcm, webpush); `config` itself when none is needed. */
export async function withPushTokens<C extends PushCredentials>(config: C, providers: ReadonlySet<string>): Promise<C> {
  let apns = config.apns
  let fcm = config.fcm
  if (apns && providers.has('apns')) {
    try {
      apns = { ...apns, shared: signedProviderToken(apns) }
    } catch {}
  }
  if (fcm && providers.has('fcm')) {
    const shared = await sharedAccessToken(fcm, config.outbound.ca)
    if (shared) fcm = { ...fcm, shared }
  }
  return apns === config.apns && fcm === config.fcm ? config : { ...config, apns, fcm }
}
