// The Web Push contract between Herald, the page and the service worker: the
// payload a push carries, and the device a browser subscription registers as.

import type { WebPushPayload } from '../delivery/push/webpush'
import type { Schemas } from './api'

/** What a push carries: the server's type (src/delivery/push/webpush.ts). */
export type PushPayload = WebPushPayload

export const VAPID_KEY_PATH = '/v1/push/vapid-public-key'

/** The body of POST /v1/devices for a browser subscription (whose JSON always has its endpoint and keys). */
export const deviceBody = (subscription: PushSubscription): Schemas['DeviceBody'] => ({ provider: 'webpush', platform: 'web', subscription: subscription.toJSON() as Schemas['PushSubscription'] })

/** The bytes of a base64url string (a VAPID public key). */
export function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(base64url.length / 4) * 4, '=')
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
}
