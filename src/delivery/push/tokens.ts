// The APNs provider token and the FCM access token are had on the main
// thread, once for the process, and go to the pool's threads with each task:
// one token of each, however many threads push (Apple throttles a provider
// that renews its token more often than every 20 minutes). A key that cannot
// sign, or a token endpoint that fails, is reported by each push: the threads
// try too, and say why.
import type { SendConfig } from '../job'
import { signedProviderToken } from './apns'
import { sharedAccessToken } from './fcm'

/** `config` with the tokens of the providers a task pushes to (`providers`: apns, fcm, webpush); `config` itself when none is needed. */
export async function withPushTokens(config: SendConfig, providers: ReadonlySet<string>): Promise<SendConfig> {
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
